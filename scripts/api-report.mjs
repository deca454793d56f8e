#!/usr/bin/env node
// @ts-check
/**
 * The API reports of the package in the current directory: API Extractor reads the built
 * declarations of each entry point (one `api-extractor*.json` per entry point, e.g.
 * `dist/index.d.ts`) and compares them with the checked-in reports in `etc/`.
 *
 *   node ../../scripts/api-report.mjs          check: fail when an export changed or a doc comment
 *                                              is malformed (what each package's `test` runs)
 *   node ../../scripts/api-report.mjs --local  write the reports (`pnpm api`); commit the result
 *
 * Needs `pnpm build` first: the reports are made from `dist/`, not from the sources.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const local = process.argv.includes('--local');
const root = `${process.cwd()}/`;
const packageName = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).name;
const configs = readdirSync(root)
  .filter((name) => /^api-extractor(\.[\w-]+)?\.json$/.test(name))
  .sort();

if (!existsSync(`${root}dist/index.d.ts`)) {
  console.error('dist/index.d.ts is missing: run `pnpm build` first');
  process.exit(1);
}

let failed = false;
for (const name of configs) {
  const config = ExtractorConfig.loadFileAndPrepare(`${root}${name}`);
  const result = Extractor.invoke(config, {
    localBuild: local,
    showVerboseMessages: false,
    messageCallback: (message) => {
      // The banner and "Analysis will use the bundled TypeScript version" are noise here.
      if (message.logLevel === 'info' || message.logLevel === 'verbose') {
        message.handled = true;
      }
    },
  });
  const report = config.reportConfigs[0]?.fileName ?? name;
  if (!result.succeeded) {
    failed = true;
    if (result.apiReportChanged && !local) {
      console.error(
        `\n${report}: the exported API differs from the checked-in report. If the change is ` +
          `meant, run \`pnpm --filter ${packageName} api\` and commit etc/*.api.md ` +
          `(the new report is in ${config.reportTempFolder}).`,
      );
    } else {
      console.error(
        `\n${report}: API Extractor found ${result.errorCount} error(s) and ${result.warningCount} warning(s) (above).`,
      );
    }
  } else if (local && result.apiReportChanged) {
    console.log(`${report}: updated — commit it with the change that caused it`);
  } else {
    console.log(`${report}: up to date`);
  }
}
process.exit(failed ? 1 : 0);
