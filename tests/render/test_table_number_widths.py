# test_table_number_widths.py — a number column is as wide as the widest
# number in it, wherever that number stands (render/core/table.h,
# fo_col_plan_widen_number): PDF and Word size a column's texts from the
# first rows (60 and 200), but its numbers from every row they show; the
# workbook widens a number column for its smallest and largest number past
# its 2,000 sampled rows; the slides measure every row already (a guard).
#
# Before, -1,234,567.89 in row 900 of a table whose first rows held
# 12.34-wide amounts did not fit its column: PDF set it smaller than the
# other cells (90f9854 kept it on one line at least), Word wrapped it.
# Read back with pdftotext (-layout, -bbox), python-docx, openpyxl and the
# pptx table XML; widths measured with fontTools on the font the document uses.
import re
import subprocess
import zipfile

import docx
import openpyxl
import pytest
from fontTools.ttLib import TTFont
from lxml import etree

from conftest import run_folio, write_spec

WIDE = "-1,234,567.89"
AT = 250        # the wide number's row: past PDF's and Word's samples, on a slide
ROWS = 280
WORDS = "see also for discount customer delivery reorder late naive quote"


def spec(tmp_path, rows=ROWS, at=AT):
    """A table too wide for the page (six columns of long notes), so every
    column gets little more than its minimum: the amount column's is the
    widest number it holds. Its other rows hold 12.34 or so."""
    csv = tmp_path / "t.csv"
    with open(csv, "w") as f:
        f.write("id,amount," + ",".join(f"note {k}" for k in range(6)) + "\n")
        for i in range(rows):
            amount = -1234567.89 if i == at else 10 + i % 7 + 0.34
            f.write(f"{i},{amount}," + ",".join(f"{WORDS} {k}" for k in range(6)) + "\n")
    cols = [{"name": "id", "type": "integer"},
            {"name": "amount", "type": "number", "format": "#,##0.00"}] + \
           [{"name": f"note {k}", "type": "text"} for k in range(6)]
    return write_spec(tmp_path, {"folio": 1, "data": {"t": {"csv": csv.name, "columns": cols}},
                                 "blocks": [{"type": "table", "data": "t"}]})


def render(tmp_path, ext, **kw):
    out = tmp_path / f"t.{ext}"
    run_folio("render", spec(tmp_path, **kw), "-o", out, "--quiet", check=0)
    return out


def text_width(text, size_pt, family):
    """The advance width of text in pt, in the file fontconfig finds for
    family, as its hmtx gives it."""
    font = subprocess.run(["fc-match", "-f", "%{file}", family], capture_output=True, text=True).stdout
    f = TTFont(font)
    cmap, hmtx, upem = f.getBestCmap(), f["hmtx"], f["head"].unitsPerEm
    return sum(hmtx[cmap[ord(ch)]][0] for ch in text) * size_pt / upem


def test_pdf_sets_a_late_wide_number_whole_at_the_body_size(tmp_path):
    out = render(tmp_path, "pdf")
    layout = subprocess.run(["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True).stdout
    assert re.search(rf"(?m)^\s*{AT}\s+{re.escape(WIDE)}\s", layout), layout[:2000]
    # pdftotext -bbox: a word's box is as tall as its font is large
    html = subprocess.run(["pdftotext", "-bbox", str(out), "-"], capture_output=True, text=True).stdout
    heights = {}
    for word in re.finditer(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>',
                            html):
        heights.setdefault(word.group(3), set()).add(round(float(word.group(2)) - float(word.group(1)), 2))
    assert heights[WIDE] == heights["12.34"] == heights[str(AT)], (heights[WIDE], heights["12.34"])


def test_docx_column_holds_a_late_wide_number(tmp_path):
    out = render(tmp_path, "docx")
    d = docx.Document(str(out))
    table = d.tables[0]
    cell = next(r.cells[1] for r in table.rows if r.cells[1].text == WIDE)
    size = next((r.font.size.pt for p in cell.paragraphs for r in p.runs if r.font.size), None)
    style = cell.paragraphs[0].style
    while size is None and style is not None:   # Table Number is based on Table Text
        size, style = style.font.size and style.font.size.pt, style.base_style
    with zipfile.ZipFile(out) as z:
        styles = etree.fromstring(z.read("word/styles.xml"))
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    family = styles.find(f"{w}docDefaults//{w}rFonts").get(f"{w}ascii")
    mar = styles.find(f".//{w}style[@{w}styleId='FolioTable']//{w}tblCellMar")
    margins = sum(int(mar.find(f"{w}{side}").get(f"{w}w")) for side in ("left", "right")) / 20
    width = cell.width.pt                       # w:tcW, as python-docx reads it
    grid = [c.width.pt for c in table.columns]  # w:tblGrid
    assert grid[1] == pytest.approx(width, abs=0.1)
    assert width - margins >= text_width(WIDE, size, family), (width, margins, size, family)


def test_pptx_column_holds_a_late_wide_number(tmp_path):
    """The slides measure every row's cells (pptx_table.c, scan): a guard."""
    ns = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    with zipfile.ZipFile(render(tmp_path, "pptx")) as z:
        slides = [z.read(n) for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        theme = etree.fromstring(z.read("ppt/theme/theme1.xml"))
    family = theme.find(".//a:minorFont/a:latin", ns).get("typeface")
    tbl = next(t for s in slides if WIDE.encode() in s for t in etree.fromstring(s).iterfind(".//a:tbl", ns)
               if any(x.text == WIDE for x in t.iterfind(".//a:t", ns)))
    tc = next(tc for tc in tbl.iterfind("a:tr/a:tc", ns) if "".join(tc.itertext()) == WIDE)
    size = int(tc.find(".//a:rPr", ns).get("sz")) / 100
    grid = [int(g.get("w")) / 12700 for g in tbl.iterfind("a:tblGrid/a:gridCol", ns)]
    margins = sum(int(tc.find("a:tcPr", ns).get(k, 91440)) for k in ("marL", "marR")) / 12700
    latin = tc.find(".//a:rPr/a:latin", ns)
    family = latin.get("typeface") if latin is not None else family
    assert grid[1] - margins >= text_width(WIDE, size, family), (grid[1], margins, size, family)


def test_xlsx_column_holds_a_number_past_the_sampled_rows(tmp_path):
    """Excel shows "########" for a number wider than its column; widths are
    in characters (render/xlsx/text.c), plus 1.5 for the cell's margins."""
    ws = openpyxl.load_workbook(render(tmp_path, "xlsx", rows=2600, at=2500)).active
    assert ws.cell(row=2502, column=2).value == -1234567.89
    assert ws.cell(row=2502, column=2).number_format == "#,##0.00"
    assert ws.column_dimensions["B"].width >= len(WIDE) + 1.5, ws.column_dimensions["B"].width
