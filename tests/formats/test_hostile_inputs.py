# test_hostile_inputs.py — specs, themes and images written to hurt the
# renderers (hardening issue 16, items 5, 14, 15 and 16): each either renders
# to a file an independent reader accepts, or is refused with a located exit 2
# that leaves nothing behind, in bounded memory (peak RSS, a count) and
# time. Time is never a number of seconds: a refusal costs about the CPU of
# `folio validate` on the same spec, measured in the same run (it must not
# render first), and a render that succeeds scales with its input.
import json
import os
import resource
import shutil
import struct
import subprocess
import zlib

import pytest

from conftest import FOLIO, ROOT, SLOW, run_folio

HUGE = [1e308, -1e308, 1.7976931348623157e308]


def big_chart_spec(kind="column", values=HUGE):
    rows = [[f"r{i}", v] for i, v in enumerate(values)]
    return {"folio": 1, "data": {"d": {"columns": ["x", "y"], "rows": rows}},
            "blocks": [{"type": "chart", "kind": kind, "data": "d", "x": "x", "y": "y"}]}


def child_maxrss_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def run_measured(*args, cwd=None, timeout=120):
    """Runs folio under /usr/bin/time; returns (CompletedProcess, CPU seconds
    (user + system, its children's too), peak RSS MB)."""
    cmd = ["/usr/bin/time", "-f", "%M", FOLIO, *map(str, args)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    kb = p.stderr.strip().splitlines()[-1]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, cpu, int(kb) / 1024


def validate_cpu(path):
    """The CPU seconds `folio validate PATH` takes (it refuses PATH): what a
    refusal costs when nothing is rendered, on this machine, in this run."""
    p, cpu, _ = run_measured("validate", path)
    assert p.returncode == 2, p.stderr
    return cpu


def refused_cheaply(cpu, path):
    """A refused render cost about what validating the same spec does: it
    stopped before rendering anything (generous: 3 times, plus start-up)."""
    base = validate_cpu(path)
    assert cpu < 3 * base + 0.3 * SLOW, "refused in %.2f s of CPU; validate takes %.2f s" % (cpu, base)


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
        assert 'd.csv:3:2: chart value 1e+308 (column "y", row 2) is beyond +-1e15' in p.stderr  # at the cell
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
    p, cpu, mb = run_measured("render", path, "-o", tmp_path / "o.pdf", "-o", tmp_path / "o.docx")
    assert p.returncode == 2, p.stderr
    assert "/title: a string of 10000000 bytes is too long here (at most 4096)" in p.stderr
    assert mb < 300
    refused_cheaply(cpu, path)
    assert not (tmp_path / "o.pdf").exists() and not (tmp_path / "o.docx").exists()


def test_two_million_code_lines_are_refused_with_a_message(spec_file, tmp_path):
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "x\n" * 2_000_000}]})
    p, cpu, mb = run_measured("render", path, "-o", tmp_path / "o.pptx")
    assert p.returncode == 2 and "/blocks/0/text: a string of 4000000 bytes is too long" in p.stderr
    assert mb < 300
    refused_cheaply(cpu, path)
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "\n" * 150_000}]})
    p = run_folio("validate", path, check=2)
    assert "a code block of 150001 lines is too long (at most 100000)" in p.stderr


def test_a_long_heading_is_refused_at_its_text(spec_file):
    path = spec_file({"folio": 1, "blocks": [{"type": "heading", "text": "H" * 70000}]})
    p = run_folio("validate", path, "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/blocks/0/text" and "at most 4096" in e["message"]


def test_noncharacters_in_text_render_everywhere(spec_file, tmp_path):
    """U+FFFF is valid in JSON and UTF-8, and libunibreak 1.1 takes it for
    its end of text: "a\uffff" in a paragraph aborted the PDF and PNG
    renders (found by fuzz_text). Every format renders, and PDF text reads
    back around it; flags (which libunibreak also asserted on) too."""
    text = "Total a\uffff b \ufffe c \U0001F1EF\U0001F1F5 done"
    spec = spec_file({"folio": 1, "blocks": [
        {"type": "paragraph", "text": text},
        {"type": "chart", "kind": "bar", "title": text, "x": "k", "y": "v",
         "data": {"columns": ["k", "v"], "rows": [[text, 1], ["b", 2]]}}]})
    outs = [tmp_path / f"o.{ext}" for ext in ("pdf", "png", "docx", "pptx", "xlsx")]
    args = ["render", spec]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    got = subprocess.run(["pdftotext", outs[0], "-"], capture_output=True, text=True, check=True).stdout
    assert "Total a" in got and "done" in got
    assert subprocess.run(["pngcheck", outs[1]], capture_output=True).returncode == 0


def test_largest_allowed_paragraph_renders_to_a_valid_pdf(spec_file, tmp_path):
    def paragraph(size, name):
        words = ("lorem ipsum dolor sit amet " * 40000)[:size]
        path = spec_file({"folio": 1, "title": "T" * 4096, "blocks": [{"type": "paragraph", "text": words}]})
        p, cpu, mb = run_measured("render", path, "-o", tmp_path / name)
        assert p.returncode == 0, p.stderr
        return cpu, mb
    quarter, _ = paragraph(1 << 18, "q.pdf")
    cpu, mb = paragraph(1 << 20, "o.pdf")
    assert mb < 500
    assert cpu < 8 * quarter + 0.3 * SLOW, (cpu, quarter)   # about linear, measured in this run
    subprocess.run(["qpdf", "--check", tmp_path / "o.pdf"], check=True, capture_output=True)


# ---- item 14: images are checked before anything decodes them ------------------

def chunk(kind, body, crc=None):
    c = zlib.crc32(kind + body) if crc is None else crc
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", c & 0xFFFFFFFF)


def png(w, h, color=2, depth=8, rows=None, idat=None, extra=b"", end=True):
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0))
    if idat is None:
        bpp = {0: 1, 2: 3, 4: 2, 6: 4}[color] * depth // 8
        raw = rows if rows is not None else b"".join(b"\0" + bytes([i % 256]) * (w * bpp) for i in range(h))
        idat = chunk(b"IDAT", zlib.compress(raw))
    return sig + ihdr + extra + idat + (chunk(b"IEND", b"") if end else b"")


def image_spec(tmp_path, data, name="pic.png"):
    (tmp_path / name).write_bytes(data)
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": "before"},
                                   {"type": "image", "path": name, "alt": "a picture"}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec, indent=1))
    return path


def test_a_good_png_still_renders_everywhere(tmp_path):
    path = image_spec(tmp_path, png(40, 30))
    outs = [tmp_path / f"o.{e}" for e in ("pdf", "docx", "pptx", "xlsx")]
    run_folio("render", path, *sum((["-o", o] for o in outs), []), check=0)
    out = subprocess.run(["pdfimages", "-list", outs[0]], check=True, capture_output=True, text=True).stdout
    assert "   40    30 " in out


BROKEN = {
    "huge_header": (lambda: png(20000, 20000, idat=chunk(b"IDAT", zlib.compress(b"\0" * 1000))),
                    "over the 50-megapixel limit"),
    "chunk_2gb": (lambda: png(8, 8, extra=struct.pack(">I", 0x7FFFFFF0) + b"tEXt" + b"x" * 20),
                  "a PNG chunk runs past the end of the file"),
    "bad_crc": (lambda: png(8, 8, extra=chunk(b"tEXt", b"k\0v", crc=1)), "fails its CRC check"),
    "corrupt_zlib": (lambda: png(8, 8, idat=chunk(b"IDAT", b"\x78\x9c" + b"\xff" * 40)), "corrupt (zlib)"),
    "short_data": (lambda: png(64, 64, idat=chunk(b"IDAT", zlib.compress(b"\0" * 100))), "shorter than its header"),
    "no_iend": (lambda: png(8, 8, end=False), "ends before its IEND"),
    "bad_depth": (lambda: png(8, 8, color=2, depth=4, idat=chunk(b"IDAT", zlib.compress(b"\0" * 8))),
                  "unknown format"),
    "jpeg_huge": (lambda: b"\xff\xd8\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\0" * 9 +
                  b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 60000, 60000, 3) + b"\1\x11\0\2\x11\0\3\x11\0" +
                  b"\xff\xd9", "over the 50-megapixel limit"),
    "jpeg_segment": (lambda: b"\xff\xd8\xff\xe1" + struct.pack(">H", 60000) + b"Exif", "runs past the end"),
    "not_image": (lambda: b"GIF89a" + b"\0" * 40, "not a PNG or JPEG image"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_image_is_a_located_error_in_every_format(tmp_path, name):
    make, reason = BROKEN[name]
    path = image_spec(tmp_path, make(), "pic.jpg" if name.startswith("jpeg") else "pic.png")
    p = run_folio("validate", path, "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/blocks/1/path" and e["line"] == 10, e
    assert reason in e["message"]
    for ext in ("pdf", "docx", "pptx", "xlsx"):
        p, cpu, mb = run_measured("render", path, "-o", tmp_path / f"o.{ext}")
        assert p.returncode == 2 and "/blocks/1/path" in p.stderr, p.stderr
        assert mb < 300, (ext, mb)
        refused_cheaply(cpu, path)
        assert not (tmp_path / f"o.{ext}").exists()


def test_a_valid_bomb_is_refused_by_its_header_in_bounded_memory(tmp_path):
    """20000 x 20000 with real (all-zero) pixel data, 1.2 MB on disk."""
    w = h = 20000
    z = zlib.compressobj(9)
    row = b"\0" * (1 + 3 * w)
    idat = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    path = image_spec(tmp_path, png(w, h, idat=chunk(b"IDAT", idat)))
    p, cpu, mb = run_measured("render", path, "-o", tmp_path / "o.pdf")
    assert p.returncode == 2 and "50-megapixel" in p.stderr
    assert mb < 300
    refused_cheaply(cpu, path)


# ---- item 5: a theme's files stay in its folder ----------------------------------

def theme_case(tmp_path, logo=None, font=None):
    """spec.json and brand.json in tmp_path/doc; tmp_path/private holds a real photo."""
    doc, private = tmp_path / "doc", tmp_path / "private"
    doc.mkdir(exist_ok=True)
    private.mkdir(exist_ok=True)
    (private / "photo.png").write_bytes(png(4, 4))
    theme = {"folio_theme": 1, "name": "brand"}
    if logo is not None:
        theme["logo"] = logo
    if font is not None:
        theme["fonts"] = {"body": {"family": "Brand", "files": {"regular": font}}}
    (doc / "brand.json").write_text(json.dumps(theme, indent=1))
    spec = doc / "spec.json"
    spec.write_text(json.dumps({"folio": 1, "theme": "brand.json",
                                "blocks": [{"type": "paragraph", "text": "hello"}]}))
    return spec


def theme_error(tmp_path, logo=None, font=None):
    """Renders the theme_case spec, which must be refused; returns its error.
    A FIFO opened for reading blocks until a writer comes, and none ever does:
    had folio opened one, run_folio's timeout would fail the test."""
    spec = theme_case(tmp_path, logo, font)
    p = run_folio("render", spec, "-o", spec.parent / "o.pdf", "-o", spec.parent / "o.docx", "--json",
                  check=2, timeout=60 * SLOW)
    assert not (spec.parent / "o.pdf").exists() and not (spec.parent / "o.docx").exists()
    (e,) = json.loads(p.stdout)
    assert e["file"].endswith("brand.json") and e["line"] > 0
    return e


def test_theme_logo_outside_the_folder_reads_the_same_whether_it_exists(tmp_path):
    a = theme_error(tmp_path, logo="../private/photo.png")
    b = theme_error(tmp_path, logo="../private/nothing.png")
    assert a["pointer"] == "/logo" and "leads outside the folder" in a["message"]
    assert a["message"].replace("photo", "X") == b["message"].replace("nothing", "X")


def test_theme_logo_absolute_path_is_refused_without_looking(tmp_path):
    a = theme_error(tmp_path, logo=str(tmp_path / "private" / "photo.png"))
    b = theme_error(tmp_path, logo=str(tmp_path / "private" / "nothing.png"))
    assert "absolute path" in a["message"]
    assert a["message"].replace("photo", "X") == b["message"].replace("nothing", "X")


def test_theme_symlink_pointing_out_is_refused_and_says_nothing_of_its_target(tmp_path):
    theme_case(tmp_path)
    os.symlink(tmp_path / "private" / "photo.png", tmp_path / "doc" / "real.png")
    os.symlink(tmp_path / "private" / "nothing.png", tmp_path / "doc" / "dangling.png")
    os.symlink(tmp_path / "private", tmp_path / "doc" / "dir")
    a = theme_error(tmp_path, logo="real.png")
    b = theme_error(tmp_path, logo="dangling.png")
    c = theme_error(tmp_path, logo="dir/photo.png")
    assert "symbolic link" in a["message"]
    assert a["message"].replace("real", "X") == b["message"].replace("dangling", "X")
    assert "symbolic link" in c["message"]


@pytest.mark.parametrize("where", ["fifo", "stdin"])
def test_theme_fifo_or_stdin_never_blocks(tmp_path, where):
    theme_case(tmp_path)
    if where == "fifo":
        os.mkfifo(tmp_path / "doc" / "logo.png")
        e = theme_error(tmp_path, logo="logo.png")
        assert "not a regular file" in e["message"]         # looked at, never opened
    else:
        e = theme_error(tmp_path, font="/dev/stdin")
        assert e["pointer"] == "/fonts/body/files/regular" and "absolute path" in e["message"]


def test_theme_fifo_font_and_oversize_font_are_refused(tmp_path):
    theme_case(tmp_path)
    os.mkfifo(tmp_path / "doc" / "pipe.ttf")
    e = theme_error(tmp_path, font="pipe.ttf")
    assert "not a regular file" in e["message"]
    with open(tmp_path / "doc" / "big.ttf", "wb") as f:
        f.truncate(65 << 20)  # sparse: costs no disk
    e = theme_error(tmp_path, font="big.ttf")
    assert e["pointer"] == "/fonts/body/files/regular" and "larger than 67108864 bytes" in e["message"]


def test_theme_files_inside_the_folder_still_work(tmp_path):
    spec = theme_case(tmp_path, logo="img/logo.png", font="fonts/../fonts/Brand.ttf")
    (spec.parent / "img").mkdir()
    (spec.parent / "img" / "logo.png").write_bytes(png(40, 20))
    (spec.parent / "fonts").mkdir()
    shutil.copy("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", spec.parent / "fonts" / "Brand.ttf")
    run_folio("render", spec, "-o", spec.parent / "o.pdf", check=0)
    out = subprocess.run(["pdffonts", spec.parent / "o.pdf"], check=True, capture_output=True, text=True).stdout
    assert "DejaVuSans" in out
    imgs = subprocess.run(["pdfimages", "-list", spec.parent / "o.pdf"], check=True, capture_output=True,
                          text=True).stdout
    assert "   40    20 " in imgs


def test_theme_font_with_malformed_glyph_data_is_refused(tmp_path):
    """fuzz_font found a font whose glyph data folio cannot subset; libharu
    embedded it instead and lost memory doing so. It is now refused, naming
    the file, and nothing is written. The font here is the composite-glyph
    seed with the component of its "\u01fa" pointing past the last glyph
    (the fuzzed file itself is now refused earlier, for its character map)."""
    spec = theme_case(tmp_path, font="Broken.ttf")
    spec.write_text(json.dumps({"folio": 1, "theme": "brand.json",
                                "blocks": [{"type": "paragraph", "text": "hello \u01fa"}]}))
    font = bytearray((ROOT / "tests" / "fuzz" / "seeds" / "fuzz_font" / "composite.ttf").read_bytes())
    tables = {}
    for i in range(struct.unpack(">H", font[4:6])[0]):
        tag, _, off, _ = struct.unpack(">4sIII", font[12 + 16 * i:28 + 16 * i])
        tables[tag] = off
    long_loca = struct.unpack(">h", font[tables[b"head"] + 50:tables[b"head"] + 52])[0]
    loca = tables[b"loca"]
    start = (struct.unpack(">I", font[loca + 28:loca + 32])[0] if long_loca
             else struct.unpack(">H", font[loca + 14:loca + 16])[0] * 2)   # glyph 7, "\u01fa"
    at = tables[b"glyf"] + start
    assert struct.unpack(">h", font[at:at + 2])[0] < 0                     # composite
    font[at + 12:at + 14] = struct.pack(">H", 0xFFFF)                      # its first component
    (spec.parent / "Broken.ttf").write_bytes(font)
    p = run_folio("render", spec, "-o", spec.parent / "o.pdf", check=2)
    assert "Broken.ttf: the font's glyph tables are malformed" in p.stderr, p.stderr
    assert not (spec.parent / "o.pdf").exists()


@pytest.mark.parametrize("seed,why", [
    ("upem-zero.ttf", "head table gives an impossible unitsPerEm"),
    ("hmetrics-over-glyphs.ttf", "glyph and metrics counts disagree"),
    ("cmap-beyond-glyphs.ttf", "cmap table maps characters to glyphs the font lacks"),
    ("cmap-past-end.ttf", "head table gives an impossible unitsPerEm")])
def test_theme_font_libharu_would_fault_on_is_refused(tmp_path, seed, why):
    """fuzz_font found fonts on which libharu's loader faults: head says 0
    units per em (it divides by it: SIGFPE), hhea has more metrics than maxp
    has glyphs (a heap overflow), the character map sends "H" to glyph 54811
    of a 17-glyph font (a read far out of bounds), a cmap past the end of the
    file (read through a null pointer). The PDF writer refuses such a font
    before libharu reads it, naming the file and the table, and writes
    nothing; the PNG writer (FreeType) does not crash on them either."""
    spec = theme_case(tmp_path, font="Bad.ttf")
    shutil.copy(ROOT / "tests" / "fuzz" / "seeds" / "fuzz_font" / seed, spec.parent / "Bad.ttf")
    out = spec.parent / "o.pdf"
    p = run_folio("render", spec, "-o", out, check=2)
    assert "Bad.ttf: the font's %s; use another font file" % why in p.stderr, p.stderr
    assert not out.exists()
    p = run_folio("render", spec, "-o", spec.parent / "o.png")
    assert p.returncode in (0, 2), (p.returncode, p.stderr)


def test_theme_font_whose_tables_run_past_its_end_is_refused(tmp_path):
    """A font cut inside a table libharu's loader reads (here "name"): libharu
    took the missing bytes for zeros (a cut cmap was read through a null
    pointer). A read past the end now fails the load, and the render stops
    naming the file rather than drawing with another font."""
    spec = theme_case(tmp_path, font="Cut.ttf")
    font = (ROOT / "tests" / "fuzz" / "seeds" / "fuzz_font" / "hello.ttf").read_bytes()
    (spec.parent / "Cut.ttf").write_bytes(font[:1736])
    out = spec.parent / "o.pdf"
    p = run_folio("render", spec, "-o", out, check=2)
    assert "Cut.ttf: the font's tables run past the end of the file" in p.stderr, p.stderr
    assert not out.exists()


def test_spec_csv_through_a_symlink_is_refused_alike(tmp_path):
    d = tmp_path / "doc"
    d.mkdir()
    (tmp_path / "secret.csv").write_text("a\n1\n")
    os.symlink(tmp_path / "secret.csv", d / "a.csv")
    os.symlink(tmp_path / "none.csv", d / "b.csv")
    msgs = []
    for name in ("a.csv", "b.csv"):
        (d / "s.json").write_text(json.dumps({"folio": 1, "data": {"d": {"csv": name}},
                                              "blocks": [{"type": "table", "data": "d"}]}))
        (e,) = json.loads(run_folio("validate", d / "s.json", "--json", check=2).stdout)
        msgs.append(e["message"].replace(name, "X"))
    assert msgs[0] == msgs[1] and "symbolic link" in msgs[0]


# ---- item 15: errors are located from one index and capped -------------------------

def good_blocks_cpu(spec_file, n):
    """The CPU seconds validating n good paragraphs takes, on one line as
    below: what reading such a spec costs without mistakes, in this run."""
    path = spec_file(json.dumps({"folio": 1, "blocks": [{"type": "paragraph", "text": "x"}] * n}),
                     "good.json")
    p, cpu, _ = run_measured("validate", path)
    assert p.returncode == 0, p.stderr
    return cpu


def test_forty_thousand_bad_blocks_validate_fast_with_capped_output(spec_file):
    # 40,000 different mistakes (the same one repeated is one message: below).
    # Locating each from the start of the file made this quadratic; from one
    # index it costs about what 40,000 good blocks do (generous: 4 times).
    good = good_blocks_cpu(spec_file, 40000)
    spec = {"folio": 1, "blocks": [{"type": f"paragraf{i}", "text": "x"} for i in range(40000)]}
    path = spec_file(json.dumps(spec))  # one line: columns in the hundreds of thousands
    p, cpu, mb = run_measured("validate", path)
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.startswith("folio: ")]
    assert len(lines) == 101 and cpu < 4 * good + 0.3 * SLOW, (cpu, good)
    assert lines[99].startswith(f"folio: {path}:1:") and "/blocks/99/type" in lines[99]
    assert lines[-1] == (f"folio: {path}: ... and 39900 more errors not shown "
                         "(fix these first; the rest are often the same mistake)")
    col = int(lines[99].split(":")[3])
    text = path.read_text()
    assert text[col - 1:].startswith('"paragraf99"')  # the caret is on the value
    p = run_folio("validate", path, "--json", check=2)
    errs = json.loads(p.stdout)
    assert len(errs) == 101 and errs[-1]["pointer"] is None and "39900 more" in errs[-1]["message"]
    spec = {"folio": 1, "blocks": [{"type": "paragraf", "text": "x"} for _ in range(40000)]}
    path = spec_file(json.dumps(spec))
    p, cpu, mb = run_measured("validate", path)
    lines = [l for l in p.stderr.splitlines() if l.startswith("folio: ")]
    assert len(lines) == 1 and cpu < 4 * good + 0.3 * SLOW, (cpu, good, lines)
    assert "/blocks/0/type: unknown block type \"paragraf\"; 40000 times in all, also at /blocks/1/type, " in lines[0]


def test_indexed_positions_match_the_text(spec_file):
    text = ('{"folio": 1, "title": "caf\\u00e9 \u00e9t\u00e9",\n'
            ' "data": {"a\\/b": {"columns": ["x"], "rows": [[1], [2, 3]]},\n'
            '          "\u00fcml": {"columns": ["y"], "rows": [["\u00e9\u00e9", 1, 2]]}},\n'
            ' "blocks": [{"type": "paragraph", "text": "\u00e9", "bad\\"key": 1}]}')
    p = run_folio("validate", spec_file(text), "--json", check=2)
    got = {e["pointer"]: (e["line"], e["column"]) for e in json.loads(p.stdout)}
    lines = text.split("\n")

    def pos(line, needle):
        return (line + 1, lines[line].index(needle) + 1)

    assert got["/data/a~1b/rows/1"] == pos(1, "[2, 3]")
    assert got["/data/\u00fcml/rows/0"] == pos(2, '["\u00e9\u00e9", 1, 2]')
    assert got['/blocks/0/bad"key'] == pos(3, '"bad\\"key"')


def test_a_code_line_over_the_excel_cell_limit_is_refused_not_dropped(spec_file, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "short\n" + "x" * 40000 + "\nend"}]})
    p = run_folio("render", path, "-o", tmp_path / "o.xlsx", check=2)
    assert "/blocks/0: a text of 40000 characters exceeds Excel's 32,767-character cell limit" in p.stderr
    assert not (tmp_path / "o.xlsx").exists()
    path = spec_file({"folio": 1, "blocks": [{"type": "code", "text": "short\n" + "x" * 32000 + "\nend"}]})
    run_folio("render", path, "-o", tmp_path / "o.xlsx", check=0)
    cells = [c.value for row in openpyxl.load_workbook(tmp_path / "o.xlsx")["Summary"].iter_rows()
             for c in row if c.value]
    assert cells == ["short", "x" * 32000, "end"]


def test_a_pdf_past_its_page_limit_is_a_clear_input_error(spec_file, tmp_path):
    blocks = [{"type": "code", "text": "x\n" * 99_999} for _ in range(20)]
    path = spec_file({"folio": 1, "blocks": blocks})
    p, _, mb = run_measured("render", path, "-o", tmp_path / "o.pdf", timeout=300)
    assert p.returncode == 2, p.stderr
    assert "the document would run past 30000 pages" in p.stderr and "libharu" not in p.stderr
    assert not (tmp_path / "o.pdf").exists()
