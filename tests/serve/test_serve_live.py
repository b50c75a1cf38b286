# test_serve_live.py — live cells over HTTP (PRODUCT.md §8): rich results,
# failures whose hints speak the HTTP caller's language. Each server runs on
# a free loopback port and is stopped by its test module.
import json

import pytest

from test_serve import Server
from test_serve_sessions import call, exec_, new_session


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    s = Server("--instance", "lv", "--workers", 2, "--max-sessions", 4,
               "--session-dir", tmp_path_factory.mktemp("sessions"),
               scratch=tmp_path_factory.mktemp("scratch"))
    yield s
    assert s.stop() == 0


def test_rich_results_over_http(srv):
    sid, _ = new_session(srv)
    try:
        st, r = exec_(srv, sid, "class T:\n    def _repr_html_(self): return '<table/>'\n"
                                "    def __repr__(self): return 'T()'\n"
                                "display(T())\nT()")
        assert st == 200 and r["status"] == "ok", r
        assert r["displays"] == [{"data": {"text/plain": "T()", "text/html": "<table/>"},
                                  "metadata": {}}]
        assert r["result"] == "T()" and r["result_data"]["data"]["text/html"] == "<table/>"
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_failure_hints_name_json_fields_not_cli_options(srv):
    sid, _ = new_session(srv, memory=256)
    try:
        st, r = exec_(srv, sid, "import time\ntime.sleep(5)", timeout=0.3)
        assert r["status"] == "timeout" and r["failure"]["code"] == "cell_timeout"
        assert '"timeout"' in r["failure"]["hint"] and "--" not in r["failure"]["hint"], r
        st, r = exec_(srv, sid, "x = bytearray(600 << 20)")
        assert r["failure"]["code"] == "oom_killed", r
        assert '"memory"' in r["failure"]["hint"] and "--memory" not in r["failure"]["hint"]
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")
