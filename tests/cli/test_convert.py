# test_convert.py — `folio convert`: CSV and TSV straight to a spreadsheet with
# types inferred losslessly, and a spec .json to any format.
import subprocess

import pytest

from conftest import SAMPLES, run_folio

openpyxl = pytest.importorskip("openpyxl")


def test_csv_types_are_inferred_without_loss(tmp_path):
    out = tmp_path / "orders.xlsx"
    run_folio("convert", SAMPLES / "plain" / "orders.csv", out, check=0)
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["orders"]          # no Summary sheet for a bare CSV
    ws = wb["orders"]
    header = [c.value for c in ws[1]]
    assert header == ["order_id", "date", "customer", "zip", "amount", "discount", "paid", "note"]
    row = {h: c for h, c in zip(header, ws[2])}
    assert isinstance(row["order_id"].value, int)
    assert row["date"].is_date and row["date"].number_format == "yyyy-mm-dd"
    assert isinstance(row["zip"].value, str) and len(row["zip"].value) == 5  # leading zeros kept
    assert isinstance(row["amount"].value, float)
    assert row["discount"].number_format.endswith("%") and row["discount"].value <= 0.15
    assert row["paid"].value in (True, False)
    notes = [ws.cell(r, 8).value for r in range(2, ws.max_row + 1)]
    assert "=1+1 is not a formula" in notes           # a string, not a formula
    assert "line one\nline two" in notes
    assert ws.freeze_panes == "A2" and ws.auto_filter.ref.startswith("A1:H")


def test_tsv(tmp_path):
    src = tmp_path / "t.tsv"
    src.write_text("name\tscore\tid\nÅsa\t12.5\t00042\nBo\t7\t12345678901234567890\n", encoding="utf-8")
    out = tmp_path / "t.xlsx"
    run_folio("convert", src, out, check=0)
    ws = openpyxl.load_workbook(out).active
    assert [c.value for c in ws[2]] == ["Åsa", 12.5, "00042"]
    assert ws["C3"].value == "12345678901234567890"  # 20 digits stay text


def test_spec_json_to_pdf(tmp_path):
    out = tmp_path / "pnl.pdf"
    run_folio("convert", SAMPLES / "pnl" / "pnl.json", out, check=0)
    text = subprocess.run(["pdftotext", out, "-"], capture_output=True, text=True, check=True).stdout
    assert "Profit and loss statement" in text and "Net profit" in text


def test_unreadable_csv_exit_2(tmp_path):
    src = tmp_path / "bad.csv"
    src.write_bytes(b"a,b\n\"open quote,1\n")
    p = run_folio("convert", src, tmp_path / "bad.xlsx", check=2)
    assert "bad.csv:2" in p.stderr
    assert not (tmp_path / "bad.xlsx").exists()
