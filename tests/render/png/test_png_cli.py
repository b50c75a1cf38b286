"""test_png_cli.py — end-to-end: `folio render spec.json -o out.png` writes
one PNG per chart (OUT.png, or OUT-1.png, OUT-2.png ...), valid for pngcheck,
byte-identical twice, doubled by --scale 2; no chart is an input error (exit 2)."""
import json
import os
import struct
import subprocess

from conftest import run_folio, write_spec

FOLIO = os.environ.get("FOLIO", "build/folio")


def spec(tmp_path, blocks):
    p = tmp_path / "spec.json"
    data = {"columns": ["month", "revenue", "cost"],
            "rows": [["Jan", 120.5, 80], ["Feb", 98, 70], ["Mar", None, 75], ["Apr", 143, -12]]}
    p.write_text(json.dumps({"folio": 1, "data": {"sales": data}, "blocks": blocks}))
    return p


def chart(kind, **kw):
    return dict({"type": "chart", "kind": kind, "data": "sales", "x": "month",
                 "y": ["revenue", "cost"], "title": f"A {kind} chart"}, **kw)


def size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def run(*args):
    return subprocess.run([FOLIO, *map(str, args)], capture_output=True, text=True)


def test_one_chart_is_out_png(tmp_path):
    s = spec(tmp_path, [{"type": "paragraph", "text": "hi"}, chart("column", y_title="EUR")])
    out = tmp_path / "out.png"
    r = run("render", s, "-o", out)
    assert r.returncode == 0, r.stderr
    assert size(out) == (800, 500)
    assert subprocess.run(["pngcheck", "-q", str(out)]).returncode == 0
    first = out.read_bytes()
    out.unlink()
    assert run("render", s, "-o", out).returncode == 0
    assert out.read_bytes() == first  # deterministic


def test_several_charts_numbered_in_block_order(tmp_path):
    kinds = ["bar", "column", "line", "area", "pie", "doughnut"]
    blocks = [chart(k, width=400, height=300) for k in kinds]
    blocks.append(chart("scatter", x="revenue", y="cost", width=400, height=300))
    kinds.append("scatter")
    s = spec(tmp_path, blocks)
    r = run("render", s, "-o", tmp_path / "c.png", "--scale", "2")
    assert r.returncode == 0, r.stderr
    for i in range(1, len(kinds) + 1):
        p = tmp_path / f"c-{i}.png"
        assert size(p) == (800, 600)
        assert subprocess.run(["pngcheck", "-q", str(p)]).returncode == 0
    assert not (tmp_path / "c.png").exists()


def test_no_chart_is_input_error(tmp_path):
    s = spec(tmp_path, [{"type": "paragraph", "text": "no chart here"}])
    r = run("render", s, "-o", tmp_path / "x.png")
    assert r.returncode == 2
    assert "no chart block to render as PNG" in r.stderr
    assert not list(tmp_path.glob("*.png"))


def test_png_beside_other_outputs_of_a_spec_without_charts_is_skipped(tmp_path):
    # issue 37, A.12: "-o x.pdf -o x.png" of a spec without charts wrote
    # nothing at all; now the PDF is written and the PNG left out, said so
    spec = {"folio": 1, "title": "T", "data": {"d": {"columns": ["a"], "rows": [[1]]}},
            "blocks": [{"type": "table", "data": "d"}]}
    path = write_spec(tmp_path, spec)
    p = run_folio("render", path, "-o", tmp_path / "x.pdf", "-o", tmp_path / "x.png", check=0)
    assert (tmp_path / "x.pdf").stat().st_size > 0 and not (tmp_path / "x.png").exists()
    assert "warning:" in p.stderr and "x.png not written" in p.stderr and "no chart" in p.stderr
    # alone, the PNG is still an error
    p = run_folio("render", path, "-o", tmp_path / "y.png", check=2)
    assert "no chart block to render as PNG" in p.stderr and not (tmp_path / "y.png").exists()
