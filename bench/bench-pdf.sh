#!/usr/bin/env bash
# bench-pdf.sh — folio's PDF beside ReportLab and a minimal libharu program.
#
# Input: the 50-section report of bench/gen_report.py (heading, three
# paragraphs, a 30x5 table and a 12x3 column chart per section). Prints, per
# tool, the best wall time of RUNS runs, user+sys CPU, peak RSS, bytes and
# pages, then folio's ratios. Targets: within 2x of the floor, < 16 MiB RSS,
# fonts embedded, no larger than ReportLab's file.
#
# usage: bench/bench-pdf.sh FOLIO_BIN   (RUNS=5 by default)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init 5 pdf "$@" || exit 1
spec="$work/report/report.json"
floor="$work/pdf_floor"
if [ ! -x "$floor" ] || [ "$here/pdf_floor.c" -nt "$floor" ]; then
  cc -O2 -std=c11 "$here/pdf_floor.c" -lhpdf -ljansson -lm -o "$floor" || exit 1
fi

# best of $runs by wall time: prints "wall cpu rss_kb" (bench/lib.sh)
measure() { bench_measure wall "$work/pdf" "$@"; }

declare -A wall cpu rss bytes pages
run() {  # name out cmd...
  local name=$1 out=$2; shift 2
  read -r w c r < <(measure "$@") || { echo "$name: failed"; return 1; }
  wall[$name]=$w; cpu[$name]=$c; rss[$name]=$r
  bytes[$name]=$(stat -c %s "$out")
  pages[$name]=$(pdfinfo "$out" 2>/dev/null | awk '/^Pages:/ {print $2}')
}

run folio "$work/pdf/folio.pdf" "$folio" render "$spec" -o "$work/pdf/folio.pdf" --quiet
run reportlab "$work/pdf/reportlab.pdf" $py "$here/reportlab_report.py" "$spec" "$work/pdf/reportlab.pdf"
run floor "$work/pdf/floor.pdf" "$floor" "$spec" "$work/pdf/floor.pdf"

echo "input: $spec (50 sections), best of $runs runs; load average $(cut -d' ' -f1 /proc/loadavg)"
printf '%-10s %8s %8s %9s %10s %6s\n' tool wall_s cpu_s rss_MiB bytes pages
for t in folio reportlab floor; do
  [ -n "${wall[$t]:-}" ] || continue
  printf '%-10s %8s %8s %9.1f %10s %6s\n' "$t" "${wall[$t]}" "${cpu[$t]}" \
    "$(echo "${rss[$t]} / 1024" | bc -l)" "${bytes[$t]}" "${pages[$t]}"
done
ratio() { printf "%.2f" "$(echo "$1 / $2" | bc -l)"; }
echo
echo "folio vs floor:     wall x$(ratio "${wall[folio]}" "${wall[floor]}")  cpu x$(ratio "${cpu[folio]}" "${cpu[floor]}")  (target <= 2)"
echo "folio vs reportlab: wall x$(ratio "${wall[folio]}" "${wall[reportlab]}")  rss x$(ratio "${rss[folio]}" "${rss[reportlab]}")  bytes x$(ratio "${bytes[folio]}" "${bytes[reportlab]}")  (target bytes <= 1)"
echo "folio peak RSS: $(echo "scale=1; ${rss[folio]} / 1024" | bc -l) MiB (target < 16)"
emb=$(pdffonts "$work/pdf/folio.pdf" | awk 'NR > 2 && $(NF-4) != "yes"' | wc -l)
echo "folio fonts not embedded: $emb (target 0)"

# Long tables (issue 39): peak RSS must stay flat as a table grows (target
# <= 32 MiB at any length up to the ceiling: past the first 100 pages each
# page is written to the file as it is finished, render/pdf/stream.c), and a
# 1,000,000-row table is refused at the 30 MiB ceiling from an estimate early
# on (exit 3) rather than after ~24,400 pages.
long="$work/pdf-long"
mkdir -p "$long"
for n in 20000 100000 200000 1000000; do
  [ -f "$long/rows$n.json" ] || $py - "$long" "$n" <<'PY' || exit 1
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
regions = ("North", "South", "East", "West")
with open(f"{d}/rows{n}.csv", "w") as f:
    f.write("id,region,amount,qty\n")
    f.writelines(f"{i},{regions[i % 4]},{(i * 7919) % 1000003 / 100:.2f},{i % 97 + 1}\n" for i in range(n))
json.dump({"folio": 1, "title": f"{n} rows", "data": {"t": {"csv": f"rows{n}.csv"}},
           "blocks": [{"type": "table", "data": "t", "columns": ["id", "region", "amount", "qty"]}]},
          open(f"{d}/rows{n}.json", "w"))
PY
done
for n in 20000 200000; do
  read -r w c r < <(bench_measure wall "$long" "$folio" render "$long/rows$n.json" -o "$long/rows$n.pdf" --quiet)
  echo "$n-row table: ${w} s wall, ${c} s CPU, $(echo "scale=1; $r / 1024" | bc -l) MiB peak RSS, $(stat -c %s "$long/rows$n.pdf") bytes, $(pdfinfo "$long/rows$n.pdf" | awk '/^Pages:/ {print $2}') pages"
done
read -r w c r < <(bench_measure wall "$long" "$folio" render "$long/rows100000.json" -o "$long/rows100000.pdf" --quiet)
echo "100,000-row table: ${w} s wall, ${c} s CPU, $(echo "scale=1; $r / 1024" | bc -l) MiB peak RSS (target <= 32, flat), $(stat -c %s "$long/rows100000.pdf") bytes, $(pdfinfo "$long/rows100000.pdf" | awk '/^Pages:/ {print $2}') pages"
# ReportLab on the same 100,000 rows: about 4.5 minutes and 420 MiB here
# (2026-12-07), so only with PEER_LONG=1.
if [ "${PEER_LONG:-0}" = 1 ]; then
  read -r pw pc pr < <(bench_once "$long" $py "$here/reportlab_report.py" "$long/rows100000.json" "$long/rl100000.pdf" | bench_best wall)  # one run
  echo "100,000-row table, reportlab: ${pw} s wall, $(echo "scale=1; $pr / 1024" | bc -l) MiB peak RSS, $(pdfinfo "$long/rl100000.pdf" | awk '/^Pages:/ {print $2}') pages; folio x$(ratio "$pw" "$w") faster, x$(ratio "$pr" "$r") less memory"
fi
rm -f "$long/rows1000000.pdf"
$py "$here/rusage.py" "$long/time.txt" "$long/err.txt" "$folio" render "$long/rows1000000.json" -o "$long/rows1000000.pdf" --quiet
echo "1,000,000-row table: exit $? ($(grep -o 'stopped at page [0-9]*' "$long/err.txt" || echo 'no early stop')), $(tail -1 "$long/time.txt" | awk '{printf "%s s wall, %.1f MiB peak RSS", $1, $3 / 1024}'), file left: $([ -e "$long/rows1000000.pdf" ] && echo yes || echo no)"
