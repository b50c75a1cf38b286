# test_pdf_fonts.py — which fonts a PDF embeds: only those it draws with.
# A fallback font asked whether it has a character (DejaVu Sans and Symbola
# are asked before Droid Sans Fallback for a Chinese one) is not embedded
# when it lacks it. Before, every font looked at was written into the file:
# the mixed-script benchmark report carried DejaVu Sans and Symbola, unused
# (191 KB of its 858 KB). The file's font descriptors are counted in its
# bytes (qpdf drops objects no page reaches, so it would not see them);
# pdffonts gives the fonts the pages use.
import json
import re
import shutil
import subprocess

import pytest

from conftest import run_folio

pytestmark = pytest.mark.skipif(not shutil.which("pdffonts") or not shutil.which("qpdf"),
                                reason="poppler-utils and qpdf are needed")


def render(tmp_path, blocks):
    (tmp_path / "s.json").write_text(json.dumps({"folio": 1, "blocks": blocks}, ensure_ascii=False),
                                     encoding="utf-8")
    pdf = tmp_path / "out.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    return pdf


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
