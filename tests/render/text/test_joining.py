# test_joining.py — a style change inside an Arabic word (bold, italic, a
# link) keeps the word joined (issue 15): each styled piece is shaped with
# the letters around it as HarfBuzz's context, so the letters at a piece's
# ends take their medial/initial/final forms, exactly the glyphs hb-shape
# gives the whole text in that piece's font. Wrapping measures the pieces
# the same way. A cut inside a cluster moves to the cluster's end.
import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import render_blocks, run_folio
from test_bidi_styles import drawn_glyphs
from test_world_text import word_boxes

NOTO = "/usr/share/fonts/truetype/noto/"
R, B = "NotoSansArabic-Regular", "NotoSansArabic-Bold"
TEXT = "مرحبا بالعالم"

DR, DB = "NotoSansDevanagari-Regular", "NotoSansDevanagari-Bold"

# markup, its text, and the pieces of the text it is drawn in: (first char,
# end char, font). A cut inside a cluster (a Devanagari conjunct, a vowel
# sign or an Arabic haraka cut from its letter) moves to the cluster's end:
# no context can join half a conjunct (hb-shape draws a dotted circle).
CASES = {
    "bold-middle": ("مر**حب**ا بالعالم", TEXT, [(0, 2, R), (2, 4, B), (4, 13, R)]),
    "bold-start": ("**مرح**با بالعالم", TEXT, [(0, 3, B), (3, 13, R)]),
    "italic-middle": ("مر*حب*ا بالعالم", TEXT, [(0, 2, R), (2, 4, R), (4, 13, R)]),
    "link-start": ("[مرح](https://example.com)با بالعالم", TEXT, [(0, 3, R), (3, 13, R)]),
    "haraka": ("ح**َ**ب", "حَب", [(0, 3, R)]),
    "conjunct": ("**नमस्**ते दुनिया", "नमस्ते दुनिया", [(0, 6, DB), (7, 13, DR)]),  # the space: Liberation Sans
    "vowel-sign": ("क**ि**ताब", "किताब", [(0, 5, DR)]),
}

need = pytest.mark.skipif(not all(shutil.which(t) for t in ("hb-shape", "qpdf", "pdftotext")),
                          reason="hb-shape (libharfbuzz-bin), qpdf and poppler-utils are needed")


def hb_shape(font, text=TEXT):
    """[(glyph id, cluster as a character index)] in visual order."""
    out = subprocess.run(["hb-shape", "--output-format=json", "--no-glyph-names", "--no-positions",
                          NOTO + font + ".ttf", text], capture_output=True, text=True, check=True).stdout
    return [(g["g"], g["cl"]) for g in json.loads(out)]


def expected(pieces, text=TEXT):
    """{font: glyph ids in drawing order}: the pieces in logical order (a
    right-to-left line is drawn from its right end), each piece's glyphs
    those of the WHOLE text shaped in its font, in visual order."""
    out = {}
    for start, end, font in pieces:
        out.setdefault(font, []).extend(g for g, cl in hb_shape(font, text) if start <= cl < end)
    return out


def render(tmp_path, blocks):
    return render_blocks(tmp_path, blocks, "pdf")[0]


@need
@pytest.mark.parametrize("case", sorted(CASES))
def test_pdf_style_change_inside_an_arabic_word_keeps_it_joined(tmp_path, case):
    fonttools = pytest.importorskip("fontTools.ttLib")
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "pdf"))
    from test_glyph_closure import embedded_fonts
    markup, plain, pieces = CASES[case]
    pdf = render(tmp_path, [{"type": "paragraph", "text": markup}])
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert plain in text, text
    drawn = {f: g for f, g in drawn_glyphs(pdf).items() if f.startswith("NotoSans")}
    want = expected(pieces, plain)
    assert set(drawn) == set(want), drawn.keys()
    subsets = dict(embedded_fonts(pdf))

    def glyph(f, gid):   # subsets are renumbered: compare outline and advance
        gs = f.getGlyphSet()
        pen = DecomposingRecordingPen(gs)
        gs[f.getGlyphName(gid)].draw(pen)
        return pen.value, f["hmtx"][f.getGlyphName(gid)][0]

    for font, ids in want.items():
        src = fonttools.TTFont(NOTO + font + ".ttf")
        sub = next(f for name, f in subsets.items() if name.endswith(src["name"].getDebugName(4)))
        assert [glyph(sub, g) for g in drawn[font]] == [glyph(src, g) for g in ids], font


@need
def test_the_expected_glyphs_are_not_those_of_the_pieces_alone():
    """What the test above guards against: the bold piece "حب" shaped alone
    (its letters isolated at its ends) has other glyphs than the same letters
    inside the word."""
    alone = [g for g, _ in hb_shape(B, "حب")]
    assert alone != expected([(2, 4, B)])[B]
    # and half a conjunct is not a conjunct, whatever the context
    assert [g for g, _ in hb_shape(DB, "नमस्")] != expected([(0, 4, DB)], "नमस्ते")[DB]


def word_lines(pdf):
    """Lines of words, top to bottom, each [(xMin, xMax)] left to right: the
    boxes pdftotext -bbox gives (one per piece: a font change cuts its words)
    merged where they touch."""
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    rows = {}
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)"[^>]*>([^<]*)</word>', html):
        if re.search("[\u0600-\u06ff]", m.group(4)):
            rows.setdefault(round(float(m.group(2))), []).append((float(m.group(1)), float(m.group(3))))
    lines = []
    for y in sorted(rows):
        words = []
        for x0, x1 in sorted(rows[y]):
            if words and x0 - words[-1][1] < 0.5:
                words[-1] = (words[-1][0], x1)
            else:
                words.append((x0, x1))
        lines.append(words)
    return lines


@need
def test_wrapped_styled_words_are_measured_as_drawn(tmp_path):
    """A long right-to-left paragraph of words each cut by a style change:
    every line fits the column, and the first word of the next line would
    not have fitted on it (greedy wrapping by the drawn widths: pieces
    measured alone, wider or narrower than joined, would break one or the
    other)."""
    words = ["مر**حب**ا", "**كت**اب", "سل*ام*", "**ع**ربي"] * 30
    pdf = render(tmp_path, [{"type": "paragraph", "text": "Left margin " * 60},
                            {"type": "paragraph", "text": " ".join(words)}])
    left = min(b[1] for b in word_boxes(pdf) if b[0] == "Left")
    lines = word_lines(pdf)
    assert sum(len(ln) for ln in lines) == len(words)
    assert len(lines) >= 3
    right = max(ln[-1][1] for ln in lines)
    gaps = sorted(b[0] - a[1] for ln in lines for a, b in zip(ln, ln[1:]))
    space = gaps[len(gaps) // 2]
    for ln, nxt in zip(lines, lines[1:]):
        assert abs(ln[-1][1] - right) < 0.5           # right aligned
        assert ln[0][0] >= left - 0.5, (ln[0], left)   # fits
        first = nxt[-1][1] - nxt[-1][0]                # the next line's first (rightmost) word
        assert right - ln[0][0] + space + first > right - left - 0.5, (ln[0], nxt[-1])


def _qpdf_obj(qdf, oid, stream=False):
    args = ["qpdf", f"--show-object={oid}"] + (["--filtered-stream-data"] if stream else []) + [qdf]
    return subprocess.run(args, capture_output=True, check=True).stdout


def lo_drawn(pdf):
    """{PostScript name: [(subset TTFont, glyph name)]} of what a LibreOffice
    PDF shows (simple TrueType fonts: each byte a code, through the embedded
    subset's cmap), in content-stream order."""
    import io
    from fontTools.ttLib import TTFont
    qdf = pdf.with_suffix(".q.pdf")
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, qdf], check=True)
    raw = qdf.read_bytes().decode("latin-1")
    fonts = {}
    for res, oid in set(re.findall(r"/(F\d+) (\d+) 0 R", raw)):
        obj = _qpdf_obj(qdf, oid).decode("latin-1")
        name = re.search(r"/BaseFont /\w+\+([\w-]+)", obj)
        desc = re.search(r"/FontDescriptor (\d+) 0 R", obj)
        ff = desc and re.search(r"/FontFile2 (\d+) 0 R", _qpdf_obj(qdf, desc.group(1)).decode("latin-1"))
        if name and ff:
            font = TTFont(io.BytesIO(_qpdf_obj(qdf, ff.group(1), stream=True)))
            fonts[res] = (name.group(1), font, font["cmap"].tables[0].cmap)
    out = {}
    for cid in re.findall(r"/Contents (\d+) 0 R", raw):
        content = _qpdf_obj(qdf, cid, stream=True).decode("latin-1")
        cur = None
        for tf, shown in re.findall(r"/(F\d+) [\d.]+ Tf|(\[[^\]]*\]\s*TJ|<[0-9a-fA-F]+>\s*Tj)", content):
            cur = fonts.get(tf, cur) if tf else cur
            if shown and cur:
                name, font, cmap = cur
                for h in re.findall(r"<([0-9a-fA-F]+)>", shown):
                    out.setdefault(name, []).extend((font, cmap[int(h[i:i + 2], 16)])
                                                    for i in range(0, len(h), 2))
    return out


@pytest.mark.skipif(not shutil.which("soffice") or not shutil.which("fc-match"),
                    reason="LibreOffice and fontconfig are needed")
@need
@pytest.mark.parametrize("fmt", ["docx", "pptx"])
def test_office_bold_piece_inside_an_arabic_word_joins_in_libreoffice(tmp_path, fmt):
    """Word and PowerPoint shape the text themselves: folio's runs only have
    to let them join it. LibreOffice draws مر**حب**ا with the bold piece's
    glyphs those of the whole word in the bold font (medial forms), not of
    حب alone. Glyphs compared by outline (LibreOffice subsets renumber)."""
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    from fontTools.ttLib import TTFont
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "blocks": [{"type": "paragraph", "text": CASES["bold-middle"][0]}]},
        ensure_ascii=False), encoding="utf-8")
    src = tmp_path / f"s.{fmt}"
    run_folio("render", tmp_path / "s.json", "-o", src, check=0)
    subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", tmp_path / "lo", src],
                   check=True, capture_output=True, timeout=180)
    drawn = lo_drawn(tmp_path / "lo" / "s.pdf")
    bold = [n for n, gs in drawn.items() if "Bold" in n and len(gs) == 2]
    assert len(bold) == 1, drawn.keys()   # حب: the only bold text

    def outline(font, gname):
        pen = DecomposingRecordingPen(font.getGlyphSet())
        font.getGlyphSet()[gname].draw(pen)
        return repr(pen.value)

    path = subprocess.run(["fc-match", "-f", "%{file}", f":postscriptname={bold[0]}"],
                          capture_output=True, text=True, check=True).stdout
    full = TTFont(path)
    out = subprocess.run(["hb-shape", "--output-format=json", "--no-glyph-names", "--no-positions",
                          path, TEXT], capture_output=True, text=True, check=True).stdout
    joined = sorted(outline(full, full.getGlyphName(g["g"])) for g in json.loads(out) if 2 <= g["cl"] < 4)
    out = subprocess.run(["hb-shape", "--output-format=json", "--no-glyph-names", "--no-positions",
                          path, TEXT[2:4]], capture_output=True, text=True, check=True).stdout
    alone = sorted(outline(full, full.getGlyphName(g["g"])) for g in json.loads(out))
    assert joined != alone
    assert sorted(outline(f, g) for f, g in drawn[bold[0]]) == joined
