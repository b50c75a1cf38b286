# test_serve_live.py — live cells over HTTP (PRODUCT.md §8): rich results,
# failures whose hints speak the HTTP caller's language. Each server runs on
# a free loopback port and is stopped by its test module.
import json
import time

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


# ------------------------------------------------ never wait for another

import http.client  # noqa: E402
import urllib.parse  # noqa: E402

# A cell that runs long enough for everything else the test does (a few
# dozen milliseconds of requests) to happen while it runs.
WAIT_FOR_GO = "import time\nprint('ready', flush=True)\ntime.sleep(6)\nprint('done')\n"


def conn(srv, timeout=30):
    u = urllib.parse.urlsplit(srv.url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def post_json(c, path, obj, headers=None):
    c.request("POST", path, json.dumps(obj), {"Content-Type": "application/json", **(headers or {})})


def still_running(c):
    """True while the exec on connection c has not answered yet."""
    import select
    return not select.select([c.sock], [], [], 0)[0]


def sse_events(resp):
    """(event, data) pairs of a text/event-stream response, as they arrive."""
    event, data = None, []
    while True:
        line = resp.readline()
        if not line:
            return
        line = line.decode().rstrip("\n")
        if line.startswith(":"):
            continue
        if not line:
            if event:
                yield event, "\n".join(data)
            event, data = None, []
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])


@pytest.fixture
def small(tmp_path):
    """One worker: few threads, so that many connections share each."""
    s = Server("--instance", "sm", "--workers", 1, "--queue", 0, "--max-cells", 2,
               "--max-sessions", 4, "--session-dir", tmp_path / "sessions",
               scratch=tmp_path)
    yield s
    assert s.stop() == 0


def test_a_running_cell_holds_up_no_other_request(small):
    """20 pooled keep-alive connections, one running a long cell: every
    other connection is answered while it runs, /healthz and a cell of
    another session alike. Before, the connections that libmicrohttpd's
    busy thread owned waited for the cell's end."""
    srv = small
    busy, _ = new_session(srv)
    other, _ = new_session(srv)
    pool = [conn(srv) for _ in range(20)]
    try:
        for c in pool:                                   # each connection in use, kept alive
            c.request("GET", "/healthz")
            assert c.getresponse().read()
        post_json(pool[0], f"/v1/sessions/{busy}/exec", {"code": WAIT_FOR_GO})
        for round_ in range(2):
            for c in pool[1:]:
                c.request("GET", "/healthz")
                resp = c.getresponse()
                assert resp.status == 200 and json.loads(resp.read())["status"] == "ok"
            post_json(pool[1 + round_], f"/v1/sessions/{other}/exec", {"code": "1+1"})
            resp = pool[1 + round_].getresponse()
            assert json.loads(resp.read())["result"] == "2"
        assert still_running(pool[0])                      # all of that while the cell ran
        r = json.loads(pool[0].getresponse().read())
        assert r["status"] == "ok" and r["stdout"] == "ready\ndone\n"
    finally:
        for c in pool:
            c.close()
        call(srv, "DELETE", f"/v1/sessions/{busy}")
        call(srv, "DELETE", f"/v1/sessions/{other}")


# Prints "ready", then waits for the test's interrupt, which the test sends
# only once "ready" has reached it: "woken" in the output proves the line was
# streamed while the cell ran (no clock involved); "not woken" that it came
# with the result.
WAIT_FOR_INTERRUPT = ("import time\nprint('ready', flush=True)\ntry:\n    time.sleep(30)\n"
                      "    print('not woken')\nexcept KeyboardInterrupt:\n    print('woken')\n")


def test_exec_streams_server_sent_events_while_the_cell_runs(srv):
    sid, _ = new_session(srv)
    c = conn(srv)
    try:
        post_json(c, f"/v1/sessions/{sid}/exec",
                  {"code": WAIT_FOR_INTERRUPT + "display({'k': 1})\nprint('é' * 3, 'done')"},
                  {"Accept": "text/event-stream"})
        resp = c.getresponse()
        assert resp.status == 200
        assert resp.getheader("Content-Type") == "text/event-stream"
        events = sse_events(resp)
        name, data = next(events)
        assert name == "cell" and json.loads(data) == {"cell": 1}
        name, data = next(events)
        assert (name, json.loads(data)) == ("stream", {"name": "stdout", "text": "ready\n"})
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/interrupt")
        assert st == 200 and json.loads(out)["interrupted"] is True, out    # it still ran
        rest = list(events)
        names = [n for n, _ in rest]
        assert names[-1] == "result" and "display" in names
        display = json.loads(rest[names.index("display")][1])
        assert display["data"]["text/plain"] == "{'k': 1}"
        text = "".join(json.loads(d)["text"] for n, d in rest if n == "stream")
        assert text == "woken\nééé done\n"
        result = json.loads(rest[-1][1])
        # the cell caught the interrupt and went on: its exec says it was interrupted
        assert result["status"] == "interrupted" and result["stdout"] == "ready\nwoken\nééé done\n"
        assert len(result["displays"]) == 1
    finally:
        c.close()
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_sse_of_an_unknown_session_is_a_plain_404(srv):
    c = conn(srv)
    post_json(c, "/v1/sessions/lv-" + "0" * 32 + "/exec", {"code": "1"},
              {"Accept": "text/event-stream"})
    resp = c.getresponse()
    assert resp.status == 404
    assert json.loads(resp.read())["errors"][0]["code"] == "session_not_found"
    c.close()


def test_a_detached_cell_answers_202_and_keeps_its_result(srv):
    sid, _ = new_session(srv)
    try:
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec",
                          {"code": WAIT_FOR_GO, "detach": True})
        assert st == 202, out
        doc = json.loads(out)
        assert doc["status"] == "running" and doc["url"] == f"/v1/sessions/{sid}/cells/{doc['cell']}"
        st, _, out = call(srv, "GET", doc["url"])
        assert st == 200 and json.loads(out) == {"cell": doc["cell"], "status": "running"}
        for _ in range(1000):
            st, _, out = call(srv, "GET", doc["url"])
            r = json.loads(out)
            if r["status"] != "running":
                break
            time.sleep(0.02)
        assert r["status"] == "ok" and r["stdout"] == "ready\ndone\n" and r["cell"] == doc["cell"]
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/cells/99")
        assert st == 404 and json.loads(out)["errors"][0]["message"].startswith("no detached cell")
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


# ------------------------------------------ hang-ups, DELETE, the list, expiry

LOOP = "import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.01)\n"


def test_a_client_that_hangs_up_interrupts_its_cell(srv):
    """Before, the cell ran on to its timeout and the next exec waited for
    it; now the hang-up interrupts it and the variables stay."""
    sid, _ = new_session(srv, timeout=120)
    try:
        c = conn(srv)
        post_json(c, f"/v1/sessions/{sid}/exec", {"code": LOOP})
        time.sleep(1.5)                                   # the loop runs
        c.close()                                         # the client is gone
        c = conn(srv, timeout=20)                         # (the timeout is the cell's 120 s otherwise)
        post_json(c, f"/v1/sessions/{sid}/exec", {"code": "n > 10"})
        r = json.loads(c.getresponse().read())
        assert r["status"] == "ok" and r["result"] == "True" and r["cell"] == 2, r
        c.close()
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_a_detached_cell_is_not_interrupted_when_its_client_leaves(srv):
    sid, _ = new_session(srv)
    try:
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec",
                          {"code": "import time\ntime.sleep(1.5)\nprint('finished')", "detach": True})
        url = json.loads(out)["url"]
        for _ in range(500):
            r = json.loads(call(srv, "GET", url)[2])
            if r["status"] != "running":
                break
            time.sleep(0.02)
        assert r["status"] == "ok" and r["stdout"] == "finished\n"
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_delete_ends_a_session_with_a_running_cell_at_once(srv):
    sid, _ = new_session(srv, timeout=120)
    c = conn(srv, timeout=30)
    post_json(c, f"/v1/sessions/{sid}/exec", {"code": LOOP})
    time.sleep(1)
    st, _, _ = request_quick(srv, "DELETE", f"/v1/sessions/{sid}")
    assert st == 204                                      # not after the cell's 120 s
    r = json.loads(c.getresponse().read())
    assert r["status"] in ("interrupted", "restarted"), r
    c.close()
    st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/x")
    assert st == 404


def request_quick(srv, method, path):
    from test_serve import request
    return request(srv.url + path, method, timeout=20)


def test_get_sessions_lists_the_callers_live_and_hibernated_sessions(tmp_path):
    srv = Server("--instance", "ls", "--max-sessions", 4, "--retain", 60,
                 "--session-dir", tmp_path / "sessions", scratch=tmp_path)
    try:
        live, _ = new_session(srv)
        sleepy, _ = new_session(srv, idle=1)
        for _ in range(300):                              # its --idle of 1 s hibernates it
            st, _, out = call(srv, "GET", "/v1/sessions")
            listed = {e["id"]: e for e in json.loads(out)["sessions"]}
            if listed.get(sleepy, {}).get("state") == "hibernated":
                break
            time.sleep(0.05)
        assert st == 200 and set(listed) == {live, sleepy}
        assert listed[live]["state"] == "live" and listed[sleepy]["state"] == "hibernated"
        assert listed[sleepy]["hibernated_s"] >= 0
        # past --retain (60 s here: its state file made two minutes old), the
        # sweep (every 10 s) deletes it
        import os
        state = tmp_path / "sessions" / sleepy.split("-", 1)[1] / "state"
        old = time.time() - 120
        os.utime(state, (old, old))
        for _ in range(300):
            listed = {e["id"] for e in json.loads(call(srv, "GET", "/v1/sessions")[2])["sessions"]}
            # the listing drops it when its state file goes, a moment before
            # its folder does
            if sleepy not in listed and not state.parent.exists():
                break
            time.sleep(0.1)
        assert listed == {live}
        assert not state.parent.exists()
        st, _, out = call(srv, "POST", f"/v1/sessions/{sleepy}/exec", {"code": "1"})
        assert st in (404, 410), out
        st, _, _ = call(srv, "PUT", "/v1/sessions")
        assert st == 405
    finally:
        assert srv.stop() == 0
