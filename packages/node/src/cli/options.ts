import { parseArgs } from 'node:util';

/** One flag of an app's command line, with the environment variable that sets it too. */
export interface CliOption {
  /** Long flag name without dashes, e.g. `port`. */
  name: string;
  /**
   * Environment variable with the same meaning, e.g. `MCP_PORT`; none for a flag that is an
   * action (`--help`, `--version`), which the environment must never trigger.
   */
  env?: string;
  /** One line for `--help`. */
  description: string;
  /** A string takes a value (`--port 3000`); a boolean is a switch (`--help`). */
  type: 'string' | 'boolean';
  /** The value when neither the flag nor the variable is given. */
  default?: string | boolean;
  /** The only values accepted; anything else is a usage error. */
  choices?: readonly string[];
  /** Shown in --help instead of the default (e.g. for secrets). */
  placeholder?: string;
  /** One-letter alias, e.g. `h` for `-h`. */
  short?: string;
}

/** Resolved option values by flag name (`values.port`, `values['log-level']`). */
export type CliValues = Record<string, string | boolean | undefined>;

/** A command line the app cannot run with: `runCli` prints it with the usage and exits 2. */
export class CliUsageError extends Error {
  /** @param message - What is wrong, for the user. */
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off', '']);

/**
 * Flags win over environment variables, which win over defaults. Unknown flags, bad choices and
 * malformed booleans are usage errors, never silently ignored.
 */
export function resolveOptions(
  options: readonly CliOption[],
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { values: CliValues; positionals: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        options.map((o) => [o.name, o.short ? { type: o.type, short: o.short } : { type: o.type }]),
      ),
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw new CliUsageError(parseErrorMessage(err as Error));
  }
  const values: CliValues = {};
  for (const option of options) {
    let value = parsed.values[option.name] as string | boolean | undefined;
    if (value === undefined) {
      // An empty variable is an unset one (`MCP_PORT= app` is how a shell unsets it for one run).
      const fromEnv = option.env === undefined ? undefined : env[option.env];
      if (fromEnv !== undefined && fromEnv !== '') {
        if (option.type === 'boolean') {
          const lower = fromEnv.trim().toLowerCase();
          if (TRUE.has(lower)) value = true;
          else if (FALSE.has(lower)) value = false;
          else throw new CliUsageError(`${option.env} must be true or false, got '${fromEnv}'`);
        } else {
          value = fromEnv;
        }
      }
    }
    value ??= option.default;
    if (typeof value === 'string' && option.choices && !option.choices.includes(value)) {
      throw new CliUsageError(
        `--${option.name} must be one of ${option.choices.join(', ')}; got '${value}'`,
      );
    }
    values[option.name] = value;
  }
  return { values, positionals: parsed.positionals };
}

/**
 * `parseArgs`' message without its hint about positionals after `--` (`Unknown option '--bogus'.
 * To specify a positional argument starting with a '-', …`): no app takes such positionals, so
 * the hint only misleads; the usage printed below the message is the help.
 */
function parseErrorMessage(err: Error): string {
  const message = err.message;
  const hint = message.indexOf('. To specify a positional argument');
  return hint === -1 ? message : message.slice(0, hint);
}

/** The `--help` text: description, usage lines, every option with its variable, subcommands. */
export function usage(
  command: string,
  description: string,
  options: readonly CliOption[],
  commands: readonly { usage: string; description: string }[] = [],
): string {
  const rows = options.map((o) => {
    const flag = `--${o.name}${o.type === 'string' ? ` <${o.choices ? o.choices.join('|') : 'value'}>` : ''}`;
    const def =
      o.placeholder ??
      (o.default === undefined || o.default === false ? '' : ` (default: ${String(o.default)})`);
    return [flag, o.env ?? '', `${o.description}${def}`] as const;
  });
  const w1 = Math.max(...rows.map((r) => r[0].length));
  const w2 = Math.max(...rows.map((r) => r[1].length));
  const lines = [`${command} — ${description}`, '', `Usage: ${command} [options]`];
  for (const c of commands) lines.push(`       ${command} ${c.usage}`);
  lines.push('', 'Options (each also read from the environment variable beside it):');
  for (const [flag, env, text] of rows)
    lines.push(`  ${flag.padEnd(w1)}  ${env.padEnd(w2)}  ${text}`);
  if (commands.length > 0) {
    lines.push('', 'Commands:');
    const w = Math.max(...commands.map((c) => c.usage.length));
    for (const c of commands) lines.push(`  ${c.usage.padEnd(w)}  ${c.description}`);
  }
  return `${lines.join('\n')}\n`;
}
