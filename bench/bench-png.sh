#!/bin/sh
# bench-png.sh — PNG charts: folio vs matplotlib (Agg) vs a bare cairo program.
#
# Usage: bench/bench-png.sh [FOLIO_BIN]   (env N = number of charts, default 200)
# Workload: N grouped bar charts, 12 categories x 3 series, 800x500 px, with
# title, axis title, legend. folio renders one spec holding N chart blocks
# (-> N PNGs); matplotlib draws the same data; png_floor.c draws similar bars
# with cairo and writes them with cairo's own PNG writer.
# Prints wall time, CPU time, peak RSS, total bytes, ms per chart and ratios
# (folio vs matplotlib and vs the cairo floor, from this same run); then the
# marginal cost of one chart of each kind (bar, line, area, pie, scatter):
# CPU split into user and system time (system time is mostly the output
# staging: each file fsync'd and renamed), the same with the output folder
# on tmpfs, and with CALLGRIND=1 the instructions (repeatable on a busy
# machine).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
FOLIO=$(cd "$(dirname "${1:-$here/../build/folio}")" && pwd)/$(basename "${1:-build/folio}")
N=${N:-200}
PY=/usr/bin/python3
work=$(mktemp -d /tmp/bench-png.XXXXXX)
shmdir=
trap 'rm -rf "$work" ${shmdir:+"$shmdir"}' EXIT

# ---- inputs ------------------------------------------------------------------
"$PY" - "$N" "$work/spec.json" <<'PYEOF'
import json, math, sys
n, path = int(sys.argv[1]), sys.argv[2]
months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
blocks = []
for k in range(n):
    rows = [[m] + [round(40 + 10 * s + 30 * math.sin(i * 0.6 + s + k), 2) for s in range(3)]
            for i, m in enumerate(months)]
    blocks.append({"type": "chart", "kind": "column", "title": f"Chart {k + 1}", "y_title": "EUR",
                   "data": {"columns": ["month", "revenue", "cost", "profit"], "rows": rows},
                   "x": "month", "y": ["revenue", "cost", "profit"]})
json.dump({"folio": 1, "blocks": blocks}, open(path, "w"))
PYEOF
cc -O2 -o "$work/png_floor" "$here/png_floor.c" $(pkg-config --cflags --libs cairo) -lm

# ---- runs ----------------------------------------------------------------------
# run NAME CMD...: runs in a fresh output folder, records "wall cpu rss bytes files"
run() {
    name=$1; shift
    rm -rf "$work/out"; mkdir -p "$work/out"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
        echo "$name failed:"; cat "$work/err"; exit 1; }
    read wall user sys rss <"$work/time"
    bytes=$(cat "$work/out"/*.png | wc -c)
    files=$(ls "$work/out" | wc -l)
    cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
    echo "$name $wall $cpu $rss $bytes $files" >>"$work/results"
}
: >"$work/results"
run folio "$FOLIO" render "$work/spec.json" -o "$work/out/chart.png" --quiet
if pngcheck -q "$work/out"/*.png >/dev/null; then pngok=yes; else pngok=NO; fi
run cairo-floor "$work/png_floor" "$N" "$work/out"
if "$PY" -c "import matplotlib" 2>/dev/null; then
    run matplotlib "$PY" "$here/matplotlib_charts.py" "$N" "$work/out"
fi

# ---- report ----------------------------------------------------------------------
echo "PNG charts: $N grouped bar charts (12 x 3), 800x500 px; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
awk -v n="$N" '
    { name[NR] = $1; wall[NR] = $2; cpu[NR] = $3; rss[NR] = $4; bytes[NR] = $5; files[NR] = $6 }
    END {
        printf "%-12s %8s %8s %9s %10s %11s %9s %10s\n", "tool", "wall s", "cpu s", "peak MiB", "MiB total", "bytes/chart", "ms/chart", "cpu ms/ch"
        for (i = 1; i <= NR; i++)
            printf "%-12s %8.2f %8.2f %9.1f %10.2f %11d %9.2f %10.2f\n", name[i], wall[i], cpu[i],
                   rss[i] / 1024, bytes[i] / 1048576, bytes[i] / files[i], wall[i] * 1000 / n, cpu[i] * 1000 / n
        for (i = 2; i <= NR; i++)
            printf "folio vs %-11s %5.1fx faster (wall), %5.1fx (cpu), files %.2fx the size\n", name[i],
                   wall[i] / (wall[1] > 0 ? wall[1] : 0.01), cpu[i] / (cpu[1] > 0 ? cpu[1] : 0.01),
                   bytes[1] / bytes[i]
    }' "$work/results"
echo "folio PNGs pass pngcheck: $pngok"

# ---- marginal cost per chart, each kind (issue 39: target <= 1 ms) ------------
# One process renders N charts of one kind, another 1: (N - 1) charts'
# difference in CPU (rusage.py, to the millisecond, best of 3 each) is the
# marginal cost, without process start and font loading. CALLGRIND=1 adds
# instruction counts (20 vs 1 charts under valgrind: repeatable on a busy
# machine).
"$PY" - "$work" "$N" <<'PYEOF'
import json, math, sys
work, n = sys.argv[1], int(sys.argv[2])
months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
for kind in ("bar", "line", "area", "pie", "scatter"):
    for count in (1, 20, n):
        blocks = []
        for k in range(count):
            if kind == "scatter":
                rows = [[round(i * 1.5 + k % 7, 2), round(40 + 30 * math.sin(i * 0.6 + k), 2)] for i in range(40)]
                cols, x, y = ["x", "y"], "x", "y"
            elif kind == "pie":
                rows = [[m, round(71 + 30 * math.sin(i * 0.6 + k), 2)] for i, m in enumerate(months[:6])]
                cols, x, y = ["month", "revenue"], "month", "revenue"
            else:
                rows = [[m] + [round(40 + 10 * s + 30 * math.sin(i * 0.6 + s + k), 2) for s in range(3)]
                        for i, m in enumerate(months)]
                cols, x, y = ["month", "revenue", "cost", "profit"], "month", ["revenue", "cost", "profit"]
            blocks.append({"type": "chart", "kind": kind, "title": f"Chart {k + 1}", "y_title": "EUR",
                           "data": {"columns": cols, "rows": rows}, "x": x, "y": y})
        json.dump({"folio": 1, "blocks": blocks}, open(f"{work}/{kind}-{count}.json", "w"))
PYEOF
# marginal: user and system CPU of FOLIO rendering 1 and N charts into DIR,
# each the run of least CPU among 3 (alternated); prints "cpu user sys" ms per
# chart of the difference / (N - 1).
cat >"$work/marginal.py" <<'PYEOF'
import os, resource, shutil, subprocess, sys
folio, one, many, n, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
def run(spec):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    child = subprocess.Popen([folio, "render", spec, "-o", os.path.join(out, "c.png"), "--quiet"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, use = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit("%s: folio failed (%d)" % (spec, status))
    return use.ru_utime, use.ru_stime
best = {}
for _ in range(3):
    for spec in (one, many):
        u, s = run(spec)
        if spec not in best or u + s < sum(best[spec]):
            best[spec] = (u, s)
(u1, s1), (un, sn) = best[one], best[many]
k = 1000 / (n - 1)
print("%.2f %.2f %.2f" % ((un + sn - u1 - s1) * k, (un - u1) * k, (sn - s1) * k))
PYEOF
echo
echo "marginal cost of one chart, $N charts minus 1 in one process (target <= 1 ms):"
echo "(cpu = user + sys; sys is mostly writing each file: staged, fsync'd, renamed."
echo " tmpfs: the same with the output folder in /dev/shm, when there is one.)"
printf '%-8s %8s %8s %8s %11s %12s %11s\n' kind "cpu ms" "user ms" "sys ms" "tmpfs cpu" "M instr." "bytes/chart"
for kind in bar line area pie scatter; do
    set -- $("$PY" "$work/marginal.py" "$FOLIO" "$work/$kind-1.json" "$work/$kind-$N.json" "$N" "$work/out")
    bytes=$(( $(cat "$work/out"/*.png | wc -c) / N ))
    shm=-
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then
        shmdir=$(mktemp -d /dev/shm/bench-png.XXXXXX)
        shm=$("$PY" "$work/marginal.py" "$FOLIO" "$work/$kind-1.json" "$work/$kind-$N.json" "$N" "$shmdir/out" | cut -d' ' -f1)
        rm -rf "$shmdir"
    fi
    instr=-
    if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
        ir() { rm -rf "$work/out"; mkdir -p "$work/out"
               valgrind --tool=callgrind --callgrind-out-file=/dev/null "${FOLIO%/folio}/folio-engine" render "$1" \
                   -o "$work/out/c.png" --quiet 2>&1 | awk '/refs:/ {gsub(",", "", $4); print $4}'; }
        a=$(ir "$work/$kind-1.json"); b=$(ir "$work/$kind-20.json")
        instr=$(echo "$a $b" | awk '{printf "%.1f", ($2 - $1) / 19 / 1e6}')
    fi
    printf '%-8s %8s %8s %8s %11s %12s %11d\n' "$kind" "$1" "$2" "$3" "$shm" "$instr" "$bytes"
done
