# lib.sh — what the bench scripts share; source it once $here (bench/) is set.

# bench_init RUNS SUBDIR [FOLIO_BIN]: sets folio (FOLIO_BIN, else build/folio,
# made absolute), runs (RUNS from the environment, else the script's default
# RUNS), work (bench/work) and py; makes $work/SUBDIR and, once, the
# 50-section report of gen_report.py in $work/report.
bench_init() {
  runs=${RUNS:-$1}
  folio=$(readlink -f "${3:-build/folio}")
  work="$here/work"
  py=/usr/bin/python3
  mkdir -p "$work/$2"
  [ -f "$work/report/report.json" ] || $py "$here/gen_report.py" "$work/report"
}

# bench_measure BY DIR CMD...: runs CMD $runs times under bench/rusage.py
# and prints the best run as "wall_s cpu_s rss_kb" (cpu = user + sys, to the
# millisecond: /usr/bin/time prints hundredths), best by wall time (BY=wall)
# or by CPU time (BY=cpu). DIR holds time.txt and CMD's stderr (err.txt),
# which is shown when CMD fails.
bench_measure() {
  local by=$1 dir=$2 best="" line key=1
  shift 2
  [ "$by" = cpu ] && key=2
  for _ in $(seq "$runs"); do
    $py "$here/rusage.py" "$dir/time.txt" "$dir/err.txt" "$@" \
      || { cat "$dir/err.txt" >&2; return 1; }
    line=$(tail -1 "$dir/time.txt")
    best=$(printf '%s\n%s\n' "$best" "$line" | awk 'NF' | sort -k"$key,$key" -n | head -1)
  done
  echo "$best"
}
