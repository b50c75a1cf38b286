#!/usr/bin/env python3
"""live_bench.py — live cells (PRODUCT.md §8) beside Jupyter, on loopback.

folio serve on a free loopback port against a local ipykernel driven by
jupyter_client (the peer: no HTTP, no jail), the same cells on both:
  - exec round trip of `1+1`;
  - interrupt -> the interrupted cell's answer;
  - first streamed byte: a cell prints its own clock, the client notes when
    the text arrives (SSE for folio, the iopub stream message for Jupyter);
  - /healthz and a `1+1` cell in another session while N sessions each run a
    busy cell, over 20 keep-alive connections (folio only: Jupyter has no
    server of its own to ask).
Prints medians and p99 in ms and the ratios folio/Jupyter. A benchmark: it
asserts nothing. Usage: live_bench.py FOLIO [ROUNDS]
"""
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

FOLIO = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
BUSY = int(os.environ.get("BUSY", "16"))
LOOP = "import time\nwhile True:\n    time.sleep(0.005)\n"
SPIN = "while True:\n    pass\n"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Serve:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="folio-live-bench-")
        self.p = subprocess.Popen([FOLIO, "serve", "--listen", "127.0.0.1:0", "--instance", "lb",
                                   "--max-sessions", str(BUSY + 4), "--max-cells", str(BUSY + 8),
                                   "--scratch", self.tmp], stderr=subprocess.PIPE, text=True)
        for line in self.p.stderr:
            m = re.search(r'"event": "listening", "address": "([^"]+)"', line)
            if m:
                self.host, port = m.group(1).rsplit(":", 1)
                self.port = int(port)
                break
        threading.Thread(target=lambda: [None for _ in self.p.stderr], daemon=True).start()

    def conn(self, timeout=120):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def call(self, c, method, path, obj=None, headers=None):
        body = json.dumps(obj) if obj is not None else None
        c.request(method, path, body, {"Content-Type": "application/json", **(headers or {})})
        r = c.getresponse()
        return r.status, r.read()

    def session(self, c):
        st, out = self.call(c, "POST", "/v1/sessions", {})
        return json.loads(out)["id"]

    def stop(self):
        self.p.terminate()
        self.p.wait(60)


def folio_figures(srv):
    c = srv.conn()
    sid = srv.session(c)
    rt = []
    for _ in range(ROUNDS * 5):
        t = time.perf_counter()
        srv.call(c, "POST", f"/v1/sessions/{sid}/exec", {"code": "1+1"})
        rt.append((time.perf_counter() - t) * 1e3)
    intr = []
    for _ in range(ROUNDS):
        done = {}
        c2 = srv.conn()

        def run():
            srv.call(c2, "POST", f"/v1/sessions/{sid}/exec", {"code": LOOP})
            done["t"] = time.perf_counter()
        th = threading.Thread(target=run)
        th.start()
        time.sleep(0.3)
        t = time.perf_counter()
        srv.call(c, "POST", f"/v1/sessions/{sid}/interrupt")
        th.join()
        intr.append((done["t"] - t) * 1e3)
        c2.close()
    first = []
    for _ in range(ROUNDS):
        c2 = srv.conn()
        c2.request("POST", f"/v1/sessions/{sid}/exec",
                   json.dumps({"code": "import time\ntime.sleep(0.05)\nprint(time.time(), flush=True)\n"
                                       "time.sleep(0.05)"}),
                   {"Content-Type": "application/json", "Accept": "text/event-stream"})
        r = c2.getresponse()
        while True:
            line = r.readline().decode()
            if line.startswith("data: ") and '"stdout"' in line:
                now = time.time()
                first.append((now - float(json.loads(line[6:])["text"])) * 1e3)
                break
        r.read()
        c2.close()
    return sid, rt, intr, first


def folio_under_load(srv):
    """N sessions each running a cell; 20 keep-alive connections ask /healthz
    and another session's 1+1 meanwhile."""
    c = srv.conn()
    other = srv.session(c)
    busy = [srv.session(c) for _ in range(BUSY)]
    conns = []
    for sid in busy:
        bc = srv.conn(timeout=600)
        bc.request("POST", f"/v1/sessions/{sid}/exec", json.dumps({"code": SPIN}),
                   {"Content-Type": "application/json"})
        conns.append(bc)
    time.sleep(1)
    pool = [srv.conn() for _ in range(20)]
    health, cells = [], []
    for k in range(ROUNDS * 25):
        pc = pool[k % 20]
        t = time.perf_counter()
        srv.call(pc, "GET", "/healthz")
        health.append((time.perf_counter() - t) * 1e3)
        if k % 5 == 0:
            t = time.perf_counter()
            srv.call(pc, "POST", f"/v1/sessions/{other}/exec", {"code": "1+1"})
            cells.append((time.perf_counter() - t) * 1e3)
    for sid in busy:
        srv.call(c, "POST", f"/v1/sessions/{sid}/interrupt")
    for bc in conns:
        bc.getresponse().read()
        bc.close()
    for sid in busy + [other]:
        srv.call(c, "DELETE", f"/v1/sessions/{sid}")
    return health, cells


def jupyter_figures():
    from jupyter_client import KernelManager
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)

    def run(code, on_stream=None):
        mid = kc.execute(code)
        while True:
            msg = kc.get_iopub_msg(timeout=120)
            if msg["parent_header"].get("msg_id") != mid:
                continue
            if msg["msg_type"] == "stream" and on_stream:
                on_stream(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return
    rt, intr, first = [], [], []
    for _ in range(ROUNDS * 5):
        t = time.perf_counter()
        run("1+1")
        rt.append((time.perf_counter() - t) * 1e3)
    for _ in range(ROUNDS):
        done = {}
        th = threading.Thread(target=lambda: (run(LOOP), done.setdefault("t", time.perf_counter())))
        th.start()
        time.sleep(0.3)
        t = time.perf_counter()
        km.interrupt_kernel()
        th.join()
        intr.append((done["t"] - t) * 1e3)
    for _ in range(ROUNDS):
        got = []
        run("import time\ntime.sleep(0.05)\nprint(time.time(), flush=True)\ntime.sleep(0.05)",
            lambda m: got.append((time.time() - float(m["content"]["text"])) * 1e3) if not got else None)
        first.append(got[0])
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    return rt, intr, first


def row(name, f, j):
    fm, jm = statistics.median(f), statistics.median(j) if j else None
    ratio = f"{jm / fm:.1f}x faster" if jm and fm < jm else (f"{fm / jm:.1f}x slower" if jm else "-")
    print(f"{name:<38} {fm:8.2f} {pct(f, 99):8.2f} {jm if jm is None else round(jm, 2)!s:>9} {ratio:>14}")


def main():
    srv = Serve()
    try:
        _, rt, intr, first = folio_figures(srv)
        health, cells = folio_under_load(srv)
    finally:
        srv.stop()
    try:
        jrt, jintr, jfirst = jupyter_figures()
    except Exception as e:  # no jupyter_client here: folio's figures alone
        print(f"(jupyter_client peer unavailable: {e})")
        jrt = jintr = jfirst = []
    print(f"{'ms':<38} {'folio p50':>8} {'p99':>8} {'jupyter':>9} {'folio vs jupyter':>14}")
    row("exec 1+1 round trip", rt, jrt)
    row("interrupt -> answer", intr, jintr)
    row("first streamed byte after print", first, jfirst)
    row(f"/healthz, {BUSY} busy cells, 20 conns", health, [])
    row(f"1+1 in another session, {BUSY} busy", cells, [])
    os.system(f"rm -rf {srv.tmp}")


main()
