# test_pdf_fonts.py — which fonts a PDF embeds: only those it draws with.
# A fallback font asked whether it has a character (DejaVu Sans and Symbola
# are asked before Droid Sans Fallback for a Chinese one) is not embedded
# when it lacks it. Before, every font looked at was written into the file:
# the mixed-script benchmark report carried DejaVu Sans and Symbola, unused
# (191 KB of its 858 KB). The file's font descriptors are counted in its
# bytes (qpdf drops objects no page reaches, so it would not see them);
# pdffonts gives the fonts the pages use.
import base64
import json
import re
import shutil
import subprocess

import pytest

from conftest import render_blocks

pytestmark = pytest.mark.skipif(not shutil.which("pdffonts") or not shutil.which("qpdf"),
                                reason="poppler-utils and qpdf are needed")


def render(tmp_path, blocks):
    return render_blocks(tmp_path, blocks, "pdf")[0]


def embedded(pdf):
    """Base names of every font file in the PDF, reached from a page or not."""
    names = re.findall(rb"/FontName /(?:[A-Z]+\+)?([^\s/>]+)", pdf.read_bytes())
    assert len(names) == pdf.read_bytes().count(b"/FontFile2 ")
    return [n.decode() for n in names]


def used_fonts(pdf):
    """Base names (subset tag dropped) of the fonts pdffonts sees on the pages."""
    out = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout
    return {re.sub(r"^[A-Z]+\+", "", line.split()[0]) for line in out.splitlines()[2:]}


def test_only_fonts_drawn_with_are_embedded(tmp_path):
    pdf = render(tmp_path, [{"type": "paragraph", "text": "Tea 绿茶 and oil 橄榄油"},
                            {"type": "paragraph", "text": "شاي أخضر — हरी चाय"}])
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "绿茶" in text and "Tea" in text
    files, used = embedded(pdf), used_fonts(pdf)
    assert any("DroidSansFallback" in u for u in used)
    assert any("NotoSansArabic" in u for u in used)
    # every embedded font file is one the pages use, and none is there twice
    assert sorted(files) == sorted(used), (files, used)
    assert not any("DejaVu" in n or "Symbola" in n for n in files), files
    subprocess.run(["qpdf", "--check", pdf], check=True, capture_output=True)


def test_a_latin_document_embeds_its_faces_only(tmp_path):
    pdf = render(tmp_path, [{"type": "heading", "level": 1, "text": "Sales"},
                            {"type": "paragraph", "text": "Plain *text*, nothing else."}])
    files = embedded(pdf)
    assert files and all("Liberation" in n for n in files), files
    assert sorted(files) == sorted(used_fonts(pdf))


def font_objects(pdf):
    """{base font name: (CIDToGIDMap bytes, /W array)} of every CID font."""
    j = json.loads(subprocess.run(["qpdf", "--json", "--json-stream-data=inline",
                                   "--decode-level=generalized", pdf],
                                  capture_output=True, text=True, check=True).stdout)
    objs = j["qpdf"][1]
    out = {}
    for v in objs.values():
        d = v.get("value")
        if isinstance(d, dict) and d.get("/Subtype") == "/CIDFontType2":
            data = objs["obj:" + d["/CIDToGIDMap"]]["stream"]["data"]
            name = re.sub(r"^/[A-Z]+\+", "", d["/BaseFont"])
            out[name] = (base64.b64decode(data), d["/W"])
    return out


def outline(font, gid):
    """The glyph's outline with its components drawn in (fontTools pens)."""
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    gs = font.getGlyphSet()
    pen = DecomposingRecordingPen(gs)
    gs[font.getGlyphName(gid)].draw(pen)
    return pen.value


def test_map_widths_and_subset_hold_only_the_glyphs_shown(tmp_path):
    # libharu wrote a 128 KB map of Droid's whole cmap (and thousands of
    # widths) into any PDF with one Chinese character, and a subset with an
    # entry for each of Droid's 49,382 glyphs (367 KB); now the map sends
    # exactly the characters shown to their glyphs in a subset holding those
    # glyphs (and their components), every other code to 0
    fonttools = pytest.importorskip("fontTools.ttLib")
    from test_glyph_closure import embedded_fonts
    shown = "绿茶橄榄油"
    pdf = render(tmp_path, [{"type": "paragraph", "text": f"Tea {shown[:2]} and oil {shown[2:]}"}])
    cmap, w = next(v for k, v in font_objects(pdf).items() if "DroidSansFallback" in k)
    sub = next(f for name, f in embedded_fonts(pdf) if "Droid" in name)
    droid = fonttools.TTFont("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")
    best = droid.getBestCmap()
    mapped = {code: int.from_bytes(cmap[2 * code:2 * code + 2], "big")
              for code in range(len(cmap) // 2) if cmap[2 * code:2 * code + 2] != b"\0\0"}
    assert {chr(c) for c in mapped} == set(shown), mapped
    assert len(cmap) == 2 * (max(mapped) + 1)
    assert sub["maxp"].numGlyphs < 40                    # .notdef, 5 glyphs, components
    for code, gid in mapped.items():
        assert outline(sub, gid) == outline(droid, droid.getGlyphID(best[code])), chr(code)
        assert sub["hmtx"][sub.getGlyphName(gid)][0] == droid["hmtx"][best[code]][0]
    # widths: only for codes shown ([first [w...]] runs)
    codes = set()
    for i in range(0, len(w), 2):
        codes.update(range(w[i], w[i] + len(w[i + 1])))
    assert codes <= set(mapped), sorted(codes - set(mapped))
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert shown[:2] in text and shown[2:] in text
