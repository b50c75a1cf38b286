# test_long_content.py — slides and pages that a reader can use (issue 14,
# item 8): no heading alone at the bottom of a slide, a chart on a slide
# with its own heading, a 100,000-row table cut to what slides can show with
# a note, and a PDF page limit the spec sets. Read back from the PPTX XML
# (lxml), LibreOffice's rendering of the deck, pdfinfo and pdftotext.
import json
import re
import shutil
import subprocess
import zipfile

import pytest
from lxml import etree

from conftest import run_folio, write_spec

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"


def slides(path):
    """[(title, [texts of other shapes], has_chart, has_table)] in slide order."""
    z = zipfile.ZipFile(path)
    names = sorted((n for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)),
                   key=lambda n: int(re.findall(r"\d+", n)[0]))
    out = []
    for n in names:
        root = etree.fromstring(z.read(n))
        title, texts = None, []
        for sp in root.iter(P + "sp"):
            ph = sp.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
            t = "".join(x.text or "" for x in sp.iter(A + "t"))
            if ph is not None and ph.get("type") in ("title", "ctrTitle"):
                title = t
            elif t:
                texts.append(t)
        frames = [g for g in root.iter(P + "graphicFrame")]
        chart = any(g.find(f".//{A}graphicData").get("uri", "").endswith("/chart") for g in frames)
        table = any(g.find(f".//{A}tbl") is not None for g in frames)
        out.append((title, texts, chart, table))
    return out


def deck_spec():
    rows = [[f"r{i}", i] for i in range(20)]
    blocks = [{"type": "heading", "text": "Sales", "level": 1}]
    blocks += [{"type": "paragraph", "text": f"Point {i}: revenue grew in the north and fell in the south."}
               for i in range(9)]
    blocks += [{"type": "heading", "text": "Detail table", "level": 2}, {"type": "table", "data": "d"},
               {"type": "paragraph", "text": "Before the chart."},
               {"type": "heading", "text": "Revenue by region", "level": 2},
               {"type": "chart", "kind": "bar", "data": "d", "x": "k", "y": "v"},
               {"type": "paragraph", "text": "After the chart."}]
    return {"folio": 1, "data": {"d": {"columns": ["k", "v"], "rows": rows}}, "blocks": blocks}


def test_a_heading_stays_with_what_follows_and_a_chart_gets_its_own_slide(tmp_path):
    path = write_spec(tmp_path, deck_spec())
    run_folio("render", path, "-o", tmp_path / "d.pptx", check=0)
    deck = slides(tmp_path / "d.pptx")
    for title, texts, chart, table in deck:
        if texts and texts[-1].startswith("Detail table"):
            assert table, "the heading 'Detail table' ends a slide without its table"
    with_table = next(s for s in deck if any("Detail table" in t for t in s[1]))
    assert with_table[3], "the table starts on the slide of its heading"
    chart_slide = next(s for s in deck if s[2])
    assert chart_slide[0] == "Revenue by region"  # the chart's heading, not "Sales (cont.)"
    assert not any("Before the chart." in t for t in chart_slide[1])
    after = next(s for s in deck if any("After the chart." in t for t in s[1]))
    assert after is not chart_slide


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_shows_the_chart_under_its_heading(tmp_path):
    path = write_spec(tmp_path, deck_spec())
    run_folio("render", path, "-o", tmp_path / "d.pptx", check=0)
    subprocess.run(["soffice", "-env:UserInstallation=file:///tmp/lo-long-content", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(tmp_path / "d.pptx")],
                   capture_output=True, timeout=300, check=True)
    pages = subprocess.run(["pdftotext", "-layout", tmp_path / "d.pdf", "-"], capture_output=True,
                           text=True, check=True).stdout.split("\f")
    page = next(p for p in pages if "Revenue by region" in p)
    assert "r19" in page and "Detail table" not in page


def test_a_hundred_thousand_rows_are_cut_on_slides_with_a_note(tmp_path):
    with open(tmp_path / "big.csv", "w") as f:
        f.write("id,amount\n")
        for i in range(100000):
            f.write(f"{i},{i * 1.5}\n")
    spec = {"folio": 1, "data": {"b": {"csv": "big.csv"}},
            "blocks": [{"type": "heading", "text": "Export", "level": 1}, {"type": "table", "data": "b"}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "b.pptx", check=0)
    deck = slides(tmp_path / "b.pptx")
    assert 10 <= len(deck) <= 40, len(deck)
    notes = [t for s in deck for t in s[1] if "the full table is in the workbook" in t]
    assert notes == ["First 300 of 100,000 rows; the full table is in the workbook."]


def test_pdf_tables_stop_at_the_spec_page_limit(tmp_path):
    rows = [[i, i * 2] for i in range(3000)]
    spec = {"folio": 1, "max_pages": 3, "data": {"t": {"columns": ["id", "v"], "rows": rows}},
            "blocks": [{"type": "table", "data": "t", "totals": {"v": "sum"}}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "t.pdf", check=0)
    info = subprocess.run(["pdfinfo", tmp_path / "t.pdf"], capture_output=True, text=True).stdout
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == 3
    text = subprocess.run(["pdftotext", "-layout", tmp_path / "t.pdf", "-"], capture_output=True, text=True).stdout
    m = re.search(r"First (\d+) of 3,000 rows; the full table is in the workbook\.", text)
    assert m and 50 < int(m.group(1)) < 3000
    assert "8,997,000" in text.replace(" ", "") or "8997000" in text.replace(",", "")  # totals of all rows
    spec["max_pages"] = 0
    p = run_folio("validate", write_spec(tmp_path, spec), "--json", check=2)
    assert any(e["pointer"] == "/max_pages" for e in json.loads(p.stdout))
