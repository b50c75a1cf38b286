#!/usr/bin/env bash
# bench-cluster.sh — sessions across instances (docs/serve.md, Scale-out):
# two `folio serve` instances behind deploy/haproxy.cfg on loopback sharing
# one --state-dir. For a bare session and one holding an 80,000-row pandas
# DataFrame: what an idle checkpoint costs (the supervisor's own figure from
# RT/ID/log, and the snapshot's size), and the failover time: the instance
# holding the session killed with SIGKILL (its supervisors too) -> the first
# answer of the other instance through HAProxy, the session resumed from its
# checkpoint. The lease (--lease, 10 s by default; 3 s too) bounds the
# failover from below. Then the throughput of a small render direct to one
# instance and through HAProxy to two (wrk).
# Usage: bench/bench-cluster.sh FOLIO_BIN [RUNS]
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
command -v haproxy >/dev/null || { echo "bench-cluster: haproxy is not installed (make deps-test): skipped"; exit 0; }
FOLIO=$folio PYTHONPATH=$here/../tests/serve /usr/bin/python3 - "$runs" <<'PY'
import json, pathlib, re, statistics, sys, tempfile, time
from test_serve import Server, request
from test_haproxy import LB, kill_instance, exec_cell

RUNS = int(sys.argv[1])
SETUP = {"bare session": "x = 1",
         "80k-row DataFrame": "import pandas as pd, numpy as np\n"
                              "df = pd.DataFrame({'a': np.arange(80000), 'b': np.random.rand(80000),"
                              " 'c': ['r%d' % k for k in range(80000)]})\nlen(df)"}


def one(label, code, lease):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="folio-bench-cluster."))
    state, rt = tmp / "state", [tmp / "rt0", tmp / "rt1"]
    opts = ["--state-dir", state, "--checkpoint-idle", 1, "--lease", lease]
    servers = {"s0": Server("--instance", "s0", "--session-dir", rt[0], *opts),
               "s1": Server("--instance", "s1", "--session-dir", rt[1], *opts)}
    lb = LB(servers["s0"], servers["s1"])
    try:
        time.sleep(1.5)
        st, h, body = request(lb.url + "/v1/sessions", "POST", b"{}", "application/json")
        sid, home = json.loads(body)["id"], h.get("X-Folio-Instance")
        st, _, doc = exec_cell(lb, sid, code)
        assert st == 200 and doc["status"] == "ok", doc
        hexid = sid.split("-", 1)[1]
        log = (rt[0] if home == "s0" else rt[1]) / hexid / "log"
        for _ in range(300):
            m = re.search(r"checkpoint saved in ([0-9.]+) ms", log.read_text() if log.exists() else "")
            if m:
                break
            time.sleep(0.05)
        ck = float(m.group(1))
        size = sum(f.stat().st_size for f in (state / hexid).rglob("*") if f.is_file())
        kill_instance(servers[home], rt[0] if home == "s0" else rt[1])
        t0 = time.perf_counter()
        while True:
            st, where, doc = exec_cell(lb, sid, "1")
            if st == 200:
                break
            time.sleep(0.05)
        fo = (time.perf_counter() - t0) * 1000
        assert doc.get("from") == "checkpoint" and where != home, doc
        return ck, size, fo
    finally:
        lb.stop()
        for s in servers.values():
            s.stop()


print("%-20s %6s %19s %12s %22s" % ("session", "lease", "checkpoint (p50)", "snapshot", "failover (p50, max)"))
for lease in (10, 3):
    for label, code in SETUP.items():
        got = [one(label, code, lease) for _ in range(RUNS)]
        ck = [g[0] for g in got]
        fo = [g[2] for g in got]
        print("%-20s %4d s %16.1f ms %9.1f MB %13.0f ms, %.0f" % (label, lease, statistics.median(ck),
                                                                got[-1][1] / 1e6, statistics.median(fo), max(fo)))


def wrk(url, lua):
    """wrk -c 8 for 3 s: (requests/s, p50 ms, non-2xx)."""
    import shutil, subprocess
    if not shutil.which("wrk"):
        return None
    out = subprocess.run(["wrk", "-t", "2", "-c", "8", "-d", "3s", "--latency", "-s", lua, url],
                         capture_output=True, text=True).stdout
    m = re.search(r"\s50%\s+([\d.]+)(us|ms|s)", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return (float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)], int(bad.group(1)) if bad else 0)


# Throughput of a small render (spec -> xlsx), direct to one instance and
# through HAProxy balancing two, in the same run.
tmp = pathlib.Path(tempfile.mkdtemp(prefix="folio-bench-cluster."))
spec = {"folio": 1, "title": "Monthly revenue",
        "data": {"s": {"columns": [{"name": "month", "type": "text"}, {"name": "revenue", "type": "number"}],
                       "rows": [[f"m{i:02d}", 1000 + 37 * i] for i in range(20)]}},
        "blocks": [{"type": "table", "data": "s"}]}
b = "folio-bench-boundary"
body = (f'--{b}\r\nContent-Disposition: form-data; name="spec"; filename="spec.json"\r\n'
        f'Content-Type: application/json\r\n\r\n{json.dumps(spec)}\r\n--{b}--\r\n')
lua = tmp / "post.lua"
lua.write_text("wrk.method = 'POST'\nwrk.headers['Content-Type'] = 'multipart/form-data; boundary=%s'\n"
               "wrk.body = %s\n" % (b, json.dumps(body)))
s0, s1 = Server("--instance", "s0", "--queue", 256), Server("--instance", "s1", "--queue", 256)
lb = LB(s0, s1)
try:
    time.sleep(1.5)
    direct = wrk(s0.url + "/v1/render?format=xlsx", str(lua))
    through = wrk(lb.url + "/v1/render?format=xlsx", str(lua))
    if direct and through:
        print("\nsmall spec -> xlsx, wrk -c 8 3 s: direct to one instance %.0f req/s (p50 %.1f ms, %d non-2xx); "
              "through HAProxy to two %.0f req/s (p50 %.1f ms, %d non-2xx): %.2fx" %
              (direct + through + (through[0] / direct[0],)))
    else:
        print("\nthroughput: wrk is not installed (make deps-bench): skipped")
finally:
    lb.stop()
    s0.stop()
    s1.stop()
PY
