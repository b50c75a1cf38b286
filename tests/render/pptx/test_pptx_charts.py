# test_pptx_charts.py — native charts in .pptx (render/chartxml): each kind read back
# from ppt/charts/chartN.xml with zipfile + ElementTree (chart type element, series
# count, ptCount, values and gaps, palette colors from the theme, axis number format),
# chart parts use only schema elements, LibreOffice draws them (pdftotext finds the
# title and axis labels), the slide references the part, and bytes are deterministic.
import json
import os
import re
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import run_folio, write_spec

C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS = {"c": C, "a": A, "p": P, "r": R}
CHART_CT = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
CHART_REL = R + "/chart"

# Elements a chart part may hold: ECMA-376 Part 1 dml-chart.xsd (c:) and the
# DrawingML main elements used for text and shape properties (a:).
ALLOWED = {
    C: set("""
        chartSpace date1904 lang roundedCorners chart title tx rich overlay autoTitleDeleted
        plotArea layout barChart lineChart areaChart pieChart doughnutChart scatterChart
        barDir grouping varyColors ser idx order v spPr invertIfNegative cat val strLit numLit
        strRef numRef f strCache numCache externalData autoUpdate
        formatCode ptCount pt gapWidth overlap axId marker symbol size smooth dPt bubble3D
        dLbls numFmt dLblPos showLegendKey showVal showCatName showSerName showPercent
        showBubbleSize showLeaderLines firstSliceAng holeSize scatterStyle xVal yVal
        catAx valAx scaling orientation max min majorUnit delete axPos majorGridlines majorTickMark
        minorTickMark tickLblPos txPr crossAx crosses auto lblAlgn lblOffset noMultiLvlLbl
        crossBetween legend legendPos plotVisOnly dispBlanksAs""".split()),
    A: set("""
        bodyPr lstStyle p pPr defRPr solidFill srgbClr alpha latin r rPr t endParaRPr ln
        noFill round""".split()),
}

THEME = {"folio_theme": 1, "name": "test-palette",
         "colors": {"palette": ["#112233", "#445566", "#778899", "#AABBCC"]}}
PALETTE = ["112233", "445566", "778899", "AABBCC"]

DATA = {
    "s": {"columns": ["month", {"name": "revenue", "type": "number", "format": "$#,##0"},
                      {"name": "cost", "type": "number"}],
          "rows": [["Jan", 1200.5, 800], ["Feb", 1350, None], ["Mar", None, 950], ["Apr", 1500, 1000.25]]},
    "d": {"columns": [{"name": "day", "type": "date", "format": "yyyy-mm-dd"}, {"name": "v", "type": "number"}],
          "rows": [[{"date": "2024-01-01"}, 3], [{"date": "2024-01-02"}, 5], [{"date": "2024-01-05"}, 4]]},
}

KINDS = {
    # kind: (block extras, chart element, series expected)
    "column": ({"y": ["revenue", "cost"], "x_title": "Month axis", "y_title": "EUR axis"}, "barChart", 2),
    "bar": ({"y": ["revenue", "cost"], "stacked": True, "legend": "bottom"}, "barChart", 2),
    "line": ({"y": ["revenue", "cost"]}, "lineChart", 2),
    "area": ({"y": ["revenue", "cost"], "stacked": True}, "areaChart", 2),
    "pie": ({"y": "cost"}, "pieChart", 1),
    "doughnut": ({"y": "cost", "legend": "bottom"}, "doughnutChart", 1),
    "scatter": ({"data": "d", "x": "day", "y": "v", "x_title": "Day axis"}, "scatterChart", 1),
}

have_lo = shutil.which("soffice") is not None


def spec_for(kinds):
    blocks = []
    for k in kinds:
        extra, _, _ = KINDS[k]
        b = {"type": "chart", "kind": k, "data": "s", "x": "month", "title": "Chart of " + k}
        b.update(extra)
        blocks += [{"type": "heading", "text": "Slide " + k, "level": 1}, b]
    return {"folio": 1, "title": "Charts", "date": "2024-05-06", "data": DATA, "blocks": blocks}


def render(tmp_path, spec, name="charts", theme=True):
    path = write_spec(tmp_path, spec, name + ".json")
    out = tmp_path / (name + ".pptx")
    args = ["render", path, "-o", out]
    if theme:
        tpath = tmp_path / "palette.json"
        tpath.write_text(json.dumps(THEME))
        args += ["--theme", tpath]
    run_folio(*args, check=0)
    return out


def chart_parts(z):
    names = [n for n in z.namelist() if re.fullmatch(r"ppt/charts/chart\d+\.xml", n)]
    return sorted(names, key=lambda n: int(re.search(r"\d+", n).group()))


def values(ser, tag="val"):
    """{idx: float} of a series' numCache (c:numRef into the workbook) under c:<tag>."""
    lit = ser.find("c:%s/c:numRef/c:numCache" % tag, NS)
    return int(lit.find("c:ptCount", NS).get("val")), \
        {int(pt.get("idx")): float(pt.find("c:v", NS).text) for pt in lit.findall("c:pt", NS)}


@pytest.fixture(scope="module")
def deck(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("charts")
    return render(tmp, spec_for(list(KINDS)))


def test_chart_parts_per_kind(deck):
    with zipfile.ZipFile(deck) as z:
        parts = chart_parts(z)
        assert len(parts) == len(KINDS)
        assert not [n for n in z.namelist() if n.startswith("ppt/media/")], "charts must not be pictures"
        ct = z.read("[Content_Types].xml").decode()
        for (kind, (extra, elem, nser)), part in zip(KINDS.items(), parts):
            assert 'PartName="/%s" ContentType="%s"' % (part, CHART_CT) in ct
            root = ET.fromstring(z.read(part))
            group = root.find("c:chart/c:plotArea/c:" + elem, NS)
            assert group is not None, (kind, part)
            sers = group.findall("c:ser", NS)
            assert len(sers) == nser, kind
            title = "".join(t.text for t in root.findall("c:chart/c:title//a:t", NS))
            assert title == "Chart of " + kind
            if kind in ("column", "bar"):
                assert group.find("c:barDir", NS).get("val") == ("col" if kind == "column" else "bar")
            if kind == "bar":
                assert group.find("c:grouping", NS).get("val") == "stacked"
                assert group.find("c:overlap", NS).get("val") == "100"
                assert root.find("c:chart/c:legend/c:legendPos", NS).get("val") == "b"
            if kind == "column":
                assert group.find("c:grouping", NS).get("val") == "clustered"
                assert group.find("c:overlap", NS) is None
                assert root.find("c:chart/c:legend/c:legendPos", NS).get("val") == "r"
                axes = root.find("c:chart/c:plotArea", NS)
                vfmt = axes.find("c:valAx/c:numFmt", NS)
                assert vfmt.get("formatCode") == "$#,##0" and vfmt.get("sourceLinked") == "0"
                assert "".join(t.text for t in axes.findall("c:catAx/c:title//a:t", NS)) == "Month axis"
                assert "".join(t.text for t in axes.findall("c:valAx/c:title//a:t", NS)) == "EUR axis"
            if kind == "area":
                assert group.find("c:grouping", NS).get("val") == "stacked"
            if kind == "line":
                assert group.find("c:marker", NS).get("val") == "1"
                assert sers[0].find("c:marker/c:symbol", NS).get("val") == "circle"
            if kind in ("column", "bar", "line", "area"):
                cats = [pt.find("c:v", NS).text for pt in sers[0].findall("c:cat/c:strRef/c:strCache/c:pt", NS)]
                assert cats == ["Jan", "Feb", "Mar", "Apr"]
                assert values(sers[0]) == (4, {0: 1200.5, 1: 1350.0, 3: 1500.0})  # Mar missing: a gap
                assert values(sers[1]) == (4, {0: 800.0, 2: 950.0, 3: 1000.25})
                assert [s.find("c:tx/c:strRef/c:strCache/c:pt/c:v", NS).text for s in sers] == ["revenue", "cost"]
                for i, s in enumerate(sers):  # series color = palette[i]
                    fills = [e.get("val") for e in s.findall("c:spPr//a:srgbClr", NS)]
                    assert fills and fills[0] == PALETTE[i], (kind, fills)
            if kind in ("pie", "doughnut"):
                dpts = sers[0].findall("c:dPt", NS)
                assert [d.find("c:spPr/a:solidFill/a:srgbClr", NS).get("val") for d in dpts] == \
                    [PALETTE[i % 4] for i in range(4)]
                lbl = sers[0].find("c:dLbls", NS)
                assert lbl.find("c:showPercent", NS).get("val") == "1"
                assert lbl.find("c:numFmt", NS).get("formatCode") == "0%"
                assert values(sers[0]) == (4, {0: 800.0, 2: 950.0, 3: 1000.25})
                assert group.find("c:varyColors", NS).get("val") == "1"
            if kind == "doughnut":
                assert int(group.find("c:holeSize", NS).get("val")) >= 10
            if kind == "scatter":
                assert group.find("c:scatterStyle", NS).get("val") == "lineMarker"
                assert sers[0].find("c:spPr/a:ln/a:noFill", NS) is not None  # markers only
                n, xs = values(sers[0], "xVal")
                assert n == 3 and xs == {0: 45292.0, 1: 45293.0, 2: 45296.0}  # DATE serials
                assert values(sers[0], "yVal") == (3, {0: 3.0, 1: 5.0, 2: 4.0})
                axes = root.findall("c:chart/c:plotArea/c:valAx", NS)
                assert len(axes) == 2 and axes[0].find("c:numFmt", NS).get("formatCode") == "yyyy-mm-dd"
                # whole days: a half-day step would label every date twice
                assert axes[0].find("c:majorUnit", NS).get("val") == "1"
                assert axes[0].find("c:scaling/c:min", NS).get("val") == "45292"


def test_chart_parts_schema_elements_and_order(deck):
    chart_seq = ["title", "autoTitleDeleted", "plotArea", "legend", "plotVisOnly", "dispBlanksAs"]
    space_seq = ["date1904", "lang", "roundedCorners", "chart", "spPr", "txPr", "externalData"]
    with zipfile.ZipFile(deck) as z:
        for part in chart_parts(z):
            root = ET.fromstring(z.read(part))
            for el in root.iter():
                ns, _, local = el.tag[1:].partition("}")
                assert ns in ALLOWED and local in ALLOWED[ns], f"{part}: unexpected element {el.tag}"
            kids = [e.tag.split("}")[1] for e in root]
            assert kids == [k for k in space_seq if k in kids]
            kids = [e.tag.split("}")[1] for e in root.find("c:chart", NS)]
            assert kids == [k for k in chart_seq if k in kids]


def test_slide_references_chart_with_alt_text(deck):
    with zipfile.ZipFile(deck) as z:
        root = ET.fromstring(z.read("ppt/slides/slide2.xml"))
        frame = root.find(".//p:graphicFrame", NS)
        assert frame is not None
        assert frame.find("p:nvGraphicFramePr/p:cNvPr", NS).get("descr") == "column chart: Chart of column"
        gd = frame.find("a:graphic/a:graphicData", NS)
        assert gd.get("uri") == C
        rid = gd.find("c:chart", NS).get("{%s}id" % R)
        rels = ET.fromstring(z.read("ppt/slides/_rels/slide2.xml.rels"))
        rel = [r for r in rels if r.get("Id") == rid][0]
        assert rel.get("Type") == CHART_REL and rel.get("Target") == "../charts/chart1.xml"


def test_deterministic(tmp_path):
    spec = spec_for(list(KINDS))
    assert render(tmp_path, spec, "a").read_bytes() == render(tmp_path, spec, "b").read_bytes()


def test_empty_and_textual_data_still_write(tmp_path):
    spec = {"folio": 1, "data": {"e": {"columns": ["k", {"name": "v", "type": "number"}], "rows": []}},
            "blocks": [{"type": "chart", "kind": "column", "data": "e", "x": "k", "y": "v"},
                       {"type": "chart", "kind": "pie", "data": "e", "x": "k", "y": "v"}]}
    out = render(tmp_path, spec, "empty", theme=False)
    with zipfile.ZipFile(out) as z:
        for part in chart_parts(z):
            root = ET.fromstring(z.read(part))
            assert root.find("c:chart/c:autoTitleDeleted", NS).get("val") == "1"
            for data in [e for e in root.iter() if e.tag in ("{%s}cat" % C, "{%s}val" % C)]:  # the name keeps its one point
                for pc in data.iter("{%s}ptCount" % C):
                    assert pc.get("val") == "0"


@pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")
def test_libreoffice_draws_the_charts(deck, tmp_path):
    profile = "file:///tmp/lo-pptx-charts-%d" % os.getpid()
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", "pdf",
                    "--outdir", str(tmp_path), str(deck)], check=True, capture_output=True, timeout=300)
    pdf = tmp_path / (deck.stem + ".pdf")
    assert pdf.exists()
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == 1 + len(KINDS)
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    for k, page in zip(KINDS, pages[1:]):
        assert "Chart of " + k in page, k
    col = pages[1]
    for word in ("Month axis", "EUR axis", "Jan", "Apr", "$1,500", "$500", "revenue", "cost"):
        assert word in col, word
    assert "%" in pages[5] and "Jan" in pages[5]       # pie: percentage labels, category legend
    assert "2024-01-0" in pages[7] and "Day axis" in pages[7]  # scatter: date axis labels
