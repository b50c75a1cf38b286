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

# bench_once DIR CMD...: runs CMD once under bench/rusage.py and prints
# "wall_s cpu_s rss_kb" (cpu = user + sys, to the millisecond: /usr/bin/time
# prints hundredths). DIR holds time.txt and CMD's stderr (err.txt), which
# is shown when CMD fails.
bench_once() {
  local dir=$1
  shift
  $py "$here/rusage.py" "$dir/time.txt" "$dir/err.txt" "$@" \
    || { cat "$dir/err.txt" >&2; return 1; }
  tail -1 "$dir/time.txt"
}

# bench_best BY: of the "wall_s cpu_s rss_kb" lines on stdin, the best by
# wall time (BY=wall) or by CPU time (BY=cpu).
bench_best() {
  local key=1
  [ "$1" = cpu ] && key=2
  awk 'NF' | sort -k"$key,$key" -n | head -1
}

# bench_measure BY DIR CMD...: CMD $runs times, the best run (bench_best).
bench_measure() {
  local by=$1 dir=$2
  shift 2
  for _ in $(seq "$runs"); do bench_once "$dir" "$@" || return 1; done | bench_best "$by"
}
