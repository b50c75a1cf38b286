#!/bin/sh
# demo-session.sh — a three-cell conversation with a folio session, as a chat
# backend has it: load the data, plot it (the figure comes back as a display),
# write a result spec; then render it to a PDF report in a second jail, export
# the session as a Jupyter notebook and as its record, and replay the record.
#   usage: samples/demo-session.sh FOLIO_BIN OUTDIR     (files in OUTDIR/session/)
set -eu
[ $# -eq 2 ] || { echo "usage: $0 FOLIO_BIN OUTDIR" >&2; exit 1; }
folio=$1 out=$2/session here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "demo-session: skipped (no python3-matplotlib)"
    exit 0
fi
id=$("$folio" session new --in "$here/analysis/sales.csv" --memory 512 --idle 120)
trap '"$folio" session close "$id"' EXIT
echo "demo-session: session $id"

echo "--- cell 1: load"
"$folio" session exec "$id" -c '
import csv
rows = list(csv.DictReader(open("sales.csv")))
months = sorted({r["month"] for r in rows})
revenue = {m: sum(float(r["revenue"]) for r in rows if r["month"] == m) for m in months}
len(rows), months[0], months[-1]'

echo "--- cell 2: a figure (saved as a display, fetched below)"
"$folio" session exec "$id" --json -c '
import matplotlib.pyplot as plt
plt.figure(figsize=(6, 3))
plt.plot(months, [revenue[m] for m in months], marker="o")
plt.title("Revenue by month")
plt.tight_layout()' > "$out/cell2.json"
"$folio" session get "$id" /out/displays/cell-2-1.png --out "$out"

echo "--- cell 3: the result spec, using the variables of cell 1"
"$folio" session exec "$id" -c '
import json, shutil
shutil.copy("/out/displays/cell-2-1.png", "/out/revenue.png")
spec = {"folio": 1, "title": "Sales review (session demo)", "date": "2024-12-31",
        "data": {"m": {"columns": ["month", "revenue"],
                       "rows": [[m, round(revenue[m], 2)] for m in months]}},
        "blocks": [{"type": "heading", "text": "Revenue by month", "level": 1},
                   {"type": "image", "path": "revenue.png", "width": 420},
                   {"type": "table", "data": "m", "totals": {"revenue": "sum"}}]}
json.dump(spec, open("/out/result.json", "w"))
print("total revenue", round(sum(revenue.values()), 2))'

"$folio" session render "$id" --render pdf --out "$out"
echo "demo-session: $out/result.pdf"

"$folio" session export "$id" --ipynb "$out/session.ipynb"
"$folio" session export "$id" --record "$out/session.record.jsonl"
echo "demo-session: $out/session.ipynb (Jupyter opens it), $out/session.record.jsonl"
echo "--- replay of the record (folio replay, inputs from samples/analysis)"
"$folio" replay "$out/session.record.jsonl" --in "$here/analysis" || true
