#!/usr/bin/env bash
# bench-text.sh — the cost of world text (issue 15): the 50-section report
# of gen_report.py in English and in a mixed-script version (a script per
# section: Chinese, Arabic, Hindi, Hebrew, Japanese, Russian, Thai, Korean,
# Greek, Bengali, Tamil, Persian, English — paragraphs, headings, table
# items, chart titles and categories), rendered to PDF and to PNG (its 50
# charts), by this folio and, when BEFORE names one, by a folio from before
# shaping. The peers draw both reports unshaped (Arabic unjoined, left to
# right): ReportLab renders them to PDF, matplotlib (Agg) their 50 charts to
# PNG, with a font fallback list covering the scripts.
# CPU is user + system time to the millisecond (bench/rusage.py).
# Targets: English <= 10 % slower than before; mixed within 2x English;
# >= 5x faster than ReportLab and matplotlib.
#
# usage: bench/bench-text.sh FOLIO_BIN   (RUNS=5; BEFORE=path/to/old/folio)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_init 5 text "$@" || exit 1
before=${BEFORE:+$(readlink -f "$BEFORE")}
[ -f "$work/report-mixed/report.json" ] || $py "$here/gen_report.py" --mixed "$work/report-mixed" || exit 1

# best of $runs by CPU time: prints "wall cpu rss_kb" (bench/lib.sh)
measure() { bench_measure cpu "$work/text" "$@"; }

printf '%-10s %-8s %-5s %8s %8s %9s %10s\n' binary report fmt wall_s cpu_s rss_MiB bytes
declare -A cpu
show() {  # label report fmt out_prefix "wall cpu rss_kb"  (bytes: out_prefix*.fmt)
  local label=$1 rep=$2 fmt=$3 out=$4 w c r bytes
  read -r w c r <<<"$5"
  [ -n "$c" ] || { echo "$label $rep $fmt: failed"; return; }
  bytes=$(cat "$out"*."$fmt" 2>/dev/null | wc -c)
  cpu[$label.$rep.$fmt]=$c
  printf '%-10s %-8s %-5s %8s %8s %9.1f %10s\n' "$label" "$rep" "$fmt" "$w" "$c" "$(echo "$r / 1024" | bc -l)" "$bytes"
}
row() { local label=$1 rep=$2 fmt=$3 out=$4; shift 4; show "$label" "$rep" "$fmt" "$out" "$(measure "$@")"; }
spec_of() { [ "$1" = mixed ] && echo "$work/report-mixed/report.json" || echo "$work/report/report.json"; }
labels="after"; [ -n "$before" ] && labels="before after"
for fmt in pdf png; do
  # both reports and both folios alternate, run by run: a load that comes
  # and goes on a shared machine weighs on all four alike
  for rep in english mixed; do
    for label in $labels; do : >"$work/text/$label-$rep-$fmt.runs"; done
  done
  for _ in $(seq "$runs"); do
    for rep in english mixed; do
      for label in $labels; do
        bin=$folio; [ $label = before ] && bin=$before
        out="$work/text/$label-$rep"
        rm -f "$out"*.png
        bench_once "$work/text" "$bin" render "$(spec_of $rep)" -o "$out.$fmt" --quiet \
          >>"$work/text/$label-$rep-$fmt.runs"
      done
    done
  done
  for rep in english mixed; do
    for label in $labels; do
      show "$label" "$rep" "$fmt" "$work/text/$label-$rep" "$(bench_best cpu <"$work/text/$label-$rep-$fmt.runs")"
    done
  done
done
for rep in english mixed; do
  row reportlab "$rep" pdf "$work/text/rl-$rep" $py "$here/reportlab_report.py" "$(spec_of $rep)" "$work/text/rl-$rep.pdf"
  rm -f "$work/text/mpl-$rep"*.png
  row matplotlib "$rep" png "$work/text/mpl-$rep" $py "$here/matplotlib_charts.py" --spec "$(spec_of $rep)" "$work/text/mpl-$rep"
done
ratio() { [ -n "${1:-}" ] && [ -n "${2:-}" ] && printf "%.2f" "$(echo "$1 / $2" | bc -l)" || echo "n/a"; }
echo
echo "load average $(cut -d' ' -f1 /proc/loadavg); best of $runs runs by CPU time (the folio runs alternated)"
for fmt in pdf png; do
  echo "$fmt: English after/before x$(ratio "${cpu[after.english.$fmt]:-}" "${cpu[before.english.$fmt]:-}") (target <= 1.10);" \
       "mixed/English x$(ratio "${cpu[after.mixed.$fmt]:-}" "${cpu[after.english.$fmt]:-}") (target <= 2)"
done
echo "reportlab/folio pdf: English x$(ratio "${cpu[reportlab.english.pdf]:-}" "${cpu[after.english.pdf]:-}")," \
     "mixed x$(ratio "${cpu[reportlab.mixed.pdf]:-}" "${cpu[after.mixed.pdf]:-}") (target >= 5)"
echo "matplotlib/folio png: English x$(ratio "${cpu[matplotlib.english.png]:-}" "${cpu[after.english.png]:-}")," \
     "mixed x$(ratio "${cpu[matplotlib.mixed.png]:-}" "${cpu[after.mixed.png]:-}") (target >= 5)"
