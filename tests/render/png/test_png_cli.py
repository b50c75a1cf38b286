"""test_png_cli.py — end-to-end: `folio render spec.json -o out.png` writes
one PNG per chart (OUT.png, or OUT-1.png, OUT-2.png ...), valid for pngcheck,
byte-identical twice, doubled by --scale 2; no chart is an input error (exit 2)."""
import json
import os
import struct
import subprocess

from conftest import run_folio, traced_env, write_spec

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


def decode(path):
    """(width, height, rows of RGB bytes) by hand: chunks, CRCs, zlib (Adler-32
    checked by zlib.decompress), the None and Up filters, a palette."""
    import zlib
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, plte = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"PLTE":
            plte = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = {2: 3, 3: 1, 6: 4}[color]
    stride = w * bpp
    assert len(raw) == h * (stride + 1)
    prev, rows = bytes(stride), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        assert f in (0, 2)
        cur = line if f == 0 else bytes((a + b) & 255 for a, b in zip(line, prev))
        prev = cur
        rows.append(b"".join(plte[3 * i:3 * i + 3] for i in cur) if color == 3 else cur)
    return w, h, rows


def test_every_kind_decodes_to_what_pil_reads(tmp_path):
    """The encoder (Up filter, libdeflate's stream) read back two ways: by
    hand above and by Pillow; both give the same pixels for every kind."""
    from PIL import Image
    kinds = ["bar", "column", "line", "area", "pie", "doughnut", "scatter"]
    blocks = []
    for k in kinds:
        c = chart(k, width=320, height=200)
        if k == "scatter":
            c.update(data={"columns": ["x", "y"], "rows": [[i, (i * 37) % 11] for i in range(30)]},
                     x="x", y="y")
        blocks.append(c)
    out = tmp_path / "k.png"
    r = run("render", spec(tmp_path, blocks), "-o", out)
    assert r.returncode == 0, r.stderr
    for i, k in enumerate(kinds, 1):
        path = tmp_path / f"k-{i}.png"
        w, h, rows = decode(path)
        img = Image.open(path).convert("RGB")
        assert img.size == (w, h) == (320, 200), k
        assert b"".join(rows) == img.tobytes(), k


def test_each_png_is_written_once_through_the_staged_descriptor(tmp_path):
    """Issue 39: a chart's PNG is whole in memory, so it goes out in one
    write(2) on the descriptor the output set staged (no second open, fstat
    and close of the temporary's path), and the commit fsyncs that same
    descriptor without reopening the path or chmod'ing a file whose mode is
    already right. Counted with strace (-y names each call's file)."""
    import shutil
    import pytest
    if not shutil.which("strace"):
        pytest.skip("needs strace")
    n = 6
    blocks = [chart(k, width=320, height=200) for k in ["bar", "line", "area", "pie", "column", "doughnut"]]
    s, log = spec(tmp_path, blocks), tmp_path / "strace.log"
    p = subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=openat,open,write,chmod,fsync,close",
                        "-o", str(log), FOLIO, "render", str(s), "-o", str(tmp_path / "c.png"), "--quiet"],
                       capture_output=True, text=True, timeout=300, env=traced_env())
    assert p.returncode == 0, p.stderr
    lines = [l for l in log.read_text().splitlines() if ".c-" in l and ".png.folio-" in l]
    calls = {}
    for l in lines:
        name = l.split(None, 1)[1].split("(", 1)[0]
        calls[name] = calls.get(name, 0) + 1
    assert calls.get("write") == n, calls
    assert calls.get("fsync") == n, calls
    assert calls.get("openat") == n, calls      # the O_EXCL creation, nothing more
    assert "chmod" not in calls and "open" not in calls, calls
    for i in range(1, n + 1):
        assert subprocess.run(["pngcheck", "-q", str(tmp_path / f"c-{i}.png")]).returncode == 0
