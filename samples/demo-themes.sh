#!/usr/bin/env bash
# demo-themes.sh — `make demo` hook: the sales sample in every built-in theme,
# as PDF pages and PPTX slides turned into PNG pictures under OUTDIR/themes/,
# so the themes can be compared side by side.
# Usage: samples/demo-themes.sh FOLIO_BIN OUTDIR
set -euo pipefail
folio=$1; out=$2/themes
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for theme in $("$folio" themes | awk '{print $1}'); do
  base="$out/sales-$theme"
  "$folio" render "$here/sales/sales.json" --theme "$theme" --quiet \
    -o "$base.pdf" -o "$base.pptx" -o "$base.docx" -o "$base.xlsx"
  pdftoppm -png -r 60 -f 1 -l 3 "$base.pdf" "$base-pdf"
  if command -v soffice >/dev/null; then
    mkdir -p "$out/slides-$theme"
    timeout 180 soffice -env:UserInstallation=file://$profile --headless --convert-to pdf \
      --outdir "$out/slides-$theme" "$base.pptx" >/dev/null 2>&1 || true
    [ -f "$out/slides-$theme/sales-$theme.pdf" ] &&
      pdftoppm -png -r 40 -f 1 -l 4 "$out/slides-$theme/sales-$theme.pdf" "$base-slide"
    rm -rf "$out/slides-$theme"
  fi
  echo "demo: $base.{pdf,pptx,docx,xlsx} and PNG pages $base-*.png"
done
