# test_dictionary_breaks.py — Thai, Lao, Khmer and Myanmar are written
# without spaces between words; their lines must break between words
# (render/core/linebreak.c: ICU's dictionaries for those runs). Before, a
# Thai paragraph broke wherever the line was full ("นักท่อ|งเที่ยว").
#
# A long Thai paragraph is built from a word list of our own and rendered to
# PDF; pdftotext gives its lines, and every line must end where one of our
# words ends (independent of ICU), and where ICU's own line iterator
# (PyICU, python3-icu) allows a break. Khmer and Lao paragraphs are held to
# ICU's boundaries. The charts of the same spec render to PNG (pngcheck).
import json
import shutil
import subprocess

import pytest

from conftest import run_folio

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is needed")

# Words ICU's dictionary keeps whole (it joins some pairs, ประเทศ+ไทย, which
# only removes boundaries from this list, never adds one).
THAI = ["ประเทศ", "ไทย", "มี", "ประชากร", "ประมาณ", "หก", "สิบ", "ล้าน", "คน", "เมือง", "หลวง",
        "คือ", "กรุงเทพ", "อาหาร", "ไทย", "อร่อย", "มาก", "และ", "ผล", "ไม้", "หลาย", "ชนิด",
        "ตลาด", "นัก", "ท่อง", "เที่ยว", "ชอบ", "ทะเล", "ภูเขา", "วัด", "สวย", "งาม"]
KHMER = "ប្រទេសកម្ពុជាមានប្រជាជនប្រហែលដប់ប្រាំពីរលាននាក់ហើយរាជធានីគឺភ្នំពេញ" * 3
LAO = "ປະເທດລາວມີປະຊາກອນປະມານເຈັດລ້ານຄົນແລະນະຄອນຫຼວງແມ່ນວຽງຈັນ" * 4


def render(tmp_path, paragraphs, *exts):
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": t} for t in paragraphs]}
    spec["blocks"].append({"type": "chart", "kind": "bar", "title": "".join(THAI[:12]),
                           "data": "d", "x": "a", "y": ["b"]})
    spec["data"] = {"d": {"columns": [{"name": "a", "type": "text"}, {"name": "b", "type": "number"}],
                          "rows": [["".join(THAI[:3]), 1], ["".join(THAI[3:5]), 2]]}}
    (tmp_path / "s.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    outs = [tmp_path / f"out.{e}" for e in exts]
    args = ["render", tmp_path / "s.json"]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    return outs


def pdf_lines(pdf, n):
    """The first lines of the PDF's text (pdftotext) that hold n characters:
    the paragraph's, before the chart's title and labels."""
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    lines, got = [], 0
    for ln in (ln for ln in text.split("\n") if ln.strip()):
        if got >= n:
            break
        lines.append(ln)
        got += len(ln)
    return lines


def breaks(lines):
    """Offsets in the joined text where pdftotext's lines end (not the last)."""
    out, at = [], 0
    for ln in lines[:-1]:
        at += len(ln)
        out.append(at)
    return out


def icu_boundaries(text):
    icu = pytest.importorskip("icu")
    it = icu.BreakIterator.createLineInstance(icu.Locale("th"))
    it.setText(text)
    return set(it)


def test_thai_paragraph_wraps_between_words(tmp_path):
    text = "".join(THAI * 3)
    pdf, png = render(tmp_path, [text], "pdf", "png")
    lines = pdf_lines(pdf, len(text))
    assert "".join(lines) == text, lines
    assert len(lines) >= 3
    ours, at = set(), 0
    for w in THAI * 3:
        at += len(w)
        ours.add(at)
    for b in breaks(lines):
        assert b in ours, f"line ends inside a word: ...{text[b - 8:b]}|{text[b:b + 8]}..."
    assert set(breaks(lines)) <= icu_boundaries(text)
    if shutil.which("pngcheck"):
        subprocess.run(["pngcheck", png], check=True, capture_output=True)


@pytest.mark.parametrize("text", [KHMER, LAO], ids=["khmer", "lao"])
def test_khmer_and_lao_wrap_where_icu_allows(tmp_path, text):
    (pdf,) = render(tmp_path, [text], "pdf")
    lines = pdf_lines(pdf, len(text))
    # pdftotext sometimes gives a Khmer subscript (coeng + consonant) after
    # the vowel drawn over it (កមពុ្ជា for កម្ពុជា), inside one cluster: the
    # characters, and so each line's length, are still the paragraph's
    assert sorted("".join(lines)) == sorted(text), lines
    assert len(lines) >= 2
    assert set(breaks(lines)) <= icu_boundaries(text)


def test_spaces_still_break_thai(tmp_path):
    # words a writer separated with spaces (phrases, as Thai does) still
    # break there; the space does not come back at a line's start
    text = " ".join("".join(THAI[i:i + 4]) for i in range(0, len(THAI), 4)) * 2
    (pdf,) = render(tmp_path, [text], "pdf")
    lines = pdf_lines(pdf, len(text.replace(" ", "")))
    assert len(lines) >= 2
    assert all(not ln.startswith(" ") for ln in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
