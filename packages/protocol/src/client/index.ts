// The client half of MCP: McpClient and the transports it speaks over.
export {};
