#!/usr/bin/env bash
# bench-mcp.sh — a tool call's round trip through folio's MCP server: `1+1`
# by run_python over stdio (`folio mcp`) and over streamable HTTP (`folio
# serve`'s /mcp), beside the same cell through POST /v1/sessions/{id}/exec,
# all three driven from one Node process (the official MCP SDK client, and
# fetch for the REST route). Usage: bench/bench-mcp.sh FOLIO_BIN [RUNS]
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
runs=${2:-200}
here=$(cd "$(dirname "$0")" && pwd)
mcp=$here/../tests/mcp
command -v node >/dev/null || { echo "bench-mcp: no node here (make deps-test)"; exit 0; }
[ -d "$mcp/node_modules/@modelcontextprotocol/sdk" ] || (cd "$mcp" && npm ci --no-audit --no-fund >/dev/null) || exit 1
tmp=$(mktemp -d /tmp/folio-bench-mcp.XXXXXX)
chmod 700 "$tmp"
token=bench-token-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$token" > "$tmp/tokens"
chmod 600 "$tmp/tokens"
"$folio" serve --listen 127.0.0.1:0 --token-file "$tmp/tokens" --scratch "$tmp" \
  --session-dir "$tmp/sessions" 2> "$tmp/log" &
srv=$!
stop() {
  kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
  for i in $(ls "$tmp/rt/folio/spares" "$tmp/sessions/spares" 2>/dev/null | grep -E '^[0-9a-f]{32}$'); do
    XDG_RUNTIME_DIR=$tmp/rt "$folio" session close "$i" >/dev/null 2>&1
    FOLIO_SESSION_DIR=$tmp/sessions "$folio" session close "$i" >/dev/null 2>&1
  done
  rm -rf "$tmp"
}
trap stop EXIT
for _ in $(seq 50); do grep -q '"listening"' "$tmp/log" && break; sleep 0.1; done
addr=$(grep -o '"address": "[^"]*"' "$tmp/log" | head -1 | cut -d'"' -f4)
mkdir -m 700 "$tmp/rt"
cd "$mcp"
stdio=$(XDG_RUNTIME_DIR=$tmp/rt node drive.mjs bench-stdio "$folio" "$runs")
http=$(node drive.mjs bench-http "http://$addr/mcp" "$token" "$runs")
rest=$(node drive.mjs bench-rest "http://$addr" "$token" "$runs")
/usr/bin/python3 - "$stdio" "$http" "$rest" <<'PY'
import json, sys
rows = [("MCP tools/call run_python, stdio", json.loads(sys.argv[1])),
        ("MCP tools/call run_python, HTTP /mcp", json.loads(sys.argv[2])),
        ("POST /v1/sessions/{id}/exec", json.loads(sys.argv[3]))]
print("round trip of `1+1` (%d calls each, one client process)" % rows[0][1]["n"])
for name, r in rows:
    print("  %-38s median %6.2f ms   best %6.2f ms" % (name, r["median_ms"], r["min_ms"]))
PY
