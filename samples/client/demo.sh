#!/usr/bin/env bash
# demo.sh — `make demo`'s service step: starts `folio serve` on a loopback
# port, renders samples/sales through it with render.py (one PDF, then a zip
# of xlsx + docx), drives a session through three cells to summary.pdf with
# session.py, and stops it with SIGTERM (which drains).
# Usage: samples/client/demo.sh FOLIO_BIN OUTDIR
set -uo pipefail
folio=$(readlink -f "$1"); out=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
log=$(mktemp); "$folio" serve --listen 127.0.0.1:0 2>"$log" >/dev/null & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do
  addr=$(grep -o '"address": "[^"]*"' "$log" | head -1 | cut -d'"' -f4); [ -n "$addr" ] && break; sleep 0.1
done
[ -n "${addr:-}" ] || { echo "demo: folio serve did not start:"; cat "$log"; exit 1; }
echo "demo: folio serve listening on $addr"
fail=0
python3 "$here/render.py" --url "http://$addr" "$here/../sales/sales.json" pdf -o "$out/sales-served.pdf" || fail=1
python3 "$here/render.py" --url "http://$addr" "$here/../sales/sales.json" xlsx docx -o "$out/sales-served.zip" || fail=1
(cd "$out" && python3 "$here/session.py" --url "http://$addr" "$here/../sales/sales.csv") || fail=1
kill -TERM $pid; wait $pid; echo "demo: folio serve stopped (exit $?)"
grep -c '"route": "render"' "$log" | xargs -I{} echo "demo: {} requests logged"
exit $fail
