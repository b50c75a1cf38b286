# test_table_totals.py — one table module (render/core/table.c) behind every
# writer: the same totals row in xlsx, pdf, docx and pptx, read back with
# openpyxl, pdftotext, python-docx and the pptx table XML.
#
# The rules that used to differ: AVERAGE/MIN/MAX of a column without numbers
# is an empty cell everywhere (xlsx cached 0); COUNT shows as "#,##0"
# everywhere (xlsx's format for it).
import subprocess
import zipfile

import docx
import openpyxl
from lxml import etree

from conftest import run_folio, write_spec

N = 1200
SPEC = {
    "folio": 1, "title": "Totals",
    "data": {"t": {"columns": [{"name": "name", "type": "text"}, {"name": "score", "type": "number"},
                               {"name": "amount", "type": "number", "format": "#,##0.00"}],
                   "rows": [[f"r{i}", None, i * 0.5] for i in range(N)]}},
    "blocks": [{"type": "table", "data": "t",
                "totals": {"score": "avg", "amount": "sum", "name": "count"}}],
}
WANT = ["1,200", "", "359,700.00"]  # COUNT of name, AVG of an empty column, SUM


def render(tmp_path, ext):
    out = tmp_path / f"t.{ext}"
    run_folio("render", write_spec(tmp_path, SPEC), "-o", out, "--quiet", check=0)
    return out


def test_xlsx_totals(tmp_path):
    out = render(tmp_path, "xlsx")
    ws = openpyxl.load_workbook(out, data_only=True).worksheets[-1]
    last = [c.value for c in list(ws.iter_rows())[-1]]
    assert last[0] == N                        # =COUNTA(...), cached
    assert last[1] is None                     # no cached 0 for AVERAGE of no numbers
    assert last[2] == sum(i * 0.5 for i in range(N))
    wf = openpyxl.load_workbook(out).worksheets[-1]
    formulas = [c.value for c in list(wf.iter_rows())[-1]]
    assert formulas[0].startswith("=COUNTA(") and formulas[2].startswith("=SUM(")
    assert wf.cell(row=wf.max_row, column=1).number_format == "#,##0"


def test_pdf_totals(tmp_path):
    out = render(tmp_path, "pdf")
    text = subprocess.run(["pdftotext", "-layout", out, "-"], capture_output=True, text=True, check=True).stdout
    last = [l.split() for l in text.splitlines() if "359,700.00" in l]
    assert last == [["1,200", "359,700.00"]]


def test_docx_totals(tmp_path):
    out = render(tmp_path, "docx")
    table = docx.Document(str(out)).tables[-1]
    assert [c.text for c in table.rows[-1].cells] == WANT


def test_pptx_totals(tmp_path):
    out = render(tmp_path, "pptx")
    ns = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    with zipfile.ZipFile(out) as z:
        slides = sorted((n for n in z.namelist() if n.startswith("ppt/slides/slide") and n.endswith(".xml")),
                        key=lambda n: int(n[len("ppt/slides/slide"):-4]))
        rows = etree.fromstring(z.read(slides[-1])).findall(".//a:tbl/a:tr", ns)
    last = ["".join(t.text or "" for t in tc.findall(".//a:t", ns)) for tc in rows[-1].findall("a:tc", ns)]
    assert last == WANT
