# test_replay.py — `folio replay` (PRODUCT.md §9, docs/provenance.md "Replay"):
# a deterministic run or session replays `identical`; one that prints or
# writes random.random() differs, with the cause named and, for a JSON
# result, the JSON Pointer of the value; a changed input is refused, named,
# and nothing runs; bad arguments and damaged records are clear errors.
# Needs $FOLIO.
import hashlib
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_session import FOLIO, Sessions, _SKIP  # noqa: E402

pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")

CSV = b"k,v\na,1\nb,2\n"


def folio(*args, cwd=None, env=None):
    return subprocess.run([FOLIO, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def record_run(tmp_path, code):
    (tmp_path / "in.csv").write_bytes(CSV)
    p = folio("run", "--quiet", "--in", "in.csv", "--memory", 512, "--out", "o", "--",
              "/usr/bin/python3", "-c", code, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return tmp_path / "o"


DETERMINISTIC = ("import json\nrows = open('in.csv').read().split()[1:]\n"
                 "json.dump({'n': len(rows), 'set': list({'x', 'y', 'z', 'w'})}, "
                 "open('/out/result.json', 'w'))\nprint(hash('folio'))")
RANDOM = ("import json, random\njson.dump({'n': 2, 'r': random.random()}, "
          "open('/out/result.json', 'w'))")


def test_a_deterministic_run_replays_identical(tmp_path):
    out = record_run(tmp_path, DETERMINISTIC)
    p = folio("replay", out, "--json", cwd=tmp_path)
    assert p.returncode == 0, (p.stdout, p.stderr)
    rep = json.loads(p.stdout)
    assert rep["kind"] == "run" and rep["identical"] is True
    assert [(o["output"], o["result"]) for o in rep["outputs"]] == [("result.json", "identical")]


def test_a_random_value_differs_and_the_cause_and_pointer_are_named(tmp_path):
    out = record_run(tmp_path, RANDOM)
    p = folio("replay", out / "manifest.json", "--json", cwd=tmp_path)
    assert p.returncode == 4, p.stderr
    o = json.loads(p.stdout)["outputs"][0]
    assert o["result"] == "differs" and "randomness" in o["likely_cause"][0]
    assert [v["pointer"] for v in o["values"]] == ["/r"]
    p = folio("replay", out, cwd=tmp_path)               # the text report
    assert p.returncode == 4 and "differs   result.json" in p.stdout and "/r:" in p.stdout
    assert "unseeded randomness" in p.stdout


def test_a_changed_input_is_refused_by_name_and_nothing_runs(tmp_path):
    out = record_run(tmp_path, DETERMINISTIC)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "in.csv").write_bytes(CSV + b"c,3\n")
    p = folio("replay", out, "--in", tmp_path / "other", "--json", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    rep = json.loads(p.stdout)
    assert rep["outputs"] == [] and rep["refused"][0]["input"].endswith("other/in.csv")
    assert rep["refused"][0]["now"] == hashlib.sha256(CSV + b"c,3\n").hexdigest()
    p = folio("replay", out, "--in", tmp_path / "other", cwd=tmp_path)
    assert p.returncode == 2 and "in.csv" in p.stderr and "differs" in p.stderr
    assert not [n for n in os.listdir("/tmp") if n.startswith("folio-replay-")
                and os.stat("/tmp/" + n).st_mtime > os.stat(out).st_mtime]


def test_bad_arguments_and_damaged_records_are_clear_errors(tmp_path):
    assert folio("replay").returncode == 1
    assert folio("replay", tmp_path, "--frob").returncode == 1
    p = folio("replay", tmp_path / "nope")
    assert p.returncode == 2 and "can't read" in p.stderr
    (tmp_path / "bad.json").write_text('{"folio_record": 1, "head": {}}\n{not json\n')
    p = folio("replay", tmp_path / "bad.json")
    assert p.returncode == 2 and "damaged" in p.stderr
    (tmp_path / "m.json").write_text('{"folio_run": 1}')
    p = folio("replay", tmp_path / "m.json")
    assert p.returncode == 2 and "not a folio run manifest" in p.stderr


@pytest.fixture
def s(tmp_path):
    sess = Sessions(tmp_path)
    sess.env["FOLIO_RECORD_NO_ENV"] = "1"
    yield sess
    sess.close_all()


def test_a_session_replays_cell_by_cell(s, tmp_path):
    (tmp_path / "in.csv").write_bytes(CSV)
    (tmp_path / "extra.txt").write_bytes(b"7\n")
    sid = s.new("--in", tmp_path / "in.csv")
    s.run("put", sid, tmp_path / "extra.txt", code=0)
    s.exec(sid, "rows = open('in.csv').read().split()[1:]\nprint(len(rows))", expect="ok")
    s.exec(sid, "n = int(open('extra.txt').read())\nopen('/out/n.txt', 'w').write(str(n * 6))",
           expect="ok")
    s.exec(sid, "import random\nprint(random.random())", expect="ok")
    rec = tmp_path / "rec.jsonl"
    s.run("export", sid, "--record", rec, code=0)
    p = subprocess.run([FOLIO, "replay", rec, "--json"], cwd=tmp_path, env=s.env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 4, p.stderr
    rep = json.loads(p.stdout)
    got = {o["output"]: o["result"] for o in rep["outputs"]}
    assert got == {"cell 1 stdout": "identical", "cell 2 stdout": "identical",
                   "cell 2 /out/n.txt": "identical", "cell 3 stdout": "differs"}
    assert "randomness" in rep["outputs"][-1]["likely_cause"][0]
    (tmp_path / "extra.txt").write_bytes(b"8\n")        # a put that changed is refused too
    p = subprocess.run([FOLIO, "replay", rec], cwd=tmp_path, env=s.env, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 2 and "extra.txt" in p.stderr
