import { describe, expect, it } from 'vitest';
import { type CliOption, CliUsageError, resolveOptions, usage } from './options.js';

const OPTIONS: CliOption[] = [
  {
    name: 'transport',
    env: 'T',
    description: 'transport',
    type: 'string',
    default: 'stdio',
    choices: ['stdio', 'http'],
  },
  { name: 'port', env: 'P', description: 'port', type: 'string', default: '3000' },
  { name: 'verbose', env: 'V', description: 'verbose', type: 'boolean' },
  { name: 'version', description: 'print the version', type: 'boolean' },
];

describe('resolveOptions', () => {
  it('takes flags over environment over defaults', () => {
    expect(resolveOptions(OPTIONS, [], {}).values).toEqual({
      transport: 'stdio',
      port: '3000',
      verbose: undefined,
      version: undefined,
    });
    expect(resolveOptions(OPTIONS, [], { T: 'http', P: '8080', V: 'yes' }).values).toEqual({
      transport: 'http',
      port: '8080',
      verbose: true,
      version: undefined,
    });
    expect(
      resolveOptions(OPTIONS, ['--port', '9', '--transport=stdio'], { T: 'http', P: '8080' })
        .values,
    ).toMatchObject({
      transport: 'stdio',
      port: '9',
    });
  });

  it('reads booleans from the environment strictly', () => {
    expect(resolveOptions(OPTIONS, [], { V: '0' }).values.verbose).toBe(false);
    expect(() => resolveOptions(OPTIONS, [], { V: 'maybe' })).toThrow(CliUsageError);
  });

  it('never reads an action flag from the environment, and takes an empty variable as unset', () => {
    // MCP_VERSION=2025-06-18 in a shell must not make an app print its version (or fail).
    const env = { VERSION: '2025-06-18', MCP_VERSION: '2025-06-18', P: '', T: '', V: '' };
    expect(resolveOptions(OPTIONS, [], env).values).toEqual({
      transport: 'stdio',
      port: '3000',
      verbose: undefined,
      version: undefined,
    });
    expect(resolveOptions(OPTIONS, ['--version'], env).values.version).toBe(true);
  });

  it('refuses unknown flags and values outside the choices', () => {
    expect(() => resolveOptions(OPTIONS, ['--nope'], {})).toThrow(CliUsageError);
    expect(() => resolveOptions(OPTIONS, ['--transport', 'carrier-pigeon'], {})).toThrow(
      /one of stdio, http/,
    );
    expect(() => resolveOptions(OPTIONS, [], { T: 'ws' })).toThrow(/one of stdio, http/);
  });

  it("names an unknown flag without parseArgs' hint about positionals after '--'", () => {
    const message = (argv: string[]) => {
      try {
        resolveOptions(OPTIONS, argv, {});
      } catch (err) {
        expect(err).toBeInstanceOf(CliUsageError);
        return (err as Error).message;
      }
      throw new Error('no usage error');
    };
    expect(message(['--bogus'])).toBe("Unknown option '--bogus'");
    expect(message(['-x'])).toBe("Unknown option '-x'");
    expect(message(['--port'])).toBe("Option '--port <value>' argument missing");
  });

  it('returns positionals for subcommands', () => {
    expect(resolveOptions(OPTIONS, ['keys', 'list', '--port', '1'], {}).positionals).toEqual([
      'keys',
      'list',
    ]);
  });
});

describe('usage', () => {
  it('lists every flag with its environment variable and default', () => {
    const text = usage('demo', 'a demo', OPTIONS, [
      { usage: 'keys list', description: 'list keys' },
    ]);
    expect(text).toContain('Usage: demo [options]');
    for (const o of OPTIONS) {
      expect(text).toContain(`--${o.name}`);
      if (o.env) expect(text).toContain(o.env);
    }
    expect(text).toContain('(default: 3000)');
    expect(text).toContain('keys list');
  });
});
