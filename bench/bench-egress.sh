#!/bin/sh
# bench-egress.sh — folio's egress proxy (`folio run --net allow=`) against a
# direct connection on loopback, and tinyproxy with an equivalent allowlist
# (one name, everything else denied) as the peer: bulk throughput of one
# download (target: >= 80% of direct) and the latency a new connection adds
# (target: < 1 ms). Beside them, the floor: a bare splice relay
# (bench/relay_floor.c), the least any user-space proxy does. The client is
# the same script everywhere (bench/egress_bench.py); through folio it runs
# inside the jail and reaches the proxy on the jail's 127.0.0.1:3128.
# Last, the relay's own CPU time per GiB moved (folio's proxy and the floor),
# which is steady where throughput is not.
#   usage: bench/bench-egress.sh FOLIO_BIN [MB] [CONNECTIONS]   (1024, 500)
#   ROUNDS=7: downloads per path, taken in turns
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 FOLIO_BIN [MB] [CONNECTIONS]" >&2
    exit 1
fi
folio=$1
mb=${2:-1024}
n=${3:-500}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

head -c $((mb * 1048576)) /dev/zero > "$tmp/big"
$py "$here/egress_bench.py" serve "$tmp/big" > "$tmp/port" &
pids="$pids $!"
while [ ! -s "$tmp/port" ]; do sleep 0.1; done
port=$(cat "$tmp/port")

# the floor: the least a user-space proxy does (bench/relay_floor.c)
cc -O2 -o "$tmp/relay_floor" "$here/relay_floor.c" -lpthread
fport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$tmp/relay_floor" "$fport" "$port" > "$tmp/floor.ready" &
pids="$pids $!"
while [ ! -s "$tmp/floor.ready" ]; do sleep 0.1; done

in_folio() {
    "$folio" run --in "$here/egress_bench.py" --net allow=bulk.test \
        --net-resolve "bulk.test=127.0.0.1:$port" -- $py egress_bench.py "$@" 2>/dev/null
}
# the same client in a jail with the host's network (--net all): what the
# jail itself costs (nice 10, cgroup), so the proxy's share can be told apart
jail_direct() {
    "$folio" run --in "$here/egress_bench.py" --net all -- $py egress_bench.py "$@" 2>/dev/null
}

tp=""
if command -v tinyproxy >/dev/null 2>&1; then
    tport=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    echo '^localhost$' > "$tmp/filter"
    cat > "$tmp/tinyproxy.conf" <<EOF
Port $tport
Listen 127.0.0.1
Timeout 600
MaxClients 512
LogLevel Critical
Filter "$tmp/filter"
FilterDefaultDeny Yes
ConnectPort 443
EOF
    if [ "$(id -u)" = 0 ]; then printf 'User nobody\nGroup nogroup\n' >> "$tmp/tinyproxy.conf"; fi
    chmod 755 "$tmp"; chmod 644 "$tmp/filter" "$tmp/tinyproxy.conf"
    tinyproxy -d -c "$tmp/tinyproxy.conf" >/dev/null 2>&1 &
    pids="$pids $!"
    sleep 0.5
    tp=tinyproxy
else
    echo "(tinyproxy not installed: make deps-bench)"
fi

# egress_bench.py CMD FILE [ARGS] along PATH: bulk big (MB/s of one
# download) or latency small N (mean ms of N new connections)
via() {
    k=$1; cmd=$2; file=$3; shift 3
    case $k in
    direct) $py "$here/egress_bench.py" "$cmd" "http://127.0.0.1:$port/$file" - "$@" ;;
    jail) jail_direct "$cmd" "http://127.0.0.1:$port/$file" - "$@" ;;
    folio) in_folio "$cmd" "http://bulk.test/$file" http://127.0.0.1:3128 "$@" ;;
    floor) $py "$here/egress_bench.py" "$cmd" "http://localhost:$port/$file" "http://127.0.0.1:$fport" "$@" ;;
    tinyproxy) $py "$here/egress_bench.py" "$cmd" "http://localhost:$port/$file" "http://127.0.0.1:$tport" "$@" ;;
    esac
}
paths="direct jail folio floor $tp"
# Throughput on loopback swings by half from one download to the next on a
# 2-core machine (where the three processes land), so the paths take turns,
# ROUNDS times, and both the median and the best are shown.
ROUNDS=${ROUNDS:-7}
for r in $(seq "$ROUNDS"); do
    for k in $paths; do echo "$k $(via "$k" bulk big)" >> "$tmp/bulk"; done
done
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }   # utime + stime
floor_ticks=$(ticks "$(pgrep -f "$tmp/relay_floor" | head -1)" || true)
for k in $paths; do echo "$k $(via "$k" latency small "$n")" >> "$tmp/lat"; done

# CPU of the relay itself, steadier than throughput: the floor's over the
# rounds above; folio's proxy (the folio-egress process) sampled while one
# jail makes ROUNDS downloads, up to its last reading before it exits
printf 'for i in $(seq %d); do python3 egress_bench.py bulk http://bulk.test/big http://127.0.0.1:3128; done\n' \
    "$ROUNDS" > "$tmp/rounds.sh"
"$folio" run --in "$here/egress_bench.py" --in "$tmp/rounds.sh" --net allow=bulk.test \
    --net-resolve "bulk.test=127.0.0.1:$port" -- sh rounds.sh > /dev/null 2>&1 &
run=$!
proxy_ticks=0
while kill -0 "$run" 2>/dev/null; do
    e=$(pgrep -x folio-egress -n || true)
    t=$([ -n "$e" ] && ticks "$e" || true)
    [ -n "$t" ] && proxy_ticks=$t
    sleep 0.05
done
wait "$run" || true
stat() {   # PATH -> "median best" MB/s
    awk -v k="$1" '$1 == k { print $2 }' "$tmp/bulk" | sort -n |
        awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] " " v[NR] : "- -" }'
}
lat() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/lat"; }

ratio() { $py -c 'import sys; a, b = sys.argv[1:]; print("-" if "-" in (a, b) else "%.0f%%" % (100 * float(a) / float(b)))' "$1" "$2"; }
added() { $py -c 'import sys; a, b = sys.argv[1:]; print("-" if "-" in (a, b) else "%+.3f" % (float(a) - float(b)))' "$1" "$2"; }

set -- $(stat direct); d_med=$1; d_best=$2; d_lat=$(lat direct)
row() {   # LABEL PATH
    set -- "$1" "$(lat "$2")" $(stat "$2")
    printf '%-31s %7s %7s %9s %9s %14s %10s\n' "$1" "$3" "$4" "$(ratio "$3" "$d_med")" "$(ratio "$4" "$d_best")" \
        "$2" "$(added "$2" "$d_lat")"
}
printf '%-31s %15s %19s %14s %10s\n' "path ($mb MB, $ROUNDS rounds)" "bulk MB/s" "of direct" "ms/conn" "added ms"
printf '%-31s %7s %7s %9s %9s %14s %10s\n' "($n connections)" median best median best "" ""
row "direct (loopback)" direct
row "direct from a jail (--net all)" jail
row "folio egress proxy (jail)" folio
row "floor: bare splice relay (host)" floor
[ -n "$tp" ] && row "tinyproxy (host)" tinyproxy
set -- $(stat folio); f_med=$1; f_best=$2
set -- $(stat floor)
echo "folio proxy / floor relay: median $(ratio "$f_med" "$1"), best $(ratio "$f_best" "$2")"
hz=$(getconf CLK_TCK)
$py -c 'import sys; f, p, r, mb, hz = map(float, sys.argv[1:]); gb = r * mb / 1024
print("relay CPU per GiB moved: folio proxy %.3f s, floor relay %.3f s (%.0f%%)" % (p / hz / gb, f / hz / gb, 100 * p / f if f else 0))' \
    "${floor_ticks:-0}" "$proxy_ticks" "$ROUNDS" "$mb" "$hz"
echo "targets: bulk >= 80% of direct; added latency < 1 ms per new connection"
