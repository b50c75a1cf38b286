# test_xlsx_rows.py — a big table's rows written by folio itself
# (render/xlsx/body.c, spliced into libxlsxwriter's archive by repack.c):
# readers see what libxlsxwriter's own rows showed. Past 100,000 cells a
# workbook is written in constant_memory mode, where an eligible table (no
# links, no formulas) takes folio's writer; a table with a formula still
# goes through libxlsxwriter, which gives the reference to compare with.
import csv
import datetime
import random
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import run_folio, write_spec

openpyxl = pytest.importorskip("openpyxl")

MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"

SPECIAL = [
    # number, text, date, flag
    [0.1 + 0.2, "a&b<c>d\"e'f", {"date": "2024-03-01"}, True],
    [-0.0, "\u0001ctl\u001f and _x0041_ kept", {"date": "1900-03-01"}, False],
    [1e300, "  lead and trail  ", {"date": "2024-02-29T13:45:30"}, None],
    [-1e-7, "", None, True],
    [123456789012345678, None, {"date": "9999-12-31"}, False],
    [9.2, "line one\nline two\nline three", {"date": "2024-01-01"}, True],
    [-5, "x" * 32767, {"date": "2024-01-02"}, True],
    [1.0 / 3, "שלום עולם", {"date": "2024-01-03"}, False],
    [None, "\r\n carriage", {"date": "2024-01-04"}, None],
    [2 ** 53 + 1.0, "tab\there", {"date": "2024-01-05"}, True],
    [5e-324, "日本語のテキスト" * 9, {"date": "2024-01-06"}, True],
]
ROWS = 14000  # x 8 columns: past 100,000 cells
STYLES = [{"row": 2, "bold": True}, {"row": 5, "indent": 2}, {"row": 13000, "bold": True, "indent": 1}]


def rows():
    rnd = random.Random(7)
    out = [list(r) for r in SPECIAL]
    while len(out) < ROWS:
        out.append([round(rnd.uniform(-1e6, 1e6), rnd.randrange(0, 5)),
                    rnd.choice(["North", "South", "東京", "café & bar", " x"]),
                    {"date": "2024-%02d-%02d" % (rnd.randrange(1, 13), rnd.randrange(1, 29))},
                    rnd.choice([True, False, None])])
    return out


def spec():
    """The same data twice: table "fast" (folio's rows) and table "lxw", whose
    extra formula column keeps it on libxlsxwriter's own writer."""
    data = rows()
    cols = [{"name": "n", "type": "number"}, {"name": "s", "type": "text"},
            {"name": "d", "type": "date"}, {"name": "f", "type": "boolean"}]
    with_formula = [r + [{"formula": "=1+1", "value": 2} if i == 0 else i] for i, r in enumerate(data)]
    return {"folio": 1, "data": {
        "fast": {"columns": cols, "rows": data},
        "lxw": {"columns": cols + [{"name": "g", "type": "number"}], "rows": with_formula}},
        "blocks": [{"type": "table", "data": "fast", "sheet": "fast", "row_styles": STYLES},
                   {"type": "table", "data": "lxw", "sheet": "lxw", "row_styles": STYLES,
                    "columns": ["n", "s", "d", "f", "g"]}]}


def cells(ws, ncols):
    out = []
    for row in ws.iter_rows(max_col=ncols):
        out.append([(c.value, c.data_type, c.number_format, c.font.b, c.alignment.wrap_text,
                     c.alignment.readingOrder, c.alignment.indent) for c in row])
    return out


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rows")
    path = write_spec(tmp, spec())
    run_folio("render", path, "-o", tmp / "out.xlsx", check=0)
    return tmp / "out.xlsx"


def test_folio_rows_read_as_libxlsxwriter_rows(both):
    wb = openpyxl.load_workbook(both)
    fast, lxw = wb["fast"], wb["lxw"]
    a, b = cells(fast, 4), cells(lxw, 4)
    assert len(a) == ROWS + 1 == len(b)
    assert a == b
    # the values themselves
    assert a[1][0][0] == 0.3 and a[2][0][0] == 0 and a[3][0][0] == 1e300
    assert a[1][1][0] == "a&b<c>d\"e'f"
    # Excel's escapes, which Excel reads back (openpyxl leaves them)
    assert a[2][1][0] == "_x0001_ctl_x001F_ and _x005F_x0041_ kept"
    assert a[3][1][0] == "  lead and trail  "
    assert a[4][1][0] is None            # an empty text is a blank cell
    assert a[7][1][0] == "x" * 32767
    assert a[1][2][0] == datetime.datetime(2024, 3, 1)
    assert a[3][2][0] == datetime.datetime(2024, 2, 29, 13, 45, 30)
    assert a[1][3][0] is True and a[2][3][0] is False
    assert a[3][1][3] and a[13001][0][6] == 1 and a[6][0][6] == 2   # row styles: bold, indents
    # rows: wrapped text grows its row, as libxlsxwriter's rows did
    assert fast.row_dimensions[7].height == lxw.row_dimensions[7].height > 15
    heights = lambda ws: {i: d.height for i, d in ws.row_dimensions.items() if d.height}
    assert heights(fast) == heights(lxw)
    for col in "ABCD":
        assert fast.column_dimensions[col].width == lxw.column_dimensions[col].width
    assert fast.freeze_panes == lxw.freeze_panes == "A2"
    assert fast.auto_filter.ref == "A1:D%d" % (ROWS + 1)
    assert fast.dimensions == "A1:D%d" % (ROWS + 1)


def test_rows_land_on_their_sheet_among_others(tmp_path):
    """Summary first, a chart (its data sheet after the tables), and the
    table of folio's rows between libxlsxwriter's sheets: each sheet's rows
    where they belong."""
    sp = spec()
    sp["title"] = "Report"
    sp["xlsx"] = {"first_sheet": "summary"}
    sp["data"]["c"] = {"columns": ["m", "v"], "rows": [["a", 1], ["b", 2]]}
    sp["blocks"] = [{"type": "paragraph", "text": "Words of the report."},
                    {"type": "table", "data": "lxw", "sheet": "lxw", "columns": ["n", "s", "d", "f", "g"]},
                    {"type": "table", "data": "fast", "sheet": "fast"},
                    {"type": "chart", "kind": "column", "data": "c", "x": "m", "y": "v"}]
    path = write_spec(tmp_path, sp)
    run_folio("render", path, "-o", tmp_path / "r.xlsx", check=0)
    with zipfile.ZipFile(tmp_path / "r.xlsx") as z:
        assert z.testzip() is None
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx")
    assert wb.sheetnames[:3] == ["Summary", "lxw", "fast"]
    assert cells(wb["fast"], 4) == cells(wb["lxw"], 4)
    assert wb["fast"].max_row == ROWS + 1
    assert wb["Summary"]["A1"].value == "Report"


def test_spliced_sheet_is_one_well_formed_part(both):
    with zipfile.ZipFile(both) as z:
        assert z.testzip() is None      # every CRC right, the spliced one too
        names = z.namelist()
        assert len(names) == len(set(names))
        root = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
    rows = root.find(MAIN + "sheetData").findall(MAIN + "row")
    assert [int(r.get("r")) for r in rows] == list(range(1, ROWS + 2))
    assert root.find(MAIN + "dimension").get("ref") == "A1:D%d" % (ROWS + 1)


def sales_csv(path, n):
    rnd = random.Random(3)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "date", "region", "units", "price", "note"])
        for i in range(1, n + 1):
            w.writerow([i, "2024-%02d-%02d" % (i % 12 + 1, i % 28 + 1), rnd.choice(["North", "東京", "A&B"]),
                        rnd.randrange(1, 500), "%.2f" % rnd.uniform(1, 200),
                        " ".join(rnd.choice(["late", "ok", "<rush>", "naïve"]) for _ in range(rnd.randrange(1, 9)))])


def test_convert_is_deterministic_and_complete(tmp_path):
    src = tmp_path / "sales.csv"
    sales_csv(src, 60000)   # ~5 MB of sheet XML: many chunks
    run_folio("convert", src, tmp_path / "a.xlsx", check=0)
    run_folio("convert", src, tmp_path / "b.xlsx", check=0)
    assert (tmp_path / "a.xlsx").read_bytes() == (tmp_path / "b.xlsx").read_bytes()
    with zipfile.ZipFile(tmp_path / "a.xlsx") as z:
        assert z.testzip() is None
        assert z.getinfo("xl/worksheets/sheet1.xml").file_size > 4 * 1024 * 1024
    ws = openpyxl.load_workbook(tmp_path / "a.xlsx", read_only=True).worksheets[0]
    got = list(ws.iter_rows(values_only=True))
    with open(src, newline="", encoding="utf-8") as f:
        want = list(csv.reader(f))
    assert len(got) == len(want) == 60001
    assert got[0] == tuple(want[0])
    for g, w in zip(got[1:], want[1:]):
        assert g == (int(w[0]), datetime.datetime.strptime(w[1], "%Y-%m-%d"), w[2], int(w[3]), float(w[4]), w[5])


def test_ceiling_stops_the_rows_early(tmp_path):
    src = tmp_path / "sales.csv"
    sales_csv(src, 60000)
    out = tmp_path / "o"
    out.mkdir()
    p = run_folio("convert", "--max-bytes", "200000", src, out / "s.xlsx", check=3)
    # the watchdog's words (render/output.c), said before the file grows
    assert "s.xlsx: the xlsx output passed the ceiling of 200000 bytes while being written" in p.stderr
    row = int(p.stderr.split("by row ")[1].split(")")[0])
    assert row < 20000, p.stderr          # stopped long before the end
    assert list(out.iterdir()) == []      # nothing left behind


@pytest.mark.skipif(not shutil.which("soffice"), reason="LibreOffice not installed")
def test_libreoffice_reads_the_rows(tmp_path):
    src = tmp_path / "sales.csv"
    sales_csv(src, 20000)
    run_folio("convert", src, tmp_path / "s.xlsx", check=0)
    subprocess.run(["soffice", "--headless", "-env:UserInstallation=file://%s/lo" % tmp_path,
                    "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false",
                    "--outdir", str(tmp_path / "lo-out"), str(tmp_path / "s.xlsx")],
                   check=True, capture_output=True, timeout=240)
    with open(tmp_path / "lo-out" / "s.csv", newline="", encoding="utf-8") as f:
        got = list(csv.reader(f))
    with open(src, newline="", encoding="utf-8") as f:
        want = list(csv.reader(f))
    assert len(got) == len(want)
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        assert (g[0], g[2], g[3], g[5]) == (w[0], w[2], w[3], w[5])
        assert float(g[4]) == float(w[4])
