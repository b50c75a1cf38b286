# test_xlsx.py — end-to-end tests of the .xlsx renderer: files written by
# `folio render/convert` are read back with openpyxl (values, types, formats,
# formulas, links, panes, filters, sheet names) and, for charts and raw XML,
# unzipped and parsed with ElementTree.
import datetime
import hashlib
import shutil
import subprocess
import time
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import SAMPLES, run_folio, write_spec

openpyxl = pytest.importorskip("openpyxl")

NS = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart"}


def render(tmp_path, spec, out="out.xlsx", check=0, *extra):
    path = write_spec(tmp_path, spec)
    p = run_folio("render", path, "-o", tmp_path / out, *extra, check=check)
    return tmp_path / out, p


def typed_spec():
    return {
        "folio": 1, "title": "Typed", "author": "QA", "date": "2024-03-01",
        "data": {"t": {
            "columns": ["name", {"name": "amount", "type": "number", "format": "#,##0.00"},
                        {"name": "day", "type": "date", "format": "yyyy-mm-dd"}, "flag", "calc", "link"],
            "rows": [
                ["00123", 1234.5, {"date": "2024-03-01"}, True, {"formula": "=B2*2", "value": 2469}, {"url": "https://example.com/a", "text": "A"}],
                ["=1+1", -2, {"date": "2024-03-02"}, False, {"formula": "=B3*2", "value": -4}, {"url": "https://example.com/b", "text": "B"}],
                ["+cmd", 0.25, None, True, None, "plain"],
                ["@SUM(A1)", None, {"date": "2024-12-31"}, None, None, None],
            ]}},
        "blocks": [
            {"type": "heading", "text": "Numbers", "level": 1},
            {"type": "paragraph", "text": "See **bold** and [a link](https://example.com)."},
            {"type": "table", "data": "t", "caption": "Typed values",
             "totals": {"amount": "sum", "flag": "count"}},
        ]}


def test_values_types_and_formats(tmp_path):
    out, _ = render(tmp_path, typed_spec())
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Typed values", "Summary"]
    ws = wb["Typed values"]
    assert [c.value for c in ws[1]] == ["name", "amount", "day", "flag", "calc", "link"]
    assert all(c.font.b for c in ws[1])
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == "A1:F5"
    # text stays text, whatever it looks like
    assert [ws.cell(r, 1).value for r in range(2, 6)] == ["00123", "=1+1", "+cmd", "@SUM(A1)"]
    assert all(ws.cell(r, 1).data_type == "s" for r in range(2, 6))
    # numbers are numbers with their format; dates are datetimes
    assert ws["B2"].value == 1234.5 and ws["B2"].data_type == "n"
    assert ws["B2"].number_format == "#,##0.00"
    assert ws["C2"].value == datetime.datetime(2024, 3, 1)
    assert ws["C2"].number_format == "yyyy-mm-dd"
    assert ws["C5"].value == datetime.datetime(2024, 12, 31)
    assert ws["D2"].value is True and ws["D3"].value is False
    # formulas stay formulas
    assert ws["E2"].value == "=B2*2" and ws["E2"].data_type == "f"
    # hyperlinks
    assert ws["F2"].value == "A" and ws["F2"].hyperlink.target == "https://example.com/a"
    assert ws["F4"].value == "plain" and ws["F4"].hyperlink is None
    # totals row: live formulas with a bold label
    assert ws["A6"].value == "Total" and ws["A6"].font.b
    assert ws["B6"].value == "=SUM(B2:B5)"
    assert ws["D6"].value == "=COUNTA(D2:D5)"
    # cached values are there for readers without a calc engine
    wbv = openpyxl.load_workbook(out, data_only=True)
    assert wbv["Typed values"]["B6"].value == pytest.approx(1232.75)
    assert wbv["Typed values"]["D6"].value == 3
    assert wbv["Typed values"]["E2"].value == 2469
    # widths are fitted: the header "amount" and "1,234.50" need more than 6
    assert 8 <= ws.column_dimensions["B"].width <= 60
    # document properties
    assert wb.properties.title == "Typed" and wb.properties.creator == "QA"
    assert wb.properties.created == datetime.datetime(2024, 3, 1)


def test_summary_sheet(tmp_path):
    out, _ = render(tmp_path, typed_spec())
    ws = openpyxl.load_workbook(out)["Summary"]
    cells = [(c.coordinate, c.value) for row in ws.iter_rows() for c in row if c.value is not None]
    values = [v for _, v in cells]
    assert values[0] == "Typed"
    assert ws["A1"].font.b and ws["A1"].font.sz > 20
    assert "Numbers" in values
    assert any(isinstance(v, str) and v.startswith("See bold and a link") for v in values)
    link = [ws[c] for c, v in cells if isinstance(v, str) and v.startswith("Table: Typed values")]
    assert link and link[0].hyperlink.location == "'Typed values'!A1"
    assert any(ws[c].hyperlink is not None and ws[c].hyperlink.target == "https://example.com"
               for c, _ in cells)


def test_sheet_names_legal_and_unique(tmp_path):
    rows = {"columns": ["a"], "rows": [[1]]}
    spec = {"folio": 1, "data": {"d": rows}, "blocks": [
        {"type": "table", "data": "d", "caption": "Sales: 2024/25 [EU]?"},
        {"type": "table", "data": "d", "caption": "sales: 2024/25 [eu]?"},
        {"type": "table", "data": "d", "caption": "History"},
        {"type": "table", "data": "d", "caption": "A caption much longer than thirty-one characters"},
        {"type": "table", "data": "d", "caption": "'Summary'"},
    ]}
    out, _ = render(tmp_path, spec)
    names = openpyxl.load_workbook(out).sheetnames
    assert names == ["Sales 2024-25 (EU)", "sales 2024-25 (eu) (2)", "History (2)",
                     "A caption much longer than", "Summary (2)", "Summary"]
    assert all(len(n) <= 31 for n in names)


def test_long_captions_are_cut_at_a_word_and_a_table_names_its_sheet(tmp_path):
    """Issue 37, item 8: "Consolidated income statement (" was the sheet."""
    rows = {"columns": ["a"], "rows": [[1]]}
    captions = ["Consolidated income statement (FY2024, EUR thousands)",
                "Revenue by region and product line, first half",
                "Segment results (EMEA) versus plan and forecast",
                "Supercalifragilisticexpialidocious-and-then-some words",
                "Consolidated income statement (FY2023, EUR thousands)"]
    blocks = [{"type": "table", "data": "d", "caption": c} for c in captions]
    blocks.append({"type": "table", "data": "d", "caption": "Anything at all", "sheet": "Balance sheet"})
    spec = {"folio": 1, "data": {"d": rows}, "blocks": blocks}
    out, _ = render(tmp_path, spec)
    names = openpyxl.load_workbook(out).sheetnames
    assert names == ["Consolidated income statement", "Revenue by region and product",
                     "Segment results (EMEA) versus", "Supercalifragilisticexpialidoci",
                     "Consolidated income (2)", "Balance sheet", "Summary"]
    for n in names:
        assert len(n) <= 31 and n.count("(") == n.count(")") and not n.endswith((",", " ", "("))


def test_sheet_field_is_checked(tmp_path):
    rows = {"columns": ["a"], "rows": [[1]]}
    for sheet, msg in [("A sheet name far longer than thirty-one", "has 39 characters"),
                       ("Q1/Q2", "holds '/'"), ("History", "is not allowed")]:
        path = write_spec(tmp_path, {"folio": 1, "data": {"d": rows},
                                     "blocks": [{"type": "table", "data": "d", "sheet": sheet}]})
        p = run_folio("validate", path, check=2)
        assert "/blocks/0/sheet: sheet name" in p.stderr and msg in p.stderr, p.stderr
    path = write_spec(tmp_path, {"folio": 1, "data": {"d": rows},
                                 "blocks": [{"type": "table", "data": "d", "shet": "x"}]})
    assert "did you mean 'sheet'?" in run_folio("validate", path, check=2).stderr


def test_text_never_breaks_the_xml(tmp_path):
    csv = tmp_path / "weird.csv"
    csv.write_bytes("name,note\n"
                    "ctl,a\x01b\x1fc\n"
                    "escape,_x0041_ stays\n"
                    "cjk,東京 café ✓\n".encode("utf-8"))
    run_folio("convert", csv, tmp_path / "w.xlsx", check=0)
    with zipfile.ZipFile(tmp_path / "w.xlsx") as z:
        for name in z.namelist():
            if name.endswith(".xml") or name.endswith(".rels"):
                ET.fromstring(z.read(name))  # every part is well-formed XML
    ws = openpyxl.load_workbook(tmp_path / "w.xlsx").active
    assert ws.title == "weird"
    assert ws["B4"].value == "東京 café ✓"
    # openpyxl 3.0 does not decode Excel's _xHHHH_ escapes; LibreOffice does,
    # as Excel does: the text comes back exactly as it went in.
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice not installed")
    subprocess.run(["soffice", "--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76",
                    "--outdir", str(tmp_path / "lo"), str(tmp_path / "w.xlsx")],
                   capture_output=True, timeout=180, check=True)
    back = (tmp_path / "lo" / "w.csv").read_bytes().decode("utf-8")
    assert back.splitlines()[1:] == ["ctl,a\x01b\x1fc", "escape,_x0041_ stays", "cjk,東京 café ✓"]


def test_charts_are_native(tmp_path):
    data = {"columns": ["m", "a", "b", "n"], "rows": [["Jan", 1, 2, 10], ["Feb", 3, 4, 20], ["Mar", 5, 6, 30]]}
    kinds = [("bar", "c:barChart"), ("column", "c:barChart"), ("line", "c:lineChart"),
             ("area", "c:areaChart"), ("pie", "c:pieChart"), ("doughnut", "c:doughnutChart"),
             ("scatter", "c:scatterChart")]
    blocks = [{"type": "chart", "kind": k, "data": "d", "x": "n" if k == "scatter" else "m", "y": ["a", "b"], "title": k,
               "legend": "bottom"} for k, _ in kinds]
    blocks.append({"type": "chart", "kind": "column", "data": "d", "x": "m", "y": ["a", "b"],
                   "stacked": True, "x_title": "Month", "y_title": "EUR", "legend": "none"})
    out, _ = render(tmp_path, {"folio": 1, "data": {"d": data}, "blocks": blocks})
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["Summary", "Data - d"]
    with zipfile.ZipFile(out) as z:
        for i, (k, tag) in enumerate(kinds, start=1):
            root = ET.fromstring(z.read(f"xl/charts/chart{i}.xml"))
            assert root.find(f".//{tag}", NS) is not None, k
            refs = [f.text for f in root.iter("{%s}f" % NS["c"])]
            assert "'Data - d'!$B$2:$B$4" in refs, (k, refs)
            if k == "bar":
                assert root.find(".//c:barDir", NS).get("val") == "bar"
            if k == "pie":
                assert len(root.findall(".//c:ser", NS)) == 1
        last = ET.fromstring(z.read(f"xl/charts/chart{len(kinds) + 1}.xml"))
        assert last.find(".//c:grouping", NS).get("val") == "stacked"
        assert last.find(".//c:legend", NS) is None
        text = z.read(f"xl/charts/chart{len(kinds) + 1}.xml").decode()
        assert "Month" in text and "EUR" in text
        # first series coloured with the theme's first palette colour
        assert "2F5597" in z.read("xl/charts/chart2.xml").decode()
        drawing = z.read("xl/drawings/drawing1.xml").decode()
        assert drawing.count("<c:chart ") == len(kinds) + 1


def test_chart_uses_table_sheet(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["m", "a"], "rows": [["x", 1], ["y", 2]]}},
            "blocks": [{"type": "table", "data": "d", "caption": "Numbers"},
                       {"type": "chart", "kind": "line", "data": "d", "x": "m", "y": "a"}]}
    out, _ = render(tmp_path, spec)
    assert openpyxl.load_workbook(out).sheetnames == ["Numbers", "Summary"]
    with zipfile.ZipFile(out) as z:
        assert "<c:f>Numbers!$B$2:$B$3</c:f>" in z.read("xl/charts/chart1.xml").decode()


def test_same_bytes_twice(tmp_path):
    spec = dict(typed_spec())
    a, _ = render(tmp_path, spec, "a.xlsx")
    time.sleep(1.1)
    b, _ = render(tmp_path, spec, "b.xlsx")
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()


def test_sample_renders(tmp_path):
    out = tmp_path / "sales.xlsx"
    run_folio("render", SAMPLES / "sales" / "sales.json", "-o", out, check=0)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames[0] == "Revenue by region" and "Summary" in wb.sheetnames  # its first table
    ws = wb["Monthly sales by region"]
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref.startswith("A1:F")
    assert ws.cell(ws.max_row, 1).value == "Total"
    assert ws.cell(ws.max_row, 4).value.startswith("=SUM(D2:D")


def test_cell_over_limit_is_input_error(tmp_path):
    spec = {"folio": 1, "data": {"notes": {"columns": ["id", "note"],
                                            "rows": [[i, "x" * (40000 if i == 12 else 3)] for i in range(1, 13)]}},
            "blocks": [{"type": "table", "data": "notes"}]}
    out, p = render(tmp_path, spec, check=2)
    assert "/data/notes" in p.stderr
    assert 'row 12, column "note": text of 40000 characters exceeds Excel\'s 32,767-character cell limit' in p.stderr
    assert not out.exists()
    assert [f.name for f in tmp_path.iterdir()] == ["spec.json"]


def test_ceiling_leaves_nothing(tmp_path):
    out, p = render(tmp_path, typed_spec(), "c.xlsx", 3, "--max-bytes", "1000")
    assert not out.exists()
    assert [f.name for f in tmp_path.iterdir()] == ["spec.json"]


def test_convert_csv_opens_on_data(tmp_path):
    csv = tmp_path / "orders.csv"
    csv.write_text("id,when,total\n1,2024-01-05,12.50\n2,2024-02-06,7\n")
    run_folio("convert", csv, tmp_path / "o.xlsx", check=0)
    wb = openpyxl.load_workbook(tmp_path / "o.xlsx")
    assert wb.sheetnames == ["orders"]
    ws = wb["orders"]
    assert ws["B2"].value == datetime.datetime(2024, 1, 5)
    assert ws["C2"].value == 12.5


def test_table_over_a_million_rows_continues(tmp_path):
    n = 1_048_600
    csv = tmp_path / "big.csv"
    with open(csv, "w") as f:
        f.write("n\n")
        f.write("".join(f"{i}\n" for i in range(1, n + 1)))
    t = time.time()
    run_folio("convert", csv, tmp_path / "big.xlsx", check=0, timeout=600)
    elapsed = time.time() - t
    with zipfile.ZipFile(tmp_path / "big.xlsx") as z:
        wbxml = z.read("xl/workbook.xml").decode()
        assert '<sheet name="big"' in wbxml and '<sheet name="big (2)"' in wbxml
        second = z.read("xl/worksheets/sheet2.xml").decode()
    ws = openpyxl.load_workbook(tmp_path / "big.xlsx", read_only=True)["big (2)"]
    rows = [r for r in ws.iter_rows(values_only=True)]
    assert rows[0] == ("n",)
    assert [r[0] for r in rows[1:]] == list(range(1_048_576, n + 1))
    assert "<autoFilter ref=\"A1:A26\"/>" in second
    print(f"1,048,600-row convert took {elapsed:.1f} s")


def test_chart_value_axes_carry_the_column_format(tmp_path):
    """Issue 37, item 9: the value axis was General, source-linked."""
    spec = {"folio": 1, "data": {"d": {"columns": ["k", {"name": "v", "format": "$#,##0"},
                                                   {"name": "w", "format": "0.0%"}],
                                       "rows": [["a", 1000, 0.1], ["b", 25000, 0.2]]}},
            "blocks": [{"type": "chart", "kind": k, "data": "d", "x": x, "y": "v"}
                       for k, x in (("column", "k"), ("bar", "k"), ("line", "k"), ("scatter", "w"))]}
    out, _ = render(tmp_path, spec)
    c = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
    with zipfile.ZipFile(out) as z:
        for i, kind in enumerate(("column", "bar", "line", "scatter"), 1):
            root = ET.fromstring(z.read(f"xl/charts/chart{i}.xml"))
            vals = root.findall(f".//{c}valAx")
            fmts = [(a.find(f"{c}numFmt").get("formatCode"), a.find(f"{c}numFmt").get("sourceLinked"))
                    if a.find(f"{c}numFmt") is not None else None for a in vals]
            if kind == "scatter":  # x and y both hold values
                assert fmts == [("0.0%", "0"), ("$#,##0", "0")], (kind, fmts)
            else:
                assert fmts == [("$#,##0", "0")], (kind, fmts)
