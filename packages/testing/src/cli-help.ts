/**
 * The options an mcpkit CLI says it takes, read from its `--help` (runCli's table: flag, value,
 * environment variable, description): what a server.json's `packageArguments` and
 * `environmentVariables` are checked against, so a flag the CLI does not know fails a test.
 */

/** One option row of a CLI's `--help`. */
export interface CliHelpOption {
  /** The flag, with its dashes (`--port`). */
  readonly flag: string;
  /** The value's placeholder (`value`, or `stdio|http`); undefined for a switch (`--enable-sensitive`). */
  readonly value: string | undefined;
  /** The allowed values, when the placeholder lists them (`<stdio|http>`). */
  readonly choices: readonly string[] | undefined;
  /** The environment variable read in its place, if any. */
  readonly env: string | undefined;
  /** What the help says about it, without the trailing `(default: …)`. */
  readonly description: string;
  /** The default the help names (`(default: 3000)`), if any. */
  readonly default: string | undefined;
}

// `  --flag <value>    ENV_VAR    description`: columns padded with two or more spaces; the
// environment column is absent for --help and --version.
const ROW = /^ {2}(--[a-z0-9-]+)(?: <([^>]+)>)?\s{2,}(?:([A-Z][A-Z0-9_]*)\s{2,})?(.*)$/;
const DEFAULT = /\s*\(default: ([^)]*)\)$/;

/** The option rows of a `--help` text (the "Options" section; commands are not options). */
export function parseCliHelp(text: string): CliHelpOption[] {
  const options: CliHelpOption[] = [];
  let inOptions = false;
  for (const line of text.split('\n')) {
    if (/^Options\b/.test(line)) {
      inOptions = true;
      continue;
    }
    if (!inOptions) continue;
    if (line.trim() === '') break;
    const m = ROW.exec(line);
    if (!m) continue;
    const flag = m[1] as string;
    const value = m[2];
    const env = m[3];
    const rest = m[4] ?? '';
    const defaultMatch = DEFAULT.exec(rest);
    options.push({
      flag,
      value,
      choices: value?.includes('|') ? value.split('|') : undefined,
      env,
      description: (defaultMatch ? rest.slice(0, defaultMatch.index) : rest).trim(),
      default: defaultMatch?.[1],
    });
  }
  return options;
}
