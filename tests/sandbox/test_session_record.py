# test_session_record.py — a session's record (PRODUCT.md §9, docs/sessions.md
# "The record"): every cell kept with its code's hash and outputs, inputs and
# puts hashed, bounded, kept through hibernation; exported as a Jupyter
# notebook that nbformat validates and nbconvert re-runs OUTSIDE folio, over
# the CLI and over HTTP; bad requests refused, nothing left behind.
# Needs $FOLIO, python3-nbformat and python3-nbconvert (+ ipykernel).
import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "serve"))
from test_session import FOLIO, Sessions, _SKIP, _has, needs_mpl  # noqa: E402

pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")
needs_nb = pytest.mark.skipif(not (_has("nbformat") and _has("nbconvert") and _has("ipykernel")),
                              reason="python3-nbformat, python3-nbconvert, python3-ipykernel "
                                     "are not installed")

CSV = b"region,amount\nnorth,120\nsouth,80\nwest,45\n"
RATES = b"north,1.5\nsouth,2\nwest,3\n"

CELLS = [
    "import csv\nrows = list(csv.DictReader(open('sales.csv')))\nprint('rows', len(rows))",
    "total = sum(int(r['amount']) for r in rows)\nprint('total', total)",
    "rates = dict(l.split(',') for l in open('rates.csv').read().split())\n"
    "print('weighted', sum(int(r['amount']) * float(rates[r['region']]) for r in rows))",
    "1 / 0",
    "total * 2",
]


@pytest.fixture
def s(tmp_path):
    sess = Sessions(tmp_path)
    sess.env["FOLIO_RECORD_NO_ENV"] = "1"      # no `folio env` jail per export: quicker
    yield sess
    sess.close_all()


def conversation(s, tmp_path):
    (tmp_path / "sales.csv").write_bytes(CSV)
    (tmp_path / "rates.csv").write_bytes(RATES)
    sid = s.new("--in", tmp_path / "sales.csv")
    s.run("put", sid, tmp_path / "rates.csv", code=0)
    results = [s.exec(sid, c) for c in CELLS]
    assert [r["status"] for r in results] == ["ok", "ok", "ok", "error", "ok"]
    return sid, results


def read_nb(path):
    import nbformat
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    return nb


def texts(nb):
    """Per cell: what it printed, its result's text/plain, its error's name."""
    out = []
    for c in nb.cells:
        t = {"stdout": "", "result": None, "error": None}
        for o in c.outputs:
            if o.output_type == "stream" and o.name == "stdout":
                t["stdout"] += o.text
            elif o.output_type == "execute_result":
                t["result"] = o.data["text/plain"]
            elif o.output_type == "error":
                t["error"] = o.ename
        out.append(t)
    return out


@needs_nb
def test_the_notebook_validates_and_reruns_outside_folio_to_the_same_values(s, tmp_path):
    sid, results = conversation(s, tmp_path)
    nbfile = tmp_path / "session.ipynb"
    s.run("export", sid, "--ipynb", nbfile, code=0)
    nb = read_nb(nbfile)
    assert nb.nbformat == 4 and nb.metadata.kernelspec.name == "python3"
    assert [c.execution_count for c in nb.cells] == [1, 2, 3, 4, 5]
    assert [c.source for c in nb.cells] == CELLS
    for c in nb.cells:
        assert c.metadata.folio.code_sha256 == hashlib.sha256(c.source.encode()).hexdigest()
    assert [c.metadata.folio.status for c in nb.cells] == ["ok", "ok", "ok", "error", "ok"]
    got = texts(nb)
    assert got[0]["stdout"] == "rows 3\n" and got[1]["stdout"] == "total 245\n"
    assert got[3]["error"] == "ZeroDivisionError" and got[4]["result"] == "490"
    err = [o for o in nb.cells[3].outputs if o.output_type == "error"][0]
    assert "division by zero" in err.evalue and "1 / 0" in "".join(err.traceback)
    # provenance: the session, folio, the inputs and the put, hashed
    prov = nb.metadata.folio
    assert prov.record.session == sid and prov.record.folio
    assert prov.record.inputs == [{"path": "sales.csv", "sha256": hashlib.sha256(CSV).hexdigest()}]
    assert [(p.path, p.bytes, p.sha256) for p in prov.puts] == \
        [("/work/rates.csv", len(RATES), hashlib.sha256(RATES).hexdigest())]
    assert prov.record.info.limits.net == "none"
    # re-run by Jupyter, outside folio, on copies of the inputs
    run = tmp_path / "rerun"
    run.mkdir()
    shutil.copy(tmp_path / "sales.csv", run)
    shutil.copy(tmp_path / "rates.csv", run)
    shutil.copy(nbfile, run / "in.ipynb")
    p = subprocess.run(["/usr/bin/python3", "-m", "nbconvert", "--to", "notebook", "--execute",
                        "--allow-errors", "--ExecutePreprocessor.kernel_name=python3",
                        "--output", "out.ipynb", "in.ipynb"], cwd=run, capture_output=True,
                       text=True, timeout=300,
                       env=dict(os.environ, PYDEVD_DISABLE_FILE_VALIDATION="1"))
    assert p.returncode == 0, p.stderr
    assert texts(read_nb(run / "out.ipynb")) == got
    assert got[2]["stdout"] == "weighted %r\n" % (120 * 1.5 + 80 * 2 + 45 * 3.0)


@needs_nb
@needs_mpl
def test_figures_and_html_are_display_data_as_jupyter_writes_them(s, tmp_path):
    sid = s.new()
    s.exec(sid, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])", expect="ok")
    s.exec(sid, "class H:\n    def _repr_html_(self): return '<b>bold</b>'\ndisplay(H())",
           expect="ok")
    nbfile = tmp_path / "f.ipynb"
    s.run("export", sid, "--ipynb", nbfile, code=0)
    nb = read_nb(nbfile)
    shown = [o for c in nb.cells for o in c.outputs if o.output_type == "display_data"]
    assert len(shown) == 2
    import base64
    assert base64.b64decode(shown[0].data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert shown[1].data["text/html"] == "<b>bold</b>"


def test_the_record_keeps_every_cell_through_hibernation(s, tmp_path):
    sid = s.new()
    s.exec(sid, "x = 1", expect="ok")
    s.exec(sid, "x += 1\nprint(x)", expect="ok")
    s.run("hibernate", sid, code=0)
    s.exec(sid, "print(x * 10)", expect="ok")            # resumed
    rec = tmp_path / "r.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    lines = [json.loads(l) for l in rec.read_text().splitlines()]
    assert lines[0]["folio_record"] == 1 and lines[0]["head"]["session"] == sid
    cells = lines[1:]
    assert [c["cell"] for c in cells] == [1, 2, 3]
    assert [c["stdout"] for c in cells] == ["", "2\n", "20\n"]
    assert all(c["code_sha256"] == hashlib.sha256(c["code"].encode()).hexdigest() for c in cells)


def test_a_cells_text_is_capped_in_the_record_and_its_size_kept(s, tmp_path):
    sid = s.new()
    r = s.exec(sid, "print('x' * 300000)", expect="ok")
    assert len(r["stdout"]) == 300001                    # the exec answer is not cut
    rec = tmp_path / "r.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    cell = json.loads(rec.read_text().splitlines()[1])
    assert len(cell["stdout"]) == 64 * 1024 and cell["stdout_bytes"] == 300001
    assert os.path.getsize(s.store(sid) / "record.jsonl") < 100 * 1024


def test_written_files_are_hashed_in_the_record(s, tmp_path):
    sid = s.new()
    s.exec(sid, "open('/out/a.txt', 'w').write('alpha')", expect="ok")
    rec = tmp_path / "r.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    cell = json.loads(rec.read_text().splitlines()[1])
    assert cell["files"] == [{"path": "/out/a.txt", "bytes": 5,
                              "sha256": hashlib.sha256(b"alpha").hexdigest()}]


def test_export_refuses_bad_requests_and_leaves_nothing(s, tmp_path):
    out = tmp_path / "x.ipynb"
    p = s.run("export", "0" * 32, "--ipynb", out, code=2)
    assert "no session" in p.stderr and not out.exists()
    p = s.run("export", "nope", "--ipynb", out, code=2)
    assert "not a session id" in p.stderr and not out.exists()
    sid = s.new()
    s.run("export", sid, code=1)
    s.run("export", sid, "--ipynb", out, "--record", out, code=1)
    s.run("export", sid, "--html", out, code=1)
    assert not out.exists()
    (s.store(sid) / "record.head").write_text("{not json")
    p = s.run("export", sid, "--ipynb", out, code=5)
    assert "record" in p.stderr and not out.exists()
    assert list(tmp_path.glob("*.ipynb*")) == []


@needs_nb
def test_the_notebook_over_http(tmp_path):
    from test_serve import Server, request
    (tmp_path / "scratch").mkdir()
    srv = Server("--instance", "r1", "--session-dir", tmp_path / "sd",
                 scratch=tmp_path / "scratch")
    try:
        st, _, body = request(srv.url + "/v1/sessions", "POST", b"{}", "application/json",
                              timeout=120)
        assert st == 201, body
        sid = json.loads(body)["id"]
        st, _, body = request(srv.url + f"/v1/sessions/{sid}/exec", "POST",
                              json.dumps({"code": "print(6 * 7)"}).encode(), "application/json",
                              timeout=120)
        assert st == 200 and json.loads(body)["stdout"] == "42\n"
        st, h, body = request(srv.url + f"/v1/sessions/{sid}/notebook", timeout=120)
        assert st == 200, body
        import nbformat
        nb = nbformat.reads(body.decode(), as_version=4)
        nbformat.validate(nb)
        assert nb.cells[0].source == "print(6 * 7)" and nb.cells[0].outputs[0].text == "42\n"
        st, _, body = request(srv.url + f"/v1/sessions/{sid}/record", timeout=120)
        assert st == 200 and json.loads(body.splitlines()[1])["stdout"] == "42\n"
        st, _, body = request(srv.url + "/v1/sessions/r1-" + "0" * 32 + "/notebook", timeout=60)
        assert st == 404, body
        request(srv.url + f"/v1/sessions/{sid}", "DELETE", timeout=60)
    finally:
        assert srv.stop() == 0


def sock_exec(s, sid, code):
    """One exec over the session's socket (as folio serve does): quicker than the CLI."""
    import socket
    import struct
    fd = os.open(str(s.store(sid)), os.O_RDONLY)
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect("/proc/self/fd/%d/sock" % fd)
        body = struct.pack("<IB", 0, 0) + code.encode()
        c.sendall(b"x" + struct.pack("<I", len(body)) + body)
        while c.recv(65536):
            pass
    finally:
        c.close()
        os.close(fd)


def test_the_record_is_bounded_the_oldest_cells_go_first(s, tmp_path):
    sid = s.new()
    n = 1300                                 # past FO_RECORD_FULL_CELLS (1000) by a quarter
    for k in range(n):
        sock_exec(s, sid, "print(%d)" % k)
    full = (s.store(sid) / "record.jsonl").read_text().splitlines()
    nb = (s.store(sid) / "record.nb").read_text().splitlines()
    index = (s.store(sid) / "record.index").read_text().splitlines()
    assert 1000 <= len(full) <= 1250 and len(nb) == len(full)
    assert len(index) == n                   # every cell's hash stays (up to 100000)
    assert json.loads(full[-1])["cell"] == n and json.loads(full[-1])["stdout"] == "%d\n" % (n - 1)
    assert json.loads(full[0])["cell"] == n - len(full) + 1
    rec = tmp_path / "r.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    assert len(rec.read_text().splitlines()) == len(full) + 1


def test_the_record_moves_with_the_session_to_another_instance(tmp_path):
    """Two runtime folders sharing a state folder (as two folio serve instances):
    a session hibernated by one resumes on the other with its whole record."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    a, b = Sessions(tmp_path / "a"), Sessions(tmp_path / "b")
    for x in (a, b):
        x.env.update(FOLIO_STATE_DIR=str(state), FOLIO_RECORD_NO_ENV="1")
    try:
        sid = a.new()
        a.exec(sid, "x = 20", expect="ok")
        a.run("hibernate", sid, code=0)
        b.ids.append(sid)
        r = b.exec(sid, "print(x + 1)", expect="ok")
        assert r["cell"] == 2 and r["stdout"] == "21\n"
        rec = tmp_path / "r.jsonl"
        b.run("export", sid, "--record", rec, code=0)
        cells = [json.loads(l) for l in rec.read_text().splitlines()[1:]]
        assert [(c["cell"], c["code"]) for c in cells] == [(1, "x = 20"), (2, "print(x + 1)")]
    finally:
        b.close_all()
        a.close_all()


@needs_nb
def test_a_timed_out_cell_is_in_the_notebook_in_its_place(s, tmp_path):
    sid = s.new()
    s.exec(sid, "print('before')", expect="ok")
    s.exec(sid, "import time\ntime.sleep(30)", "--timeout", "1", expect="timeout")
    s.exec(sid, "print('after')", expect="ok")
    nbfile = tmp_path / "t.ipynb"
    s.run("export", sid, "--ipynb", nbfile, code=0)
    nb = read_nb(nbfile)
    assert [c.execution_count for c in nb.cells] == [1, 2, 3]
    assert [c.metadata.folio.status for c in nb.cells] == ["ok", "timeout", "ok"]
    assert [o.output_type for o in nb.cells[1].outputs] == ["error"]


def test_a_cells_egress_is_in_its_record_line(s, tmp_path):
    """--net allow=: the proxy's log of the cell's connections (here one it
    refused: no network needed), in that cell's line, not the next one's."""
    sid = s.new("--net", "allow=example.org")
    s.exec(sid, "import urllib.request\ntry:\n    urllib.request.urlopen("
                "'http://blocked.invalid/', timeout=10)\nexcept Exception as e:\n    print(e)",
           expect="ok")
    s.exec(sid, "1 + 1", expect="ok")
    rec = tmp_path / "r.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    cells = [json.loads(l) for l in rec.read_text().splitlines()[1:]]
    assert [(e["host"], e["decision"]) for e in cells[0]["egress"]] == \
        [("blocked.invalid", "refused")]
    assert cells[1]["egress"] == []
    assert json.loads(rec.read_text().splitlines()[0])["head"]["info"]["limits"]["net"] == "allow"
