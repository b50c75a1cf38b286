#!/usr/bin/env bash
# bench-cluster.sh — sessions across instances (docs/serve.md, Scale-out):
# two `folio serve` instances behind deploy/haproxy.cfg on loopback sharing
# one --state-dir. For a bare session and one holding an 80,000-row pandas
# DataFrame: what an idle checkpoint costs (the supervisor's own figure from
# RT/ID/log, and the snapshot's size), and the failover time: the instance
# holding the session killed with SIGKILL (its supervisors too) -> the first
# answer of the other instance through HAProxy, the session resumed from its
# checkpoint. The lease (--lease, 10 s by default; 3 s too) bounds the
# failover from below.
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
PY
