#!/usr/bin/env bash
# bench-serve.sh — `folio serve` under load (wrk, loopback, this machine):
# requests/s and p50/p99 latency of POST /v1/render -> xlsx, pdf, png at
# concurrency 1, 8 and 32: the default (a fresh jailed process per request),
# --reuse-workers 100 (a worker per tenant, reused), and without the jail
# (--no-jail, for comparison only), beside the usual Python stack
# (bench/serve_peer.py: http.server + openpyxl/matplotlib) on the same spec (a
# 20-row table and a bar chart), each point of the servers measured one after
# the other in the same sitting, with the ratios to the peer; then the CPU
# per render in the zygote's children beside the floor measured now
# (bench/fork_floor.c: a bare fork+exit+wait of a process the zygote's size);
# a soak of SOAK requests: 5xx count, RSS and open fds of the server before
# and after; and a session's exec round trip over HTTP beside the CLI's.
# DUR seconds per point (default 5); FORMATS and CONCS narrow the table.
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
here=$(cd "$(dirname "$0")" && pwd)
work="$here/work/serve"; mkdir -p "$work"
DUR=${DUR:-5}; SOAK=${SOAK:-20000}; PY=${PY:-/usr/bin/python3}
FORMATS=${FORMATS:-xlsx pdf png}; CONCS=${CONCS:-1 8 32}
command -v wrk >/dev/null || { echo "bench-serve: wrk is not installed (make deps-bench)"; exit 1; }

"$PY" - "$work" <<'PY'
import json, sys
spec = {"folio": 1, "title": "Monthly revenue",
        "data": {"s": {"columns": [{"name": "month", "type": "text"}, {"name": "revenue", "type": "number"}],
                       "rows": [[f"m{i:02d}", 1000 + 37 * i] for i in range(20)]}},
        "blocks": [{"type": "heading", "text": "Monthly revenue"}, {"type": "table", "data": "s"},
                   {"type": "chart", "kind": "bar", "data": "s", "x": "month", "y": ["revenue"]}]}
b = "folio-bench-boundary"
body = (f'--{b}\r\nContent-Disposition: form-data; name="spec"; filename="spec.json"\r\n'
        f'Content-Type: application/json\r\n\r\n{json.dumps(spec)}\r\n--{b}--\r\n')
open(sys.argv[1] + "/post.lua", "w").write(
    "wrk.method = 'POST'\nwrk.headers['Content-Type'] = 'multipart/form-data; boundary=%s'\nwrk.body = %s\n"
    % (b, json.dumps(body)))
PY

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
trap cleanup EXIT

address_in() {   # the address a folio serve log says it listens on
  for _ in $(seq 100); do
    a=$(grep -o '"address": "[^"]*"' "$1" | head -1 | cut -d'"' -f4); [ -n "$a" ] && { echo "$a"; return; }
    sleep 0.1
  done
}
"$folio" serve --listen 127.0.0.1:0 --queue 256 2>"$work/jail.log" >/dev/null & pids+=($!); jail_pid=$!
"$folio" serve --listen 127.0.0.1:0 --queue 256 --reuse-workers 100 2>"$work/reuse.log" >/dev/null & pids+=($!); reuse_pid=$!
"$folio" serve --listen 127.0.0.1:0 --queue 256 --no-jail 2>"$work/nojail.log" >/dev/null & pids+=($!)
jail=$(address_in "$work/jail.log"); reuse=$(address_in "$work/reuse.log"); nojail=$(address_in "$work/nojail.log")
[ -n "$jail" ] && [ -n "$reuse" ] && [ -n "$nojail" ] || { echo "bench-serve: folio serve did not start"; cat "$work"/*.log; exit 1; }
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$PY" "$here/serve_peer.py" "$port" >/dev/null 2>&1 & pids+=($!)
peer="127.0.0.1:$port"
sleep 2

# wrk -> "req/s p50_ms p99_ms errors"
point() {
  local out; out=$(wrk -t "$(( $2 < 2 ? 1 : 2 ))" -c "$2" -d "${DUR}s" --latency -s "$work/post.lua" "http://$1" 2>&1)
  "$PY" - "$out" <<'PY'
import re, sys
t = sys.argv[1]
def ms(label):
    m = re.search(r"\s%s%%\s+([\d.]+)(us|ms|s)" % label, t)
    if not m: return float("nan")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]
rps = re.search(r"Requests/sec:\s+([\d.]+)", t)
err = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
sock = re.search(r"Socket errors: (.*)", t)
print(f"{float(rps.group(1)) if rps else 0:.0f} {ms('50'):.1f} {ms('99'):.1f} {err.group(1) if err else 0}{' (' + sock.group(1) + ')' if sock else ''}")
PY
}

ratio() { "$PY" -c "import sys; a=float('$1'.split()[0]); p=float('$2'.split()[0]); print(f'{a/p:.1f}x' if p else 'n/a')"; }
h="req/s  p50  p99 ms  non2xx"
printf "%-5s %4s | %-24s | %-24s | %-24s | %-24s | %s\n" fmt conc "folio serve (jail)" "--reuse-workers 100" \
       "folio serve --no-jail" "python http.server" "jail/python reuse/python"
printf "%-5s %4s | %-24s | %-24s | %-24s | %-24s |\n" "" "" "$h" "$h" "$h" "$h"
for fmt in $FORMATS; do
  for c in $CONCS; do
    a=$(point "$jail/v1/render?format=$fmt" $c)
    r=$(point "$reuse/v1/render?format=$fmt" $c)
    b=$(point "$nojail/v1/render?format=$fmt" $c)
    p=$(point "$peer/render?format=$fmt" $c)
    printf "%-5s %4s | %-24s | %-24s | %-24s | %-24s | %-11s %s\n" "$fmt" "$c" "$a" "$r" "$b" "$p" "$(ratio "$a" "$p")" "$(ratio "$r" "$p")"
    [ "$fmt $c" = "xlsx 8" ] && row="$a|$r|$p"
  done
done
# session exec of `1+1`: over HTTP (one kept-alive connection, as a backend
# holds one) beside the CLI's `folio session exec`
XDG_RUNTIME_DIR=$(mktemp -d) "$PY" - "$jail" "$folio" <<'PY'
import http.client, json, os, subprocess, sys, time
host, port = sys.argv[1].split(":")
c = http.client.HTTPConnection(host, int(port), timeout=60)
def call(method, path, body=None):
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"})
    r = c.getresponse()
    return r.status, r.read()
st, out = call("POST", "/v1/sessions", {})
sid = json.loads(out)["id"]
def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]
http_ms = []
for _ in range(200):
    t = time.perf_counter()
    st, out = call("POST", f"/v1/sessions/{sid}/exec", {"code": "1+1"})
    http_ms.append((time.perf_counter() - t) * 1000)
    assert st == 200 and json.loads(out)["result"] == "2", out
call("DELETE", f"/v1/sessions/{sid}")
folio = sys.argv[2]
cid = subprocess.run([folio, "session", "new", "--cold"], capture_output=True, text=True).stdout.strip()
cli_ms = []
for _ in range(100):
    t = time.perf_counter()
    subprocess.run([folio, "session", "exec", cid, "-c", "1+1"], capture_output=True)
    cli_ms.append((time.perf_counter() - t) * 1000)
subprocess.run([folio, "session", "close", cid], capture_output=True)
print("session exec 1+1: over HTTP p50 %.2f ms, p99 %.2f ms; through the CLI p50 %.2f ms, p99 %.2f ms"
      % (pct(http_ms, .5), pct(http_ms, .99), pct(cli_ms, .5), pct(cli_ms, .99)))
PY

# what one render costs in the zygote's children (perf stat follows the
# children they fork; a reused worker alive at the start is attached too):
# CPU ms and page faults per render, 2 s of sequential requests per format --
# the figures the throughput above is made of; beside them the floor, a bare
# fork+exit+wait of a process the zygote's size (bench/fork_floor.c), now
zygote_of() { local init; init=$(pgrep -P "$1" | head -1); pgrep -P "$init" -f zygote | head -1; }
floor_bin="$work/fork_floor"
cc -O2 -o "$floor_bin" "$here/fork_floor.c" 2>/dev/null || floor_bin=
# and what a fresh process pays per page it reads that is already mapped
# (bench/touch_floor.c): the part of a child's CPU that grows with the
# distinct pages a render touches
touch_bin="$work/touch_floor"
cc -O2 -o "$touch_bin" "$here/touch_floor.c" 2>/dev/null || touch_bin=
per_render() {   # server-address zygote-pid fmt log [reuse] -> "cpu_ms faults renders"
  "$PY" - "$1" "$3" "$work/post.lua" <<'PY' &
import http.client, json, re, sys
host, port = sys.argv[1].split(":")
lua = open(sys.argv[3]).read()
ctype = re.search(r"boundary=([^'\"]+)", lua).group(1)
body = json.loads(lua.split("wrk.body = ", 1)[1].strip()).encode()
c = http.client.HTTPConnection(host, int(port), timeout=60)
for _ in range(100000):
    c.request("POST", "/v1/render?format=" + sys.argv[2], body,
              {"Content-Type": "multipart/form-data; boundary=" + ctype})
    r = c.getresponse(); r.read()
PY
  local client=$! log=$4 tasks n0 n1 try
  sleep 0.3
  for try in 1 2 3 4 5; do   # a child listed may end before perf attaches: again
    tasks=$2; [ "${5:-}" = reuse ] && tasks=$(echo "$2" $(pgrep -P "$2") | tr ' ' ,)
    n0=$(grep -c '"route": "render"' "$log")
    perf stat -x, -e task-clock,page-faults -o "$work/perf.txt" -p "$tasks" -- sleep 2 >/dev/null 2>&1 && break
  done
  n1=$(grep -c '"route": "render"' "$log")
  kill "$client" 2>/dev/null; wait "$client" 2>/dev/null
  awk -F, -v n=$((n1 - n0)) '/task-clock/ {ms = $1} /page-faults/ {pf = $1}
    END { if (n > 0) printf "%.2f %.0f %d\n", ms / n, pf / n, n; else print "nan nan 0" }' "$work/perf.txt"
}
if command -v perf >/dev/null && zj=$(zygote_of "$jail_pid") && [ -n "$zj" ] && zr=$(zygote_of "$reuse_pid") && [ -n "$zr" ]; then
  floor=$([ -n "$floor_bin" ] && "$floor_bin" "$zj" 2000)
  set -- $floor
  echo "floor: bare fork+exit+wait of a process the zygote's size (RssAnon $3 KiB, RssFile $4 KiB, $5 mappings, $6 written): ${1:-nan} ms CPU, ${2:-nan} ms wall"
  if [ -n "$touch_bin" ] && t=$("$touch_bin"); then
    set -- $t
    echo "a fresh process reading a page its parent mapped: $1 us CPU a 4 KiB page, $2 us a page of a 2 MiB page"
  fi
  for fmt in $FORMATS; do
    set -- $(per_render "$jail" "$zj" "$fmt" "$work/jail.log")
    d=$(per_render "$reuse" "$zr" "$fmt" "$work/reuse.log" reuse)
    fl=${floor%% *}
    "$PY" -c "
c, pf, n = float('$1'), '$2', '$3'; rc, rpf, rn = '$d'.split(); fl = float('${fl:-nan}')
print(f'per render in the children, $fmt: default {c:.2f} ms CPU, {pf} page faults ({n} renders), '
      f'{c - fl:+.2f} ms over the floor; reused workers {float(rc):.2f} ms, {rpf} faults ({rn} renders)')"
    [ "$fmt" = xlsx ] && xlsx_cpu=$1
  done
fi
if [ -n "${row:-}" ]; then
  IFS='|' read -r a r p <<< "$row"
  "$PY" -c "
a, r, p = (float(x.split()[0]) for x in ('$a', '$r', '$p'))
c, fl = float('${xlsx_cpu:-nan}'), float('${fl:-nan}')
print(f'issue 39, xlsx at c=8: default {a:.0f} req/s = {a/p:.1f}x the python peer ({p:.0f}; goal >= 3x), '
      f'per-render CPU {c:.2f} ms = floor {fl:.2f} ms {c - fl:+.2f} ms (goal within 1.5 ms); '
      f'--reuse-workers {r:.0f} req/s = {r/p:.1f}x (goal >= 10x)')"
fi

# soak: SOAK renders (png, concurrency 8) against the jailed server
fds() { ls "/proc/$jail_pid/fd" | wc -l; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$jail_pid/status"; }
f0=$(fds); r0=$(rss); done_n=0; bad=0; t0=$(date +%s.%N)
while [ "$done_n" -lt "$SOAK" ]; do
  out=$(wrk -t 2 -c 8 -d 10s -s "$work/post.lua" "http://$jail/v1/render?format=png" 2>&1)
  n=$(echo "$out" | awk '/requests in/ {print $1}'); done_n=$((done_n + ${n:-0}))
  e=$(echo "$out" | awk '/Non-2xx/ {print $5}'); bad=$((bad + ${e:-0}))
  [ "${n:-0}" -gt 0 ] || break
done
t1=$(date +%s.%N)
fives=$(grep -c '"status": 5' "$work/jail.log")
echo "soak: $done_n renders in $("$PY" -c "print(f'{$t1-$t0:.0f}')") s, non-2xx $bad, 5xx in the log $fives;" \
     "server RSS $r0 -> $(rss) KiB, open fds $f0 -> $(fds)"
