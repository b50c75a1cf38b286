# test_nan_option.py — the top-level "nan" says how NaN, Infinity and
# -Infinity cells (what Python's json.dumps writes) show in every format
# (issue 37, B.4): blank (the default, as before), text (NaN, ∞, -∞) or
# error (#NUM!, an error formula in xlsx). Read back with openpyxl,
# python-docx, the slide XML and pdftotext.
import re
import subprocess
import zipfile

import docx
import openpyxl

from conftest import run_folio, write_spec

SPEC = """{"folio": 1, %s
 "data": {"d": {"columns": ["k", "v"],
   "rows": [["a", 1.5], ["b", NaN], ["c", Infinity], ["d", -Infinity], ["e", null], ["f", 2]]}},
 "blocks": [{"type": "table", "data": "d", "totals": {"v": "sum"}},
            {"type": "chart", "kind": "column", "data": "d", "x": "k", "y": "v"}]}"""


def render(tmp_path, mode):
    path = write_spec(tmp_path, SPEC % (f'"nan": "{mode}",' if mode else ""))
    outs = {e: tmp_path / f"o.{e}" for e in ("xlsx", "docx", "pptx", "pdf", "png")}
    p = run_folio("render", path, *[a for o in outs.values() for a in ("-o", o)], check=0)
    return outs, p.stderr


def column_b(outs):
    ws = openpyxl.load_workbook(outs["xlsx"])["d"]
    xlsx = [ws.cell(r, 2).value for r in range(2, 9)]
    t = docx.Document(outs["docx"]).tables[0]
    word = [row.cells[1].text for row in t.rows[1:8]]
    with zipfile.ZipFile(outs["pptx"]) as z:
        xml = "".join(z.read(n).decode() for n in sorted(z.namelist()) if re.match(r"ppt/slides/slide\d+\.xml$", n))
    pdf = subprocess.run(["pdftotext", "-layout", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    return xlsx, word, xml, pdf


def test_default_is_blank_with_a_warning(tmp_path):
    outs, err = render(tmp_path, None)
    xlsx, word, _, _ = column_b(outs)
    assert xlsx[:6] == [1.5, None, None, None, None, 2]
    assert word[:6] == ["1.5", "", "", "", "", "2"]
    assert "3 such values read as empty" in err and '"nan": "text"' in err


def test_text(tmp_path):
    outs, err = render(tmp_path, "text")
    assert "warning" not in err
    xlsx, word, xml, pdf = column_b(outs)
    assert xlsx == [1.5, "NaN", "\u221e", "-\u221e", None, 2, "=SUM(B2:B7)"]
    assert word == ["1.5", "NaN", "\u221e", "-\u221e", "", "2", "3.5"]
    for s in ("<a:t>NaN</a:t>", "<a:t>\u221e</a:t>", "<a:t>-\u221e</a:t>", "<a:t>3.5</a:t>"):
        assert s in xml
    assert re.search(r"b\s+NaN", pdf) and re.search(r"c\s+\u221e", pdf) and re.search(r"d\s+-\u221e", pdf)
    # the column stays numeric: its total is a number
    ws = openpyxl.load_workbook(outs["xlsx"])["d"]
    assert ws.cell(2, 2).data_type == "n"


def test_error(tmp_path):
    outs, err = render(tmp_path, "error")
    assert "warning" not in err
    xlsx, word, xml, pdf = column_b(outs)
    assert xlsx == [1.5, "=#NUM!", "=#NUM!", "=#NUM!", None, 2, "=SUM(B2:B7)"]
    assert word == ["1.5", "#NUM!", "#NUM!", "#NUM!", "", "2", "#NUM!"]   # the total as Excel's
    assert xml.count("<a:t>#NUM!</a:t>") == 4
    assert pdf.count("#NUM!") == 4
    with zipfile.ZipFile(outs["xlsx"]) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
    assert '<f>SUM(B2:B7)</f><v>#NUM!</v>' in sheet   # the cached total is Excel's too


def test_unknown_mode(tmp_path):
    path = write_spec(tmp_path, SPEC % '"nan": "blanks",')
    p = run_folio("validate", path, check=2)
    assert '/nan: unknown "nan" value "blanks"' in p.stderr and "did you mean 'blank'" in p.stderr
