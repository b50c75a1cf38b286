# test_chart_workbook.py — native charts in docx and pptx carry their data
# as an embedded workbook (render/chartxml/workbook.c), so "Edit Data" works
# in Word and PowerPoint. For both formats: c:externalData's r:id leads,
# through the chart part's relationships, to an xlsx part (found the way
# python-pptx's ChartWorkbook.xlsx_part finds it: chartSpace/externalData/@r:id
# resolved by the chart part's related part), which openpyxl opens and which
# holds the categories in column A and one series a column with its name in
# row 1, exactly; every c:f formula names the workbook range whose cells
# equal the cached points; LibreOffice still converts the files and shows
# the titles; two renders give the same bytes.
import datetime
import io
import os
import posixpath
import re
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import openpyxl
import pytest
from openpyxl.utils import column_index_from_string

from conftest import run_folio, write_spec

C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PR = "http://schemas.openxmlformats.org/package/2006/relationships"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
NS = {"c": C, "r": R}
XLSX_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PACKAGE_REL = R + "/package"

DATA = {
    "s": {"columns": ["quarter", {"name": "north", "type": "number", "format": "#,##0.00"},
                      {"name": "south & east", "type": "number"}],
          "rows": [["Q1 <a>", 1200.5, 800], ["Q2", 1350.25, None], ["Q3", None, 950.125],
                   ["Q4", 1500, 1000.25]]},
    "p": {"columns": [{"name": "x", "type": "number"}, {"name": "y", "type": "number"}],
          "rows": [[1.5, 2], [2.5, 4.75], [4, -1]]},
}
SERIES = {"north": [1200.5, 1350.25, None, 1500], "south & east": [800, None, 950.125, 1000.25]}
CATS = ["Q1 <a>", "Q2", "Q3", "Q4"]
BLOCKS = [
    {"type": "heading", "text": "Columns", "level": 1},
    {"type": "chart", "kind": "column", "data": "s", "x": "quarter", "y": ["north", "south & east"],
     "title": "Quarterly columns"},
    {"type": "heading", "text": "Pie", "level": 1},
    {"type": "chart", "kind": "pie", "data": "s", "x": "quarter", "y": "south & east",
     "title": "Southern pie"},
    {"type": "heading", "text": "Scatter", "level": 1},
    {"type": "chart", "kind": "scatter", "data": "p", "x": "x", "y": "y", "title": "Scatter points"},
]
SPEC = {"folio": 1, "title": "Workbooks", "data": DATA, "blocks": BLOCKS}
FORMATS = {"pptx": "ppt", "docx": "word"}

have_lo = shutil.which("soffice") is not None


def render(tmp_path, fmt, name="wb"):
    path = write_spec(tmp_path, SPEC, name + ".json")
    out = tmp_path / f"{name}.{fmt}"
    run_folio("render", path, "-o", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module", params=sorted(FORMATS))
def doc(request, tmp_path_factory):
    return render(tmp_path_factory.mktemp("wb-" + request.param), request.param)


def chart_parts(z):
    names = [n for n in z.namelist() if re.fullmatch(r"(ppt|word)/charts/chart\d+\.xml", n)]
    return sorted(names, key=lambda n: int(re.search(r"(\d+)\.xml", n).group(1)))


def related_part(z, part, rid):
    """(part name, relationship type) of rid in part's relationships."""
    folder, base = posixpath.split(part)
    rels = ET.fromstring(z.read(f"{folder}/_rels/{base}.rels"))
    rel = [r for r in rels.findall("{%s}Relationship" % PR) if r.get("Id") == rid]
    assert len(rel) == 1, f"{part}: no relationship {rid}"
    return posixpath.normpath(posixpath.join(folder, rel[0].get("Target"))), rel[0].get("Type")


def xlsx_part(z, chart):
    """python-pptx's ChartWorkbook.xlsx_part: c:externalData/@r:id, resolved."""
    ext = ET.fromstring(z.read(chart)).find("c:externalData", NS)
    assert ext is not None, f"{chart}: no c:externalData"
    assert ext.find("c:autoUpdate", NS).get("val") == "0"
    name, typ = related_part(z, chart, ext.get("{%s}id" % R))
    assert typ == PACKAGE_REL
    return name


def workbook(z, chart):
    return openpyxl.load_workbook(io.BytesIO(z.read(xlsx_part(z, chart))))


def cached(data):
    """{idx: text} of a c:strCache / c:numCache."""
    return {int(pt.get("idx")): pt.find("c:v", NS).text for pt in data.findall("c:pt", NS)}


def cells(ws, ref):
    """Values of a formula's range 'Sheet1!$B$2:$B$5' (or one cell), in order."""
    m = re.fullmatch(r"(\w+)!\$([A-Z]+)\$(\d+)(?::\$([A-Z]+)\$(\d+))?", ref)
    assert m, ref
    assert m.group(1) == ws.title
    col = column_index_from_string(m.group(2))
    first, last = int(m.group(3)), int(m.group(5) or m.group(3))
    assert (m.group(4) or m.group(2)) == m.group(2), "one column per range"
    return [ws.cell(row=r, column=col).value for r in range(first, last + 1)]


def test_each_chart_has_its_workbook_part(doc):
    root = FORMATS[doc.suffix[1:]]
    with zipfile.ZipFile(doc) as z:
        charts = chart_parts(z)
        assert len(charts) == 3
        parts = [xlsx_part(z, c) for c in charts]
        assert parts == [f"{root}/embeddings/Microsoft_Excel_Worksheet{i}.xlsx" for i in (1, 2, 3)]
        types = ET.fromstring(z.read("[Content_Types].xml"))
        defaults = {d.get("Extension"): d.get("ContentType") for d in types.findall("{%s}Default" % CT)}
        assert defaults["xlsx"] == XLSX_CT
        for p in parts:
            assert zipfile.is_zipfile(io.BytesIO(z.read(p)))


def test_workbook_holds_categories_and_series_exactly(doc):
    with zipfile.ZipFile(doc) as z:
        columns, pie, scatter = (workbook(z, c).active for c in chart_parts(z))
    assert columns.title == "Sheet1"
    rows = [[c.value for c in r] for r in columns.iter_rows()]
    assert rows[0] == ["quarter", "north", "south & east"]
    assert [r[0] for r in rows[1:]] == CATS
    assert [r[1] for r in rows[1:]] == SERIES["north"]
    assert [r[2] for r in rows[1:]] == SERIES["south & east"]
    assert columns["B2"].number_format == "#,##0.00"   # each series in its column's format
    assert columns["C2"].number_format == "General"
    assert [[c.value for c in r] for r in pie.iter_rows()] == \
        [["quarter", "south & east"]] + [[q, v] for q, v in zip(CATS, SERIES["south & east"])]
    assert [[c.value for c in r] for r in scatter.iter_rows()] == [["x", "y"], [1.5, 2], [2.5, 4.75], [4, -1]]


def test_formulas_name_the_ranges_that_hold_the_cached_points(doc):
    checked = 0
    with zipfile.ZipFile(doc) as z:
        for chart in chart_parts(z):
            ws = workbook(z, chart).active
            root = ET.fromstring(z.read(chart))
            assert root.find(".//c:strLit", NS) is None and root.find(".//c:numLit", NS) is None
            for ref in root.iter("{%s}strRef" % C):
                got = cells(ws, ref.find("c:f", NS).text)
                pts = cached(ref.find("c:strCache", NS))
                assert int(ref.find("c:strCache/c:ptCount", NS).get("val")) == len(got)
                assert {i: v for i, v in enumerate(got) if v is not None} == pts
                checked += 1
            for ref in root.iter("{%s}numRef" % C):
                got = cells(ws, ref.find("c:f", NS).text)
                pts = {i: float(v) for i, v in cached(ref.find("c:numCache", NS)).items()}
                assert int(ref.find("c:numCache/c:ptCount", NS).get("val")) == len(got)
                assert {i: float(v) for i, v in enumerate(got) if v is not None} == pts
                checked += 1
    # columns: 2 names + 2 cat + 2 val; pie: 1 + 1 + 1; scatter: 1 name + x + y
    assert checked == 6 + 3 + 3


def test_series_formulas_follow_the_python_pptx_layout(doc):
    with zipfile.ZipFile(doc) as z:
        root = ET.fromstring(z.read(chart_parts(z)[0]))
    sers = root.findall(".//c:ser", NS)
    assert [s.find("c:tx/c:strRef/c:f", NS).text for s in sers] == ["Sheet1!$B$1", "Sheet1!$C$1"]
    assert [s.find("c:cat/c:strRef/c:f", NS).text for s in sers] == ["Sheet1!$A$2:$A$5"] * 2
    assert [s.find("c:val/c:numRef/c:f", NS).text for s in sers] == ["Sheet1!$B$2:$B$5", "Sheet1!$C$2:$C$5"]


def test_workbook_date_is_fixed_without_a_date_and_follows_the_spec(tmp_path):
    out = render(tmp_path, "pptx")
    with zipfile.ZipFile(out) as z:
        wb = workbook(z, chart_parts(z)[0])
    assert wb.properties.created == datetime.datetime(2000, 1, 1, 0, 0)
    dated = dict(SPEC, date="2024-05-06")
    path = write_spec(tmp_path, dated, "dated.json")
    run_folio("render", path, "-o", tmp_path / "dated.docx", "--quiet", check=0)
    with zipfile.ZipFile(tmp_path / "dated.docx") as z:
        wb = workbook(z, chart_parts(z)[0])
    assert wb.properties.created.date() == datetime.date(2024, 5, 6)


def test_workbook_is_stored_inside_and_deflated_once(doc):
    """The workbook's parts are stored, not deflated: the docx/pptx deflates
    the workbook whole (libxlsxwriter deflated each part, then the package
    deflated the compressed bytes again: 5.8 KB a chart, now under 2.5 KB)."""
    with zipfile.ZipFile(doc) as z:
        for chart in chart_parts(z):
            name = xlsx_part(z, chart)
            info = z.getinfo(name)
            assert info.compress_type == zipfile.ZIP_DEFLATED
            assert info.compress_size < 2500, (name, info.compress_size)
            with zipfile.ZipFile(io.BytesIO(z.read(name))) as inner:
                assert inner.testzip() is None
                assert {i.compress_type for i in inner.infolist()} == {zipfile.ZIP_STORED}
                assert "xl/worksheets/sheet1.xml" in inner.namelist()


def test_charts_need_no_scratch_file(tmp_path):
    """A chart's workbook is made in memory: a render with no writable
    TMPDIR still carries every workbook (it was written to a scratch file
    there and read back: 'cannot write' without one)."""
    env = dict(os.environ, TMPDIR=str(tmp_path / "missing"))
    for fmt in FORMATS:
        path = write_spec(tmp_path, SPEC, "wb.json")
        out = tmp_path / f"wb.{fmt}"
        run_folio("render", path, "-o", out, "--quiet", check=0, env=env)
        with zipfile.ZipFile(out) as z:
            assert len([xlsx_part(z, c) for c in chart_parts(z)]) == 3


def test_same_spec_same_bytes(tmp_path):
    for fmt in FORMATS:
        a, b = tmp_path / ("a-" + fmt), tmp_path / ("b-" + fmt)
        a.mkdir()
        b.mkdir()
        assert render(a, fmt).read_bytes() == render(b, fmt).read_bytes(), fmt


@pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")
def test_libreoffice_still_converts_and_shows_the_titles(doc, tmp_path):
    profile = "file:///tmp/lo-chart-wb-%s" % doc.suffix[1:]
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", "pdf",
                    "--outdir", str(tmp_path), str(doc)], check=True, capture_output=True, timeout=300)
    pdf = tmp_path / (doc.stem + ".pdf")
    assert pdf.exists()
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    for title in ("Quarterly columns", "Southern pie", "Scatter points"):
        assert title in text, title
    for word in ("Q1 <a>", "north", "south & east"):
        assert word in text, word
