# test_values.py — values become what they say they are (issue 14, items
# 1-4): typed columns read the usual notations, inferred numeric columns
# survive "n/a" markers, NaN/Infinity read as empty, and cells that do not
# fit are named, located, once per column. Read back with openpyxl, pandas
# and pdftotext.
import datetime
import json
import subprocess

import openpyxl
import pandas

from conftest import run_folio, write_spec

CSV = """date,amount,share,eu,label
15/02/2024,"$1,200.00",12.5%,"1.234,56",a
16/02/2024,(1234),n/a,"2,5",b
02/17/2024,n/a,3%,-,c
18/02/2024,tbd,4%,7,d
"""


def render(tmp_path, spec, *outs, check=0):
    path = write_spec(tmp_path, spec)
    args = []
    for o in outs:
        args += ["-o", tmp_path / o]
    return run_folio("render", path, *args, check=check)


def diags(tmp_path, spec):
    path = write_spec(tmp_path, spec)
    p = run_folio("validate", path, "--json", check=0)
    return json.loads(p.stdout) if p.stdout.strip().startswith("[") else [], p


def sheet_rows(path, name):
    ws = openpyxl.load_workbook(path)[name]
    return [[c for c in row] for row in ws.iter_rows(min_row=2)]


def test_declared_csv_columns_read_every_notation(tmp_path):
    (tmp_path / "a.csv").write_text(CSV)
    spec = {"folio": 1, "data": {"a": {"csv": "a.csv", "columns": [
        {"name": "date", "type": "date"}, {"name": "amount", "type": "currency"},
        {"name": "eu", "type": "number", "decimal": ","}]}},
        "blocks": [{"type": "table", "data": "a"}]}
    p = render(tmp_path, spec, "o.xlsx")
    rows = sheet_rows(tmp_path / "o.xlsx", "a")
    date, amount, share, eu = ([r[i] for r in rows] for i in range(4))
    # day/month order decided from the column: 15/02 can only be day first
    assert date[0].value == datetime.datetime(2024, 2, 15) and date[0].is_date
    assert date[1].value == datetime.datetime(2024, 2, 16)
    assert date[2].value == "02/17/2024" and date[2].data_type == "s"  # the misfit stays text
    assert date[0].number_format == "dd/mm/yyyy"
    assert [c.value for c in amount] == [1200, -1234, "n/a", "tbd"]
    assert amount[0].data_type == "n" and amount[1].data_type == "n"
    assert [c.value for c in share] == [0.125, "n/a", 0.03, 0.04]
    assert [c.value for c in eu] == [1234.56, 2.5, "-", 7]
    # one located warning per column, naming the cells; the marker n/a is no misfit
    err = p.stderr
    assert 'a.csv:4:1: warning: column "date" is date, read day/month; 1 cell is not' in err
    assert '"02/17/2024" (line 4)' in err
    assert 'a.csv:5:2: warning: column "amount" is currency; 1 cell is not and stays text: "tbd" (line 5)' in err
    assert "n/a" not in err.split("(write")[0]


def test_date_format_decides_the_order_and_ambiguity_warns(tmp_path):
    rows = [["03/04/2024", 1], ["05/06/2024", 2]]
    spec = {"folio": 1, "data": {"d": {"columns": [{"name": "d", "type": "date"}, "n"], "rows": rows}},
            "blocks": [{"type": "table", "data": "d"}]}
    errs, _ = diags(tmp_path, spec)
    amb = [e for e in errs if "fits both day/month and month/day" in e["message"]]
    assert len(amb) == 1 and amb[0]["pointer"] == "/data/d/columns/0" and amb[0]["line"] > 0
    assert "date_format" in amb[0]["hint"]
    spec["data"]["d"]["columns"][0]["date_format"] = "dd/mm/yyyy"
    errs, _ = diags(tmp_path, spec)
    assert not [e for e in errs if "fits both" in e["message"]]
    render(tmp_path, spec, "o.xlsx")
    cells = sheet_rows(tmp_path / "o.xlsx", "d")
    assert cells[0][0].value == datetime.datetime(2024, 4, 3)  # 3 April, day first
    assert cells[1][0].value == datetime.datetime(2024, 6, 5)
    spec["data"]["d"]["columns"][0]["date_format"] = "day first"
    p = render(tmp_path, spec, "o.xlsx", check=2)
    assert 'unknown date_format "day first"' in p.stderr


def test_inline_misfits_are_located_once_with_count_and_places(tmp_path):
    rows = [[f"${i},000.50"] for i in range(1, 30)] + [["soon"], ["later"], ["n/a"], ["TBD"]]
    spec = {"folio": 1, "data": {"m": {"columns": [{"name": "amt", "type": "currency"}], "rows": rows}},
            "blocks": [{"type": "table", "data": "m"}]}
    errs, _ = diags(tmp_path, spec)
    assert len(errs) == 1, errs
    e = errs[0]
    assert e["pointer"] == "/data/m/rows/29/0" and e["line"] > 1 and e["column"] > 0
    assert '3 cells are not and stay text: "soon" (rows/29/0), "later" (rows/30/0), "TBD" (rows/32/0)' in e["message"]
    render(tmp_path, spec, "o.xlsx")
    vals = [r[0].value for r in sheet_rows(tmp_path / "o.xlsx", "m")]
    assert vals[0] == 1000.5 and vals[28] == 29000.5 and vals[29:] == ["soon", "later", "n/a", "TBD"]


def test_euro_amounts_with_a_declared_decimal(tmp_path):
    spec = {"folio": 1, "data": {"e": {"decimal": ",", "columns": [{"name": "price", "type": "currency"}],
                                       "rows": [["€1.200,00"], ["1.234,56 €"], ["(12,50 €)"]]}},
            "blocks": [{"type": "table", "data": "e"}]}
    render(tmp_path, spec, "o.xlsx")
    cells = [r[0] for r in sheet_rows(tmp_path / "o.xlsx", "e")]
    assert [c.value for c in cells] == [1200, 1234.56, -12.5]
    assert "€" in cells[0].number_format


def test_inferred_numeric_column_keeps_markers_as_text_and_sums(tmp_path):
    (tmp_path / "m.csv").write_text("region,sales\nN,100\nS,n/a\nE,250.5\nW,-\nC,\nX,N/A\n")
    spec = {"folio": 1, "data": {"m": {"csv": "m.csv"}},
            "blocks": [{"type": "table", "data": "m", "totals": {"sales": "sum"}}]}
    p = render(tmp_path, spec, "o.xlsx", "o.pdf")
    assert "warning" not in p.stderr
    cells = [r[1] for r in sheet_rows(tmp_path / "o.xlsx", "m")]
    assert cells[0].data_type == "n" and cells[2].data_type == "n"
    assert cells[1].value == "n/a" and cells[1].data_type == "s"
    assert cells[3].value == "-" and cells[5].value == "N/A"
    assert any(isinstance(c.value, str) and c.value.startswith("=SUBTOTAL(109") or
               isinstance(c.value, str) and "SUM" in c.value for c in cells[6:]), [c.value for c in cells]
    df = pandas.read_excel(tmp_path / "o.xlsx", sheet_name="m")
    assert pandas.to_numeric(df["sales"], errors="coerce").iloc[:6].sum() == 350.5
    text = subprocess.run(["pdftotext", "-layout", tmp_path / "o.pdf", "-"], capture_output=True, text=True).stdout
    assert "350.5" in text


def test_inline_iso_dates_with_a_table_format_are_dates(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["day", "n"],
                                       "rows": [["2024-01-15", 1], ["2024-02-01", 2]]}},
            "blocks": [{"type": "table", "data": "d",
                        "columns": [{"field": "day", "format": "dd mmm yyyy"}, "n"]}]}
    render(tmp_path, spec, "o.xlsx", "o.pdf")
    cells = sheet_rows(tmp_path / "o.xlsx", "d")
    assert cells[0][0].value == datetime.datetime(2024, 1, 15) and cells[0][0].number_format == "dd mmm yyyy"
    text = subprocess.run(["pdftotext", "-layout", tmp_path / "o.pdf", "-"], capture_output=True, text=True).stdout
    assert "15 Jan 2024" in text and "01 Feb 2024" in text


def test_nan_and_infinity_read_as_empty_with_one_warning(tmp_path):
    text = ('{"folio": 1,\n "data": {"d": {"columns": ["x", "y"],\n'
            '  "rows": [["a", NaN], ["b", 2.5], ["c", -Infinity], ["NaN", Infinity]]}},\n'
            ' "blocks": [{"type": "table", "data": "d"},\n'
            '  {"type": "chart", "kind": "bar", "data": "d", "x": "x", "y": "y"}]}\n')
    path = tmp_path / "spec.json"
    path.write_text(text)
    p = run_folio("render", path, "-o", tmp_path / "o.xlsx", check=0)
    warns = [line for line in p.stderr.splitlines() if "NaN" in line]
    assert len(warns) == 1 and "spec.json:3:18:" in warns[0] and "3 such values" in warns[0]
    cells = sheet_rows(tmp_path / "o.xlsx", "d")
    assert [r[1].value for r in cells] == [None, 2.5, None, None]
    assert cells[3][0].value == "NaN"  # a string stays a string
    # a syntax error after a NaN is still located in the original text
    path.write_text('{"folio": 1, "x": NaN, "blocks": [}\n')
    p = run_folio("validate", path, check=2)
    assert "spec.json:1:35:" in p.stderr


def test_cell_errors_are_located_at_the_cell(tmp_path):
    big = "x" * 40000
    spec = {"folio": 1, "blocks": [{"type": "table", "data": {"columns": ["k", "v"], "rows": [["a", "b"], ["c", big]]}}]}
    p = render(tmp_path, spec, "o.xlsx", check=2)
    assert ":/blocks/0/data/rows/1/1:" in p.stderr.replace(" ", "")
    assert "spec.json:11:" in p.stderr or "spec.json:1" in p.stderr
    line = [ln for ln in p.stderr.splitlines() if "rows/1/1" in ln][0]
    assert line.split(":")[2].isdigit() and int(line.split(":")[2]) > 0
    (tmp_path / "l.csv").write_text("k,v\na,b\nc," + big + "\n")
    spec = {"folio": 1, "data": {"l": {"csv": "l.csv"}}, "blocks": [{"type": "table", "data": "l"}]}
    p = render(tmp_path, spec, "o.xlsx", check=2)
    assert "l.csv:3:2: row 2, column \"v\"" in p.stderr
