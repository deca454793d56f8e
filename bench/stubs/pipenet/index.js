// mcp-proxy imports `pipenet` at start-up but calls it only with --tunnel, which the bench never
// passes. See the override in pnpm-workspace.yaml.
export async function pipenet() {
  throw new Error('pipenet is stubbed in the mcpkit workspace: mcp-proxy --tunnel is unavailable');
}
