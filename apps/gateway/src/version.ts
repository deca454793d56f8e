import { createRequire } from 'node:module';

/** The package's own version: what `--version`, `serverInfo` and `clientInfo` say. */
export const VERSION: string = createRequire(import.meta.url)('../package.json').version;
