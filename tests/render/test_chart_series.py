# test_chart_series.py — a chart's series titles and colours, and a
# logarithmic value axis, in every format (issue 37, B.1 and B.2).
# Read back independently: the chart parts' XML (zipfile + lxml) of the
# workbook, the Word document and the deck; pdftotext for the PDF's legend
# and ticks; pixels of the PNG and of the PDF drawn by pdftoppm.
import io
import subprocess
import zipfile

import pytest
from lxml import etree
from PIL import Image

from conftest import run_folio, write_spec

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
RED = (0xD6, 0x27, 0x28)
FORMATS = ("xlsx", "docx", "pptx", "pdf", "png")


def chart_spec(**over):
    chart = {"type": "chart", "kind": "column", "data": "d", "x": "m",
             "y": [{"field": "rev", "title": "Revenue", "color": "#D62728"}, "cost"]}
    chart.update(over)
    return {"folio": 1, "title": "Series",
            "data": {"d": {"columns": ["m", "rev", "cost"],
                           "rows": [["Jan", 10, 3], ["Feb", 100, 30], ["Mar", 1000, 300]]}},
            "blocks": [chart]}


def render(tmp_path, spec, name="s"):
    path = write_spec(tmp_path, spec, f"{name}.json")
    outs = {e: tmp_path / f"{name}.{e}" for e in FORMATS}
    run_folio("render", path, *[a for o in outs.values() for a in ("-o", o)], check=0)
    return outs


def chart_parts(path):
    with zipfile.ZipFile(path) as z:
        return [etree.fromstring(z.read(n)) for n in sorted(z.namelist())
                if "/charts/chart" in n and n.endswith(".xml")]


def series(chart):
    out = []
    for ser in chart.iter(C + "ser"):
        tx = ser.find(C + "tx")
        name = "".join(v.text or "" for v in tx.iter(C + "v")) if tx is not None else None
        fill = ser.find(f"{C}spPr/{A}solidFill/{A}srgbClr")
        out.append((name, fill.get("val") if fill is not None else None))
    return out


def red_pixels(img):
    img = img.convert("RGB")
    return sum(1 for p in img.getdata() if abs(p[0] - RED[0]) < 8 and abs(p[1] - RED[1]) < 8 and abs(p[2] - RED[2]) < 8)


def pdf_page_png(pdf, tmp_path):
    subprocess.run(["pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "1", pdf, tmp_path / "page"], check=True)
    return Image.open(next(tmp_path.glob("page*.png")))


def test_series_titles_and_colours_in_every_format(tmp_path):
    outs = render(tmp_path, chart_spec())
    # native charts: the legend's names and the series' fills
    for fmt in ("xlsx", "docx", "pptx"):
        [chart] = chart_parts(outs[fmt])
        got = series(chart)
        assert [n for n, _ in got] == ["Revenue", "cost"], (fmt, got)
        assert got[0][1] == "D62728", (fmt, got)
        assert got[1][1] not in (None, "D62728"), (fmt, got)  # the palette's
    # Word's and PowerPoint's embedded data carry the title as the header
    with zipfile.ZipFile(outs["pptx"]) as z:
        emb = [n for n in z.namelist() if n.endswith(".xlsx")]
        import openpyxl
        wb = openpyxl.load_workbook(io.BytesIO(z.read(emb[0])))
        assert wb.active["B1"].value == "Revenue"
    text = subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    assert "Revenue" in text and "cost" in text and "rev\n" not in text
    assert red_pixels(Image.open(outs["png"])) > 2000
    assert red_pixels(pdf_page_png(outs["pdf"], tmp_path)) > 200


def test_without_a_colour_the_png_has_no_red(tmp_path):
    spec = chart_spec(y=["rev", "cost"])
    outs = render(tmp_path, spec)
    assert red_pixels(Image.open(outs["png"])) == 0
    [chart] = chart_parts(outs["xlsx"])
    assert [n for n, _ in series(chart)][0] in ("rev", None)  # the header cell's reference


def bar_tops(png):
    """Top row of each red bar, left to right."""
    img = Image.open(png).convert("RGB")
    w, h = img.size
    px = img.load()
    tops, inside = [], False
    for x in range(w):
        col = [y for y in range(h) if px[x, y] == RED]
        if col and not inside:
            tops.append(min(col))
        inside = bool(col)
    return tops


def test_log_axis_in_every_format(tmp_path):
    spec = chart_spec(y=[{"field": "rev", "color": "#D62728"}], y_scale="log")
    outs = render(tmp_path, spec)
    for fmt in ("xlsx", "docx", "pptx"):
        [chart] = chart_parts(outs[fmt])
        bases = [e.get("val") for e in chart.iter(C + "logBase")]
        assert bases == ["10"], (fmt, bases)
    # 10, 100, 1000 sit a decade apart: equal steps on a log axis
    tops = bar_tops(outs["png"])
    assert len(tops) == 3, tops
    assert abs((tops[0] - tops[1]) - (tops[1] - tops[2])) <= 2, tops
    text = subprocess.run(["pdftotext", "-layout", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    for tick in ("1,000", "100", "10"):
        assert tick in text


@pytest.mark.parametrize("kind", ["area", "line", "bar", "scatter"])
def test_log_axis_of_every_kind_that_takes_one(tmp_path, kind):
    # an area chart's workbook axis came out linear (libxlsxwriter refused
    # the log base, warning on stderr)
    spec = chart_spec(kind=kind, y="rev", y_scale="log")
    if kind == "scatter":
        spec["data"]["d"]["rows"] = [[1, 10, 3], [2, 100, 30], [3, 1000, 300]]
    path = write_spec(tmp_path, spec, "k.json")
    p = run_folio("render", path, "-o", tmp_path / "k.xlsx", "-o", tmp_path / "k.pptx", check=0)
    assert p.returncode == 0 and "WARNING" not in p.stderr, p.stderr
    for fmt in ("xlsx", "pptx"):
        [chart] = chart_parts(tmp_path / f"k.{fmt}")
        assert [e.get("val") for e in chart.iter(C + "logBase")] == ["10"], (kind, fmt)


def test_a_linear_axis_is_not_marked_log(tmp_path):
    outs = render(tmp_path, chart_spec())
    for fmt in ("xlsx", "pptx"):
        [chart] = chart_parts(outs[fmt])
        assert not list(chart.iter(C + "logBase"))


def test_series_and_scale_mistakes_are_located(tmp_path):
    spec = chart_spec(y=[{"column": "rev"}, {"field": "cost", "color": "red"}, {"field": "rev", "titel": "R"}],
                      y_scale="logarithmic")
    spec["blocks"].append({"type": "chart", "kind": "pie", "data": "d", "x": "m",
                           "y": [{"field": "rev", "color": "#112233"}], "y_scale": "log"})
    spec["blocks"].append({"type": "chart", "kind": "column", "data": "d", "x": "m", "y": "cost",
                           "y_scale": "log", "stacked": True})
    p = run_folio("validate", write_spec(tmp_path, spec), check=2)
    err = p.stderr
    assert '/blocks/0/y/0/column: unknown key "column"' in err and 'with "field"' in err
    assert '/blocks/0/y/1/color: invalid color' in err and '#RRGGBB' in err
    assert "/blocks/0/y/2/titel" in err and "did you mean 'title'" in err
    assert '/blocks/0/y_scale: unknown scale "logarithmic"' in err and "linear log" in err
    assert "/blocks/1/y/0/color: a pie chart has no series colour" in err
    assert "/blocks/1/y_scale: a pie chart has no value axis" in err
    assert "/blocks/2/y_scale: a stacked chart cannot have a logarithmic axis" in err


def test_log_axis_refuses_non_positive_values(tmp_path):
    spec = chart_spec(y="cost", y_scale="log")
    spec["data"]["d"]["rows"][1][2] = 0
    spec["data"]["d"]["rows"][2][2] = None  # an empty cell is a gap, no error
    p = run_folio("validate", write_spec(tmp_path, spec), check=2)
    assert "/data/d/rows/1/2: value 0" in p.stderr and "y_scale" in p.stderr
    # CSV data: refused where each writer reads it, at its line
    (tmp_path / "l.csv").write_text("m,v\na,5\nb,-2\nc,\n")
    spec = {"folio": 1, "data": {"d": {"csv": "l.csv"}},
            "blocks": [{"type": "chart", "kind": "line", "data": "d", "x": "m", "y": "v", "y_scale": "log"}]}
    path = write_spec(tmp_path, spec, "c.json")
    for fmt in ("pdf", "png", "docx", "pptx"):
        p = run_folio("render", path, "-o", tmp_path / f"c.{fmt}", check=2)
        assert "l.csv:3:2: chart value -2" in p.stderr and "not positive" in p.stderr, (fmt, p.stderr)
        assert not (tmp_path / f"c.{fmt}").exists()


def test_bar_chart_titles_name_the_right_axes(tmp_path):
    # x_title names the categories, y_title the values, also when the bars
    # lie down (Excel's bar chart swaps libxlsxwriter's axes)
    spec = chart_spec(kind="bar", y="rev", x_title="Month", y_title="Revenue")
    outs = render(tmp_path, spec)
    for fmt in ("xlsx", "docx", "pptx"):
        [chart] = chart_parts(outs[fmt])
        titles = {ax.tag.split("}")[1]: "".join(t.text or "" for t in ax.iter(A + "t"))
                  for ax in chart.iter(C + "catAx", C + "valAx")}
        assert titles == {"catAx": "Month", "valAx": "Revenue"}, (fmt, titles)


def test_pie_percentages_round_as_office_does(tmp_path):
    # three equal slices: Office's "0%" labels read 33% each (not 34/33/33)
    spec = {"folio": 1, "data": {"d": {"columns": ["k", "v"], "rows": [["a", 1], ["b", 1], ["c", 1]]}},
            "blocks": [{"type": "chart", "kind": "pie", "data": "d", "x": "k", "y": "v"}]}
    outs = render(tmp_path, spec)
    text = subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    assert text.count("33%") == 3 and "34%" not in text
    [chart] = chart_parts(outs["pptx"])
    fmt = [e.get("formatCode") for e in chart.iter(C + "numFmt")]
    assert "0%" in fmt and [e.get("val") for e in chart.iter(C + "showPercent")] == ["1"]


def test_times_of_one_day_are_labelled_hh_mm(tmp_path):
    rows = [["2024-03-19 09:00", 1], ["2024-03-19 10:00", 3], ["2024-03-19 11:00", 2], ["2024-03-19 12:00", 5]]
    spec = {"folio": 1, "data": {"d": {"columns": ["t", "v"], "rows": rows}},
            "blocks": [{"type": "chart", "kind": "line", "data": "d", "x": "t", "y": "v"},
                       {"type": "chart", "kind": "scatter", "data": "d", "x": "t", "y": "v"}]}
    outs = render(tmp_path, spec)
    text = subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    assert "2024-03-19" not in text
    for t in ("09:00", "10:00", "11:00", "12:00"):
        assert t in text
    line, scatter = chart_parts(outs["pptx"])
    cats = [v.text for v in line.find(f".//{C}cat").iter(C + "v")]
    assert cats == ["09:00", "10:00", "11:00", "12:00"]
    assert [e.get("formatCode") for e in scatter.iter(C + "numFmt")][0] == "hh:mm"
    # several days: the full stamps stay
    rows[-1][0] = "2024-03-20 12:00"
    outs = render(tmp_path, spec, "b")
    text = subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True, check=True).stdout
    assert "2024-03-20" in text
