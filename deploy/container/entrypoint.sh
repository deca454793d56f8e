#!/bin/sh
# Entrypoint of the mcpkit gateway image (deploy/container/Dockerfile).
#
#   (no arguments)      mcp-gateway with the image's settings (MCP_* variables; the config at
#                       $MCP_GATEWAY_CONFIG, /etc/mcpkit/gateway.json unless changed)
#   --flag …            mcp-gateway with these flags, e.g. --log-level debug
#   mcp-projects …      any other command, e.g. `mcp-projects users create anna@example.com`
#
# Secrets may come as files (Docker/Podman secrets, Kubernetes volumes): VAR_FILE=/run/secrets/x
# sets VAR to the file's content (one trailing newline dropped) for MCP_GATEWAY_TOKEN,
# MCP_METRICS_TOKEN and CODEFLUSS_API_KEY. Setting both VAR and VAR_FILE is an error.
# The command is exec'd: it gets SIGTERM itself (the gateway drains, its backends stop with it).
set -eu

for var in MCP_GATEWAY_TOKEN MCP_METRICS_TOKEN CODEFLUSS_API_KEY; do
  eval "file=\${${var}_FILE:-}"
  [ -n "$file" ] || continue
  eval "value=\${${var}:-}"
  if [ -n "$value" ]; then
    echo "mcpkit-entrypoint: set ${var} or ${var}_FILE, not both" >&2
    exit 2
  fi
  if [ ! -r "$file" ]; then
    echo "mcpkit-entrypoint: ${var}_FILE: cannot read $file" >&2
    exit 2
  fi
  # $(…) drops trailing newlines; the value never appears in a log or on a command line.
  value=$(cat "$file")
  export "${var}=${value}"
  unset "${var}_FILE"
done

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  exec mcp-gateway "$@"
fi
exec "$@"
