# test_byline_date.py — a spec's date with a time reads as a date and a
# time in every title block (issue 37, A.12: "2024-03-19T10:00:00" was
# printed raw). Read with pdftotext, python-docx, openpyxl and the slide XML.
import re
import subprocess
import zipfile

import docx
import openpyxl

from conftest import run_folio, write_spec

CASES = [("2024-03-19T10:00:00", "2024-03-19 10:00"), ("2024-03-19T10:00:30", "2024-03-19 10:00:30"),
         ("2024-03-19T23:15:00Z", "2024-03-19 23:15 UTC"), ("2024-03-19", "2024-03-19")]


def test_byline_dates(tmp_path):
    for i, (date, shown) in enumerate(CASES):
        spec = {"folio": 1, "title": "T", "author": "A", "date": date,
                "blocks": [{"type": "paragraph", "text": "x"}]}
        path = write_spec(tmp_path, spec, f"s{i}.json")
        outs = {e: tmp_path / f"s{i}.{e}" for e in ("pdf", "docx", "xlsx", "pptx")}
        run_folio("render", path, *[a for o in outs.values() for a in ("-o", o)], check=0)
        pdf = subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
        word = "\n".join(p.text for p in docx.Document(outs["docx"]).paragraphs)
        ws = openpyxl.load_workbook(outs["xlsx"])["Summary"]
        cells = "\n".join(str(c.value) for row in ws.iter_rows() for c in row if c.value)
        with zipfile.ZipFile(outs["pptx"]) as z:
            slide = z.read("ppt/slides/slide1.xml").decode()
        for where, text in (("pdf", pdf), ("docx", word), ("xlsx", cells), ("pptx", slide)):
            assert shown in text, (date, where)
            assert "T10:00" not in text and "T23:15" not in text, (date, where)
