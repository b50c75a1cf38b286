# test_theme_contrast.py — every built-in theme gives readable text in every
# format (issue 37, item 2: `midnight` wrote white text with no dark page or
# cell fill into docx and xlsx). For each text the reader finds, the WCAG 2
# contrast ratio between its colour and the background it sits on must be
# at least 4.5 (AA):
#   docx  the run's colour (direct, character style, paragraph style, table
#         style's header row) on its cell's fill or the page (w:background
#         when displayBackgroundShape is set, else white paper);
#   xlsx  every written cell's font colour on its fill (openpyxl);
#   pptx  every run's colour (its own, else the master's title/body style,
#         scheme colours resolved through the theme part) on its shape's or
#         table cell's fill, else the slide background (zipfile + lxml);
#   pdf   rendered pixels: for each word pdftotext -bbox finds, the most
#         common colour in its box (the background) against the pixel that
#         differs most from it (the ink), at 200 dpi.
# PNG charts are drawn from the same display list as the PDF's charts, whose
# texts the PDF check covers.
import pathlib
import re
import subprocess
import zipfile
from collections import Counter

import openpyxl
import pytest
from lxml import etree
from PIL import Image

from conftest import ROOT, run_folio, write_spec

THEMES = sorted(p.stem for p in (ROOT / "templates" / "themes").glob("*.json"))
SPEC = {
    "folio": 1, "title": "Night report", "subtitle": "EMEA", "author": "Finance", "date": "2024-03-19",
    "data": {"d": {"columns": ["region", {"name": "revenue", "format": "#,##0.0"},
                               {"name": "cost", "format": "#,##0.0"}],
                   "rows": [["North", 1204.5, 900], ["South", 980, 1000], ["East", 500, 250]]}},
    "blocks": [
        {"type": "heading", "text": "Summary", "level": 1},
        {"type": "paragraph", "text": "Revenue grew **12%**; see [the dashboard](https://example.com). "
                                      "Some *italic* and `code`."},
        {"type": "list", "items": ["first", {"text": "second", "items": ["nested"]}]},
        {"type": "metrics", "items": [{"label": "Revenue", "value": 1204.5, "format": "$#,##0", "delta": 0.12},
                                      {"label": "Cost", "value": 900, "format": "$#,##0", "delta": -0.05},
                                      {"label": "Flat", "value": 3, "delta": 0}]},
        {"type": "heading", "text": "Detail", "level": 2},
        {"type": "table", "data": "d", "caption": "By region", "totals": {"revenue": "sum"}},
        {"type": "code", "text": "df.groupby('region').sum()", "language": "python"},
        {"type": "chart", "kind": "column", "data": "d", "x": "region", "y": ["revenue", "cost"],
         "title": "Revenue vs cost", "y_title": "EUR"},
    ]}
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"


def lin(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lum(rgb):
    r, g, b = (int(rgb[i:i + 2], 16) for i in (0, 2, 4)) if isinstance(rgb, str) else rgb
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(a, b):
    la, lb = sorted((lum(a), lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.fixture(scope="module", params=THEMES)
def rendered(request, tmp_path_factory):
    d = tmp_path_factory.mktemp(request.param)
    spec = write_spec(d, SPEC)
    run_folio("render", spec, "--theme", request.param,
              *[a for e in ("docx", "xlsx", "pptx", "pdf") for a in ("-o", d / f"o.{e}")], check=0)
    return request.param, d


def assert_readable(pairs, where):
    assert pairs, f"{where}: no text found"
    bad = sorted({(t, fg, bg, round(contrast(fg, bg), 2)) for t, fg, bg in pairs if contrast(fg, bg) < 4.5})
    assert not bad, f"{where}: text below 4.5:1 contrast: {bad[:8]}"


# ---- docx -----------------------------------------------------------------------

def docx_styles(z):
    root = etree.fromstring(z.read("word/styles.xml"))
    styles = {}
    for s in root.iter(W + "style"):
        based = s.find(W + "basedOn")
        color = s.find(f"{W}rPr/{W}color")
        first = s.find(f"{W}tblStylePr[@{W}type='firstRow']")
        styles[s.get(W + "styleId")] = {
            "based": based.get(W + "val") if based is not None else None,
            "color": color.get(W + "val") if color is not None else None,
            "first_color": (first.find(f"{W}rPr/{W}color").get(W + "val")
                            if first is not None and first.find(f"{W}rPr/{W}color") is not None else None),
            "first_fill": (first.find(f"{W}tcPr/{W}shd").get(W + "fill")
                           if first is not None and first.find(f"{W}tcPr/{W}shd") is not None else None),
        }
    return styles


def style_color(styles, sid):
    while sid and sid in styles:
        if styles[sid]["color"] not in (None, "auto"):
            return styles[sid]["color"]
        sid = styles[sid]["based"]
    return None


def docx_pairs(path):
    z = zipfile.ZipFile(path)
    styles = docx_styles(z)
    doc = etree.fromstring(z.read("word/document.xml"))
    settings = etree.fromstring(z.read("word/settings.xml"))
    page = "FFFFFF"
    bgel = doc.find(W + "background")
    if bgel is not None and settings.find(W + "displayBackgroundShape") is not None:
        page = bgel.get(W + "color")
    pairs = []
    parts = [doc] + [etree.fromstring(z.read(n)) for n in z.namelist() if re.match(r"word/(header|footer)\d*\.xml$", n)]
    for part in parts:
        for r in part.iter(W + "r"):
            text = "".join(t.text or "" for t in r.iter(W + "t")).strip()
            if not text:
                continue
            p = next(a for a in r.iterancestors() if a.tag == W + "p")
            ps = p.find(f"{W}pPr/{W}pStyle")
            rs = r.find(f"{W}rPr/{W}rStyle")
            direct = r.find(f"{W}rPr/{W}color")
            color = (direct.get(W + "val") if direct is not None and direct.get(W + "val") != "auto" else None) \
                or (style_color(styles, rs.get(W + "val")) if rs is not None else None)
            bg = page
            tc = next((a for a in r.iterancestors() if a.tag == W + "tc"), None)
            if tc is not None:
                tr = tc.getparent()
                tbl = tr.getparent()
                ts = tbl.find(f"{W}tblPr/{W}tblStyle")
                st = styles.get(ts.get(W + "val")) if ts is not None else None
                shd = tc.find(f"{W}tcPr/{W}shd")
                header = tr.find(f"{W}trPr/{W}tblHeader") is not None
                if shd is not None and shd.get(W + "fill") not in (None, "auto"):
                    bg = shd.get(W + "fill")
                elif header and st and st["first_fill"]:
                    bg = st["first_fill"]
                if header and st and st["first_color"] and direct is None:
                    color = color or st["first_color"]
            color = color or style_color(styles, ps.get(W + "val") if ps is not None else "Normal") \
                or style_color(styles, "Normal") or "000000"
            pairs.append((text, color, bg))
    return pairs


def test_docx_text_is_readable(rendered):
    theme, d = rendered
    assert_readable(docx_pairs(d / "o.docx"), f"{theme}.docx")


# ---- xlsx -----------------------------------------------------------------------

def xlsx_color(c, default):
    if c is None or c.type != "rgb" or not isinstance(c.rgb, str):
        return default  # theme/indexed colours: folio writes explicit ones
    return c.rgb[-6:]


def test_xlsx_text_is_readable(rendered):
    theme, d = rendered
    wb = openpyxl.load_workbook(d / "o.xlsx")
    pairs = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is None or str(c.value).strip() == "":
                    continue
                fill = c.fill.fgColor if c.fill is not None and c.fill.fill_type == "solid" else None
                bg = xlsx_color(fill, "FFFFFF")
                pairs.append((f"{ws.title}!{c.coordinate}", xlsx_color(c.font.color, "000000"), bg))
    assert_readable(pairs, f"{theme}.xlsx")


# ---- pptx -----------------------------------------------------------------------

def pptx_scheme(z):
    root = etree.fromstring(z.read("ppt/theme/theme1.xml"))
    scheme = {}
    for el in root.find(f".//{A}clrScheme"):
        c = el.find(A + "srgbClr")
        s = el.find(A + "sysClr")
        scheme[etree.QName(el).localname] = c.get("val") if c is not None else s.get("lastClr")
    scheme.update(tx1=scheme["dk1"], bg1=scheme["lt1"], tx2=scheme["dk2"], bg2=scheme["lt2"])
    return scheme


def solid(el, scheme):
    """The colour of a:solidFill (or p:bgRef/p:bgPr) under el, or None."""
    if el is None:
        return None
    for c in el.iter(A + "srgbClr", A + "schemeClr"):
        return c.get("val") if c.tag == A + "srgbClr" else scheme[c.get("val")]
    return None


def test_pptx_text_is_readable(rendered):
    theme, d = rendered
    z = zipfile.ZipFile(d / "o.pptx")
    scheme = pptx_scheme(z)
    master = etree.fromstring(z.read("ppt/slideMasters/slideMaster1.xml"))
    master_bg = solid(master.find(f".//{P}bg"), scheme)
    title_color = solid(master.find(f".//{P}titleStyle/{A}lvl1pPr/{A}defRPr"), scheme)
    body_color = solid(master.find(f".//{P}bodyStyle/{A}lvl1pPr/{A}defRPr"), scheme)
    pairs = []
    for name in (n for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)):
        slide = etree.fromstring(z.read(name))
        page = solid(slide.find(f".//{P}bg"), scheme) or master_bg or "FFFFFF"
        for r in slide.iter(A + "r"):
            text = "".join(t.text or "" for t in r.iter(A + "t")).strip()
            if not text:
                continue
            color = solid(r.find(f"{A}rPr/{A}solidFill"), scheme)
            bg = page
            for anc in r.iterancestors():
                if anc.tag == A + "tc":
                    bg = solid(anc.find(f"{A}tcPr/{A}solidFill"), scheme) or bg
                    break
                if anc.tag == P + "sp":
                    bg = solid(anc.find(f"{P}spPr/{A}solidFill"), scheme) or bg
                    if color is None:
                        ph = anc.find(f".//{P}nvPr/{P}ph")
                        is_title = ph is not None and ph.get("type") in ("title", "ctrTitle")
                        color = title_color if is_title else body_color
                    break
            pairs.append((f"{name}: {text}", color or body_color, bg))
    assert_readable(pairs, f"{theme}.pptx")


# ---- pdf ------------------------------------------------------------------------

def test_pdf_text_is_readable(rendered):
    theme, d = rendered
    dpi = 200
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", d / "o.pdf", d / "page"], check=True)
    html = subprocess.run(["pdftotext", "-bbox", d / "o.pdf", "-"], capture_output=True, text=True, check=True).stdout
    pairs = []
    for n, page in enumerate(re.findall(r"<page .*?</page>", html, re.S), 1):
        img = Image.open(sorted(pathlib.Path(d).glob(f"page-*{n}.png"))[0]).convert("RGB")
        k = dpi / 72
        for x0, y0, x1, y1, word in re.findall(
                r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', page):
            box = img.crop((int(float(x0) * k), int(float(y0) * k), int(float(x1) * k) + 1, int(float(y1) * k) + 1))
            px = list(box.getdata())
            if len(px) < 4:
                continue
            bg = Counter(px).most_common(1)[0][0]
            ink = max(px, key=lambda c: contrast(c, bg))
            pairs.append((word, "%02X%02X%02X" % ink, "%02X%02X%02X" % bg))
    assert_readable(pairs, f"{theme}.pdf")
