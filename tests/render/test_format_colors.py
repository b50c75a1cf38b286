# test_format_colors.py — number-format colours ([Red], [Blue], [Color10],
# conditions like [<0]) apply in PDF, PNG, DOCX and PPTX as in Excel (issue
# 14, item 5), and a long metric value is shrunk to its card, never broken
# (item 7). Read back with python-docx, the PPTX XML (lxml), qpdf's
# uncompressed content streams, ImageMagick's pixels and pdftotext.
import re
import subprocess
import zipfile

import docx
from lxml import etree

from conftest import run_folio, write_spec

SPEC = {
    "folio": 1, "title": "Colours",
    "data": {"d": {"columns": ["k", {"name": "v", "type": "number", "format": "#,##0.00;[Red](#,##0.00)"},
                               {"name": "w", "type": "number", "format": "[Blue][>=100]#,##0;[Color10]#,##0"}],
                   "rows": [["a", 1234.5, 150], ["b", -42, 7]]}},
    "blocks": [
        {"type": "metrics", "items": [
            {"label": "Loss", "value": -212879.9, "format": "£#,##0.00;[Red]-£#,##0.00"},
            {"label": "Revenue", "value": 31234567.89, "format": "$#,##0.00"},
            {"label": "Users", "value": 3, "format": "0"}, {"label": "Churn", "value": 4, "format": "0"}]},
        {"type": "table", "data": "d"},
        {"type": "chart", "kind": "column", "data": "d", "x": "k", "y": "v"}]}

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def render(tmp_path, *exts):
    path = write_spec(tmp_path, SPEC)
    args = [a for e in exts for a in ("-o", tmp_path / f"o.{e}")]
    run_folio("render", path, *args, check=0)


def test_docx_runs_carry_the_format_colours(tmp_path):
    render(tmp_path, "docx")
    d = docx.Document(tmp_path / "o.docx")
    runs = {r.text: r for t in d.tables for row in t.rows for c in row.cells for p in c.paragraphs for r in p.runs}
    assert str(runs["(42.00)"].font.color.rgb) == "FF0000"
    assert runs["1,234.50"].font.color.rgb is None
    assert str(runs["150"].font.color.rgb) == "0000FF"
    assert str(runs["7"].font.color.rgb) == "008000"  # [Color10]
    assert str(runs["-£212,879.90"].font.color.rgb) == "FF0000"  # the metric card
    # the long value is one run, shrunk below the heading size, not broken
    rev = runs["$31,234,567.89"]
    assert rev.font.size is not None and rev.font.size.pt < 20


def test_pptx_table_and_card_runs_carry_the_format_colours(tmp_path):
    render(tmp_path, "pptx")
    z = zipfile.ZipFile(tmp_path / "o.pptx")
    colors, sizes = {}, {}
    for name in z.namelist():
        if not re.match(r"ppt/slides/slide\d+\.xml$", name):
            continue
        for r in etree.fromstring(z.read(name)).iter(A + "r"):
            t = r.find(A + "t").text
            clr = r.find(f"{A}rPr/{A}solidFill/{A}srgbClr")
            colors[t] = clr.get("val") if clr is not None else None
            sizes[t] = int(r.find(A + "rPr").get("sz", "0"))
    assert colors["(42.00)"] == "FF0000" and colors["150"] == "0000FF" and colors["7"] == "008000"
    assert colors["1,234.50"] != "FF0000"
    assert colors["-£212,879.90"] == "FF0000"
    assert sizes["$31,234,567.89"] < sizes["3"]  # shrunk to its card


def test_pdf_draws_coloured_values(tmp_path):
    render(tmp_path, "pdf")
    qdf = tmp_path / "q.pdf"
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", tmp_path / "o.pdf", qdf], check=True)
    raw = qdf.read_bytes()
    assert re.search(rb"\b1 0 0 rg\b", raw), "no red fill for text"
    assert re.search(rb"\b0 0 1 rg\b", raw), "no blue fill for text"
    text = subprocess.run(["pdftotext", "-layout", tmp_path / "o.pdf", "-"], capture_output=True, text=True).stdout
    assert "$31,234,567.89" in text  # the card's value on one line


def red_pixels(png):
    out = subprocess.run(["convert", png, "txt:-"], capture_output=True, text=True, check=True).stdout
    n = 0
    for m in re.finditer(r"\((\d+),(\d+),(\d+)", out):
        r, g, b = map(int, m.groups())
        n += r > 200 and g < 80 and b < 80
    return n


def test_png_chart_colours_negative_ticks(tmp_path):
    render(tmp_path, "png")
    assert red_pixels(tmp_path / "o.png") > 10
    spec = dict(SPEC)
    spec["data"] = {"d": {"columns": ["k", {"name": "v", "type": "number", "format": "#,##0.00"}],
                          "rows": [["a", 1], ["b", -2]]}}
    spec["blocks"] = [SPEC["blocks"][2]]
    path = write_spec(tmp_path, spec, "plain.json")
    run_folio("render", path, "-o", tmp_path / "p.png", check=0)
    assert red_pixels(tmp_path / "p.png") == 0
