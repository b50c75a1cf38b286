# test_docx_charts.py — charts in .docx are native chart parts: word/charts/
# chartN.xml with its relationship and content type, c:chart in a wp:inline
# with the alt text kept, series data as literal caches, drawn by LibreOffice.
import json
import xml.etree.ElementTree as ET
import zipfile

from conftest import run_folio
from test_docx import lo_pdf, pdf_pages, pdf_text

C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS = {"c": C, "r": R, "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "wp": "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
      "w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
      "ct": "http://schemas.openxmlformats.org/package/2006/content-types"}

SPEC = {
    "folio": 1, "title": "Charts",
    "data": {"s": {"columns": ["month", {"name": "revenue", "type": "number"}, {"name": "cost", "type": "number"}],
                   "rows": [["Jan", 1200.5, 800], ["Feb", 1350, 700], ["Mar", 1500, 950]]}},
    "blocks": [
        {"type": "heading", "text": "Charts", "level": 1},
        {"type": "chart", "kind": "column", "data": "s", "x": "month", "y": ["revenue", "cost"],
         "title": "Revenue versus cost", "alt": "Revenue and cost per month"},
        {"type": "chart", "kind": "pie", "data": "s", "x": "month", "y": "revenue",
         "title": "Share by month"},
    ],
}


def render(folder, spec):
    (folder / "spec.json").write_text(json.dumps(spec))
    out = folder / "c.docx"
    run_folio("render", folder / "spec.json", "-o", out, "--quiet", check=0)
    return out


def test_chart_parts_relationships_and_inline(tmp_path):
    out = render(tmp_path, SPEC)
    z = zipfile.ZipFile(out)
    names = z.namelist()
    assert "word/charts/chart1.xml" in names and "word/charts/chart2.xml" in names
    assert not any(n.startswith("word/media/") for n in names)  # no PNG rendered
    ct = ET.fromstring(z.read("[Content_Types].xml"))
    overrides = {o.get("PartName"): o.get("ContentType") for o in ct.findall("ct:Override", NS)}
    assert overrides["/word/charts/chart1.xml"] == \
        "application/vnd.openxmlformats-officedocument.drawingml.chart+xml"
    rels = ET.fromstring(z.read("word/_rels/document.xml.rels"))
    chart_rels = {r.get("Id"): r.get("Target") for r in rels if r.get("Type") == R + "/chart"}
    assert sorted(chart_rels.values()) == ["charts/chart1.xml", "charts/chart2.xml"]
    doc = ET.fromstring(z.read("word/document.xml"))
    inlines = doc.findall(".//wp:inline", NS)
    assert len(inlines) == 2
    first = inlines[0]
    assert first.find("wp:docPr", NS).get("descr") == "Revenue and cost per month"
    assert "Share by month" in inlines[1].find("wp:docPr", NS).get("descr")
    gd = first.find("a:graphic/a:graphicData", NS)
    assert gd.get("uri") == C
    rid = gd.find("c:chart", NS).get(f"{{{R}}}id")
    assert chart_rels[rid] == "charts/chart1.xml"
    # series data: literal caches with the values of the dataset
    chart = ET.fromstring(z.read("word/charts/chart1.xml"))
    sers = chart.findall(".//c:barChart/c:ser", NS)
    assert len(sers) == 2
    vals = [float(v.text) for v in sers[0].findall("c:val//c:pt/c:v", NS)]
    cats = [v.text for v in sers[0].findall("c:cat//c:pt/c:v", NS)]
    assert vals == [1200.5, 1350, 1500] and cats == ["Jan", "Feb", "Mar"]
    assert chart.find(".//c:pieChart", NS) is None
    assert ET.fromstring(z.read("word/charts/chart2.xml")).find(".//c:pieChart", NS) is not None


def test_libreoffice_draws_native_charts(tmp_path):
    pdf = lo_pdf(render(tmp_path, SPEC), tmp_path)
    text = "".join(pdf_text(pdf, p) for p in range(1, pdf_pages(pdf) + 1))
    assert "Revenue versus cost" in text and "Share by month" in text
    assert "Jan" in text and "Mar" in text  # axis / legend labels drawn from the caches


def test_same_bytes_twice(tmp_path):
    a = render(tmp_path, SPEC).read_bytes()
    b = render(tmp_path, SPEC).read_bytes()
    assert a == b
