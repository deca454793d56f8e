/** The gateway's subcommands: what `mcp-gateway <command>` does instead of serving. */
import { hashPasswordCommand } from './auth/users.js';
import { newVaultKey } from './vault/keys.js';

/** The subcommands, as runCli lists them in `--help`. */
export const COMMANDS = [
  {
    usage: 'hash-password',
    description: 'read a password on stdin, print its hash for gateway.authorization_server.users',
  },
  {
    usage: 'vault-key',
    description: 'print a new key for the credential vault (MCP_GATEWAY_VAULT_KEY)',
  },
];

/** Run the subcommand `positionals` names; its exit code (2: no such command). */
export async function runCommand(positionals: readonly string[]): Promise<number> {
  const [command, ...rest] = positionals;
  if (rest.length === 0 && command === 'hash-password') return hashPasswordCommand();
  if (rest.length === 0 && command === 'vault-key') {
    process.stdout.write(`${newVaultKey()}\n`);
    return 0;
  }
  process.stderr.write(
    `mcp-gateway: unknown command '${positionals.join(' ')}' (commands: ${COMMANDS.map((c) => c.usage).join(', ')})\n`,
  );
  return 2;
}
