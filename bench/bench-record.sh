#!/usr/bin/env bash
# bench-record.sh — what a session's record (docs/sessions.md "The record")
# costs: the exec round trip of `1+1` over the session socket (as folio serve
# uses it) with the record and without (FOLIO_SESSION_RECORD=0, a knob for
# this measurement only), the record's bytes per cell, and the time of
# `folio session export` and of `folio replay` of the sample session of
# samples/demo-session.sh. Usage: bench/bench-record.sh FOLIO_BIN [RUNS]
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
runs=${2:-300}
here=$(cd "$(dirname "$0")" && pwd)
rt=$(mktemp -d /tmp/folio-bench-record.XXXXXX)
chmod 700 "$rt"
trap 'for i in $(XDG_RUNTIME_DIR=$rt "$folio" session ls | cut -d" " -f1); do
        XDG_RUNTIME_DIR=$rt "$folio" session close "$i"; done; rm -rf "$rt"' EXIT
export XDG_RUNTIME_DIR=$rt FOLIO_RECORD_NO_ENV=1

/usr/bin/python3 - "$folio" "$runs" "$here/../samples/analysis" <<'EOF'
import json, os, socket, statistics, struct, subprocess, sys, tempfile, time

FOLIO, RUNS, DATA = sys.argv[1], int(sys.argv[2]), sys.argv[3]
RT = os.path.join(os.environ["XDG_RUNTIME_DIR"], "folio")


def folio(*args, env=None):
    p = subprocess.run([FOLIO, *args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if p.returncode not in (0, 4):
        raise SystemExit("folio %s: %s" % (args[0], p.stderr))
    return p


def sock_exec(sid, code):
    s = socket.socket(socket.AF_UNIX)
    fd = os.open(os.path.join(RT, sid), os.O_RDONLY)
    s.connect("/proc/self/fd/%d/sock" % fd)
    body = struct.pack("<IB", 0, 0) + code.encode()
    s.sendall(b"x" + struct.pack("<I", len(body)) + body)
    while s.recv(65536):
        pass
    s.close()
    os.close(fd)


def p50(xs):
    return statistics.median(xs)


on = folio("session", "new", "--cold").stdout.strip()
off = folio("session", "new", "--cold", env={"FOLIO_SESSION_RECORD": "0"}).stdout.strip()
times = {on: [], off: []}
for k in range(RUNS):                      # alternate: the same machine load for both
    for sid in (on, off) if k % 2 else (off, on):
        t = time.perf_counter()
        sock_exec(sid, "1+1")
        times[sid].append((time.perf_counter() - t) * 1000)
a, b = p50(times[on]), p50(times[off])
files = ["record.jsonl", "record.nb", "record.index"]
size = sum(os.path.getsize(os.path.join(RT, on, f)) for f in files)
print("exec 1+1 round trip (socket), p50 of %d: with the record %.3f ms, without %.3f ms, "
      "overhead %.3f ms (%.1f%%)" % (RUNS, a, b, a - b, (a - b) / b * 100))
print("record per `1+1` cell: %.0f bytes (record.jsonl + record.nb + record.index)" % (size / RUNS))
t = time.perf_counter()
with tempfile.TemporaryDirectory() as d:
    folio("session", "export", on, "--ipynb", os.path.join(d, "n.ipynb"))
    print("export --ipynb of %d cells: %.1f ms, %d bytes" % (RUNS, (time.perf_counter() - t) * 1000,
                                                           os.path.getsize(os.path.join(d, "n.ipynb"))))
for sid in (on, off):
    folio("session", "close", sid)

# the sample session of samples/demo-session.sh (3 cells: load, a figure, a spec)
with tempfile.TemporaryDirectory() as d:
    out = subprocess.run(["sh", os.path.join(DATA, "..", "demo-session.sh"), FOLIO, d],
                         capture_output=True, text=True)
    rec = os.path.join(d, "session", "session.record.jsonl")
    if not os.path.exists(rec):
        print("demo session: skipped (%s)" % out.stdout.strip().splitlines()[-1:])
    else:
        lines = open(rec).read().splitlines()
        ts = []
        for _ in range(5):
            t = time.perf_counter()
            p = folio("replay", rec, "--in", DATA, "--json")
            ts.append((time.perf_counter() - t) * 1000)
        rep = json.loads(p.stdout)
        print("replay of the demo session (%d cells, %d bytes of record): %.0f ms p50 of 5; "
              "%d outputs identical of %d" % (len(lines) - 1, os.path.getsize(rec), p50(ts),
              sum(o["result"] == "identical" for o in rep["outputs"]), len(rep["outputs"])))
EOF
