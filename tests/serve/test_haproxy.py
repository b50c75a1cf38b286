# test_haproxy.py — deploy/haproxy.cfg in front of two `folio serve`
# instances on loopback: stateless renders are balanced and keep succeeding
# while one instance is stopped; /v1/sessions/{id}/... reaches the instance
# named in the id, and an id of the stopped instance is reported gone (404),
# never handed to the other one.
import json
import os
import shutil
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
    def __init__(self, s1, s2):
        self.address = f"127.0.0.1:{free_port()}"
        self.url = "http://" + self.address
        env = dict(os.environ, FOLIO_LB_BIND=self.address, FOLIO_S1=s1.address, FOLIO_S2=s2.address)
        self.p = subprocess.Popen(["haproxy", "-db", "-f", str(ROOT / "deploy" / "haproxy.cfg")], env=env,
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
    s1, s2 = Server("--instance", "s1"), Server("--instance", "s2")
    lb = LB(s1, s2)
    try:
        time.sleep(1.5)                                   # both marked up by the health checks
        seen = set()
        for _ in range(12):
            st, h, body = render(lb, ["png"])
            assert st == 200 and body.startswith(b"\x89PNG")
            seen.add(instance(h))
        assert seen == {"s1", "s2"}, "stateless renders are spread over both instances"
        for name in ("s1", "s2"):
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

        assert s2.stop() == 0
        for _ in range(10):                               # no gap while s2 is going away
            st, h, _ = render(lb, ["xlsx"])
            assert st == 200 and instance(h) == "s1"
        time.sleep(2.5)                                   # health checks notice s2 is down
        st, h, body = request(lb.url + "/v1/sessions/s2-a1b2c3/exec", "POST", b"{}", "application/json")
        assert st == 404 and "instance is gone" in errors_of(body)[0]["message"]
        assert instance(h) is None, "an s2 session must not be handed to s1"
        st, h, _ = request(lb.url + "/v1/sessions/s1-a1b2c3/exec", "POST", b"{}", "application/json")
        assert instance(h) == "s1"
    finally:
        lb.stop()
        s1.stop()
        s2.stop()
