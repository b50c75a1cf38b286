# test_bar_order.py — a horizontal bar chart of several series reads top
# down in docx and pptx as in PDF: first category on top, the first series
# on top of each cluster and of the legend. Office lists a reversed bar
# chart's legend to match its bars, LibreOffice does not (issue 37: "plan,
# actual" bars under an "actual, plan" legend), so the chart part is written
# bottom up: rows in reverse, the last series first, the axis unreversed.
# Checked in LibreOffice's own drawing (its PDF: label positions by
# pdftotext -bbox, bar colours down the plot by pixel) and in the part
# (every series' cached points still pair each category with its value).
import re
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from conftest import run_folio, write_spec

C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
ROWS = [["North", 10, 12, 3], ["South", 8, 6, 4], ["East", 5, 7, 2], ["West", 9, 4, 6]]
COLORS = {"plan": "#1F77B4", "actual": "#D62728", "target": "#2CA02C"}
SPEC = {"folio": 1, "title": "Bars",
        "data": {"d": {"columns": ["region", "plan", "actual", "target"], "rows": ROWS}},
        "blocks": [{"type": "chart", "kind": "bar", "data": "d", "x": "region",
                    "y": [{"field": f, "color": c} for f, c in COLORS.items()],
                    "title": "Regions"}]}
have_lo = shutil.which("soffice") is not None


def render(tmp_path, fmt, spec=SPEC):
    out = tmp_path / ("bars." + fmt)
    run_folio("render", write_spec(tmp_path, spec, "bars.json"), "-o", out, "--quiet")
    return out


def chart_part(path):
    z = zipfile.ZipFile(path)
    name = next(n for n in z.namelist() if re.search(r"/charts/chart\d+\.xml$", n))
    return ET.fromstring(z.read(name))


@pytest.mark.parametrize("fmt", ["pptx", "docx"])
def test_every_series_still_pairs_each_category_with_its_value(tmp_path, fmt):
    root = chart_part(render(tmp_path, fmt))
    got = {}
    for ser in root.iter(C + "ser"):
        name = ser.find(f"{C}tx//{C}v").text
        cats = [p.find(C + "v").text for p in ser.find(C + "cat").iter(C + "pt")]
        vals = [float(p.find(C + "v").text) for p in ser.find(C + "val").iter(C + "pt")]
        got[name] = dict(zip(cats, vals))
    cols = ["plan", "actual", "target"]
    assert got == {c: {r[0]: r[1 + k] for r in ROWS} for k, c in enumerate(cols)}


def lo_page(tmp_path, doc):
    profile = "file:///tmp/lo-bar-order-%s" % doc.suffix[1:]
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", "pdf",
                    "--outdir", str(tmp_path / "lo"), str(doc)], check=True, capture_output=True,
                   timeout=300)
    pdf = tmp_path / "lo" / (doc.stem + ".pdf")
    page = 2 if doc.suffix == ".pptx" else 1        # the deck's title slide comes first
    return pdf, page


def word_tops(pdf, page, words):
    """The top (y) of each word's first box on the page, from pdftotext -bbox."""
    html = subprocess.run(["pdftotext", "-bbox", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout
    tops = {}
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="[\d.]+">([^<]*)</word>', html):
        if m.group(3) in words and m.group(3) not in tops:
            tops[m.group(3)] = (float(m.group(2)), float(m.group(1)))
    return tops


def bar_colours_down(pdf, page, tmp_path):
    """The series colours met going down one pixel column through the plot,
    each run once: the order of the bars top to bottom."""
    subprocess.run(["pdftoppm", "-r", "60", "-f", str(page), "-l", str(page), "-png", str(pdf),
                    str(tmp_path / "pg")], check=True)
    img = Image.open(next(tmp_path.glob("pg*.png"))).convert("RGB")
    want = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)): n for n, c in COLORS.items()}
    best = []
    for x in range(0, img.width, 2):                  # the column that crosses the most bars
        runs = []
        for y in range(img.height):
            n = want.get(img.getpixel((x, y)))
            if n and (not runs or runs[-1] != n):
                runs.append(n)
        if len(runs) > len(best):
            best = runs
    return best


@pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")
@pytest.mark.parametrize("fmt", ["pptx", "docx"])
def test_libreoffice_draws_bars_and_legend_top_down(tmp_path, fmt):
    pdf, page = lo_page(tmp_path, render(tmp_path, fmt))
    tops = word_tops(pdf, page, {"North", "South", "East", "West", "plan", "actual", "target"})
    cats = sorted(("North", "South", "East", "West"), key=lambda w: tops[w][0])
    assert cats == ["North", "South", "East", "West"], tops
    legend = sorted(("plan", "actual", "target"), key=lambda w: tops[w][0])
    assert legend == ["plan", "actual", "target"], tops
    assert bar_colours_down(pdf, page, tmp_path) == ["plan", "actual", "target"] * 4


def test_pdf_draws_the_same_order(tmp_path):
    pdf = render(tmp_path, "pdf")
    tops = word_tops(pdf, 1, {"North", "South", "East", "West", "plan", "actual", "target"})
    assert sorted(("North", "South", "East", "West"), key=lambda w: tops[w][0]) == \
        ["North", "South", "East", "West"]
    assert sorted(("plan", "actual", "target"), key=lambda w: tops[w][0]) == ["plan", "actual", "target"]
    assert bar_colours_down(pdf, 1, tmp_path) == ["plan", "actual", "target"] * 4
