/** Our MCP server core over stdio: one session, the `add` tool. */
import { serveMcpStdio } from '@mcpkit/protocol';
import { engineServer } from './engine-tools.js';

await serveMcpStdio(engineServer());
