#!/bin/sh
# bench-sandbox.sh — launch cost of `folio run` beside bare /bin/true, bubblewrap
# with an equivalent read-only, no-network jail, and a bare `unshare` of the same
# namespaces; plus python3 startup inside folio run. `folio --version` is timed
# too: the static launcher's own start, which `folio run` pays before the jail.
#   usage: bench/bench-sandbox.sh FOLIO_BIN [RUNS]     (RUNS default 200)
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 FOLIO_BIN [RUNS]" >&2
    exit 1
fi
runs=${2:-200}
pyruns=$(( runs / 4 ))
tmp=$(mktemp -d)
chmod 755 "$tmp"     # the render jail's unprivileged identity reads folio-engine here
trap 'rm -rf "$tmp"' EXIT
# a private copy (a rebuild during the run must not break it): folio and the
# folio-engine beside it, which --render and every other command use
cp "$1" "$tmp/folio"
cp "$(dirname "$1")/folio-engine" "$tmp/folio-engine"
folio=$tmp/folio

# bubblewrap configured like folio's jail: all namespaces, read-only /usr and
# merged-/usr links, ld.so.cache, fresh /proc, minimal /dev, tmpfs /tmp.
bwrap_cmd="bwrap --unshare-all --die-with-parent --new-session \
 --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/sbin /sbin \
 --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
 --ro-bind /etc/ld.so.cache /etc/ld.so.cache --proc /proc --dev /dev \
 --tmpfs /tmp --tmpfs /work --tmpfs /out --chdir /work --cap-drop ALL"

# time_ms NAME N CMD...: mean wall-clock ms per launch over N launches
time_ms() {
    name=$1; n=$2; shift 2
    if command -v hyperfine >/dev/null 2>&1; then
        hyperfine -N -i -w 5 -r "$n" --export-json "$tmp/$name.json" "$*" >/dev/null 2>&1
        /usr/bin/python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["mean"] * 1000))' "$tmp/$name.json"
    else
        t0=$(date +%s%N); i=0
        while [ $i -lt "$n" ]; do "$@" >/dev/null 2>&1 || true; i=$((i + 1)); done
        t1=$(date +%s%N)
        echo "$t0 $t1 $n" | awk '{ printf "%.2f\n", ($2 - $1) / 1e6 / $3 }'
    fi
}

bare=$(time_ms bare "$runs" /bin/true)
ver=$(time_ms version "$runs" "$folio" --version)
fol=$(time_ms folio "$runs" "$folio" run --quiet -- /bin/true)
if command -v bwrap >/dev/null 2>&1; then
    bw=$(time_ms bwrap "$runs" $bwrap_cmd /bin/true)
else
    bw=
fi
ush=$(time_ms unshare "$runs" unshare -Urpfnmiu --mount-proc /bin/true)
pybare=$(time_ms pybare "$pyruns" /usr/bin/python3 -c pass)
pyfol=$(time_ms pyfolio "$pyruns" "$folio" run --quiet -- /usr/bin/python3 -c pass)
# a one-plot matplotlib script, the commonest sandboxed job (skipped without matplotlib);
# bare uses the caller's warm font cache, folio run the one make prebuilt
# (a file: hyperfine -N splits a command line at spaces)
cat > "$tmp/plot.py" <<'PY'
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.plot([1, 3, 2])
plt.savefig("/tmp/folio-bench-plot.png")
PY
plotruns=$(( runs / 20 > 3 ? runs / 20 : 3 ))
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    [ -d "$(dirname "$1")/matplotlib" ] && cp -r "$(dirname "$1")/matplotlib" "$tmp/matplotlib"
    /usr/bin/python3 "$tmp/plot.py" >/dev/null 2>&1    # warm the caller's own cache
    mplbare=$(time_ms mplbare "$plotruns" /usr/bin/python3 "$tmp/plot.py")
    mplfol=$(time_ms mplfolio "$plotruns" "$folio" run --quiet --in "$tmp/plot.py" -- /usr/bin/python3 plot.py)
else
    mplbare=
fi

echo "launch cost, mean of $runs launches (python: $pyruns), ms per launch"
printf '  %-34s %8s %10s\n' "" "ms" "overhead"
row() { printf '  %-34s %8s %10s\n' "$1" "$2" "$(echo "$2 $3" | awk '{ printf "%+.2f", $1 - $2 }')"; }
row "/bin/true (bare)" "$bare" "$bare"
row "unshare -Urpfnmiu /bin/true" "$ush" "$bare"
[ -n "$bw" ] && row "bwrap ... /bin/true" "$bw" "$bare"
row "folio --version (startup only)" "$ver" "$bare"
row "folio run -- /bin/true" "$fol" "$bare"
row "python3 -c pass (bare)" "$pybare" "$pybare"
row "folio run -- python3 -c pass" "$pyfol" "$pybare"
if [ -n "$mplbare" ]; then
    row "python3 one matplotlib plot (bare)" "$mplbare" "$mplbare"
    row "folio run -- the same plot" "$mplfol" "$mplbare"
fi
