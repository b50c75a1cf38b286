# test_xlsx_data_first.py — spreadsheets a user can keep (issue 14, item 9):
# long text wraps with a row height to match, a spec that is one table
# opens on that table (pandas.read_excel reads the data) with the Summary
# last or absent, and a horizontal bar chart lists its categories top-down
# as the PDF does. Read back with openpyxl, pandas and the chart XML.
import re
import zipfile

import openpyxl
import pandas

from conftest import run_folio, write_spec

LONG = "This note is long enough to need several lines in its cell. " * 5
ROWS = [["a", LONG, 1], ["b", "two\nlines\nhere", 2], ["c", "short", 3]]


def render(tmp_path, spec, name="o.xlsx"):
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / name, check=0)
    return tmp_path / name


def test_one_table_spec_opens_on_its_data(tmp_path):
    spec = {"folio": 1, "title": "Export", "author": "Ana",
            "data": {"orders": {"columns": ["k", "note", "v"], "rows": ROWS}},
            "blocks": [{"type": "heading", "text": "Orders"}, {"type": "table", "data": "orders"}]}
    out = render(tmp_path, spec)
    assert openpyxl.load_workbook(out).sheetnames == ["orders"]  # nothing but a title: no Summary
    df = pandas.read_excel(out)
    assert list(df.columns) == ["k", "note", "v"] and df["v"].sum() == 6
    props = openpyxl.load_workbook(out).properties
    assert props.title == "Export" and props.creator == "Ana"
    # words of its own make it a report with a Summary sheet, after the data
    # (issue 37, item 7): pandas still reads the table
    spec["blocks"].append({"type": "paragraph", "text": "Exported from the shop."})
    out = render(tmp_path, spec, "r.xlsx")
    assert openpyxl.load_workbook(out).sheetnames == ["orders", "Summary"]
    assert pandas.read_excel(out)["v"].sum() == 6
    # unless the spec asks for the Summary first
    spec["xlsx"] = {"first_sheet": "summary"}
    out = render(tmp_path, spec, "s.xlsx")
    assert openpyxl.load_workbook(out).sheetnames == ["Summary", "orders"]


def test_a_report_with_tables_and_charts_opens_on_its_first_table(tmp_path):
    spec = {"folio": 1, "title": "Q3",
            "data": {"a": {"columns": ["k", "v"], "rows": [["x", 1], ["y", 2]]},
                     "b": {"columns": ["k", "w"], "rows": [["x", 5]]},
                     "c": {"columns": ["k", "z"], "rows": [["p", 7], ["q", 8]]}},
            "blocks": [{"type": "paragraph", "text": "Revenue grew."},
                       {"type": "chart", "kind": "column", "data": "c", "x": "k", "y": "z"},
                       {"type": "table", "data": "a"}, {"type": "table", "data": "b"}]}
    out = render(tmp_path, spec)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames[:3] == ["a", "b", "Summary"] and len(wb.sheetnames) == 4  # + the chart's data
    assert list(pandas.read_excel(out).columns) == ["k", "v"]
    # the Summary's link to the table and its chart still point at the right sheets
    links = [c.hyperlink.location for row in wb["Summary"].iter_rows() for c in row if c.hyperlink]
    assert any("'a'!A1" in (l or "") or "a!A1" in (l or "") for l in links), links
    chart = zipfile.ZipFile(out).read("xl/charts/chart1.xml").decode()
    assert re.search(r"<c:f>'?%s'?!\$B\$2:\$B\$3</c:f>" % re.escape(wb.sheetnames[3]), chart)
    # a spec without tables opens on its Summary
    spec["blocks"] = spec["blocks"][:2]
    assert openpyxl.load_workbook(render(tmp_path, spec, "n.xlsx")).sheetnames[0] == "Summary"


def test_first_sheet_option_is_checked(tmp_path):
    path = write_spec(tmp_path, {"folio": 1, "xlsx": {"first_sheet": "sumary"}, "blocks": []})
    p = run_folio("validate", path, check=2)
    assert '/xlsx/first_sheet: unknown first sheet "sumary"' in p.stderr and "did you mean 'summary'?" in p.stderr
    path = write_spec(tmp_path, {"folio": 1, "xlsx": {"firstsheet": "data"}, "blocks": []})
    p = run_folio("validate", path, check=2)
    assert '/xlsx/firstsheet: unknown key' in p.stderr and "did you mean 'first_sheet'?" in p.stderr


def test_long_and_multiline_text_wraps_with_a_row_height(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["k", "note", "v"], "rows": ROWS}},
            "blocks": [{"type": "table", "data": "d"}]}
    ws = openpyxl.load_workbook(render(tmp_path, spec))["d"]
    assert ws["B2"].alignment.wrap_text and ws["B3"].alignment.wrap_text
    assert not ws["B4"].alignment.wrap_text  # short text stays as it is
    assert ws.row_dimensions[2].height > 45 and ws.row_dimensions[3].height >= 40
    assert ws.row_dimensions[4].height is None
    assert ws["B3"].value == "two\nlines\nhere"
    assert ws.column_dimensions["B"].width <= 61


def test_bar_chart_categories_read_top_down(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["k", "v"], "rows": [["first", 3], ["second", 2], ["third", 1]]}},
            "blocks": [{"type": "chart", "kind": "bar", "data": "d", "x": "k", "y": "v"}]}
    xml = zipfile.ZipFile(render(tmp_path, spec)).read("xl/charts/chart1.xml").decode()
    cat = re.search(r"<c:catAx>.*?</c:catAx>", xml).group(0)
    val = re.search(r"<c:valAx>.*?</c:valAx>", xml).group(0)
    assert '<c:orientation val="maxMin"/>' in cat  # first category on top
    assert '<c:crosses val="max"/>' in val and '<c:axPos val="b"/>' in val  # values stay at the bottom
    spec["blocks"][0]["kind"] = "column"
    xml = zipfile.ZipFile(render(tmp_path, spec, "c.xlsx")).read("xl/charts/chart1.xml").decode()
    assert "maxMin" not in xml
