#!/usr/bin/env bash
# render-all.sh — `make demo`: renders every sample spec to every format, the
# plain CSV through `folio convert`, then runs each samples/demo-*.sh hook.
# Usage: samples/render-all.sh FOLIO_BIN OUTDIR
set -uo pipefail
folio=$(readlink -f "$1"); out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
fail=0
for spec in "$here"/*/*.json; do
  case "$spec" in */analysis/*) continue;; esac
  name=$(basename "$spec" .json)
  for ext in xlsx docx pptx pdf png; do
    if "$folio" render "$spec" -o "$out/$name.$ext" --quiet; then
      echo "demo: $out/$name.$ext"
    else
      rc=$?; echo "demo: $name.$ext failed (exit $rc)"; fail=1
    fi
  done
done
for csv in "$here"/plain/*.csv; do
  name=$(basename "$csv" .csv)
  "$folio" convert "$csv" "$out/$name.xlsx" --quiet && echo "demo: $out/$name.xlsx" || fail=1
done
for hook in "$here"/demo-*.sh; do
  [ -x "$hook" ] || continue
  "$hook" "$folio" "$out" || fail=1
done
exit $fail
