#!/usr/bin/env bash
# bench-pptx.sh — folio → .pptx beside pptxgenjs (native charts, compressed) on the
# same 50-section report spec (bench/gen_report.py): wall time, peak RSS, bytes, ratios.
# usage: bench/bench-pptx.sh FOLIO_BIN      (installs pptxgenjs under bench/node_modules)
set -euo pipefail
folio=$(readlink -f "${1:-build/folio}")
here=$(cd "$(dirname "$0")" && pwd)
work="$here/work/pptx"
report="$here/work/report"
mkdir -p "$work"
[ -f "$report/report.json" ] || /usr/bin/python3 "$here/gen_report.py" "$report"
if [ ! -d "$here/node_modules/pptxgenjs" ]; then
  npm install --prefix "$here" --no-audit --no-fund --silent pptxgenjs >/dev/null
fi

# run NAME CMD...: best wall time of 3 runs, and that run's peak RSS (KiB)
run() {
  local name=$1; shift
  local best="" rss="" cpu=""
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M %U %S" -o "$work/$name.time" "$@" >/dev/null 2>"$work/$name.err" ||
      { cat "$work/$name.err" >&2; return 1; }
    read -r t m u s < "$work/$name.time"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; cpu=$(echo "$u+$s" | bc); fi
  done
  echo "$best $rss $cpu"
}

read -r f_t f_m f_c < <(run folio "$folio" render "$report/report.json" -o "$work/folio.pptx" --quiet)
read -r p_t p_m p_c < <(run pptxgenjs node "$here/pptxgenjs_report.js" "$report/report.json" "$work/pptxgenjs.pptx")
f_b=$(stat -c %s "$work/folio.pptx")
p_b=$(stat -c %s "$work/pptxgenjs.pptx")
f_s=$(unzip -l "$work/folio.pptx" | grep -c 'ppt/slides/slide[0-9]*\.xml$' || true)
p_s=$(unzip -l "$work/pptxgenjs.pptx" | grep -c 'ppt/slides/slide[0-9]*\.xml$' || true)

printf "%-22s %9s %8s %11s %12s %7s\n" tool "wall s" "cpu s" "peak MiB" bytes slides
printf "%-22s %9.2f %8.2f %11.1f %12d %7d\n" "folio (native charts)" "$f_t" "$f_c" "$(echo "$f_m/1024" | bc -l)" "$f_b" "$f_s"
printf "%-22s %9.2f %8.2f %11.1f %12d %7d\n" "pptxgenjs (compressed)" "$p_t" "$p_c" "$(echo "$p_m/1024" | bc -l)" "$p_b" "$p_s"
awk -v fc="$f_c" -v pc="$p_c" 'BEGIN { printf "cpu-time speed-up %.1fx\n", pc / (fc > 0 ? fc : 0.001) }'
awk -v ft="$f_t" -v pt="$p_t" -v fm="$f_m" -v pm="$p_m" -v fb="$f_b" -v pb="$p_b" 'BEGIN {
  printf "speed-up %.1fx (target >= 15x, issue 39), memory %.1fx less (target < 32 MiB), size %.2fx of theirs (target <= 1)\n",
         pt / (ft > 0 ? ft : 0.001), pm / fm, fb / pb }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (wall times on a busy machine are inflated)"
