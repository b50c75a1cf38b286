#!/bin/sh
# bench-xlsx.sh — folio's .xlsx writer beside its peers on the same CSV.
#
# usage: bench/bench-xlsx.sh FOLIO_BIN [ROWS]     (ROWS default 200000)
#
# Writes bench/work/sales-ROWS.csv (bench/gen_sales.py: 8 columns: id, ISO
# date, region, product, units, price, revenue, free-text note) and converts
# it to .xlsx with:
#   folio     `folio convert` (inference, typed cells, widths, header, filter;
#             the rows formatted by folio and deflated on the other core:
#             render/xlsx/body.c)
#   floor     bench/xlsx_floor.c: the same cells straight through libxlsxwriter
#             in constant_memory mode — what writing through libxlsxwriter
#             costs; folio's target is 0.7x its CPU time
#   xlsxwriter  Python XlsxWriter, constant_memory
#   openpyxl  Python openpyxl, write-only mode
# For each: wall time, CPU time (user+sys: the fair figure on a busy
# machine), peak RSS (/usr/bin/time, Debian package `time`) and output bytes;
# then folio's ratios to the floor, and folio again at 1,000,000 rows to show
# that its memory stays flat.
set -eu

FOLIO=${1:?usage: bench-xlsx.sh FOLIO_BIN [ROWS]}
ROWS=${2:-200000}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$HERE/work
PY=/usr/bin/python3
mkdir -p "$WORK"
case $FOLIO in /*) ;; *) FOLIO=$(pwd)/$FOLIO ;; esac

[ -x /usr/bin/time ] || { echo "bench-xlsx: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

CSV=$WORK/sales-$ROWS.csv
[ -s "$CSV" ] || $PY "$HERE/gen_sales.py" "$ROWS" "$CSV"
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra "$HERE/xlsx_floor.c" \
   $(pkg-config --cflags --libs xlsxwriter) -o "$WORK/xlsx_floor"

cat > "$WORK/peer_xlsxwriter.py" <<'EOF'
import csv, datetime, sys, xlsxwriter
wb = xlsxwriter.Workbook(sys.argv[2], {"constant_memory": True})
ws = wb.add_worksheet("sales")
date = wb.add_format({"num_format": "yyyy-mm-dd"})
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    r = csv.reader(f)
    ws.write_row(0, 0, next(r))
    for i, row in enumerate(r, start=1):
        ws.write_number(i, 0, int(row[0]))
        ws.write_datetime(i, 1, datetime.datetime.strptime(row[1], "%Y-%m-%d"), date)
        ws.write_string(i, 2, row[2])
        ws.write_string(i, 3, row[3])
        ws.write_number(i, 4, int(row[4]))
        ws.write_number(i, 5, float(row[5]))
        ws.write_number(i, 6, float(row[6]))
        ws.write_string(i, 7, row[7])
wb.close()
EOF
cat > "$WORK/peer_openpyxl.py" <<'EOF'
import csv, datetime, sys, openpyxl
from openpyxl.cell import WriteOnlyCell
wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet("sales")
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    r = csv.reader(f)
    ws.append(next(r))
    for row in r:
        d = WriteOnlyCell(ws, datetime.datetime.strptime(row[1], "%Y-%m-%d"))
        d.number_format = "yyyy-mm-dd"
        ws.append([int(row[0]), d, row[2], row[3], int(row[4]), float(row[5]), float(row[6]), row[7]])
wb.save(sys.argv[2])
EOF

# run NAME OUT CMD... : prints one result line, remembers wall/cpu/rss/bytes
run() {
    name=$1; out=$2; shift 2
    rm -f "$out"
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt" || {
        echo "bench-xlsx: $name failed:" >&2; cat "$WORK/err.txt" >&2; exit 1; }
    read -r wall user sys rss < "$WORK/time.txt"
    bytes=$(stat -c %s "$out")
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    printf "%-12s %8s s %8s s %8.1f MiB %12s bytes\n" "$name" "$wall" "$cpu" \
        "$(echo "$rss" | awk '{print $1 / 1024}')" "$bytes"
    eval "${name}_wall=$wall ${name}_cpu=$cpu ${name}_rss=$rss"
}

echo "xlsx benchmark: $ROWS rows x 8 columns ($(stat -c %s "$CSV") bytes of CSV), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf "%-12s %10s %10s %12s %18s\n" tool wall cpu "peak RSS" output
run folio "$WORK/folio.xlsx" "$FOLIO" convert --quiet --max-bytes 1073741824 "$CSV" "$WORK/folio.xlsx"
run floor "$WORK/floor.xlsx" "$WORK/xlsx_floor" "$CSV" "$WORK/floor.xlsx"
if $PY -c "import xlsxwriter" 2>/dev/null; then
    run xlsxwriter "$WORK/xlsxwriter.xlsx" $PY "$WORK/peer_xlsxwriter.py" "$CSV" "$WORK/xlsxwriter.xlsx"
else echo "xlsxwriter   (python3-xlsxwriter not installed)"; fi
if $PY -c "import openpyxl" 2>/dev/null; then
    run openpyxl "$WORK/openpyxl.xlsx" $PY "$WORK/peer_openpyxl.py" "$CSV" "$WORK/openpyxl.xlsx"
else echo "openpyxl     (python3-openpyxl not installed)"; fi

echo
awk -v fw="$folio_wall" -v fc="$folio_cpu" -v bw="$floor_wall" -v bc="$floor_cpu" -v rss="$folio_rss" 'BEGIN {
    printf "folio / floor: wall %.2fx, cpu %.2fx (target <= 0.7x: %s); folio peak RSS %.1f MiB (target < 24 MiB)\n",
           fw / bw, fc / bc, fc <= 0.7 * bc ? "met" : "NOT met", rss / 1024 }'

if [ "$ROWS" -lt 1000000 ]; then
    BIG=$WORK/sales-1000000.csv
    [ -s "$BIG" ] || $PY "$HERE/gen_sales.py" 1000000 "$BIG"
    echo
    echo "folio at 1,000,000 rows (memory should stay flat):"
    run folio1m "$WORK/folio-1m.xlsx" "$FOLIO" convert --quiet --max-bytes 1073741824 "$BIG" "$WORK/folio-1m.xlsx"
fi
