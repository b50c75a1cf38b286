# test_docx.py — end-to-end .docx: folio renders specs, independent readers
# (python-docx, LibreOffice, pdfinfo/pdftotext, xml.etree, zipfile) read back.
#
# Element names: every element of every XML part must be one of the ECMA-376
# transitional names listed below (from the WordprocessingML, DrawingML, OPC
# and properties schemas) — a typo or an invented element fails here before
# Word refuses the file.
import json
import os
import pathlib
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zipfile
import zlib

import pytest

from conftest import run_folio

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {
    W: "w",
    "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing": "wp",
    "http://schemas.openxmlformats.org/drawingml/2006/main": "a",
    "http://schemas.openxmlformats.org/drawingml/2006/picture": "pic",
    "http://schemas.openxmlformats.org/package/2006/content-types": "ct",
    "http://schemas.openxmlformats.org/package/2006/relationships": "rel",
    "http://schemas.openxmlformats.org/package/2006/metadata/core-properties": "cp",
    "http://purl.org/dc/elements/1.1/": "dc",
    "http://purl.org/dc/terms/": "dcterms",
    "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties": "ep",
    "http://schemas.openxmlformats.org/drawingml/2006/chart": "c",
    "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties": "cup",
    "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes": "vt",
}

# ECMA-376 transitional element names folio may emit, by namespace prefix.
ALLOWED = {
    "w": set("""document body p pPr pStyle keepNext keepLines pBdr top left bottom right
        shd tabs tab spacing ind contextualSpacing jc outlineLvl numPr ilvl numId r rPr
        rStyle rFonts b bCs i iCs caps noProof color kern sz szCs u lang t br fldChar instrText
        hyperlink bookmarkStart bookmarkEnd tbl tblPr tblStyle tblW tblLayout tblLook
        tblGrid gridCol tr trPr cantSplit tblHeader tc tcPr tcW tcBorders drawing sectPr
        headerReference footerReference pgSz pgMar cols docGrid styles docDefaults
        rPrDefault pPrDefault style name basedOn next uiPriority semiHidden unhideWhenUsed
        qFormat tblInd tblCellMar tblBorders insideH insideV tblStyleRowBandSize tblStylePr
        numbering abstractNum multiLevelType lvl start numFmt lvlText lvlJc num
        abstractNumId lvlOverride startOverride settings zoom defaultTabStop
        characterSpacingControl updateFields compat compatSetting themeFontLang
        clrSchemeMapping decimalSymbol listSeparator ftr hdr""".split()),
    "wp": {"inline", "extent", "effectExtent", "docPr", "cNvGraphicFramePr"},
    "a": set("""graphicFrameLocks graphic graphicData blip stretch fillRect xfrm off ext
        prstGeom avLst theme themeElements clrScheme dk1 lt1 dk2 lt2 accent1 accent2
        accent3 accent4 accent5 accent6 hlink folHlink srgbClr fontScheme majorFont
        minorFont latin ea cs fmtScheme fillStyleLst solidFill schemeClr tint shade
        lnStyleLst ln prstDash miter effectStyleLst effectStyle effectLst bgFillStyleLst
        objectDefaults extraClrSchemeLst""".split()),
    "pic": {"pic", "nvPicPr", "cNvPr", "cNvPicPr", "blipFill", "spPr"},
    "ct": {"Types", "Default", "Override"},
    "rel": {"Relationships", "Relationship"},
    "cp": {"coreProperties", "lastModifiedBy"},
    "dc": {"title", "subject", "creator"},
    "dcterms": {"created", "modified"},
    "ep": {"Properties", "Application", "DocSecurity"},
    "cup": {"Properties", "property"},          # docProps/custom.xml: folio's provenance
    "vt": {"lpwstr"},
    # native chart parts (dml-chart.xsd), with the DrawingML text elements they use
    "c": set("""chartSpace date1904 lang roundedCorners chart title tx rich overlay
        autoTitleDeleted plotArea layout barChart lineChart areaChart pieChart doughnutChart
        scatterChart barDir grouping varyColors ser idx order v spPr invertIfNegative cat val
        strLit numLit strRef numRef f strCache numCache externalData autoUpdate formatCode
        ptCount pt gapWidth overlap axId marker symbol size smooth dPt
        bubble3D dLbls numFmt dLblPos showLegendKey showVal showCatName showSerName showPercent
        showBubbleSize showLeaderLines firstSliceAng holeSize scatterStyle xVal yVal catAx valAx
        scaling orientation max min majorUnit delete axPos majorGridlines majorTickMark minorTickMark tickLblPos
        txPr crossAx crosses auto lblAlgn lblOffset noMultiLvlLbl crossBetween legend legendPos
        plotVisOnly dispBlanksAs""".split()),
}
ALLOWED["a"] |= set("bodyPr lstStyle p pPr defRPr alpha latin r rPr t endParaRPr noFill round".split())


def tiny_png(w=4, h=3):
    """A valid RGB PNG of w x h pixels (no PIL needed)."""
    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c))
    raw = b"".join(b"\x00" + b"\x20\x60\xc0" * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


FULL = {
    "folio": 1,
    "title": "Q3 sales review", "subtitle": "EMEA", "author": "Finance analytics",
    "date": "2026-09-30",
    "data": {"sales": {"csv": "sales.csv"}},
    "blocks": [
        {"type": "toc"},
        {"type": "heading", "text": "Summary", "level": 1},
        {"type": "paragraph",
         "text": "Revenue grew **12%**; see [the dashboard](https://example.com/a%zz?x=é|y). *Quietly* and `code`."},
        {"type": "list", "items": ["first", {"text": "second", "items": ["nested"]}]},
        {"type": "list", "items": ["one", "two"], "ordered": True},
        {"type": "metrics", "items": [{"label": "Revenue", "value": 1204.5, "format": "$#,##0"}]},
        {"type": "heading", "text": "Details", "level": 2},
        {"type": "table", "data": "sales", "caption": "Monthly sales",
         "columns": ["month", {"field": "revenue", "title": "Revenue", "format": "#,##0.00"}],
         "totals": {"revenue": "sum"}},
        {"type": "chart", "kind": "column", "data": "sales", "x": "month", "y": ["revenue", "cost"],
         "title": "Revenue vs cost", "alt": "Revenue and cost per month"},
        {"type": "image", "path": "logo.png", "width": 120, "alt": "Company logo", "caption": "The logo"},
        {"type": "code", "text": "df.groupby('month').sum()\n    .plot()", "language": "python"},
        {"type": "heading", "text": "Deep", "level": 6},
    ],
}


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "sales.csv").write_text("month,revenue,cost\nJan,1204.5,800\nFeb,980,700.25\nMar,1500.75,900\n")
    (tmp_path / "logo.png").write_bytes(tiny_png())
    return tmp_path


def render(folder, spec, name="out.docx"):
    (folder / "spec.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = folder / name
    run_folio("render", folder / "spec.json", "-o", out, "--quiet", check=0)
    return out


def lo_pdf(docx, outdir):
    """Converts with LibreOffice (private profile); returns the PDF path."""
    if not shutil.which("soffice"):
        pytest.skip("LibreOffice not installed")
    profile = f"file:///tmp/lo-folio-docx-{os.getpid()}"
    p = subprocess.run(["soffice", f"-env:UserInstallation={profile}", "--headless",
                        "--convert-to", "pdf", "--outdir", str(outdir), str(docx)],
                       capture_output=True, text=True, timeout=240)
    pdf = pathlib.Path(outdir) / (docx.stem + ".pdf")
    assert p.returncode == 0 and pdf.exists(), p.stderr
    return pdf


def pdf_pages(pdf):
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(next(l.split()[1] for l in info.splitlines() if l.startswith("Pages:")))


def pdf_text(pdf, page):
    return subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


def parts(docx):
    with zipfile.ZipFile(docx) as z:
        return {n: z.read(n) for n in z.namelist()}


# ---- tests ---------------------------------------------------------------------

def test_python_docx_reads_structure(folder):
    import docx
    d = docx.Document(str(render(folder, FULL)))
    styles = [p.style.name for p in d.paragraphs]
    for s in ["Title", "Subtitle", "Heading 1", "Heading 2", "Heading 6", "List Bullet",
              "List Number", "Caption", "Code", "TOC Heading"]:
        assert s in styles, s
    heading = next(p for p in d.paragraphs if p.style.name == "Heading 1")
    assert heading.text == "Summary"
    para = next(p for p in d.paragraphs if p.text.startswith("Revenue grew"))
    assert [r.text for r in para.runs if r.bold] == ["12%"]
    assert [r.text for r in para.runs if r.italic] == ["Quietly"]
    assert "the dashboard" in para._p.xml  # inside a w:hyperlink
    table = d.tables[1]  # tables[0] holds the metrics
    assert [c.text for c in table.rows[0].cells] == ["month", "Revenue"]
    assert [c.text for c in table.rows[1].cells] == ["Jan", "1,204.50"]
    assert [c.text for c in table.rows[-1].cells] == ["Total", "3,685.25"]
    assert all(r.bold for r in table.rows[-1].cells[1].paragraphs[0].runs)
    assert table.rows[1].cells[1].paragraphs[0].style.name == "Table Number"
    assert "$1,205" in [c.text for c in d.tables[0].rows[0].cells][0]
    cp = d.core_properties
    assert (cp.title, cp.author, cp.subject) == ("Q3 sales review", "Finance analytics", "EMEA")
    assert cp.created.isoformat().startswith("2026-09-30")
    # the style definitions themselves: outline levels, table style, numbering
    st = d.styles
    assert st["Heading 1"].element.pPr.find(f"{{{W}}}outlineLvl").get(f"{{{W}}}val") == "0"
    assert st["Heading 6"].element.pPr.find(f"{{{W}}}outlineLvl").get(f"{{{W}}}val") == "5"
    assert st["Folio Table"].type == 3  # WD_STYLE_TYPE.TABLE


def test_package_parts_wellformed_and_schema_names(folder):
    ps = parts(render(folder, FULL))
    assert list(ps)[0] == "[Content_Types].xml"
    for name in ["word/document.xml", "word/styles.xml", "word/numbering.xml", "word/settings.xml",
                 "word/footer1.xml", "word/theme/theme1.xml", "docProps/core.xml", "docProps/app.xml",
                 "word/_rels/document.xml.rels", "_rels/.rels"]:
        assert name in ps, name
    for name, data in ps.items():
        if not (name.endswith(".xml") or name.endswith(".rels")):
            continue
        root = ET.fromstring(data)  # well-formed or raises
        for el in root.iter():
            uri, local = el.tag[1:].split("}")
            prefix = NS.get(uri)
            assert prefix, f"{name}: unexpected namespace {uri}"
            assert local in ALLOWED[prefix], f"{name}: <{prefix}:{local}> not in the schema list"
    ct = ps["[Content_Types].xml"].decode()
    assert 'Extension="png"' in ct and "/word/document.xml" in ct


def test_relationships_and_pictures(folder):
    ps = parts(render(folder, FULL))
    rels = ET.fromstring(ps["word/_rels/document.xml.rels"])
    links = [r for r in rels if r.get("TargetMode") == "External"]
    assert [r.get("Target") for r in links] == ["https://example.com/a%25zz?x=%C3%A9%7Cy"]
    images = [r.get("Target") for r in rels if r.get("Type").endswith("/image")]
    assert images == ["media/image1.png"]  # the logo; the chart is a native chart part
    charts = [r.get("Target") for r in rels if r.get("Type").endswith("/chart")]
    assert charts == ["charts/chart1.xml"]
    assert ps["word/media/image1.png"][:8] == b"\x89PNG\r\n\x1a\n"
    doc = ps["word/document.xml"].decode()
    assert 'descr="Revenue and cost per month"' in doc
    assert 'descr="Company logo"' in doc
    # 120 px wide at 96 dpi = 1143000 EMU, aspect kept (4x3)
    assert '<wp:extent cx="1143000" cy="857250"/>' in doc
    assert "SEQ Figure" in doc and "SEQ Table" in doc


def test_toc_footer_header_repeat(folder):
    ps = parts(render(folder, FULL))
    doc = ps["word/document.xml"].decode()
    assert 'TOC \\o &quot;1-3&quot; \\h \\z \\u' in doc or 'TOC \\o "1-3" \\h \\z \\u' in doc
    assert '<w:fldChar w:fldCharType="begin" w:dirty="true"/>' in doc
    assert "<w:updateFields w:val=\"true\"/>" in ps["word/settings.xml"].decode()
    assert "<w:tblHeader/>" in doc and '<w:tblStyle w:val="FolioTable"/>' in doc
    footer = ps["word/footer1.xml"].decode()
    assert " PAGE " in footer and " NUMPAGES " in footer
    assert "<w:pgSz w:w=\"11906\" w:h=\"16838\"/>" in doc  # A4 from the default theme
    assert "<w:footerReference" in doc


def test_libreoffice_pages_and_repeated_header(folder):
    rows = [[f"row {i}", i * 10.5] for i in range(1, 181)]
    spec = {"folio": 1, "title": "Pages",
            "data": {"t": {"columns": ["name", "amount"], "rows": rows}},
            "blocks": [{"type": "paragraph", "text": "one"}, {"type": "page_break"},
                       {"type": "paragraph", "text": "two"}, {"type": "page_break"},
                       {"type": "table", "data": "t",
                        "columns": [{"field": "name", "title": "Name"},
                                    {"field": "amount", "title": "Amount", "format": "#,##0.00"}]}]}
    pdf = lo_pdf(render(folder, spec), folder)
    n = pdf_pages(pdf)
    assert n >= 5, n  # 2 pages of text, 180 rows need several more
    for page in range(3, n + 1):
        assert "Amount" in pdf_text(pdf, page), f"header not repeated on page {page}"
    assert "1,890.00" in pdf_text(pdf, n)
    assert f"Page {n} of {n}" in pdf_text(pdf, n)


def test_full_sample_converts(folder):
    pdf = lo_pdf(render(folder, FULL), folder)
    assert pdf_pages(pdf) >= 1
    text = "".join(pdf_text(pdf, p) for p in range(1, pdf_pages(pdf) + 1))
    for s in ["Q3 sales review", "Summary", "1,204.50", "3,685.25", "Table 1: Monthly sales",
              "Figure 1: The logo"]:
        assert s in text, s


def test_deterministic(folder):
    a = render(folder, FULL, "a.docx").read_bytes()
    b = render(folder, FULL, "b.docx").read_bytes()
    assert a == b
    with zipfile.ZipFile(folder / "a.docx") as z:
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in z.infolist())
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in z.infolist())


def test_forbidden_characters_never_break_the_file(folder):
    (folder / "bad.csv").write_bytes(b"name,v\nctl\x01\x0bx,1\nnon-char \xef\xbf\xbe ok,2\n")
    spec = {"folio": 1, "title": "Bad \u0001 title \ufffe",
            "data": {"b": {"csv": "bad.csv"}},
            "blocks": [{"type": "heading", "text": "H\u0002", "level": 1},
                       {"type": "paragraph", "text": "p \u0003\u001f q \uffff end"},
                       {"type": "table", "data": "b"}]}
    out = render(folder, spec)
    for name, data in parts(out).items():
        if name.endswith(".xml") or name.endswith(".rels"):
            ET.fromstring(data)
            for c in "\x01\x02\x03\x0b\x1f":
                assert c.encode() not in data, (name, c)
    import docx
    d = docx.Document(str(out))
    assert any(p.text == "p  q  end" for p in d.paragraphs)
    lo_pdf(out, folder)
