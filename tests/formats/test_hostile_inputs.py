# test_hostile_inputs.py — specs, themes and images written to hurt the
# renderers (hardening issue 16, items 5, 14, 15 and 16): each either renders
# to a file an independent reader accepts, or is refused with a located exit 2
# that leaves nothing behind, in bounded time and memory.
import json
import os
import resource
import shutil
import struct
import subprocess
import time
import zlib

import pytest

from conftest import FOLIO, run_folio

HUGE = [1e308, -1e308, 1.7976931348623157e308]


def big_chart_spec(kind="column", values=HUGE):
    rows = [[f"r{i}", v] for i, v in enumerate(values)]
    return {"folio": 1, "data": {"d": {"columns": ["x", "y"], "rows": rows}},
            "blocks": [{"type": "chart", "kind": kind, "data": "d", "x": "x", "y": "y"}]}


def child_maxrss_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def run_measured(*args, cwd=None, timeout=120):
    """Runs folio under /usr/bin/time; returns (CompletedProcess, seconds, peak RSS MB)."""
    cmd = ["/usr/bin/time", "-f", "%e %M", FOLIO, *map(str, args)]
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    secs, kb = p.stderr.strip().splitlines()[-1].split()
    return p, float(secs), int(kb) / 1024


# ---- item 16: values that validate must render --------------------------------

@pytest.mark.parametrize("kind", ["column", "line", "pie", "scatter"])
def test_extreme_chart_values_are_refused_at_their_cell(spec_file, kind):
    spec = big_chart_spec(kind)
    if kind == "scatter":
        spec["data"]["d"]["rows"] = [[i, v] for i, v in enumerate(HUGE)]
    path = spec_file(spec)
    p = run_folio("validate", path, "--json", check=2)
    errs = json.loads(p.stdout)
    assert [e["pointer"] for e in errs] == ["/data/d/rows/0/1"]
    assert "beyond +-1e15" in errs[0]["message"] and "/blocks/0/y" in errs[0]["message"]
    assert errs[0]["line"] > 0
    out = path.parent / "out"
    out.mkdir()
    for ext in ("pdf", "png", "xlsx", "docx", "pptx"):
        run_folio("render", path, "-o", out / f"c.{ext}", check=2)
    assert list(out.iterdir()) == []


def test_extreme_values_in_csv_are_refused_at_render(tmp_path):
    (tmp_path / "d.csv").write_text("x,y\na,1\nb,1e308\nc,2\n")
    spec = {"folio": 1, "data": {"d": {"csv": "d.csv"}},
            "blocks": [{"type": "chart", "kind": "column", "data": "d", "x": "x", "y": "y"}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    for ext in ("pdf", "png"):
        p = run_folio("render", path, "-o", tmp_path / f"c.{ext}", check=2)
        assert 'chart value 1e+308 (column "y", row 2) is beyond +-1e15' in p.stderr
        assert "/blocks/0: " in p.stderr
        assert not (tmp_path / f"c.{ext}").exists()


def test_largest_allowed_chart_values_render_valid_files(spec_file, tmp_path):
    path = spec_file(big_chart_spec("line", [1e15, -1e15, 0.5e15]))
    run_folio("render", path, "-o", tmp_path / "c.pdf", "-o", tmp_path / "c.png", check=0)
    subprocess.run(["qpdf", "--check", tmp_path / "c.pdf"], check=True, capture_output=True)
    text = subprocess.run(["pdftotext", tmp_path / "c.pdf", "-"], check=True, capture_output=True,
                          text=True).stdout
    assert "1,000,000,000,000,000" in text
    subprocess.run(["pngcheck", tmp_path / "c.png"], check=True, capture_output=True)


def test_pie_of_an_empty_dataset_renders_everywhere(spec_file, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    spec = {"folio": 1, "data": {"e": {"columns": ["k", {"name": "v", "type": "number"}], "rows": []}},
            "blocks": [{"type": "chart", "kind": "pie", "data": "e", "x": "k", "y": "v"}]}
    path = spec_file(spec)
    outs = [tmp_path / f"p.{e}" for e in ("xlsx", "pdf", "png", "docx", "pptx")]
    run_folio("render", path, *sum((["-o", o] for o in outs), []), check=0)
    wb = openpyxl.load_workbook(outs[0])
    assert sum(len(ws._charts) for ws in wb.worksheets) == 1
    text = subprocess.run(["pdftotext", outs[1], "-"], check=True, capture_output=True, text=True).stdout
    assert "No data" in text


def test_ten_megabyte_title_is_refused_quickly(spec_file, tmp_path):
    path = spec_file({"folio": 1, "title": "T" * 10_000_000, "blocks": [{"type": "paragraph", "text": "x"}]})
    p, secs, mb = run_measured("render", path, "-o", tmp_path / "o.pdf", "-o", tmp_path / "o.docx")
    assert p.returncode == 2, p.stderr
    assert "/title: a string of 10000000 bytes is too long here (at most 4096)" in p.stderr
    assert secs < 10 and mb < 300
    assert not (tmp_path / "o.pdf").exists() and not (tmp_path / "o.docx").exists()


def test_two_million_code_lines_are_refused_with_a_message(spec_file, tmp_path):
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "x\n" * 2_000_000}]})
    p, secs, mb = run_measured("render", path, "-o", tmp_path / "o.pptx")
    assert p.returncode == 2 and "/blocks/0/text: a string of 4000000 bytes is too long" in p.stderr
    assert secs < 10 and mb < 300
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "\n" * 150_000}]})
    p = run_folio("validate", path, check=2)
    assert "a code block of 150001 lines is too long (at most 100000)" in p.stderr


def test_a_long_heading_is_refused_at_its_text(spec_file):
    path = spec_file({"folio": 1, "blocks": [{"type": "heading", "text": "H" * 70000}]})
    p = run_folio("validate", path, "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/blocks/0/text" and "at most 4096" in e["message"]


def test_largest_allowed_paragraph_renders_to_a_valid_pdf(spec_file, tmp_path):
    words = ("lorem ipsum dolor sit amet " * 40000)[:1 << 20]
    path = spec_file({"folio": 1, "title": "T" * 4096, "blocks": [{"type": "paragraph", "text": words}]})
    p, secs, mb = run_measured("render", path, "-o", tmp_path / "o.pdf")
    assert p.returncode == 0, p.stderr
    assert secs < 60 and mb < 500
    subprocess.run(["qpdf", "--check", tmp_path / "o.pdf"], check=True, capture_output=True)
