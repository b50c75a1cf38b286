# test_determinism.py — same input, same bytes: every sample in every format,
# rendered twice (in different folders, a second apart, in another time zone)
# gives byte-identical files; and --json reports their true digests.
import hashlib
import json
import os
import time

import pytest

from conftest import SAMPLES, run_folio

SPECS = sorted(p for p in SAMPLES.glob("*/*.json") if "analysis" not in p.parts)
EXTS = ("xlsx", "docx", "pptx", "pdf", "png")


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_render_twice_same_bytes(spec, tmp_path):
    outs = {}
    for run, tz in (("a", "UTC"), ("b", "Asia/Tokyo")):
        d = tmp_path / run
        d.mkdir()
        args = ["render", spec, "--json"]
        for ext in EXTS:
            args += ["-o", d / f"{spec.stem}.{ext}"]
        env = dict(os.environ, TZ=tz)
        p = run_folio(*args, check=0, env=env)
        manifest = json.loads(p.stdout)
        assert {m["format"] for m in manifest} == set(EXTS)
        for m in manifest:
            data = open(m["path"], "rb").read()
            assert hashlib.sha256(data).hexdigest() == m["sha256"] and len(data) == m["bytes"]
        outs[run] = {f.name: f.read_bytes() for f in sorted(d.iterdir())}
        time.sleep(1.1)
    assert outs["a"].keys() == outs["b"].keys()
    for name in outs["a"]:
        assert outs["a"][name] == outs["b"][name], f"{name} differs between runs"


def test_convert_twice_same_bytes(tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    run_folio("convert", SAMPLES / "plain" / "orders.csv", a, check=0)
    time.sleep(1.1)
    run_folio("convert", SAMPLES / "plain" / "orders.csv", b, check=0)
    assert a.read_bytes() == b.read_bytes()
