#!/bin/sh
# bench-egress.sh — folio's egress proxy (`folio run --net allow=`) against a
# direct connection on loopback, and tinyproxy with an equivalent allowlist
# (one name, everything else denied) as the peer: bulk throughput of one
# download (target: >= 80% of direct) and the latency a new connection adds
# (target: < 1 ms). The client is the same script everywhere
# (bench/egress_bench.py); through folio it runs inside the jail and reaches
# the proxy on the jail's 127.0.0.1:3128.
#   usage: bench/bench-egress.sh FOLIO_BIN [MB] [CONNECTIONS]   (256, 500)
set -eu
if [ $# -lt 1 ]; then
    echo "usage: $0 FOLIO_BIN [MB] [CONNECTIONS]" >&2
    exit 1
fi
folio=$1
mb=${2:-256}
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

# best of 3 for throughput (MB/s), one run of N connections for latency (ms)
best() { sort -n | tail -1; }
direct_bulk=$(for i in 1 2 3; do $py "$here/egress_bench.py" bulk "http://127.0.0.1:$port/big" -; done | best)
direct_lat=$($py "$here/egress_bench.py" latency "http://127.0.0.1:$port/small" - "$n")

in_folio() {
    "$folio" run --in "$here/egress_bench.py" --net allow=bulk.test \
        --net-resolve "bulk.test=127.0.0.1:$port" -- $py egress_bench.py "$@" 2>/dev/null
}
folio_bulk=$(for i in 1 2 3; do in_folio bulk http://bulk.test/big http://127.0.0.1:3128; done | best)
# the same client in a jail with the host's network (--net all): what the
# jail itself costs (nice 10, cgroup), so the proxy's share can be told apart
jail_direct() {
    "$folio" run --in "$here/egress_bench.py" --net all -- $py egress_bench.py "$@" 2>/dev/null
}
jail_bulk=$(for i in 1 2 3; do jail_direct bulk "http://127.0.0.1:$port/big" -; done | best)
jail_lat=$(jail_direct latency "http://127.0.0.1:$port/small" - "$n")
folio_lat=$(in_folio latency http://bulk.test/small http://127.0.0.1:3128 "$n")

tp_bulk="-"; tp_lat="-"
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
    tp_bulk=$(for i in 1 2 3; do $py "$here/egress_bench.py" bulk "http://localhost:$port/big" "http://127.0.0.1:$tport"; done | best)
    tp_lat=$($py "$here/egress_bench.py" latency "http://localhost:$port/small" "http://127.0.0.1:$tport" "$n")
else
    echo "(tinyproxy not installed: make deps-bench)"
fi

ratio() { $py -c 'import sys; a, b = sys.argv[1:]; print("-" if "-" in (a, b) else "%.0f%%" % (100 * float(a) / float(b)))' "$1" "$2"; }
added() { $py -c 'import sys; a, b = sys.argv[1:]; print("-" if "-" in (a, b) else "%+.3f" % (float(a) - float(b)))' "$1" "$2"; }

printf '%-28s %12s %10s %14s %14s\n' "path ($mb MB, $n conns)" "bulk MB/s" "of direct" "ms/connection" "added ms"
printf '%-28s %12s %10s %14s %14s\n' "direct (loopback)" "$direct_bulk" "100%" "$direct_lat" "0"
printf '%-28s %12s %10s %14s %14s\n' "direct from a jail (--net all)" "$jail_bulk" "$(ratio "$jail_bulk" "$direct_bulk")" "$jail_lat" "$(added "$jail_lat" "$direct_lat")"
printf '%-28s %12s %10s %14s %14s\n' "folio egress proxy (jail)" "$folio_bulk" "$(ratio "$folio_bulk" "$direct_bulk")" "$folio_lat" "$(added "$folio_lat" "$direct_lat")"
printf '%-28s %12s %10s %14s %14s\n' "tinyproxy (host)" "$tp_bulk" "$(ratio "$tp_bulk" "$direct_bulk")" "$tp_lat" "$(added "$tp_lat" "$direct_lat")"
echo "targets: bulk >= 80% of direct; added latency < 1 ms per new connection"
