#!/usr/bin/env bash
# bench-docx.sh — folio's .docx beside python-docx (+ matplotlib charts, one
# process) and pandoc (Markdown with pipe tables, no charts).
#
# Input: the 50-section report of bench/gen_report.py (heading, three
# paragraphs, a 30x5 table and a 12x3 column chart per section). Prints, per
# tool, the best wall time of RUNS runs, user+sys CPU, peak RSS and bytes,
# then folio's ratios. "folio-nochart" renders the same spec without charts,
# the fair match for pandoc. folio's charts are native chart parts (no
# picture drawn); python-docx embeds matplotlib PNGs, the best it can do. Targets: >= 20x faster than python-docx,
# < 32 MiB peak RSS, a file no larger than python-docx's.
#
# usage: bench/bench-docx.sh FOLIO_BIN   (RUNS=3 by default)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init 3 docx "$@" || exit 1
out="$work/docx"
spec="$work/report/report.json"
nochart="$work/report/report-nochart.json"
$py - "$spec" "$nochart" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
s["blocks"] = [b for b in s["blocks"] if b["type"] != "chart"]
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
$py "$here/report_to_markdown.py" "$spec" "$out/report.md" || exit 1

# best of $runs by wall time: prints "wall cpu rss_kb" (bench/lib.sh)
measure() { bench_measure wall "$out" "$@"; }

declare -A wall cpu rss bytes
tools=()
run() {  # name out cmd...
  local name=$1 file=$2; shift 2
  read -r w c r < <(measure "$@") || { echo "$name: failed"; return 1; }
  wall[$name]=$w; cpu[$name]=$c; rss[$name]=$r
  bytes[$name]=$(stat -c %s "$file")
  tools+=("$name")
}

run folio "$out/folio.docx" "$folio" render "$spec" -o "$out/folio.docx" --quiet
run folio-nochart "$out/folio-nochart.docx" "$folio" render "$nochart" -o "$out/folio-nochart.docx" --quiet
run python-docx "$out/python-docx.docx" $py "$here/python_docx_report.py" "$spec" "$out/python-docx.docx"
if command -v pandoc >/dev/null; then
  run pandoc "$out/pandoc.docx" pandoc "$out/report.md" -o "$out/pandoc.docx"
else
  echo "pandoc: not installed (make deps-bench)"
fi

echo "input: $spec (50 sections), best of $runs runs; load average $(cut -d' ' -f1 /proc/loadavg), $(nproc) CPUs"
printf '%-14s %8s %8s %9s %10s\n' tool wall_s cpu_s rss_MiB bytes
for t in "${tools[@]}"; do
  printf '%-14s %8s %8s %9.1f %10s\n' "$t" "${wall[$t]}" "${cpu[$t]}" \
    "$(echo "${rss[$t]} / 1024" | bc -l)" "${bytes[$t]}"
done
ratio() { printf "%.1f" "$(echo "$1 / ($2 + 0.005)" | bc -l)"; }
echo
if [ -n "${wall[python-docx]:-}" ]; then
  echo "python-docx / folio: wall x$(ratio "${wall[python-docx]}" "${wall[folio]}")  cpu x$(ratio "${cpu[python-docx]}" "${cpu[folio]}")  (target >= 20)"
  echo "folio / python-docx bytes: x$(printf "%.2f" "$(echo "${bytes[folio]} / ${bytes[python-docx]}" | bc -l)")  (target <= 1)"
fi
if [ -n "${wall[pandoc]:-}" ]; then
  echo "pandoc / folio-nochart: wall x$(ratio "${wall[pandoc]}" "${wall[folio-nochart]}")  cpu x$(ratio "${cpu[pandoc]}" "${cpu[folio-nochart]}")"
fi
echo "folio peak RSS: $(echo "scale=1; ${rss[folio]} / 1024" | bc -l) MiB (target < 32)"
