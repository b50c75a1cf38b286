# test_haproxy.py — deploy/haproxy.cfg in front of two `folio serve`
# instances on loopback sharing one --state-dir: stateless renders are
# balanced and keep succeeding while one instance is stopped;
# /v1/sessions/{id}/... reaches the instance named in the id; when that
# instance is killed (SIGKILL, its supervisors too), the next request reaches
# the other one, which resumes the session from its last checkpoint with its
# variables and files. The names in haproxy.cfg agree with the Kubernetes
# StatefulSet's.
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from test_serve import ROOT, Server, errors_of, render, request

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (make deps-test)")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LB:
    def __init__(self, s0, s1, config=ROOT / "deploy" / "haproxy.cfg"):
        self.address = f"127.0.0.1:{free_port()}"
        self.url = "http://" + self.address
        env = dict(os.environ, FOLIO_LB_BIND=self.address, FOLIO_S0=s0.address, FOLIO_S1=s1.address)
        self.p = subprocess.Popen(["haproxy", "-db", "-f", str(config)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(100):
            try:
                if request(self.url + "/healthz", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("haproxy did not start: " + self.p.stderr.read())

    def stop(self):
        self.p.terminate()
        self.p.wait(10)


def instance(headers):
    return headers.get("X-Folio-Instance")


def test_balancing_session_routing_and_failover():
    s0, s1 = Server("--instance", "s0"), Server("--instance", "s1")
    lb = LB(s0, s1)
    try:
        time.sleep(1.5)                                   # both marked up by the health checks
        seen = set()
        for _ in range(12):
            st, h, body = render(lb, ["png"])
            assert st == 200 and body.startswith(b"\x89PNG")
            seen.add(instance(h))
        assert seen == {"s0", "s1"}, "stateless renders are spread over both instances"
        for name in ("s0", "s1"):
            for path in (f"/v1/sessions/{name}-a1b2c3/exec", f"/v1/sessions/{name}-zz/files/out/x.png"):
                st, h, _ = request(lb.url + path, "POST", b"{}", "application/json")
                assert instance(h) == name, f"{path} reached {instance(h)}"
        # real sessions made through the balancer: each exec reaches the instance holding it
        for _ in range(2):
            st, h, body = request(lb.url + "/v1/sessions", "POST", b"{}", "application/json")
            assert st == 201, body
            sid = json.loads(body)["id"]
            assert sid.startswith(instance(h) + "-")
            for k in range(4):
                code = "n = 0" if k == 0 else "n += 1\nn"
                st, h2, body = request(lb.url + f"/v1/sessions/{sid}/exec", "POST",
                                       json.dumps({"code": code}).encode(), "application/json")
                assert st == 200 and instance(h2) == instance(h), body
            assert json.loads(body)["result"] == "3", "state kept: every cell ran in one session"
            request(lb.url + f"/v1/sessions/{sid}", "DELETE")
        st, _, body = request(lb.url + "/v1/sessions/s9-abc/exec", "POST", b"{}", "application/json")
        assert st == 404 and "no such session" in errors_of(body)[0]["message"]

        assert s1.stop() == 0
        for _ in range(10):                               # no gap while s1 is going away
            st, h, _ = render(lb, ["xlsx"])
            assert st == 200 and instance(h) == "s0"
        time.sleep(2.5)                                   # health checks notice s1 is down
        st, h, body = request(lb.url + "/v1/sessions/s1-a1b2c3/exec", "POST", b"{}", "application/json")
        assert st == 404 and instance(h) == "s0", "s1's ids go to s0, which has no such session"
        st, h, _ = request(lb.url + "/v1/sessions/s0-a1b2c3/exec", "POST", b"{}", "application/json")
        assert instance(h) == "s0"
    finally:
        lb.stop()
        s0.stop()
        s1.stop()


def kill_instance(srv, session_dir):
    """SIGKILL the instance and every supervisor it started (as a machine dies)."""
    srv.p.kill()
    srv.p.wait(10)
    mark = b"FOLIO_SESSION_DIR=" + str(session_dir).encode() + b"\0"
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read() + b"\0"
        except OSError:
            continue
        if mark in env:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


def exec_cell(lb, sid, code):
    st, h, body = request(lb.url + f"/v1/sessions/{sid}/exec", "POST", json.dumps({"code": code}).encode(),
                          "application/json")
    return st, instance(h), json.loads(body) if body else None


def test_failover_resumes_from_checkpoint(tmp_path):
    state = tmp_path / "state"
    rt = [tmp_path / "rt0", tmp_path / "rt1"]
    opts = ["--state-dir", state, "--checkpoint-idle", 1]
    s0 = Server("--instance", "s0", "--session-dir", rt[0], *opts)
    s1 = Server("--instance", "s1", "--session-dir", rt[1], *opts)
    servers = {"s0": s0, "s1": s1}
    lb = LB(s0, s1)
    s0 = s1 = None
    try:
        time.sleep(1.5)
        st, h, body = request(lb.url + "/v1/sessions", "POST", b"{}", "application/json")
        assert st == 201, body
        sid, home = json.loads(body)["id"], instance(h)
        st, where, doc = exec_cell(lb, sid, "import os\nx = [k * k for k in range(1000)]\n"
                                            "open('/work/kept.txt', 'w').write('kept ' * 3)\nlen(x)")
        assert st == 200 and where == home and doc["result"] == "1000", doc
        snaps = []
        for _ in range(100):                              # the idle checkpoint is published
            snaps = [p for p in (state / sid.split("-", 1)[1]).glob("snap.*") if (p / "kind").exists()]
            if snaps and (state / sid.split("-", 1)[1] / "head").exists():
                break
            time.sleep(0.1)
        assert len(snaps) == 1 and (snaps[0] / "kind").read_text() == "checkpoint"

        other = "s1" if home == "s0" else "s0"
        kill_instance(servers[home], rt[0] if home == "s0" else rt[1])
        for _ in range(100):                              # until HAProxy and the lease let it through
            st, where, doc = exec_cell(lb, sid, "y = sum(x) + len(open('/work/kept.txt').read())\ny")
            if st == 200:
                break
            time.sleep(0.3)
        assert st == 200 and where == other, (st, doc)
        assert doc["resumed"] is True and doc["from"] == "checkpoint", doc
        assert doc["result"] == str(sum(k * k for k in range(1000)) + 15), doc
        st, where, doc = exec_cell(lb, sid, "y + 1")      # and it stays there, live
        assert st == 200 and where == other and "resumed" not in doc, doc

        # the dead instance comes back on its address and folders: its ids go to it
        # again; it asks the holder to let go (hibernate), then resumes the session
        back = Server("--instance", home, "--listen", servers[home].address,
                      "--session-dir", rt[0] if home == "s0" else rt[1], *opts)
        servers[home] = back
        for _ in range(100):
            st, where, doc = exec_cell(lb, sid, "y + 2")
            if st == 200 and where == home:
                break
            time.sleep(0.3)
        assert st == 200 and where == home, (st, where, doc)
        assert doc["resumed"] is True and doc["from"] == "hibernation", doc
        assert doc["result"] == str(sum(k * k for k in range(1000)) + 17), doc
        st, _, _ = request(lb.url + f"/v1/sessions/{sid}", "DELETE")
        assert st == 204
        assert not (state / sid.split("-", 1)[1]).exists(), "a closed session leaves nothing in the state folder"
    finally:
        lb.stop()
        for srv in servers.values():
            srv.stop()


def test_upload_over_the_ceiling_is_413_through_haproxy():
    """A client that sends its whole body at once (Python requests, no
    Expect: 100-continue) reads 413, not a connection reset."""
    requests = pytest.importorskip("requests")
    s0, s1 = Server("--instance", "s0"), Server("--instance", "s1")
    lb = LB(s0, s1)
    body = b"x" * (40 << 20)                              # over the default --max-body (32 MiB)
    got = []
    try:
        time.sleep(1.5)
        for k in range(5):
            url = lb.url + ("/v1/render?format=png" if k % 2 else "/v1/sessions/s0-" + "0" * 32 + "/files/a.csv")
            try:
                r = (requests.post if k % 2 else requests.put)(url, data=body, timeout=60,
                                                               headers={"Content-Type": "application/json"})
                got.append((r.status_code, "over the ceiling" in r.json()["errors"][0]["message"]))
            except requests.ConnectionError as e:
                got.append(type(e).__name__)
        assert got == [(413, True)] * 5, got
        assert render(lb, ["png"])[0] == 200
    finally:
        lb.stop()
        s0.stop()
        s1.stop()


def test_a_live_lease_keeps_a_session_from_a_second_instance(tmp_path):
    """The state folder's lease: an instance resumes a saved session only when
    no live instance holds it; a lease whose holder died (expired) is taken
    over. (No flock: a file linked in place, which NFS carries.)"""
    state = tmp_path / "state"
    opts = ["--state-dir", state, "--lease", 2]
    a = Server("--instance", "s0", "--session-dir", tmp_path / "rt0", *opts)
    b = None
    try:
        st, _, body = request(a.url + "/v1/sessions", "POST", b"{}", "application/json")
        sid = json.loads(body)["id"]
        st, _, body = request(a.url + f"/v1/sessions/{sid}/exec", "POST", b'{"code": "x = 41"}', "application/json")
        assert st == 200
        assert a.stop() == 0                              # SIGTERM: the session is saved (hibernated)
        lease = state / sid.split("-", 1)[1] / "lease"
        assert not lease.exists(), "a hibernated session holds no lease"
        lease.write_text("s9 %d\n" % (time.time() + 3600))   # an instance s9 holds it, alive
        b = Server("--instance", "s1", "--session-dir", tmp_path / "rt1", *opts)
        st, _, body = request(b.url + f"/v1/sessions/{sid}/exec", "POST", b'{"code": "x + 1"}', "application/json")
        assert st == 503 and "held by another instance" in errors_of(body)[0]["message"], body
        assert lease.read_text().startswith("s9 "), "a live lease is never taken"
        lease.write_text("s9 %d\n" % (time.time() - 1))      # s9 died: its lease expired
        st, _, body = request(b.url + f"/v1/sessions/{sid}/exec", "POST", b'{"code": "x + 1"}', "application/json")
        doc = json.loads(body)
        assert st == 200 and doc["result"] == "42" and doc["from"] == "hibernation", doc
        assert lease.read_text().startswith("s1 "), "s1 holds it now"
    finally:
        a.stop()
        if b:
            b.stop()


def scaled_config(tmp_path, cell_wait=True):
    """deploy/haproxy.cfg with its client and server timeouts cut to 1 s, so
    that a 3-second cell outlasts them; without cell_wait, also without the
    rule that lets a cell's exec wait for the server."""
    text = (ROOT / "deploy" / "haproxy.cfg").read_text()
    for old, new in (("timeout server 120s", "timeout server 1s"), ("timeout client 30s", "timeout client 1s")):
        assert old in text, old
        text = text.replace(old, new)
    if not cell_wait:
        kept = [line for line in text.splitlines() if "# cell_wait" not in line]
        assert len(kept) == len(text.splitlines()) - 2, "one cell_wait rule per session backend"
        text = "\n".join(kept) + "\n"
    path = tmp_path / ("haproxy.cfg" if cell_wait else "haproxy-no-cell-wait.cfg")
    path.write_text(text)
    return path


SLOW_CELL = "import time\nprint('started', flush=True)\ntime.sleep(3)\nprint('done')\n6 * 7"
# The streamed one waits, after "started", for the test's interrupt, which
# the test sends only once "started" has come through the balancer (and 3 s
# later, so the cell outlasts the balancer's timeouts as SLOW_CELL does):
# "woken" in its output proves the line was streamed while the cell ran.
GATED_CELL = ("import time\nprint('started', flush=True)\ntry:\n    time.sleep(30)\n"
              "    print('not woken')\nexcept KeyboardInterrupt:\n    print('woken')\n6 * 7")


def test_a_cell_outlasts_the_balancers_timeouts_plain_and_streamed(tmp_path):
    """A cell longer than HAProxy's server and client timeouts answers
    through it, as one JSON body and as a stream whose first line comes
    while the cell runs; the same config without the cell_wait rule cuts the
    plain exec with a 504, which is what a long cell met before."""
    import http.client

    s0, s1 = Server("--instance", "s0"), Server("--instance", "s1")
    lb = LB(s0, s1, scaled_config(tmp_path))
    bare = LB(s0, s1, scaled_config(tmp_path, cell_wait=False))
    try:
        time.sleep(1.5)
        st, h, body = request(lb.url + "/v1/sessions", "POST", b"{}", "application/json")
        assert st == 201, body
        sid = json.loads(body)["id"]
        st, _, r = exec_cell(lb, sid, SLOW_CELL)
        assert st == 200 and r["status"] == "ok", r
        assert r["stdout"] == "started\ndone\n" and r["result"] == "42"

        host, port = lb.address.rsplit(":", 1)
        c = http.client.HTTPConnection(host, int(port), timeout=30)
        c.request("POST", f"/v1/sessions/{sid}/exec", json.dumps({"code": GATED_CELL}),
                  {"Content-Type": "application/json", "Accept": "text/event-stream"})
        resp = c.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
        seen, woke = [], None
        for line in iter(resp.readline, b""):
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                seen.append(line[7:])
            elif line.startswith("data: ") and seen and seen[-1] == "stream" and woke is None:
                assert json.loads(line[6:])["text"] == "started\n", line
                time.sleep(3)                  # past the balancer's timeouts, not a check
                st, _, out = request(lb.url + f"/v1/sessions/{sid}/interrupt", "POST", b"",
                                     "application/json")
                woke = (st, json.loads(out) if st == 200 else out)
            elif line.startswith("data: ") and seen and seen[-1] == "result":
                result = json.loads(line[6:])
        c.close()
        assert woke == (200, {"interrupted": True}), \
            "'started' came through the balancer as it was printed, not with the result"
        assert seen[-1] == "result" and result["status"] == "interrupted", seen
        assert result["stdout"] == "started\nwoken\n" and result["result"] == "42", result

        st, _, body = request(bare.url + f"/v1/sessions/{sid}/exec", "POST",
                              json.dumps({"code": SLOW_CELL}).encode(), "application/json")
        assert st == 504, (st, body)
        request(lb.url + f"/v1/sessions/{sid}", "DELETE")
    finally:
        bare.stop()
        lb.stop()
        s0.stop()
        s1.stop()
