# test_readers_see.py — what readers of non-English documents see (issue
# "What readers see"): CJK drawn from the CJK font, never the symbol font;
# a document language that picks folio's own words and marks every run;
# right-to-left tables mirrored; long chart categories wrapped, not cut.
import json
import shutil
import subprocess

import pytest

from conftest import run_folio, write_spec

need_poppler = pytest.mark.skipif(not shutil.which("pdffonts"), reason="poppler-utils needed")


def render(tmp_path, spec, *exts, name="s"):
    path = write_spec(tmp_path, spec, f"{name}.json")
    outs = [tmp_path / f"{name}.{e}" for e in exts]
    args = ["render", path]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    return outs


def pdf_fonts(pdf):
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    return [line.split()[0].split("+")[-1] for line in out.splitlines()[2:]]


# ---- 4. CJK from the CJK font ------------------------------------------------
@need_poppler
@pytest.mark.parametrize("text", ["中文の文字", "中国と日本。（中）"])
def test_pdf_cjk_line_is_not_drawn_from_symbola(tmp_path, text):
    pdf, = render(tmp_path, {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}, "pdf")
    fonts = pdf_fonts(pdf)
    assert "DroidSansFallback" in fonts, fonts
    assert not any("Symbola" in f for f in fonts), fonts
    got = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert text in got


@need_poppler
def test_pdf_chart_cjk_categories_not_from_symbola(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "chart", "kind": "column", "x": "k", "y": "v",
            "data": {"columns": ["k", "v"], "rows": [["中国", 1], ["日本の", 2]]}}]}
    pdf, = render(tmp_path, spec, "pdf")
    assert not any("Symbola" in f for f in pdf_fonts(pdf))
