# test_pptx.py — end-to-end tests of `folio render X.json -o X.pptx`, read back with
# independent readers: zipfile + ElementTree (parts, slide texts in order, schema
# elements), LibreOffice headless (opens and converts; pdfinfo page count = slides),
# pdftotext (the words on the slides), and byte comparison (determinism).
import os
import pathlib
import re
import resource
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import SAMPLES, render_spec, run_folio

C_NS = "http://schemas.openxmlformats.org/drawingml/2006/chart"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"

NS = {
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
}

# Elements folio may emit, per namespace — each defined in ECMA-376 Part 1
# (transitional), PresentationML (pml.xsd) and DrawingML main (dml-main.xsd,
# dml-table in the same namespace). Anything else is a bug or a schema slip.
ALLOWED = {
    NS["p"]: set("""
        sld sldMaster sldLayout presentation presentationPr viewPr cSld spTree nvGrpSpPr
        grpSpPr sp nvSpPr cNvPr cNvSpPr nvPr ph spPr txBody pic nvPicPr cNvPicPr blipFill
        graphicFrame nvGraphicFramePr cNvGraphicFramePr xfrm cxnSp nvCxnSpPr cNvCxnSpPr
        cNvGrpSpPr clrMapOvr clrMap bg bgRef sldLayoutIdLst sldLayoutId txStyles titleStyle
        bodyStyle otherStyle sldMasterIdLst sldMasterId sldIdLst sldId sldSz notesSz
        normalViewPr restoredLeft restoredTop gridSpacing""".split()),
    NS["a"]: set("""
        theme themeElements clrScheme dk1 lt1 dk2 lt2 accent1 accent2 accent3 accent4 accent5
        accent6 hlink folHlink srgbClr schemeClr sysClr fontScheme majorFont minorFont latin ea
        cs fmtScheme fillStyleLst lnStyleLst effectStyleLst effectStyle effectLst bgFillStyleLst
        solidFill noFill tint shade ln prstDash miter objectDefaults extraClrSchemeLst
        xfrm off ext chOff chExt prstGeom avLst gd spLocks picLocks graphicFrameLocks blip stretch
        fillRect bodyPr noAutofit normAutofit lstStyle p pPr r rPr t br fld endParaRPr
        lnSpc spcBef spcAft spcPts spcPct buClr buFont buChar buAutoNum buNone defPPr
        lvl1pPr lvl2pPr lvl3pPr lvl4pPr lvl5pPr lvl6pPr lvl7pPr lvl8pPr lvl9pPr defRPr
        hlinkClick masterClrMapping graphic graphicData tbl tblPr tblGrid gridCol tr tc tcPr
        lnL lnR lnT lnB tblStyleLst txBody round alpha""".split()),
}

have_lo = shutil.which("soffice") is not None


def render(tmp_path, spec, name="deck"):
    return render_spec(tmp_path, spec, "pptx", name=name)[0]


def slide_names(z):
    names = [n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
    return sorted(names, key=lambda n: int(re.search(r"\d+", n).group()))


def slide_texts(pptx):
    """Per slide, the a:t texts in document order (slide-number field excluded)."""
    out = []
    with zipfile.ZipFile(pptx) as z:
        for n in slide_names(z):
            root = ET.fromstring(z.read(n))
            texts = []
            for p in root.iter("{%s}p" % NS["a"]):
                for child in p:
                    if child.tag == "{%s}r" % NS["a"]:
                        texts.append(child.find("a:t", NS).text or "")
            out.append(texts)
    return out


def convert(pptx):
    """LibreOffice → PDF; returns (pages, text)."""
    outdir = pptx.parent / "lo"
    outdir.mkdir(exist_ok=True)
    profile = "file:///tmp/lo-pptx-test-%d" % os.getpid()
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", "pdf",
                    "--outdir", str(outdir), str(pptx)], check=True, capture_output=True, timeout=300)
    pdf = outdir / (pptx.stem + ".pdf")
    assert pdf.exists(), "LibreOffice did not convert " + pptx.name
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    return pages, text


def check_parts(pptx):
    """Every XML part parses; only allowed elements of the p: and a: namespaces."""
    with zipfile.ZipFile(pptx) as z:
        for n in z.namelist():
            if not (n.endswith(".xml") or n.endswith(".rels")):
                continue
            root = ET.fromstring(z.read(n))
            for el in root.iter():
                ns, _, local = el.tag[1:].partition("}")
                if ns in ALLOWED:
                    assert local in ALLOWED[ns], f"{n}: unexpected element {el.tag}"


BULLETS = {
    "folio": 1, "title": "Deck", "author": "Tests", "date": "2024-05-06",
    "blocks": [
        {"type": "heading", "text": "Summary", "level": 1},
        {"type": "paragraph", "text": "Revenue grew **12%**; see [site](https://example.com)."},
        {"type": "list", "ordered": True, "items": ["one", {"text": "two", "items": ["two-a"]}, "three"]},
        {"type": "heading", "text": "Method", "level": 1},
        {"type": "code", "text": "df.groupby('m').sum()\nprint(df)"},
        {"type": "metrics", "items": [{"label": "Revenue", "value": 1204.5, "format": "$#,##0"}]},
    ],
}


def test_bullets_texts_and_schema(tmp_path):
    f = render(tmp_path, BULLETS)
    texts = slide_texts(f)
    assert texts[0] == ["Deck", "Tests  \u00b7  2024-05-06"]
    assert texts[1][:6] == ["Summary", "Revenue grew ", "12%", "; see ", "site", "."]
    assert texts[1][6:] == ["one", "two", "two-a", "three"]
    assert texts[2] == ["Method", "df.groupby('m').sum()", "print(df)", "Revenue", "$1,205"]
    check_parts(f)
    with zipfile.ZipFile(f) as z:
        rels = z.read("ppt/slides/_rels/slide2.xml.rels").decode()
        assert 'Target="https://example.com" TargetMode="External"' in rels
        core = z.read("docProps/core.xml").decode()
        assert "<dc:title>Deck</dc:title>" in core and "2024-05-06" in core


@pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")
def test_libreoffice_opens_bullets(tmp_path):
    f = render(tmp_path, BULLETS)
    pages, text = convert(f)
    assert pages == 3
    for word in ("Deck", "Summary", "Revenue grew", "site", "Method", "$1,205"):
        assert word in text


def test_long_list_continues(tmp_path):
    items = ["Point %d of the review, said in enough words to fill most of a line" % i for i in range(1, 41)]
    f = render(tmp_path, {"folio": 1, "blocks": [{"type": "heading", "text": "Review", "level": 1},
                                                  {"type": "list", "items": items}]})
    texts = slide_texts(f)
    assert len(texts) >= 3
    assert texts[0][0] == "Review"
    assert all(t[0] == "Review (cont.)" for t in texts[1:])
    flat = [s for t in texts for s in t if s.startswith("Point ")]
    assert flat == items  # each once, in order


# a section with a paragraph, then a titled chart: the chart heads a slide of its own
TWO_MONTHS = {"d": {"columns": [{"name": "m", "type": "text"}, {"name": "v", "type": "number"}],
                    "rows": [["Jan", 3], ["Feb", 5]]}}
SALES_THEN_CHART = [
    {"type": "heading", "text": "Sales", "level": 1},
    {"type": "paragraph", "text": "Two months of sales."},
    {"type": "chart", "kind": "bar", "data": "d", "x": "m", "y": ["v"], "title": "Revenue by month"}]


def test_chart_without_a_heading_is_titled_by_its_own_title(tmp_path):
    """Item 8 of issue 14: a chart after other content of a section goes on a
    slide titled with the chart's title, not "Section (cont.)"; an untitled
    chart still continues the section; the section's next content is "(cont.)"."""
    f = render(tmp_path, {"folio": 1, "data": TWO_MONTHS, "blocks": SALES_THEN_CHART + [
        {"type": "chart", "kind": "line", "data": "d", "x": "m", "y": ["v"]},
        {"type": "paragraph", "text": "After the charts."}]})
    titles = [t[0] if t else None for t in slide_texts(f)]
    assert titles == ["Sales", "Revenue by month", "Sales (cont.)", "Sales (cont.)"], titles


def chart_titles(path):
    """Each chart part's own title text ("" when it has none), and whether
    it says its title is deleted, in part order."""
    out = []
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if re.fullmatch(r"ppt/charts/chart\d+\.xml", n))
        for n in sorted(names, key=lambda n: int(re.search(r"(\d+)", n).group(1))):
            chart = ET.fromstring(z.read(n)).find("{%s}chart" % C_NS)
            t = chart.find("{%s}title" % C_NS)
            text = "".join(x.text or "" for x in t.iter("{%s}t" % A_NS)) if t is not None else ""
            deleted = chart.find("{%s}autoTitleDeleted" % C_NS).get("val") == "1"
            out.append((text, deleted))
    return out


def test_chart_titling_its_slide_does_not_repeat_its_title(tmp_path):
    """A slide titled by its chart's title shows it once: the chart part
    drops its own (c:autoTitleDeleted). Under a heading the chart keeps it."""
    f = render(tmp_path, {"folio": 1, "data": TWO_MONTHS, "blocks": SALES_THEN_CHART + [
        {"type": "heading", "text": "Costs", "level": 1},
        {"type": "chart", "kind": "line", "data": "d", "x": "m", "y": ["v"], "title": "Cost trend"}]})
    titles = [t[0] if t else None for t in slide_texts(f)]
    assert titles == ["Sales", "Revenue by month", "Costs"], titles
    assert chart_titles(f) == [("", True), ("Cost trend", False)]


def test_long_paragraph_splits_between_lines(tmp_path):
    words = " ".join("word%d" % i for i in range(700))
    f = render(tmp_path, {"folio": 1, "blocks": [{"type": "heading", "text": "Essay", "level": 1},
                                                  {"type": "paragraph", "text": words}]})
    texts = slide_texts(f)
    assert len(texts) >= 2
    assert " ".join(s.strip() for t in texts for s in t[1:]) == words


def _paragraph_cpu(tmp_path, n):
    """Renders a paragraph of n words (after a heading) twice; returns (the
    lesser user CPU seconds of the two, words, path). User time, the lesser
    of two: a sanitizer build's system time grows with its shadow memory and
    quarantine faster than the words do, and a busy machine slows one run."""
    words = " ".join("word%d" % i for i in range(n))
    spent = []
    for _ in range(2):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        f = render(tmp_path, {"folio": 1, "blocks": [{"type": "heading", "text": "Essay", "level": 1},
                                                      {"type": "paragraph", "text": words}]},
                   name="essay%d" % n)
        spent.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before.ru_utime)
    return min(spent), words, f


def test_paragraph_of_a_megabyte_is_measured_once(tmp_path):
    """A paragraph spread over many slides was measured again, whole, for
    every slide: ~1 MB took 10 s, a cost growing with the square of its
    length. Each slide now measures only as far as it can hold, so 4 times
    the words cost about 4 times the CPU (compared within one run, not
    against seconds; 16 times if it grew with the square); every word still
    arrives, in order."""
    quarter, _, _ = _paragraph_cpu(tmp_path, 25000)
    cpu, words, f = _paragraph_cpu(tmp_path, 100000)
    texts = slide_texts(f)
    assert len(texts) > 100
    assert " ".join(s.strip() for t in texts for s in t[1:]) == words
    assert cpu < 8 * quarter, "100,000 words: %.2f s of user CPU; 25,000: %.2f s" % (cpu, quarter)


def test_table_split_with_header(tmp_path):
    rows = [["Item %03d" % i, i * 1000.25] for i in range(1, 81)]
    spec = {"folio": 1, "data": {"t": {"columns": ["item", "amount"], "rows": rows}},
            "blocks": [{"type": "heading", "text": "Items", "level": 1},
                       {"type": "table", "data": "t", "columns": ["item", {"field": "amount", "title": "Amount",
                                                                           "format": "#,##0.00"}],
                        "totals": {"amount": "sum"}}]}
    f = render(tmp_path, spec)
    texts = slide_texts(f)
    assert len(texts) >= 4
    seen = []
    for k, t in enumerate(texts):
        assert t[0] == ("Items" if k == 0 else "Items (cont.)")
        assert t[1:3] == ["item", "Amount"]
        seen += [s for s in t if s.startswith("Item ")]
    assert seen == [r[0] for r in rows]
    assert texts[0][3:5] == ["Item 001", "1,000.25"]
    assert texts[-1][-2:] == ["Total", "3,240,810.00"]
    check_parts(f)
    if have_lo:
        pages, text = convert(f)
        assert pages == len(texts)
        assert "Item 080" in text and "3,240,810.00" in text


def test_deterministic(tmp_path):
    a = render(tmp_path, BULLETS, "a").read_bytes()
    b = render(tmp_path, BULLETS, "b").read_bytes()
    assert a == b


def test_forbidden_characters_and_unicode(tmp_path):
    f = render(tmp_path, {"folio": 1, "blocks": [
        {"type": "heading", "text": "Bad \u0001 chars \u000b here", "level": 1},
        {"type": "paragraph", "text": "Zürich, 東京, Кыйв, emoji \U0001F600 & <tags>"}]})
    texts = slide_texts(f)  # ElementTree would raise on a forbidden character
    assert texts[0][0] == "Bad  chars  here"
    assert "Zürich, 東京, Кыйв, emoji \U0001F600 & <tags>" in texts[0]


@pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")
@pytest.mark.parametrize("sample", ["sales", "survey", "pnl"])
def test_samples_open_in_libreoffice(tmp_path, sample):
    spec = SAMPLES / sample / (sample + ".json")
    out = tmp_path / (sample + ".pptx")
    run_folio("render", spec, "-o", out, check=0)
    check_parts(out)
    with zipfile.ZipFile(out) as z:
        nslides = len(slide_names(z))
        for n in z.namelist():
            if n.startswith("ppt/slides/slide"):
                root = ET.fromstring(z.read(n))
                for pic in root.iter("{%s}cNvPr" % NS["p"]):
                    if pic.get("name", "").startswith("Chart"):
                        assert pic.get("descr"), n + ": chart without alt text"
    pages, _ = convert(out)
    assert pages == nslides


def test_heading_stays_with_the_code_box_after_it(tmp_path):
    """Keep with next: a heading is never the last thing on a slide whose
    code box went on to the next (the heading reserved less room than the
    code box asks for: its padding and the gap under the heading)."""
    for k in range(1, 17):
        spec = {"folio": 1, "data": {"t": {"columns": ["a", "b"], "rows": [["r%d" % i, i] for i in range(k)]}},
                "blocks": [{"type": "heading", "text": "Detail", "level": 1},
                           {"type": "paragraph", "text": "Some text."},
                           {"type": "table", "data": "t"},
                           {"type": "heading", "text": "Method", "level": 2},
                           {"type": "code", "text": "df = load()\nsummary = df.sum()"}]}
        texts = slide_texts(render(tmp_path, spec, "keep%d" % k))
        with_heading = [t for t in texts if "Method" in t]
        assert len(with_heading) == 1 and "df = load()" in with_heading[0], (k, texts)
