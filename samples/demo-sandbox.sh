#!/bin/sh
# demo-sandbox.sh — runs the example analysis (samples/analysis/) in folio's
# sandbox and renders its result.json to a PDF report and a workbook into OUTDIR/sandbox/.
#   usage: samples/demo-sandbox.sh FOLIO_BIN OUTDIR
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 FOLIO_BIN OUTDIR" >&2
    exit 1
fi
folio=$1
out=$2/sandbox
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# The script and its data are copied into /work; nothing else of this tree is visible.
set +e
"$folio" run --in "$here/analysis/sales.csv" --in "$here/analysis/analyze.py" \
    --out "$out" --render pdf,xlsx --timeout 30 --memory 512 -- \
    /usr/bin/python3 /work/analyze.py sales.csv
rc=$?
set -e
echo "demo-sandbox: folio run exited $rc; manifest: $out/manifest.json"
ls -l "$out"
exit $rc
