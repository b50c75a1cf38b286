# test_row_styles.py — a table's "row_styles" set subtotal and total rows
# apart, bold and indented, in every format (issue 37, B.3). Read back
# with openpyxl (font and alignment), python-docx (runs' bold, paragraph
# indent), the slide XML (zipfile + lxml: a:rPr b, a:pPr marL) and
# pdftotext -bbox (the indented word starts further right; a bold word is
# wider than the same word set regular).
import re
import subprocess
import zipfile

import docx
import openpyxl
from lxml import etree

from conftest import run_folio, write_spec

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
ROWS = [["Sales", 100], ["Services", 50], ["Revenue", 150], ["Rent", -20], ["Revenue", 130]]
STYLES = [{"row": 1, "indent": 1}, {"row": 0, "indent": 1}, {"row": 4, "bold": True, "indent": 2}]


def spec(styles=STYLES, rows=ROWS):
    return {"folio": 1, "title": "P&L",
            "data": {"pl": {"columns": ["line", "amount"], "rows": rows}},
            "blocks": [{"type": "table", "data": "pl", "row_styles": styles}]}


def render(tmp_path, s=None):
    path = write_spec(tmp_path, s or spec())
    outs = {e: tmp_path / f"t.{e}" for e in ("xlsx", "docx", "pptx", "pdf")}
    run_folio("render", path, *[a for o in outs.values() for a in ("-o", o)], check=0)
    return outs


# (bold, indented) of each data row, as the spec says
WANT = [(False, True), (False, True), (False, False), (False, False), (True, True)]


def test_xlsx(tmp_path):
    ws = openpyxl.load_workbook(render(tmp_path)["xlsx"]).worksheets[0]
    got = [(bool(ws.cell(r, 1).font.b), (ws.cell(r, 1).alignment.indent or 0) > 0) for r in range(2, 7)]
    assert got == WANT
    assert ws.cell(6, 1).alignment.indent == 2 and ws.cell(6, 2).font.b   # bold across the row
    assert not ws.cell(6, 2).alignment.indent                              # the indent is the first column's
    assert ws.cell(6, 2).number_format == ws.cell(5, 2).number_format     # formats kept


def test_docx(tmp_path):
    t = docx.Document(render(tmp_path)["docx"]).tables[0]
    got = []
    for row in t.rows[1:6]:
        p = row.cells[0].paragraphs[0]
        got.append((all(r.bold for r in p.runs), (p.paragraph_format.left_indent or 0) > 0))
    assert got == WANT
    assert all(r.bold for r in t.rows[5].cells[1].paragraphs[0].runs)


def test_pptx(tmp_path):
    with zipfile.ZipFile(render(tmp_path)["pptx"]) as z:
        slides = [etree.fromstring(z.read(n)) for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)]
    trs = next(list(s.iter(A + "tr")) for s in slides if list(s.iter(A + "tr")))
    got = []
    for tr in trs[1:6]:
        tc = next(tr.iter(A + "tc"))
        rpr = next(tc.iter(A + "rPr"))
        ppr = next(tc.iter(A + "pPr"))
        got.append((rpr.get("b") == "1", int(ppr.get("marL", "0")) > 0))
    assert got == WANT


def test_pdf(tmp_path):
    out = render(tmp_path)["pdf"]
    xml = subprocess.run(["pdftotext", "-bbox", out, "-"], capture_output=True, text=True, check=True).stdout
    words = re.findall(r'xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]+)<', xml)
    x0 = {w: float(a) for a, _, w in words if w in ("Sales", "Rent")}
    assert x0["Sales"] > x0["Rent"] + 5                    # indented
    rev = [(float(a), float(b)) for a, b, w in words if w == "Revenue"]
    assert len(rev) == 2
    assert rev[1][1] - rev[1][0] > (rev[0][1] - rev[0][0]) * 1.03   # bold is wider
    assert rev[1][0] > rev[0][0] + 10                                 # two levels in


def test_without_row_styles_nothing_changes(tmp_path):
    s = spec()
    del s["blocks"][0]["row_styles"]
    ws = openpyxl.load_workbook(render(tmp_path, s)["xlsx"]).worksheets[0]
    assert not any(ws.cell(r, 1).font.b or ws.cell(r, 1).alignment.indent for r in range(2, 7))


def test_mistakes_are_located(tmp_path):
    bad = [{"row": 9}, {"row": -1}, {"row": 2, "bold": True}, {"row": 2, "indent": 1}, {"row": 3, "indnet": 1},
           {"row": 1, "indent": 9}, {"bold": True}]
    p = run_folio("validate", write_spec(tmp_path, spec(bad)), check=2)
    err = p.stderr
    assert "/blocks/0/row_styles/0/row: row 9 is past the table's last row" in err and "rows count from 0" in err
    assert "/blocks/0/row_styles/1/row" in err and "whole number from 0" in err
    assert "/blocks/0/row_styles: row 2 is styled twice" in err
    assert "/blocks/0/row_styles/4/indnet" in err and "did you mean 'indent'" in err
    assert "/blocks/0/row_styles/5/indent" in err and "0 to 6" in err
    assert '/blocks/0/row_styles/6: missing required key "row"' in err
    p = run_folio("validate", write_spec(tmp_path, spec({"row": 1})), check=2)
    assert "/blocks/0/row_styles: \"row_styles\" must be an array" in p.stderr
