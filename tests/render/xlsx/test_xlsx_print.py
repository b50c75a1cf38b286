# test_xlsx_print.py — a workbook prints cleanly (issue 37, A.11): each
# table's sheet one page wide with its header row repeated and its print
# area the table; the Summary sheet one page wide with a page break before
# any chart the rest of a page cannot hold. Read back with openpyxl, then
# printed by LibreOffice (headless, to PDF) and read with pdftotext.
import os
import shutil
import subprocess

import openpyxl
import pytest

from conftest import run_folio, write_spec

SOFFICE = shutil.which("soffice")
COLS = ["key", "a", "b"] + [f"col{j}" for j in range(12)]


def wide_table():
    rows = [[f"r{i}", i, i * 2] + [f"value {i * j} text" for j in range(12)] for i in range(200)]
    return {"columns": COLS, "rows": rows}


def charts_spec(n=5):
    rows = [[f"M{i}", i * 10 + 5, i * 7 + 3] for i in range(1, 13)]
    blocks = [{"type": "heading", "text": "Summary", "level": 1}]
    for k in range(n):
        blocks.append({"type": "paragraph", "text": f"Chart {k} explains things."})
        blocks.append({"type": "chart", "kind": "column", "data": "d", "x": "m", "y": ["a", "b"], "title": f"C{k}"})
    return {"folio": 1, "title": "Print", "date": "2024-03-01",
            "data": {"d": {"columns": ["m", "a", "b"], "rows": rows}}, "blocks": blocks}


def to_pdf(tmp_path, xlsx):
    subprocess.run([SOFFICE, f"-env:UserInstallation=file:///tmp/lo-xlsx-print-{os.getpid()}",
                    "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(xlsx)],
                   capture_output=True, timeout=300, check=True)
    pdf = xlsx.with_suffix(".pdf")
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    return [p for p in pages if p.strip()]


def test_a_table_sheet_prints_one_page_wide_with_its_header(tmp_path):
    spec = {"folio": 1, "data": {"w": wide_table()},
            "blocks": [{"type": "table", "data": "w", "sheet": "Wide", "totals": {"a": "sum"}}]}
    out = tmp_path / "t.xlsx"
    run_folio("render", write_spec(tmp_path, spec), "-o", out, check=0)
    ws = openpyxl.load_workbook(out)["Wide"]
    assert ws.print_area == ["$A$1:$O$202"]          # header, 200 rows, totals
    assert ws.sheet_properties.pageSetUpPr.fitToPage
    assert ws.page_setup.fitToWidth in (None, 1)     # 1 is the default, left out
    assert ws.page_setup.fitToHeight == 0            # as many pages tall as it takes
    assert ws.print_title_rows == "$1:$1"
    assert ws.page_setup.orientation == "landscape"  # 15 columns: wider than portrait
    assert ws.page_setup.paperSize == 9              # the default theme's A4


def test_a_narrow_table_stays_portrait(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["a", "b"], "rows": [[1, 2]]}},
            "blocks": [{"type": "table", "data": "d"}]}
    out = tmp_path / "n.xlsx"
    run_folio("render", write_spec(tmp_path, spec), "-o", out, check=0)
    ws = openpyxl.load_workbook(out).worksheets[0]
    assert ws.page_setup.orientation == "portrait" and ws.print_area == ["$A$1:$B$2"]


def chart_rows(ws):
    return sorted(c.anchor._from.row for c in ws._charts)


def test_no_chart_straddles_a_page_break(tmp_path):
    out = tmp_path / "c.xlsx"
    run_folio("render", write_spec(tmp_path, charts_spec()), "-o", out, check=0)
    ws = openpyxl.load_workbook(out)["Summary"]
    assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToHeight == 0
    breaks = [b.id for b in ws.row_breaks.brk]
    starts = chart_rows(ws)
    assert len(starts) == 5 and breaks
    for r in starts:  # a chart (500 px: 25 rows) never has a break inside it
        assert not any(r < b < r + 25 for b in breaks), (r, breaks)
    assert set(breaks) <= set(starts)  # breaks only ever come before a chart


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice not installed")
def test_printed_by_libreoffice(tmp_path):
    # the Summary's pages are exactly its breaks' (nothing runs over a page,
    # so no chart is cut); the chart data sheet is one more page
    out = tmp_path / "c.xlsx"
    run_folio("render", write_spec(tmp_path, charts_spec()), "-o", out, check=0)
    breaks = [b.id for b in openpyxl.load_workbook(out)["Summary"].row_breaks.brk]
    pages = to_pdf(tmp_path, out)
    assert len(pages) == len(breaks) + 2, (len(pages), breaks)
    # a wide table: every printed page holds all 15 columns and the header row
    spec = {"folio": 1, "data": {"w": wide_table()}, "blocks": [{"type": "table", "data": "w"}]}
    out = tmp_path / "w.xlsx"
    run_folio("render", write_spec(tmp_path, spec, "w.json"), "-o", out, check=0)
    pages = to_pdf(tmp_path, out)
    assert 2 <= len(pages) <= 8, len(pages)
    for text in pages:
        assert "col11" in text and "key" in text, text[:300]
    assert sum(text.count("value ") for text in pages) == 200 * 12
