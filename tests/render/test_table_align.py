# test_table_align.py — one alignment rule for a table's cells in every
# writer (fo_col_plan_cell_right, render/core/table.h): as Excel shows a
# cell under General alignment, a number right and a text left whatever
# the column's type; the header takes its column's way (numbers and dates
# right). Read back with python-docx, the pptx table XML and pdftotext.
#
# Before, PDF aligned every cell of a number column right ("n/a" too) and
# every cell of a text column left (a COUNT too), and Word did the same in
# the totals row ("Total" under a year column right-aligned), while the
# slides followed the cell.
import re
import subprocess
import zipfile

import docx
from lxml import etree

from conftest import run_folio, write_spec

SPEC = {
    "folio": 1, "title": "Alignment",
    "data": {"t": {"columns": [{"name": "Fiscal year", "type": "integer", "format": "0"},
                               {"name": "name", "type": "text"},
                               {"name": "score", "type": "number", "format": "0.0"}],
                   "rows": [[2021, "alpha", 12.5], [2022, "beta", "n/a"], [2023, "gamma", 1234.5],
                            [2024, "delta", 7.0]]}},
    "blocks": [{"type": "table", "data": "t", "totals": {"name": "count", "score": "sum"}}],
}
# what each cell's text is and whether it is right-aligned
WANT = {"Fiscal year": True, "score": True, "name": False,       # headers: the column's way
        "2021": True, "alpha": False, "12.5": True, "n/a": False,
        "Total": False, "4": True, "1254.0": True}


def render(tmp_path, ext):
    out = tmp_path / f"t.{ext}"
    run_folio("render", write_spec(tmp_path, SPEC), "-o", out, "--quiet")
    return out


def test_docx_cells_align_like_excel(tmp_path):
    table = docx.Document(str(render(tmp_path, "docx"))).tables[-1]
    got = {}
    for row in table.rows[1:]:
        for c in row.cells:
            got[c.text] = c.paragraphs[0].style.style_id == "TableNumber"
    assert {k: got[k] for k in WANT if k in got} == {k: v for k, v in WANT.items() if k in got}
    assert {"n/a", "Total", "4", "12.5", "alpha"} <= set(got)


def test_pptx_cells_align_like_excel(tmp_path):
    ns = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    with zipfile.ZipFile(render(tmp_path, "pptx")) as z:
        slides = [n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        cells = [tc for n in slides for tc in etree.fromstring(z.read(n)).findall(".//a:tbl/a:tr/a:tc", ns)]
    got = {"".join(t.text or "" for t in tc.findall(".//a:t", ns)): tc.find(".//a:pPr", ns).get("algn") == "r"
           for tc in cells}
    assert {k: got[k] for k in WANT} == WANT


def test_pdf_cells_align_like_excel(tmp_path):
    out = render(tmp_path, "pdf")
    xml = subprocess.run(["pdftotext", "-bbox", out, "-"], capture_output=True, text=True, check=True).stdout
    box = {}
    for m in re.finditer(r'xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', xml):
        box.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
    # a right-aligned cell ends where the column's numbers end; a left one
    # starts where its column's texts start
    assert abs(box["n/a"][1] - box["12.5"][1]) > 2 and abs(box["n/a"][0] - box["12.5"][0]) > 2
    assert abs(box["1254.0"][1] - box["12.5"][1]) < 0.5                 # the sum: right
    assert box["4"][0] > box["alpha"][0] + 2                            # COUNT: right
    assert box["Total"][0] < box["2021"][0] - 2                         # "Total": left,
    assert box["Total"][1] < box["2021"][1] - 2                         # not at the numbers' edge


def test_pptx_numbers_right_past_32_columns(tmp_path):
    # the slides kept a row's alignment in 32 bits: column 33 on was left
    n = 36
    spec = {"folio": 1, "title": "Wide",
            "data": {"t": {"columns": [{"name": chr(65 + i % 26) + ("1" if i >= 26 else ""), "type": "integer"}
                                       for i in range(n)],
                           "rows": [[i % 10 for i in range(n)] for _ in range(3)]}},
            "blocks": [{"type": "table", "data": "t"}]}
    out = tmp_path / "w.pptx"
    run_folio("render", write_spec(tmp_path, spec), "-o", out, "--quiet")
    ns = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    with zipfile.ZipFile(out) as z:
        slides = [n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        rows = [tr for s in slides for tr in etree.fromstring(z.read(s)).findall(".//a:tbl/a:tr", ns)]
    widths = {len(tr.findall("a:tc", ns)) for tr in rows}
    assert max(widths) > 32                                   # one table, past 32 columns
    algn = [tc.find(".//a:pPr", ns).get("algn") for tr in rows for tc in tr.findall("a:tc", ns)]
    assert algn.count("r") == len(algn) == 4 * n
