#!/usr/bin/env bash
# run.sh — `make bench`: runs every bench/bench-*.sh against the folio binary.
# Each prints its own table (wall time, peak RSS, bytes, ratios against the
# peer tools on the same input). A benchmark, not a test: nothing here fails
# the build except a script that cannot run at all.
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/work"
status=0
for b in "$here"/bench-*.sh; do
  [ -f "$b" ] || continue
  echo "=================== $(basename "$b" .sh) ==================="
  bash "$b" "$folio" || { echo "$(basename "$b"): failed"; status=1; }
  echo
done
exit $status
