import { describe, expect, it } from 'vitest';
import { parseCliHelp } from './cli-help.js';

const HELP = `mcp-x — an example

Usage: mcp-x [options]

Options (each also read from the environment variable beside it):
  --transport <stdio|http>  MCP_TRANSPORT       stdio for one client, http to listen (default: stdio)
  --port <value>            MCP_PORT            HTTP port (0 picks a free one) (default: 3000)
  --help                                        print this help and exit
  --enable-sensitive        MCP_X_SENSITIVE     enable scope sensitive (auth logs)
  --host <value>            MCP_HOST            HTTP address to bind; non-loopback needs auth

Commands:
  users create <email>      make a user
`;

describe('parseCliHelp', () => {
  it('reads each option row: flag, value, choices, variable, description and default', () => {
    const options = parseCliHelp(HELP);
    expect(options.map((o) => o.flag)).toEqual([
      '--transport',
      '--port',
      '--help',
      '--enable-sensitive',
      '--host',
    ]);
    expect(options[0]).toEqual({
      flag: '--transport',
      value: 'stdio|http',
      choices: ['stdio', 'http'],
      env: 'MCP_TRANSPORT',
      description: 'stdio for one client, http to listen',
      default: 'stdio',
    });
    // Only the last parenthesis is the default; a switch has no value; --help no variable.
    expect(options[1]?.description).toBe('HTTP port (0 picks a free one)');
    expect(options[2]).toMatchObject({ value: undefined, env: undefined });
    expect(options[3]).toMatchObject({ value: undefined, env: 'MCP_X_SENSITIVE' });
    // A description starting with capitals is not read as a variable (one space after it).
    expect(options[4]).toMatchObject({
      env: 'MCP_HOST',
      description: 'HTTP address to bind; non-loopback needs auth',
    });
  });

  it('stops at the end of the options: commands are not options', () => {
    expect(parseCliHelp(HELP).some((o) => o.flag.includes('users'))).toBe(false);
    expect(parseCliHelp('no options here\n  --x <v>  X  y\n')).toEqual([]);
  });
});
