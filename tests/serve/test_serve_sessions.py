# test_serve_sessions.py — sessions and runs over HTTP (PRODUCT.md §6, §7),
# as a chat backend drives them: the same supervisors as `folio session`,
# ids that name their instance, typed errors with their documented status,
# files in and out, renders, /v1/run with expiring download URLs, SIGTERM
# hibernating live sessions, and a session that resumes on a restarted
# instance. Each server runs on a free loopback port, stopped by its test.
import io
import json
import os
import pathlib
import re
import signal
import subprocess
import threading
import time

import pytest

from test_serve import ROOT, Server, errors_of, multipart, request

SPEC_CELL = """
import json
spec = {"folio": 1, "title": "From a session",
        "data": {"d": {"columns": [{"name": "k", "type": "text"}, {"name": "v", "type": "number"}],
                       "rows": [["a", total], ["b", 2]]}},
        "blocks": [{"type": "heading", "text": "Session total"}, {"type": "table", "data": "d"}]}
json.dump(spec, open("/out/result.json", "w"))
"""


def call(srv, method, path, obj=None, body=None, ctype="application/json"):
    data = json.dumps(obj).encode() if obj is not None else body
    return request(srv.url + path, method, data, ctype if data is not None else None, timeout=120)


def new_session(srv, **opts):
    st, h, out = call(srv, "POST", "/v1/sessions", opts)
    assert st == 201, out
    doc = json.loads(out)
    return doc["id"], doc


def exec_(srv, sid, code, timeout=None):
    obj = {"code": code} if timeout is None else {"code": code, "timeout": timeout}
    st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", obj)
    return st, json.loads(out)


@pytest.fixture(scope="module")
def sdir(tmp_path_factory):
    return tmp_path_factory.mktemp("sessions")


@pytest.fixture(scope="module")
def srv(tmp_path_factory, sdir):
    s = Server("--instance", "i1", "--workers", 2, "--max-sessions", 4, "--run-ttl", 3,
               "--session-dir", sdir, scratch=tmp_path_factory.mktemp("scratch"))
    yield s
    assert s.stop() == 0


def test_a_conversation_of_cells_files_and_a_render(srv, tmp_path):
    sid, doc = new_session(srv, timeout=30)
    assert re.fullmatch(r"i1-[0-9a-f]{32}", sid) and doc["limits"]["timeout_s"] == 30
    try:
        st, r = exec_(srv, sid, "import pandas as pd\ndf = pd.DataFrame({'v': [1, 2, 3]})\nx = 40")
        assert st == 200 and r["status"] == "ok", r
        st, r = exec_(srv, sid, "x + int(df.v.sum()) - 4")           # state persists
        assert st == 200 and r["result"] == "42", r
        st, _, _ = call(srv, "PUT", f"/v1/sessions/{sid}/files/data/in.csv", body=b"a,b\n1,2\n3,4\n",
                        ctype="text/csv")
        assert st == 201
        st, r = exec_(srv, sid, "import csv\nrows = list(csv.reader(open('data/in.csv')))\n"
                               "total = sum(int(r[1]) for r in rows[1:])\n"
                               "open('/out/total.txt', 'w').write(str(total))\nprint(total)")
        assert r["stdout"] == "6\n" and r["files"][0]["path"] == "/out/total.txt", r
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/out/total.txt")
        assert st == 200 and out == b"6"
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/data/in.csv")
        assert st == 200 and out.startswith(b"a,b")
        st, r = exec_(srv, sid, SPEC_CELL)
        assert r["status"] == "ok", r
        st, h, pdf = call(srv, "POST", f"/v1/sessions/{sid}/render?format=pdf")
        assert st == 200 and pdf.startswith(b"%PDF") and h["Content-Type"] == "application/pdf"
        (tmp_path / "s.pdf").write_bytes(pdf)
        text = subprocess.run(["pdftotext", str(tmp_path / "s.pdf"), "-"], capture_output=True,
                              text=True).stdout
        assert "Session total" in text and "6" in text
        st, h, z = call(srv, "POST", f"/v1/sessions/{sid}/render?format=xlsx&format=pdf")
        import zipfile
        import openpyxl
        names = zipfile.ZipFile(io.BytesIO(z)).namelist()
        assert st == 200 and names == ["result.xlsx", "result.pdf"]
        wb = openpyxl.load_workbook(io.BytesIO(zipfile.ZipFile(io.BytesIO(z)).read("result.xlsx")))
        assert any(c.value == 6 for ws in wb.worksheets for row in ws.iter_rows() for c in row)
    finally:
        st, _, _ = call(srv, "DELETE", f"/v1/sessions/{sid}")
    assert st == 204
    st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", {"code": "1"})
    assert st == 404 and errors_of(out)[0]["code"] == "session_not_found"


def test_errors_interrupts_and_restarts_are_results_not_http_errors(srv):
    sid, _ = new_session(srv)
    try:
        st, r = exec_(srv, sid, "y = 1\n1/0")
        assert st == 200 and r["status"] == "error" and r["error"]["name"] == "ZeroDivisionError"
        st, r = exec_(srv, sid, "while True: pass", timeout=1)
        assert st == 200 and r["status"] == "timeout", r
        st, r = exec_(srv, sid, "y + 1")
        assert r["result"] == "2", "the interrupted session keeps its variables"
        st, r = exec_(srv, sid, "import os; os._exit(1)")
        assert st == 200 and r["status"] == "restarted", r
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_bad_requests_have_documented_statuses(srv):
    st, _, out = call(srv, "POST", "/v1/sessions", {"nope": 1})
    assert st == 400 and "unknown key" in errors_of(out)[0]["message"]
    st, _, out = call(srv, "POST", "/v1/sessions", {"net": "all"})
    assert st == 403
    st, _, out = call(srv, "POST", "/v1/sessions", body=b"{not json", ctype="application/json")
    assert st == 400
    st, _, out = call(srv, "POST", "/v1/sessions/i2-" + "a" * 32 + "/exec", {"code": "1"})
    assert st == 404 and errors_of(out)[0]["code"] == "session_not_found", "another instance's id"
    st, _, out = call(srv, "POST", "/v1/sessions/i1-" + "a" * 32 + "/exec", {"code": "1"})
    assert st == 404 and errors_of(out)[0]["code"] == "session_not_found"
    sid, _ = new_session(srv)
    try:
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", {"code": 1})
        assert st == 400
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/../etc/passwd")
        assert st in (400, 404)
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/out/x", body=b"x")
        assert st == 400
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/render?format=pdf")
        assert st == 400 and "result.json" in errors_of(out)[0]["message"]
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/none.txt")
        assert st == 404 and errors_of(out)[0]["code"] == "file_not_found", out
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/out/none.txt")
        assert st == 404 and errors_of(out)[0]["code"] == "file_not_found", out
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_a_put_past_a_session_ceiling_is_413(srv):
    """Over the session's max_bytes (30 MiB, under the server's 32 MiB body
    ceiling) and over a full session disk: 413, not 400, with HTTP hints."""
    sid, doc = new_session(srv, disk=1)
    try:
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/big.bin", body=b"x" * (2 << 20),
                          ctype="application/octet-stream")
        e = errors_of(out)[0]
        assert st == 413 and e["code"] == "disk_full" and '"disk"' in e["hint"], out
        size = doc["limits"]["max_bytes"] + 1
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/big.bin", body=b"x" * size,
                          ctype="application/octet-stream")
        e = errors_of(out)[0]
        assert st == 413 and e["code"] == "too_large" and "--" not in e["message"] + e["hint"], out
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/small.txt", body=b"fits",
                          ctype="text/plain")
        assert st == 201, "the session takes files again"
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_render_is_not_shadowed_by_a_result_pdf_the_cell_left(srv, tmp_path):
    """It answered 500 (no file came back); the render's names are reserved
    for it, as in folio run."""
    sid, _ = new_session(srv)
    try:
        st, r = exec_(srv, sid, "total = 5\n" + SPEC_CELL +
                      "open('/out/result.pdf', 'w').write('not a pdf')")
        assert r["status"] == "ok", r
        st, h, pdf = call(srv, "POST", f"/v1/sessions/{sid}/render?format=pdf")
        assert st == 200 and pdf.startswith(b"%PDF"), (st, pdf[:300])
        (tmp_path / "s.pdf").write_bytes(pdf)
        text = subprocess.run(["pdftotext", str(tmp_path / "s.pdf"), "-"], capture_output=True,
                              text=True).stdout
        assert "Session total" in text
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_two_sessions_cannot_see_each_other(srv):
    a, _ = new_session(srv)
    b, _ = new_session(srv)
    try:
        exec_(srv, a, "open('secret.txt', 'w').write('a-only')\nsecret = 'a'")
        st, r = exec_(srv, b, "import os\nprint(sorted(os.listdir('.')), 'secret' in globals())")
        assert "secret.txt" not in r["stdout"] and "False" in r["stdout"], r
        st, _, _ = call(srv, "GET", f"/v1/sessions/{b}/files/secret.txt")
        assert st != 200
    finally:
        call(srv, "DELETE", f"/v1/sessions/{a}")
        call(srv, "DELETE", f"/v1/sessions/{b}")


def test_the_session_limit_answers_429(srv):
    ids = []
    try:
        for _ in range(4):
            ids.append(new_session(srv)[0])
        st, h, out = call(srv, "POST", "/v1/sessions", {})
        assert st == 429 and errors_of(out)[0]["code"] == "limit_reached" and h["Retry-After"]
    finally:
        for sid in ids:
            call(srv, "DELETE", f"/v1/sessions/{sid}")
    sid, _ = new_session(srv)                            # a slot is free again
    call(srv, "DELETE", f"/v1/sessions/{sid}")


def up_in(sdir):
    """Sessions and spares of a session folder that are up: a socket, and a
    supervisor process whose argv names the id. Ids, not processes: a
    supervisor's child has its argv from fork until it execs (the lease
    renewer, the jail), and under ASan that moment is long enough to see."""
    ids = {d.name for d in pathlib.Path(sdir).glob("[0-9a-f]" * 32) if (d / "sock").exists()}
    up = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 3 and argv[2] == b"_supervise" and argv[3].decode() in ids:
            up.add(argv[3])
    return len(up)


def supervisors_of(sid):
    """Processes whose argv says they supervise session sid (the part after the instance)."""
    hexid = sid.rsplit("-", 1)[-1].encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 3 and argv[2] == b"_supervise" and argv[3] == hexid:
            found.append(pid)
    return found


def test_delete_answers_when_the_session_is_gone(tmp_path):
    """DELETE answered 204 while the supervisor was still tearing down: for a
    moment it was up beside the spare made for the next session (more up
    than --max-sessions, seen under ASan where an exit is slow)."""
    s = Server("--instance", "i4", "--session-dir", tmp_path / "sd", scratch=tmp_path)
    try:
        for _ in range(3):
            sid, _ = new_session(s)
            assert supervisors_of(sid), "a live session has its supervisor"
            assert call(s, "DELETE", f"/v1/sessions/{sid}")[0] == 204
            assert supervisors_of(sid) == [], "DELETE answered before the supervisor ended"
    finally:
        assert s.stop() == 0


def test_spares_do_not_pass_max_sessions(tmp_path):
    """Sessions made with several option sets each left a spare: 12 live on
    a server limited to 8. Spares now hold a slot, one per server."""
    sdir = tmp_path / "sd"
    s = Server("--instance", "i3", "--max-sessions", 2, "--session-dir", sdir, scratch=tmp_path)
    kept = []
    try:
        peak = 0
        for k in range(5):
            sid, _ = new_session(s, timeout=10 + k)
            end = time.monotonic() + 3
            while time.monotonic() < end:
                peak = max(peak, up_in(sdir))
                time.sleep(0.1)
            if k == 0:
                kept.append(sid)
            else:
                assert call(s, "DELETE", f"/v1/sessions/{sid}")[0] == 204
        assert peak <= 2, "%d sessions and spares up, --max-sessions 2" % peak
        kept.append(new_session(s, memory=300)[0])       # the spare gives way to a session
        st, r = exec_(s, kept[1], "6 * 7")
        assert st == 200 and r["result"] == "42", r
        st, _, out = call(s, "POST", "/v1/sessions", {"idle": 60})
        assert st == 429 and errors_of(out)[0]["code"] == "limit_reached"
        assert up_in(sdir) <= 2
    finally:
        for sid in kept:
            call(s, "DELETE", f"/v1/sessions/{sid}")
        assert s.stop() == 0


def test_run_answers_the_manifest_with_download_urls_that_expire(srv):
    body, ctype = multipart([
        ("cmd", json.dumps(["/bin/sh", "-c", "cat data/a.csv > /out/r.csv; mkdir /out/d; "
                                              "echo hi > /out/d/h.txt; echo done"]).encode(), None),
        ("data/a.csv", b"x,y\n1,2\n", "a.csv"), ("timeout", b"20", None)])
    st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
    assert st == 200, out
    m = json.loads(out)
    assert m["exit"] == 0 and m["stdout"]["tail"] == "done\n" and m["limits"]["timeout_s"] == 20
    urls = {f["name"]: f["url"] for f in m["files"]}
    assert set(urls) == {"r.csv", "d/h.txt"} and m["run"].startswith("i1-")
    st, _, got = request(srv.url + urls["r.csv"])
    assert st == 200 and got == b"x,y\n1,2\n"
    st, _, got = request(srv.url + urls["d/h.txt"])
    assert st == 200 and got == b"hi\n"
    st, _, _ = request(srv.url + urls["r.csv"].replace("r.csv", "../../../etc/passwd"))
    assert st == 404
    time.sleep(4.5)                                     # --run-ttl 3
    st, _, out = request(srv.url + urls["r.csv"])
    assert st == 404 and "expired" in errors_of(out)[0]["message"]


def test_run_renders_and_refuses_what_it_must(srv):
    cell = SPEC_CELL.replace("total", "6")
    body, ctype = multipart([("cmd", json.dumps(["python3", "make.py"]).encode(), None),
                             ("make.py", cell.encode(), "make.py"), ("render", b"pdf", None)])
    st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
    m = json.loads(out)
    assert st == 200 and m["exit"] == 0, m
    pdf = [f for f in m["render"]["files"] if f["name"] == "result.pdf"]
    st, _, got = request(srv.url + pdf[0]["url"])
    assert st == 200 and got.startswith(b"%PDF") and len(got) == pdf[0]["bytes"]
    body, ctype = multipart([("cmd", b'["true"]', None), ("net", b"all", None)])
    st, _, _ = request(srv.url + "/v1/run", "POST", body, ctype)
    assert st == 403
    body, ctype = multipart([("cmd", b'"python3"', None)])
    st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
    assert st == 400 and "JSON array" in errors_of(out)[0]["message"]
    body, ctype = multipart([("cmd", b'["sh", "-c", "exit 3"]', None)])
    st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
    assert st == 200 and json.loads(out)["exit_code"] == 3, "the program's failure is a result"


def test_metrics_count_runs_and_sessions(srv):
    sid, _ = new_session(srv)
    try:
        st, _, body = request(srv.url + "/metrics")
        text = body.decode()
        assert re.search(r"^folio_sessions [1-9]", text, re.M), text
        assert re.search(r"^folio_sessions_created_total [1-9]", text, re.M)
        assert re.search(r"^folio_runs_total [1-9]", text, re.M)
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_sigterm_hibernates_sessions_and_a_restarted_instance_resumes_them(tmp_path):
    sdir = tmp_path / "sessions"
    s = Server("--instance", "i7", "--session-dir", sdir, scratch=tmp_path)
    sid, _ = new_session(s)
    st, r = exec_(s, sid, "import pandas as pd\nkept = pd.DataFrame({'v': [5, 6]})\n"
                          "open('f.txt', 'w').write('file kept')")
    assert r["status"] == "ok"
    assert s.stop() == 0
    assert any(l.get("event") == "sessions_hibernated" and l["count"] == 1 for l in s.log()), s.lines
    s2 = Server("--instance", "i7", "--session-dir", sdir, scratch=tmp_path)
    try:
        st, r = exec_(s2, sid, "print(int(kept.v.sum()), open('f.txt').read())")
        assert st == 200 and r["stdout"] == "11 file kept\n", r
    finally:
        call(s2, "DELETE", f"/v1/sessions/{sid}")
        assert s2.stop() == 0


LONG_CELL = "import time\nfor i in range(600):\n    time.sleep(0.1)\n"   # 60 s


def exec_in_thread(srv, sid, code):
    """Starts an exec on its own connection; .result is (status, body) once it ends."""
    box = {}

    def go():
        try:
            box["result"] = exec_(srv, sid, code)
        except Exception as e:                 # an empty reply, a reset: the defect
            box["result"] = ("failed", repr(e))
        box["at"] = time.monotonic()
    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th, box


def test_interrupt_stops_the_running_cell_and_its_exec_answers_interrupted(srv):
    sid, _ = new_session(srv)
    try:
        st, r = exec_(srv, sid, "kept = 'yes'")
        assert r["status"] == "ok"
        th, box = exec_in_thread(srv, sid, LONG_CELL)
        time.sleep(1.0)                                   # the cell is running
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/interrupt")
        assert st == 200 and json.loads(out) == {"interrupted": True}, out
        th.join(30)
        st, r = box["result"]
        assert st == 200 and r["status"] == "interrupted", r
        assert r["error"]["name"] == "KeyboardInterrupt" and r["failure"]["code"] == "interrupted"
        # the loop's count where the interrupt stopped it: not at the cell's end (60 s)
        st, r = exec_(srv, sid, "i")
        assert r["status"] == "ok" and 0 < int(r["result"]) < 599, r
        st, r = exec_(srv, sid, "kept")
        assert r["status"] == "ok" and r["result"] == "'yes'", "variables kept"
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/interrupt")
        assert st == 200 and json.loads(out) == {"interrupted": False}, "no cell runs"
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")
    st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/interrupt")
    assert st == 404 and errors_of(out)[0]["code"] == "session_not_found"


def test_sigterm_interrupts_a_cell_past_the_drain_timeout_and_hibernates(tmp_path):
    """A 2 s drain took 19.9 s behind a running cell, whose client got an
    empty reply. Now: /healthz says 503 draining, the cell gets the drain
    timeout, then is interrupted and its exec answered; the session is
    hibernated with its variables."""
    sdir = tmp_path / "sessions"
    s = Server("--instance", "i8", "--drain-timeout", 2, "--session-dir", sdir, scratch=tmp_path)
    sid, _ = new_session(s)
    st, r = exec_(s, sid, "kept = 41")
    assert r["status"] == "ok"
    th, box = exec_in_thread(s, sid, LONG_CELL)
    time.sleep(1.0)
    t0 = time.monotonic()
    s.p.send_signal(signal.SIGTERM)
    health = []
    while s.p.poll() is None and time.monotonic() - t0 < 50:
        try:
            st, _, out = request(s.url + "/healthz", timeout=5)
            health.append((st, json.loads(out)))
        except OSError:                        # stopped listening: the drain is over
            break
        time.sleep(0.2)
    s.p.wait(60)
    took = time.monotonic() - t0
    th.join(30)
    st, r = box["result"]
    assert st == 200 and r["status"] == "interrupted", r
    # time is what is checked (the drain keeps to --drain-timeout 2 rather than
    # the 60 s cell): generous bounds
    assert took < 20, "the drain took %.1f s (--drain-timeout 2, a 60 s cell)" % took
    assert box["at"] - t0 >= 1.5, "the cell had the drain timeout to finish"
    while health and health[0][0] == 200:     # asked before the signal was taken
        health.pop(0)
    assert len(health) >= 5 and all(h == (503, {"status": "draining"}) for h in health), health
    events = [l.get("event") for l in s.log()]
    assert events.index("draining") < events.index("cells_interrupted") \
        < events.index("sessions_hibernated"), events
    assert any(l.get("event") == "sessions_hibernated" and l["count"] == 1 for l in s.log())
    s.reader.join(5)
    s2 = Server("--instance", "i8", "--session-dir", sdir, scratch=tmp_path)
    try:
        st, r = exec_(s2, sid, "kept + 1")
        assert st == 200 and r["result"] == "42", r
    finally:
        call(s2, "DELETE", f"/v1/sessions/{sid}")
        assert s2.stop() == 0


def test_sample_session_client_drives_three_cells_to_a_pdf(srv, tmp_path):
    p = subprocess.run(["python3", str(ROOT / "samples" / "client" / "session.py"), "--url", srv.url,
                        str(ROOT / "samples" / "sales" / "sales.csv")], capture_output=True, text=True,
                       timeout=180, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    text = subprocess.run(["pdftotext", str(tmp_path / "summary.pdf"), "-"], capture_output=True,
                          text=True).stdout
    assert "Summary" in text


def test_a_session_answers_only_the_token_that_made_it(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("token-alice\ntoken-bob\n")
    s = Server("--token-file", tokens, "--session-dir", tmp_path / "sd", scratch=tmp_path)
    try:
        st, _, out = request(s.url + "/v1/sessions", "POST", b"{}", "application/json", "token-alice")
        assert st == 201, out
        sid = json.loads(out)["id"]
        code = json.dumps({"code": "secret = 7\nsecret"}).encode()
        st, _, out = request(f"{s.url}/v1/sessions/{sid}/exec", "POST", code, "application/json",
                             "token-alice")
        assert st == 200 and json.loads(out)["result"] == "7"
        for method, path, body in (("POST", "/exec", code), ("GET", "/files/x.txt", None),
                                   ("POST", "/render?format=pdf", b""), ("DELETE", "", None)):
            st, _, out = request(f"{s.url}/v1/sessions/{sid}{path}", method, body,
                                 "application/json" if body is not None else None, "token-bob")
            assert st == 404 and errors_of(out)[0]["code"] == "session_not_found", (path, out)
        st, _, _ = request(f"{s.url}/v1/sessions/{sid}/exec", "POST", code, "application/json")
        assert st == 401
        st, _, out = request(f"{s.url}/v1/sessions/{sid}/exec", "POST", code, "application/json",
                             "token-alice")
        assert st == 200, "bob's attempts left alice's session alone"
        st, _, _ = request(f"{s.url}/v1/sessions/{sid}", "DELETE", token="token-alice")
        assert st == 204
    finally:
        assert s.stop() == 0


def test_run_accepts_net_allow_lists_and_refuses_only_all(srv):
    """Only "all" (the host's network) is refused; allow=LIST is folio run's checked proxy."""
    for net in ("allow=example.invalid", "allow=pypi.org,files.pythonhosted.org", "packages"):
        body, ctype = multipart([("cmd", b'["true"]', None), ("net", net.encode(), None)])
        st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
        assert st == 200, (net, out)
        m = json.loads(out)
        assert m["exit"] == 0 and m["limits"]["net"] == "allow" and "egress" in m, (net, m)
    for net in ("all", "allowx", "all=1"):
        body, ctype = multipart([("cmd", b'["true"]', None), ("net", net.encode(), None)])
        st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
        assert st == (403 if net == "all" else 400), (net, out)


def _disposition_filename(value):
    """The filename RFC 6266 takes from a Content-Disposition (filename*
    before filename), read by the stdlib's MIME parameter parser (which
    decodes filename*=UTF-8''... into a tuple), and how many plain and
    extended filename parameters it holds."""
    import email.message
    import email.utils
    m = email.message.Message()
    m["Content-Disposition"] = value
    params = [v for k, v in m.get_params(header="Content-Disposition")[1:] if k == "filename"]
    plain = [v for v in params if isinstance(v, str)]
    ext = [email.utils.collapse_rfc2231_value(v) for v in params if isinstance(v, tuple)]
    return (ext or plain or [None])[0], len(plain), len(ext)


def test_download_names_cannot_add_a_second_filename(srv):
    """A file name chosen by jailed code is encoded per RFC 6266: one filename
    (an ASCII fallback without quotes, backslashes, semicolons) and
    filename*=UTF-8'' with the real name."""
    import urllib.parse
    names = ['a"; filename="evil.exe', "résumé ü;x%41.txt", "plain-name.txt"]
    sid, _ = new_session(srv)
    try:
        st, r = exec_(srv, sid, "import json\nfor n in json.loads(%r): open('/out/' + n, 'w').write(n)"
                      % json.dumps(names))
        assert r["status"] == "ok", r
        for name in names:
            st, h, out = call(srv, "GET", f"/v1/sessions/{sid}/files/out/" + urllib.parse.quote(name))
            assert st == 200 and out.decode() == name
            value = h["Content-Disposition"]
            got, n_plain, n_ext = _disposition_filename(value)
            assert got == name and n_plain == 1 and n_ext == (0 if name == "plain-name.txt" else 1), value
            fallback = re.match(r'attachment; filename="([^"]*)"(;|$)', value).group(1)
            assert re.fullmatch(r'[\x20-\x7e]+', fallback) and not set(fallback) & set('"\\;%'), value
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/out/a%0Ab.txt")
        assert st == 400 and errors_of(out)[0]["message"]     # a newline never reaches a header
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_run_download_urls_are_usable_as_given_and_name_the_file(srv):
    body, ctype = multipart([("cmd", json.dumps(["sh", "-c", "echo x > /out/my_report+1.txt"]).encode(),
                              None)])
    st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
    assert st == 200, out
    f = json.loads(out)["files"][0]
    assert f["name"] == "my_report+1.txt" and "/files/" in f["url"]
    st, h, got = request(srv.url + f["url"])
    assert st == 200 and got == b"x\n"
    assert _disposition_filename(h["Content-Disposition"])[:2] == ("my_report+1.txt", 1)


def _over(out, field):
    e = errors_of(out)[0]
    assert e["code"] == "over_ceiling" and e["field"] == field and isinstance(e["limit"], (int, float)), e
    assert f'"{field}"' in e["hint"] and "--" not in e["hint"], "hints name JSON fields, not flags"
    return e


@pytest.mark.parametrize("field,value", [("memory", 1 << 20), ("cpus", 1024), ("disk", 9_600_000),
                                         ("idle", 10 ** 7), ("timeout", 1e308), ("pids", 65536)])
def test_session_limits_over_the_default_ceilings_are_400(srv, field, value):
    st, _, out = call(srv, "POST", "/v1/sessions", {field: value})
    assert st == 400, out
    e = _over(out, field)
    assert e["limit"] < value and str(e["limit"]).rstrip("0").rstrip(".") in e["message"].replace(".0 ", " ")


@pytest.mark.parametrize("value", [-1, 0, -1e308])
def test_session_limits_must_be_positive(srv, value):
    st, _, out = call(srv, "POST", "/v1/sessions", {"memory": value})
    e = errors_of(out)[0]
    assert st == 400 and e["code"] == "bad_value" and e["field"] == "memory", out


def test_exec_and_run_timeouts_have_a_ceiling(srv):
    sid, _ = new_session(srv)
    try:
        for t in (1e308, 601, 86400):
            st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", {"code": "1", "timeout": t})
            assert st == 400, out
            assert _over(out, "timeout")["limit"] == 600
        for t in (-1, 0):
            st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", {"code": "1", "timeout": t})
            assert st == 400 and errors_of(out)[0]["code"] == "bad_value", out
        st, _, out = call(srv, "POST", f"/v1/sessions/{sid}/exec", {"code": "6*7", "timeout": 600})
        assert st == 200 and json.loads(out)["result"] == "42", out
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")
    for t, code in ((b"86400", "over_ceiling"), (b"1e308", "over_ceiling"), (b"nan", "bad_value"),
                    (b"inf", "bad_value"), (b"-1", "bad_value"), (b"1e999", "bad_value"),
                    (b"ten", "bad_value")):
        body, ctype = multipart([("cmd", b'["true"]', None), ("timeout", t, None)])
        st, _, out = request(srv.url + "/v1/run", "POST", body, ctype)
        e = errors_of(out)[0]
        assert st == 400 and e["code"] == code and e["field"] == "timeout" and e["limit"] == 600, (t, out)


def test_operator_ceilings_bound_requests_and_defaults(tmp_path):
    s = Server("--instance", "c1", "--session-limits", "memory=512,timeout=30,cpus=0.5,idle=60,disk=256",
               "--run-limits", "timeout=20", "--session-dir", tmp_path / "sd", scratch=tmp_path)
    try:
        st, _, out = call(s, "POST", "/v1/sessions", {"memory": 513})
        assert st == 400 and _over(out, "memory")["limit"] == 512
        st, _, out = call(s, "POST", "/v1/sessions", {"cpus": 1})
        assert st == 400 and _over(out, "cpus")["limit"] == 0.5
        sid, doc = new_session(s)                 # left out: folio's default, or the ceiling below it
        try:
            lim = doc["limits"]
            assert (lim["memory_mb"], lim["timeout_s"], lim["idle_s"], lim["disk_mb"]) == (512, 30, 60, 256), lim
            st, _, out = call(s, "POST", f"/v1/sessions/{sid}/exec", {"code": "1", "timeout": 31})
            assert st == 400 and _over(out, "timeout")["limit"] == 30
        finally:
            call(s, "DELETE", f"/v1/sessions/{sid}")
        body, ctype = multipart([("cmd", b'["true"]', None)])
        st, _, out = request(s.url + "/v1/run", "POST", body, ctype)
        assert st == 200 and json.loads(out)["limits"]["timeout_s"] == 20, out
        body, ctype = multipart([("cmd", b'["true"]', None), ("timeout", b"21", None)])
        st, _, out = request(s.url + "/v1/run", "POST", body, ctype)
        assert st == 400 and _over(out, "timeout")["limit"] == 20
    finally:
        assert s.stop() == 0


@pytest.mark.parametrize("opt", ["memory=8", "cpus=0", "timeout=1e308", "nope=1", "memory", "idle=-5",
                                 "disk=1.5"])
def test_bad_session_limits_are_usage_errors(opt):
    from test_serve import FOLIO
    p = subprocess.run([FOLIO, "serve", "--listen", "127.0.0.1:0", "--session-limits", opt],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "--session-limits" in p.stderr, (opt, p.stderr)


def test_long_file_paths_arrive_whole_and_a_too_long_url_is_414(srv):
    """A file's path of up to FO_SERVE_MAX_NAME (200) bytes reaches the session
    whole: the request's path was once kept in 128 bytes, so a 150-byte name
    was stored cut short, under another name. Past what any route takes: 414."""
    sid, _ = new_session(srv)
    try:
        name = "data/" + "q" * 140 + "/" + "long_name_" + "z" * 30 + ".csv"      # 191 bytes
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/{name}", body=b"a\n7\n", ctype="text/csv")
        assert st == 201, out
        st, r = exec_(srv, sid, f"import os\nprint(open({name!r}).read().split()[1], "
                                f"sorted(os.listdir({os.path.dirname(name)!r})))")
        assert st == 200 and r["status"] == "ok", r
        assert r["stdout"].strip() == f"7 [{os.path.basename(name)!r}]", r
        st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/{name}")
        assert st == 200 and out == b"a\n7\n"
        st, h, out = call(srv, "GET", f"/v1/sessions/{sid}/files/" + "w" * 2000)
        assert st == 414, out
        e = errors_of(out)[0]
        assert e["code"] == "uri_too_long" and e["hint"], e
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")


def test_files_go_in_and_out_over_http_while_a_cell_runs(srv):
    """PUT and GET .../files/... are answered while the session's cell runs
    (PRODUCT.md section 8: no request waits for another). The cell waits for
    the file the PUT brings; had the PUT waited for the cell, it would have
    given up."""
    sid, _ = new_session(srv, timeout=60)
    try:
        th, box = exec_in_thread(srv, sid, "import os, time\n"
                                           "open('/work/started.txt', 'w').write('yes')\n"
                                           "for polls in range(600):\n"
                                           "    if os.path.exists('/work/go.txt'): break\n"
                                           "    time.sleep(0.1)\n"
                                           "open('/work/go.txt').read() if os.path.exists('/work/go.txt') else None")
        for _ in range(300):                              # until the cell has begun
            st, _, out = call(srv, "GET", f"/v1/sessions/{sid}/files/started.txt")
            if st == 200:
                break
            time.sleep(0.1)
        assert st == 200 and out == b"yes", (st, out)
        assert th.is_alive(), "the cell still runs"
        st, _, out = call(srv, "PUT", f"/v1/sessions/{sid}/files/go.txt", body=b"go", ctype="text/plain")
        assert st == 201, out
        th.join(60)
        st, r = box["result"]
        assert st == 200 and r["status"] == "ok" and r["result"] == "'go'", r
    finally:
        call(srv, "DELETE", f"/v1/sessions/{sid}")
