# test_bidi_styles.py — style changes inside right-to-left text are placed
# by the paragraph's bidi (UAX #9 over the whole paragraph, then per line
# after wrapping), not where each style starts (issue 15). Word positions
# come from pdftotext -bbox: in a right-to-left run the logically later
# word lies further left. (The test words avoid lam-alef: poppler gives
# the ligature's two letters in logical order inside a reversed word.)
import json
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import run_folio
from test_world_text import lo_pdf, word_boxes

need = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is needed")

PARAS = {
    # bold and italic pieces inside Arabic, an LTR name after an italic number
    "mixed": "**مرحبا** بالعالم *2024* Acme Corp شكرا",
    # a left-to-right phrase cut across two styles inside Arabic
    "split": "نعم **Zeta** Corp وداعا",
    # an Arabic phrase cut across two styles inside English
    "ltr": "Hello **شكرا** كثيرا world",
    # Hebrew with a bold word and an italic number
    "hebrew": "שלום *עולם* **גדול** 42 סוף",
}
LIST_ITEM = "قائمة **Foo** Bar نهاية"
# a long right-to-left paragraph with an italic number in each phrase:
# wrapped, each line must hold the next numbers in order, right to left
WRAPPED = " ".join(f"فقرة *{n}* كلمة" for n in range(1, 61))


def spec():
    blocks = [{"type": "paragraph", "text": t} for t in PARAS.values()]
    blocks.append({"type": "list", "items": [LIST_ITEM, "ثاني"]})
    blocks.append({"type": "paragraph", "text": WRAPPED})
    return {"folio": 1, "blocks": blocks}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    d = tmp_path_factory.mktemp("bidi")
    (d / "s.json").write_text(json.dumps(spec(), ensure_ascii=False), encoding="utf-8")
    out = {ext: d / f"o.{ext}" for ext in ("pdf", "docx", "pptx")}
    args = ["render", d / "s.json"]
    for p in out.values():
        args += ["-o", p]
    run_folio(*args, check=0)
    return out


def lines_of(pdf):
    """Words grouped by line (words whose vertical middles are within 5 pt:
    Arabic and Latin fonts have different heights), each (text, xMin, xMax),
    right-to-left words turned back to logical order."""
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    words = []
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                         r'([^<]*)</word>', html):
        w = m.group(5)
        w = w[::-1] if re.search("[\u0590-\u08ff]", w) else w
        mid = (float(m.group(2)) + float(m.group(4))) / 2
        words.append((mid, w, float(m.group(1)), float(m.group(3))))
    lines = []
    for mid, w, x0, x1 in sorted(words, key=lambda t: t[0]):
        if not lines or mid - lines[-1][0] > 5:
            lines.append((mid, []))
        lines[-1][1].append((w, x0, x1))
    return [ln for _, ln in lines]


def line_with(lines, *words):
    """The first line that has all of words."""
    found = [ln for ln in lines if all(any(w == word for w, _, _ in ln) for word in words)]
    assert found, f"{words!r} not drawn on one line: {lines}"
    return {w: (x0, x1) for w, x0, x1 in found[0]}


def assert_visual(line, order):
    """The words of order are drawn left to right in that order."""
    xs = [line[w][0] for w in order]
    assert xs == sorted(xs), f"drawn order {sorted(order, key=lambda w: line[w][0])}, want {order}"


@need
def test_pdf_style_changes_inside_rtl_in_visual_order(rendered):
    lines = lines_of(rendered["pdf"])
    # right to left: مرحبا, بالعالم, 2024, Acme Corp (left to right), شكرا
    assert_visual(line_with(lines, "بالعالم", "Acme"), ["شكرا", "Acme", "Corp", "2024", "بالعالم", "مرحبا"])
    assert_visual(line_with(lines, "Zeta"), ["وداعا", "Zeta", "Corp", "نعم"])


@need
def test_pdf_rtl_phrase_split_across_styles_inside_ltr(rendered):
    assert_visual(line_with(lines_of(rendered["pdf"]), "Hello"), ["Hello", "كثيرا", "شكرا", "world"])


@need
def test_pdf_hebrew_and_list_item_in_visual_order(rendered):
    lines = lines_of(rendered["pdf"])
    assert_visual(line_with(lines, "שלום"), ["סוף", "42", "גדול", "עולם", "שלום"])
    assert_visual(line_with(lines, "Foo"), ["نهاية", "Foo", "Bar", "قائمة"])


@need
def test_pdf_wrapped_rtl_lines_each_reordered(rendered):
    """Levels come from the whole paragraph, the reordering from each line:
    the first line holds 1, 2, 3... right to left, the next the numbers
    after them, and every line is right-aligned."""
    lines = [ln for ln in lines_of(rendered["pdf"]) if any(w in ("فقرة", "كلمة") for w, _, _ in ln)]
    assert len(lines) >= 3, "the long paragraph did not wrap"
    seen = []
    right = []
    for ln in lines:
        nums = sorted(((int(w), x0) for w, x0, _ in ln if w.isdigit()), key=lambda t: -t[1])
        seen += [n for n, _ in nums]   # right to left = logical order
        right.append(max(x1 for _, _, x1 in ln))
    assert seen == list(range(1, 61))
    assert max(right) - min(right) < 2, f"lines not right-aligned: {right}"


@need
def test_pdf_line_end_takes_its_levels_from_the_paragraph(tmp_path):
    """A left-to-right paragraph whose first line ends "مرحبا !" and whose
    next line goes on in Arabic: the "!" sits between two Arabic words of
    the paragraph, so it is right to left and drawn left of مرحبا (UAX #9
    resolves the whole paragraph, then reorders each line). Resolved as a
    line of its own it would be drawn right of the word."""
    text = " ".join(["words"] * 13) + " Arabic مرحبا ! بالعالم end"
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}, ensure_ascii=False), encoding="utf-8")
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pdf", check=0)
    lines = lines_of(tmp_path / "o.pdf")
    first = line_with(lines, "Arabic", "مرحبا", "!")
    assert "بالعالم" not in first, f"the line does not end at the '!' any more; change the text: {lines}"
    assert_visual(first, ["Arabic", "!", "مرحبا"])
    assert_visual(line_with(lines, "بالعالم", "end"), ["بالعالم", "end"])


def test_docx_styled_runs_inside_rtl(rendered, tmp_path):
    """Each run keeps its own direction: the bold Arabic run is w:rtl and
    bold for complex scripts too (w:bCs: Word and LibreOffice draw Arabic
    with the complex-script bold), the Latin name and the italic number
    inside it are not w:rtl (but bold and italic for complex scripts too, as
    Word writes them); the paragraph is w:bidi."""
    with zipfile.ZipFile(rendered["docx"]) as z:
        xml = z.read("word/document.xml").decode()
    para = next(p for p in re.findall(r"<w:p>.*?</w:p>|<w:p .*?</w:p>", xml, re.S) if "مرحبا" in p and "2024" in p)
    assert "<w:bidi/>" in para
    runs = re.findall(r"<w:r>(.*?)</w:r>", para, re.S)
    def run(text):
        return next(r for r in runs if text in r)
    assert "<w:rtl/>" in run("مرحبا") and "<w:bCs/>" in run("مرحبا") and "<w:b/>" in run("مرحبا")
    assert "<w:rtl/>" not in run("Acme")
    # the italic number is not right to left, but in a right-to-left
    # paragraph Word and LibreOffice draw digits with the complex-script
    # properties: it needs w:iCs as well as w:i to show italic
    assert "<w:i/>" in run("2024") and "<w:iCs/>" in run("2024") and "<w:rtl/>" not in run("2024")


@pytest.mark.parametrize("fmt", ["docx", "pptx"])
def test_office_rtl_styled_pieces_in_libreoffice(rendered, tmp_path, fmt):
    pdf = lo_pdf(rendered[fmt], tmp_path)
    lines = lines_of(pdf)
    assert_visual(line_with(lines, "بالعالم", "Acme"), ["شكرا", "Acme", "Corp", "2024", "بالعالم", "مرحبا"])
    assert_visual(line_with(lines, "Zeta"), ["وداعا", "Zeta", "Corp", "نعم"])
    assert_visual(line_with(lines, "Hello"), ["Hello", "كثيرا", "شكرا", "world"])


@need
@pytest.mark.parametrize("text, font", [("**مرحبا**", "NotoSansArabic-Bold"), ("مرحبا", "NotoSansArabic-Regular"),
                                        ("**שלום**", "NotoSansHebrew-Bold"), ("**हरी चाय**", "NotoSansDevanagari-Bold")])
def test_pdf_bold_script_text_takes_the_bold_noto_file(tmp_path, text, font):
    """**bold** Arabic, Hebrew or Hindi is drawn with the script's bold file
    (fonts-noto-core installs it beside the regular one), regular text with
    the regular one: pdffonts lists only that one for the script."""
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}, ensure_ascii=False), encoding="utf-8")
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pdf", check=0)
    fonts = subprocess.run(["pdffonts", tmp_path / "o.pdf"], capture_output=True, text=True, check=True).stdout
    script = font.split("-")[0]
    names = re.findall(r"\+(" + script + r"-\w+)", fonts)
    assert names == [font], fonts


@need
def test_pdf_wrapped_rtl_table_cell_lines_take_the_cell_direction(tmp_path):
    """A right-to-left cell wrapped into lines: every line is set right to
    left (the cell's direction, not its own first word's), so a line that
    begins with a Latin name is still right-aligned, the name at its right."""
    note = " ".join(["نص Acme Corp"] * 14)
    spec = {"folio": 1, "blocks": [{"type": "table", "data": {
        "columns": ["k", "note"], "rows": [["one", note]]}}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "o.pdf", check=0)
    lines = [ln for ln in lines_of(tmp_path / "o.pdf") if any(w in ("نص", "Acme") for w, _, _ in ln)]
    assert len(lines) >= 3, lines
    right = [max(x1 for _, _, x1 in ln) for ln in lines]
    assert max(right) - min(right) < 2, f"cell lines not right-aligned: {right}"
    # the rightmost word: نص for a line that starts with it, Corp for one
    # that starts with "Acme Corp" (read left to right inside the line)
    ends = [max(ln, key=lambda w: w[2])[0] for ln in lines]
    assert set(ends) <= {"نص", "Corp"}, ends
    assert "Corp" in ends, f"no line starts with the Latin name: {ends}; change the cell text"


def _obj(qdf, oid, stream=False):
    args = ["qpdf", f"--show-object={oid}"] + (["--filtered-stream-data"] if stream else []) + [qdf]
    return subprocess.run(args, capture_output=True, check=True).stdout


def drawn_glyphs(pdf):
    """{font name: [glyph id in its embedded subset, ...]} in drawing order,
    from the page's content stream: each shown code through the font's
    /CIDToGIDMap."""
    qdf = pdf.with_suffix(".q.pdf")
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, qdf], check=True)
    raw = qdf.read_bytes().decode("latin-1")
    fonts = {}
    for res, oid in re.findall(r"/(F\d+) (\d+) 0 R", raw):
        obj = _obj(qdf, oid).decode("latin-1")
        name = re.search(r"/BaseFont /\w+\+([\w-]+)", obj)
        desc = re.search(r"/DescendantFonts \[ ?(\d+) 0 R", obj)
        if not (name and desc):
            continue
        m = re.search(r"/CIDToGIDMap (\d+) 0 R", _obj(qdf, desc.group(1)).decode("latin-1"))
        if m:
            fonts[res] = (name.group(1), _obj(qdf, m.group(1), stream=True))
    out = {}
    for cid in re.findall(r"/Contents (\d+) 0 R", raw):
        content = _obj(qdf, cid, stream=True).decode("latin-1")
        cur = None
        for tf, hexs in re.findall(r"/(F\d+) [\d.]+ Tf|<([0-9a-fA-F]+)> Tj", content):
            if tf:
                cur = fonts.get(tf)
            elif cur:
                name, cmap = cur
                codes = [int(hexs[i:i + 4], 16) for i in range(0, len(hexs), 4)]
                out.setdefault(name, []).extend(int.from_bytes(cmap[2 * c:2 * c + 2], "big") for c in codes)
    return out


@need
@pytest.mark.skipif(not shutil.which("hb-shape") or not shutil.which("qpdf"),
                    reason="hb-shape (libharfbuzz-bin) and qpdf are needed")
def test_pdf_each_styled_piece_is_hb_shape_s_glyphs(tmp_path):
    """**مرحبا** بالعالم: the bold piece is drawn with NotoSansArabic-Bold
    and the regular one with NotoSansArabic-Regular, each exactly hb-shape's
    glyphs for that piece and font (outline for outline, advance for advance,
    in drawing order)."""
    fonttools = pytest.importorskip("fontTools.ttLib")
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "pdf"))
    from test_glyph_closure import embedded_fonts
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "blocks": [{"type": "paragraph", "text": "**مرحبا** بالعالم"}]},
        ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "o.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    drawn = drawn_glyphs(pdf)
    subsets = dict(embedded_fonts(pdf))

    def shape(f, gid):
        gs = f.getGlyphSet()
        pen = DecomposingRecordingPen(gs)
        gs[f.getGlyphName(gid)].draw(pen)
        return pen.value, f["hmtx"][f.getGlyphName(gid)][0]

    for font, piece in (("NotoSansArabic-Bold", "مرحبا"), ("NotoSansArabic-Regular", "بالعالم")):
        path = f"/usr/share/fonts/truetype/noto/{font}.ttf"
        hb = subprocess.run(["hb-shape", "--no-glyph-names", "--no-positions", "--no-clusters",
                             path, piece], capture_output=True, text=True, check=True).stdout
        expected = [int(g) for g in hb.strip().strip("[]").split("|")]
        src = fonttools.TTFont(path)
        sub = next(f for name, f in subsets.items() if name.endswith(src["name"].getDebugName(4)))
        assert font in drawn, drawn.keys()
        assert [shape(sub, g) for g in drawn[font]] == [shape(src, g) for g in expected], font


def test_docx_italic_digits_in_an_rtl_paragraph_are_italic_in_libreoffice(tmp_path):
    """Digits are not right to left, but LibreOffice draws them in a
    right-to-left paragraph with the complex-script properties: with w:i
    alone "2024" came out upright. Every bold or italic run now also
    carries w:bCs / w:iCs, as Word writes them."""
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [
        {"type": "paragraph", "text": "مرحبا بالعالم *2024* شكرا جزيلا"}]}))
    run_folio("render", spec, "-o", tmp_path / "s.docx", check=0)
    pdf = lo_pdf(tmp_path / "s.docx", tmp_path)
    fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout
    assert "Italic" in fonts or "Oblique" in fonts, fonts
