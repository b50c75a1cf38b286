# test_world_text.py — every script drawn right, right-to-left everywhere
# (issue 15). The mixed-script page tests/render/text/world.json is rendered
# to PDF and PNG and compared with reference images (looked at, then kept:
# ref/world-pdf-1.png, ref/world-pdf-2.png, ref/world.png); pdftotext must give back the
# logical text of every script; LibreOffice's conversion of the docx and
# pptx must show the right-to-left paragraphs right-aligned.
# Glyph ids and order against hb-shape, and .notdef: tests/render/t_shape.c.
import json
import pathlib
import re
import shutil
import subprocess
import sys
import unicodedata
import zipfile

import pytest

from conftest import run_folio

HERE = pathlib.Path(__file__).resolve().parent
SPEC = HERE / "world.json"
REF = HERE / "ref"

need = pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("compare"),
                          reason="poppler-utils and imagemagick are needed")

# Phrases whose characters and word order pdftotext must give back as typed
# (numbers and Latin names inside right-to-left text come back in poppler's
# own order, so the phrases stop short of them).
LOGICAL = ["绿茶 橄榄油 椰枣 笔记本 语言 销量", "綠茶 橄欖油 椰棗 筆記本 語言 銷量",
           "緑茶とオリーブオイル、ノートと言語", "녹차 올리브유 공책 언어",
           "شاي أخضر بسعر", "دولارًا من شركة", "چای سبز و روغن زیتون برای", "תה ירוק ושמן זית מחברת",
           "हरी चाय और जैतून का तेल, क्षत्रिय", "সবুজ চা ও জলপাই তেল",
           "பச்சை தேநீர் மற்றும் ஆலிவ் எண்ணெய்", "ชาเขียวและน้ำมันมะกอก",
           "Πράσινο τσάι και ελαιόλαδο", "Зелёный чай и оливковое масло",
           "Tiếng Việt: ệ ử ẫ ỗ ậ ặ", "שלום עולם", "مرحبا بالعالم"]


def same_image(got, ref, tmp_path):
    """At most 0.5 % of pixels differ by more than 5 % (rasterizer versions)."""
    p = subprocess.run(["compare", "-metric", "AE", "-fuzz", "5%", str(got), str(ref), "null:"],
                       capture_output=True, text=True)
    differing = float(p.stderr.split()[0])
    w, h = map(int, subprocess.run(["identify", "-format", "%w %h", str(ref)], capture_output=True,
                                   text=True, check=True).stdout.split())
    assert differing <= 0.005 * w * h, f"{got}: {differing:.0f} pixels differ from {ref}"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("world")
    out = {ext: d / f"world.{ext}" for ext in ("pdf", "png", "docx", "pptx")}
    args = ["render", SPEC]
    for p in out.values():
        args += ["-o", p]
    run_folio(*args, check=0)
    return d, out


@need
def test_pdf_pages_match_reference(outputs, tmp_path):
    d, out = outputs
    subprocess.run(["pdftoppm", "-png", "-r", "60", out["pdf"], tmp_path / "page"], check=True)
    for n in (1, 2):
        same_image(tmp_path / f"page-{n}.png", REF / f"world-pdf-{n}.png", tmp_path)


@need
def test_png_matches_reference(outputs, tmp_path):
    d, out = outputs
    same_image(out["png"], REF / "world.png", tmp_path)


@need
def test_pdf_text_layer_is_logical(outputs):
    d, out = outputs
    text = subprocess.run(["pdftotext", out["pdf"], "-"], capture_output=True, text=True,
                          check=True).stdout
    text = re.sub("[\u202a-\u202e]", "", text)   # poppler's embedding marks
    for phrase in LOGICAL:
        assert phrase in text, f"{phrase!r} not in the text layer"
    for emoji in "✅📈🚀😀":   # outside the BMP too (drawn as outlines, read from /ActualText)
        assert emoji in text


def lo_pdf(src, tmp_path):
    if not shutil.which("soffice"):
        pytest.skip("LibreOffice is needed")
    outdir = tmp_path / src.suffix[1:]
    subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", outdir, src],
                   check=True, capture_output=True, timeout=180)
    return outdir / (src.stem + ".pdf")


def word_boxes(pdf):
    """(text, xMin, xMax, page width) of every word pdftotext finds; -bbox
    keeps right-to-left words in drawing order, so they are turned back."""
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    pw = float(re.search(r'<page width="([\d.]+)"', html).group(1))
    def logical(w):
        return w[::-1] if re.search("[\u0590-\u08ff]", w) else w
    return [(logical(m.group(3)), float(m.group(1)), float(m.group(2)), pw)
            for m in re.finditer(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', html)]


def assert_right_aligned(pdf, rtl_word, ltr_word):
    boxes = word_boxes(pdf)
    rtl = [b for b in boxes if b[0] == rtl_word]
    ltr = [b for b in boxes if b[0] == ltr_word]
    assert rtl and ltr, f"{rtl_word!r} or {ltr_word!r} not found in {pdf}"
    _, _, x1, pw = rtl[0]
    _, l0, _, _ = ltr[0]
    # the RTL paragraph ends at the right margin, the LTR one starts at the left
    assert x1 > pw * 0.75, f"{rtl_word!r} ends at {x1:.0f} of {pw:.0f}: not right-aligned"
    assert l0 < pw * 0.25


@need
def test_docx_rtl_right_aligned_in_libreoffice(outputs, tmp_path):
    d, out = outputs
    with zipfile.ZipFile(out["docx"]) as z:
        xml = z.read("word/document.xml").decode()
    assert "<w:bidi/>" in xml and "<w:rtl/>" in xml
    pdf = lo_pdf(out["docx"], tmp_path)
    assert_right_aligned(pdf, "שלום", "English")
    # the order of the words in the line: שלום is the rightmost
    boxes = word_boxes(pdf)
    x = {b[0]: b[1] for b in boxes}
    assert x["שלום"] > x["עולם"]


@need
def test_pptx_rtl_right_aligned_in_libreoffice(outputs, tmp_path):
    d, out = outputs
    pdf = lo_pdf(out["pptx"], tmp_path)
    assert_right_aligned(pdf, "שלום", "English")


@need
def test_cjk_wraps_between_characters_by_uax14(tmp_path):
    """A Chinese paragraph without spaces fills each line to the margin
    (breaks between characters) and no line starts with 。 or ，."""
    sentence = "绿茶和橄榄油的销量在第三季度增长了百分之十二，主要来自线上渠道。"
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": sentence * 6}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pdf", check=0)
    lines = [l for l in subprocess.run(["pdftotext", tmp_path / "o.pdf", "-"], capture_output=True,
                                       text=True, check=True).stdout.splitlines()
             if l.strip() and not l.startswith("Page ")]
    assert len(lines) >= 3
    assert "".join(lines) == sentence * 6          # nothing lost or added at the breaks
    for line in lines[1:]:
        assert line[0] not in "。，、", f"line starts with closing punctuation: {line}"
    full = [len(l) for l in lines[:-1]]
    assert max(full) - min(full) <= 2, f"lines not filled: {full}"


def test_warns_once_naming_characters_without_a_glyph(tmp_path):
    """Characters no installed font draws are named in one warning per render
    (never drawn silently wrong); the world page has none."""
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": "Ol Chiki ᱚᱛ ᱚ, private \ue000"},
                                   {"type": "heading", "level": 2, "text": "ᱚᱛ again"}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    p = run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pdf", "-o", tmp_path / "o.docx",
                  check=0)
    warnings = [l for l in p.stderr.splitlines() if "no installed font has a glyph" in l]
    assert len(warnings) == 1, p.stderr
    assert "U+1C5A, U+1C5B, U+E000" in warnings[0]
    p = run_folio("render", SPEC, "-o", tmp_path / "w.pdf", check=0)
    assert "no installed font" not in p.stderr


@pytest.mark.skipif(not shutil.which("hb-shape") or not shutil.which("qpdf"),
                    reason="hb-shape (libharfbuzz-bin) and qpdf are needed")
@pytest.mark.parametrize("text, font", [
    ("شاي أخضر", "NotoSansArabic-Regular.ttf"),
    ("हरी चाय क्षत्रिय", "NotoSansDevanagari-Regular.ttf"),
    ("ชาเขียวและน้ำมัน", "NotoSansThai-Regular.ttf"),
])
def test_pdf_draws_hb_shape_glyphs(tmp_path, text, font):
    """The glyph ids the PDF shows, in drawing order, are hb-shape's for the
    same text and font: content codes mapped through the font's
    /CIDToGIDMap."""
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "o.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    sys.path.insert(0, str(HERE))
    from test_bidi_styles import drawn_glyphs
    drawn = drawn_glyphs(pdf).get(font[:-4])
    assert drawn, f"nothing drawn with {font} in the PDF"
    out = subprocess.run(["hb-shape", "--no-glyph-names", "--no-positions", "--no-clusters",
                          "/usr/share/fonts/truetype/noto/" + font, text],
                         capture_output=True, text=True, check=True).stdout.strip()
    expected = [int(g) for g in out.strip("[]").split("|")]
    # the embedded subset numbers its glyphs anew (render/pdf/subset.c):
    # each glyph drawn must be hb-shape's glyph of the installed font,
    # outline for outline, and advance for advance
    fonttools = pytest.importorskip("fontTools.ttLib")
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    sys.path.insert(0, str(HERE.parent / "pdf"))
    from test_glyph_closure import embedded_fonts

    def shape(f, gid):
        gs = f.getGlyphSet()
        pen = DecomposingRecordingPen(gs)
        gs[f.getGlyphName(gid)].draw(pen)
        return pen.value, f["hmtx"][f.getGlyphName(gid)][0]

    src = fonttools.TTFont("/usr/share/fonts/truetype/noto/" + font)
    sub = next(f for name, f in embedded_fonts(pdf) if name.endswith(src["name"].getDebugName(4)))
    assert len(drawn) == len(expected)
    assert [shape(sub, g) for g in drawn] == [shape(src, g) for g in expected]


def test_xlsx_rtl_cells_read_right_to_left(tmp_path):
    """Right-to-left text, on the Summary sheet and in data cells, carries
    readingOrder 2 (openpyxl reads it back); left-to-right text does not."""
    openpyxl = pytest.importorskip("openpyxl")
    out = tmp_path / "w.xlsx"
    run_folio("render", SPEC, "-o", out, check=0)
    wb = openpyxl.load_workbook(out)
    rtl = {c.value for ws in wb for row in ws.iter_rows() for c in row
           if isinstance(c.value, str) and c.alignment.readingOrder == 2}
    assert "شاي أخضر" in rtl and "תה ירוק" in rtl and "چای سبز" in rtl   # data cells
    assert any("دولارًا" in v for v in rtl)                              # Summary paragraph
    assert not any("Зелёный" in v or "绿茶" in v for v in rtl)


def test_xlsx_rtl_header_cells_read_right_to_left(tmp_path):
    """A table's header cell whose title reads right to left carries
    readingOrder 2 and keeps the header's bold; the others keep neither the
    mark nor lose the bold (openpyxl reads them back)."""
    openpyxl = pytest.importorskip("openpyxl")
    spec = {"folio": 1, "data": {"t": {"columns": [{"name": "a", "type": "text"}, {"name": "b", "type": "number"},
                                                   {"name": "c", "type": "number"}],
                                       "rows": [["شاي", 1, 2], ["Tea", 3, 4]]}},
            "blocks": [{"type": "table", "data": "t", "columns": [
                {"field": "a", "title": "المنتج"}, {"field": "b", "title": "כמות 2025"},
                {"field": "c", "title": "Revenue مبيعات"}]}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "h.xlsx"
    run_folio("render", tmp_path / "s.json", "-o", out, check=0)
    wb = openpyxl.load_workbook(out)
    ws = next(w for w in wb if w["A1"].value == "المنتج")
    head = {c.value: c for c in ws[1]}
    assert head["المنتج"].alignment.readingOrder == 2
    assert head["כמות 2025"].alignment.readingOrder == 2
    assert head["Revenue مبيعات"].alignment.readingOrder != 2   # its first strong letter is Latin
    assert all(c.font.b for c in head.values())
    assert head["المنتج"].fill.fgColor.rgb == head["Revenue مبيعات"].fill.fgColor.rgb
    assert ws["A2"].alignment.readingOrder == 2 and ws["A3"].alignment.readingOrder != 2


def test_pptx_and_docx_table_cells_rtl(tmp_path):
    """A table cell whose text reads right to left is marked so: rtl="1" in
    the slide's table, w:bidi in the Word table; English cells are not."""
    spec = {"folio": 1, "blocks": [
        {"type": "heading", "level": 1, "text": "Table"},
        {"type": "table", "data": {"columns": ["name", "units"],
                                   "rows": [["شاي أخضر", 3], ["Green tea", 4], ["תה ירוק", 5]]}}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pptx", "-o", tmp_path / "o.docx",
              check=0)
    def part(zipname, name):
        with zipfile.ZipFile(tmp_path / zipname) as z:
            return z.read(name).decode()
    with zipfile.ZipFile(tmp_path / "o.pptx") as z:
        names = z.namelist()
    slides = "".join(part("o.pptx", n) for n in sorted(names)
                     if re.fullmatch(r"ppt/slides/slide\d+\.xml", n))
    for word in ("شاي أخضر", "תה ירוק"):
        cell = slides[:slides.index(word)]
        assert cell.rindex('rtl="1"') > cell.rindex("<a:tc>"), f"{word}: cell not rtl"
    green = slides[:slides.index("Green tea")]
    assert green.rfind('rtl="1"') < green.rindex("<a:tc>")
    doc = part("o.docx", "word/document.xml")
    for word in ("شاي أخضر", "תה ירוק"):
        cell = doc[:doc.index(word)]
        assert cell.rindex("<w:bidi/>") > cell.rindex("<w:tc>")
    green = doc[:doc.index("Green tea")]
    assert green.rfind("<w:bidi/>") < green.rindex("<w:tc>")


def word_lines(pdf, script):
    """The words of script (a regex character class) pdftotext finds, as
    lines top to bottom, each [(xMin, xMax), ...] left to right."""
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    lines = {}
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', html):
        if re.search(script, m.group(4)):
            lines.setdefault(round(float(m.group(2))), []).append((float(m.group(1)), float(m.group(3))))
    return [sorted(lines[y]) for y in sorted(lines)]


@need
def test_pdf_table_cells_wrap_complex_scripts_by_shaped_widths(tmp_path):
    """A table cell of Hindi is wrapped as it is drawn: the pieces between
    break opportunities, shaped. Per character, its letters were measured in
    the general fallbacks, which have no Devanagari: folio warned that no
    installed font had them (it drew them right) and measured .notdef boxes.
    Every line fits the cell (its right edge is where the right-aligned
    Arabic row ends), and the next line's first word would not have."""
    hi = ("हरी चाय और जैतून का तेल क्षत्रिय परिवार की दुकान में बिक्री बढ़ी है और "
          "ग्राहकों की संख्या दोगुनी हो गई")
    spec = {"folio": 1, "data": {"t": {"columns": [{"name": "note", "type": "text"}],
                                       "rows": [["شاي أخضر"], [" ".join([hi] * 3)]]}},
            "blocks": [{"type": "table", "data": "t"}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    p = run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    assert "no installed font" not in p.stderr, p.stderr
    right = max(x1 for line in word_lines(pdf, "[\u0600-\u06ff]") for _, x1 in line)
    lines = word_lines(pdf, "[\u0900-\u097f]")
    left = min(x0 for line in lines for x0, _ in line)
    avail = right - left
    assert len(lines) >= 3, lines
    gaps = [b[0] - a[1] for line in lines for a, b in zip(line, line[1:])]
    space = sorted(gaps)[len(gaps) // 2]
    for k, line in enumerate(lines):
        width = line[-1][1] - line[0][0]
        assert width <= avail + 0.5, f"line {k}: {width:.1f} pt in {avail:.1f}"
        if k + 1 < len(lines):
            x0, x1 = lines[k + 1][0]
            assert width + space + (x1 - x0) > avail - 0.5, f"line {k}: the next word fitted"


def _font_codes(pdf, base):
    """(/CIDToGIDMap, {code: text}) of the font whose name ends with base:
    its map, and the text its /ToUnicode gives each code shown."""
    sys.path.insert(0, str(HERE))
    from test_bidi_styles import _obj
    qdf = pdf.with_suffix(".q.pdf")
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, qdf], check=True)
    raw = qdf.read_bytes().decode("latin-1")
    obj = lambda n, stream=False: _obj(qdf, n, stream)

    for res, oid in re.findall(r"/(F\d+) (\d+) 0 R", raw):
        font = obj(oid).decode("latin-1")
        if not re.search(r"/BaseFont /\w+\+" + re.escape(base) + r"\b", font):
            continue
        desc = re.search(r"/DescendantFonts \[ ?(\d+) 0 R", font).group(1)
        cmap = obj(re.search(r"/CIDToGIDMap (\d+) 0 R", obj(desc).decode("latin-1")).group(1), True)
        tounicode = obj(re.search(r"/ToUnicode (\d+) 0 R", font).group(1), True).decode("latin-1")
        text = {}
        for a, b, u in re.findall(r"<([0-9A-F]{4})> <([0-9A-F]{4})> <([0-9A-F]{4})>", tounicode):
            for c in range(int(a, 16), int(b, 16) + 1):
                text[c] = chr(int(u, 16) + c - int(a, 16))
        for block in re.findall(r"beginbfchar\n(.*?)endbfchar", tounicode, re.S):
            for c, u in re.findall(r"<([0-9A-F]{4})> <([0-9A-F]*)>", block):
                text[int(c, 16)] = bytes.fromhex(u).decode("utf-16-be")
        return cmap, text
    raise AssertionError(f"no font {base} in {pdf}")


@need
def test_pdf_a_character_no_font_has_keeps_its_text_beside_shaped_glyphs(tmp_path):
    """Shaped glyphs take the lowest codes the font's cmap lacks (U+0001..,
    then U+007F, U+0080.. in Liberation Sans). U+0080 is in no installed
    font, so it is shown in the paragraph's own font as .notdef, by code
    point: after 156 shaped clusters that code already stands for a shaped
    glyph, and the character gets a code of its own. pdftotext reads it
    back; its code draws .notdef; no shaped glyph reads as it, and every
    shaped cluster reads back as typed."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    shaped = " ".join(ch + mark for mark in "\u0301\u0300\u0302" for ch in letters)
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": shaped},
                                   {"type": "paragraph", "text": "before x\u0080y after"}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    p = run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    assert "U+0080" in p.stderr                       # the warning names it
    out = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "before x\u0080y after" in out
    assert shaped.replace(" ", "") in re.sub(r"\s", "", out) or \
        unicodedata.normalize("NFC", shaped).replace(" ", "") in unicodedata.normalize("NFC", re.sub(r"\s", "", out))
    cmap, text = _font_codes(pdf, "LiberationSans")
    gid = lambda c: int.from_bytes(cmap[2 * c:2 * c + 2], "big")
    shaped_codes = [c for c, t in text.items() if c < 0x80 and t != chr(c)]
    assert len(shaped_codes) >= 31                    # U+0001..U+001F taken
    assert text.get(0x80) != "\x80"                   # U+0080's own code is a glyph's
    mine = [c for c, t in text.items() if t == "\x80"]
    assert len(mine) == 1 and mine[0] != 0x80 and gid(mine[0]) == 0, mine
    assert all(gid(c) != 0 for c in shaped_codes)


@need
def test_pdf_a_character_no_font_has_may_take_a_longer_code(tmp_path):
    """The code a character no font has gets in place of a shaped glyph's
    may be longer in UTF-8 than the character (U+0080 is two bytes, a code
    from U+0800 on three): the text given to libharu grows. A theme font
    built from Liberation Sans whose cmap covers every code below U+0800 but
    U+0001..U+0005 and U+0080 sends the seventh shaped glyph, and so U+0080's
    own code, past U+0800. (The rewritten text once had only the original's
    length: ASan, in make asan, saw the write past it.)"""
    ttlib = pytest.importorskip("fontTools.ttLib")
    f = ttlib.TTFont("/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf")
    cmap = f.getBestCmap()
    for table in f["cmap"].tables:
        if table.isUnicode():
            table.cmap = {u: cmap.get(u, cmap[0x20]) for u in range(0x06, 0x800) if u != 0x80}
    f["cmap"].tables = [t for t in f["cmap"].tables if t.isUnicode() and t.format == 4]
    for rec in f["name"].names:
        if rec.nameID in (1, 4, 6):
            rec.string = "Long Code Test" if rec.nameID != 6 else "LongCodeTest"
    f.save(tmp_path / "x.ttf")
    (tmp_path / "t.json").write_text(json.dumps(
        {"folio_theme": 1, "name": "t",
         "fonts": {"body": {"family": "Long Code Test", "files": {"regular": "x.ttf"}}}}))
    shaped = " ".join(ch + "\u0301" for ch in "abcdefgh")
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "theme": "t.json", "blocks": [{"type": "paragraph", "text": shaped},
                                                   {"type": "paragraph", "text": "x\u0080y"}]},
        ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    out = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "x\u0080y" in out
    cmap_, text = _font_codes(pdf, "LongCodeTest")
    mine = [c for c, t in text.items() if t == "\x80"]
    assert len(mine) == 1 and mine[0] >= 0x800, [hex(c) for c in mine]
    assert int.from_bytes(cmap_[2 * mine[0]:2 * mine[0] + 2], "big") == 0


@need
def test_pdf_characters_from_u_e000_on_are_drawn(tmp_path):
    """Fullwidth punctuation and letters (，（）！ＡＢＣ１２３), halfwidth
    katakana and U+FFFD go through libharu's text path with their own code
    point as code. /CIDToGIDMap and /W once stopped at U+D800, where the
    shaped glyphs' codes began, so Chinese commas and parentheses were blank
    on the page while pdftotext read them. Every code drawn has a glyph."""
    sys.path.insert(0, str(HERE))
    from test_bidi_styles import drawn_glyphs
    text = "中文，测试（一）！ＡＢＣ１２３ ｶﾀｶﾅ �"
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}, ensure_ascii=False),
        encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    out = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert text.replace(" ", "") in re.sub(r"\s", "", out)
    drawn = drawn_glyphs(pdf)
    glyphs = [g for name, gs in drawn.items() for g in gs]
    assert len(glyphs) >= len(text.replace(" ", "")), drawn
    assert 0 not in glyphs, drawn
