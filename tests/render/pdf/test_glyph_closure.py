# test_glyph_closure.py — composite glyphs keep their components in the
# TrueType subsets folio embeds (issue 15: 绿 drawn as 录, 油 as 由, 语 as 吾,
# 销 as 肖). Every embedded font file is read back with fontTools: each
# component a composite glyph names must have an outline in the subset.
import io
import json
import re
import shutil
import subprocess
import zlib

import pytest

from conftest import run_folio

fontTools = pytest.importorskip("fontTools.ttLib")
pytestmark = pytest.mark.skipif(not shutil.which("qpdf") or not shutil.which("pdftotext"),
                                reason="qpdf and poppler-utils are needed")

TEXT = "绿茶 橄榄油 椰枣 笔记本 语言 销量"


def embedded_fonts(pdf):
    """(name, TTFont) of every /FontFile2 in pdf."""
    qdf = pdf.with_suffix(".qdf.pdf")
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, qdf], check=True)
    raw = qdf.read_bytes()
    for oid in sorted(set(re.findall(rb"/FontFile2 (\d+) 0 R", raw))):
        data = subprocess.run(["qpdf", f"--show-object={oid.decode()}", "--filtered-stream-data", qdf],
                              capture_output=True, check=True).stdout
        font = fontTools.TTFont(io.BytesIO(data))
        yield font["name"].getDebugName(4), font


def test_composite_components_are_embedded(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": TEXT},
                                   {"type": "heading", "level": 2, "text": "绿 油 语 销"}]}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "out.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "绿茶" in text and "销量" in text
    composites = 0
    for name, font in embedded_fonts(pdf):
        glyf = font["glyf"]
        for gname in font.getGlyphOrder():
            g = glyf[gname]
            if not g.isComposite():
                continue
            composites += 1
            for comp in g.components:
                part = glyf[comp.glyphName]
                assert part.numberOfContours != 0, f"{name}: {gname} lacks its component {comp.glyphName}"
    # Droid Sans Fallback builds these characters from components (ids > 32767)
    assert composites >= 4
