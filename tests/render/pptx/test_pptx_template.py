# test_pptx_template.py — `folio render --template FILE.pptx`: decks made by folio and by
# LibreOffice (from a flat-XML .fodp written here, and a folio deck saved through
# LibreOffice) lend their slide master, layouts and theme. Read back with zipfile +
# ElementTree: master/layout/theme parts identical to the template's (names, colors,
# fonts), the template's own slides not copied, slides related to existing layouts,
# chart colors from the template theme; LibreOffice converts the deck (pages = slides);
# bad templates exit 2 naming the file; same bytes twice.
import json
import os
import re
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import run_folio, write_spec

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
NS = {"a": A, "p": P, "c": C}
have_lo = shutil.which("soffice") is not None
needs_lo = pytest.mark.skipif(not have_lo, reason="LibreOffice not installed")

SPEC = {
    "folio": 1, "title": "Templated deck", "subtitle": "Borrowed look", "date": "2024-05-06",
    "data": {"s": {"columns": ["k", {"name": "v", "type": "number"}, {"name": "w", "type": "number"}],
                   "rows": [["a", 1, 2], ["b", 3, 1], ["c", 2, 2]]}},
    "blocks": [
        {"type": "heading", "text": "First section", "level": 1},
        {"type": "paragraph", "text": "Body text placed in the **layout's** body placeholder."},
        {"type": "list", "items": ["one", "two", "three"]},
        {"type": "heading", "text": "Chart section", "level": 1},
        {"type": "chart", "kind": "column", "data": "s", "x": "k", "y": ["v", "w"], "title": "Templated chart"},
    ],
}

FODP = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
 office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:styles>
  <style:style style:name="BrandBg" style:family="drawing-page">
   <style:drawing-page-properties draw:fill="solid" draw:fill-color="#FFF4E0"/></style:style>
 </office:styles>
 <office:automatic-styles>
  <style:page-layout style:name="PM1"><style:page-layout-properties fo:page-width="28cm" fo:page-height="15.75cm"
   style:print-orientation="landscape"/></style:page-layout>
  <style:style style:name="Mdp1" style:family="drawing-page"><style:drawing-page-properties draw:fill="solid"
   draw:fill-color="#FFF4E0" draw:background-size="full"/></style:style>
 </office:automatic-styles>
 <office:master-styles>
  <style:master-page style:name="Brand Master" style:page-layout-name="PM1" draw:style-name="Mdp1">
   <draw:rect svg:x="0cm" svg:y="15cm" svg:width="28cm" svg:height="0.75cm"><text:p>Brand footer band</text:p></draw:rect>
  </style:master-page>
 </office:master-styles>
 <office:body><office:presentation>
  <draw:page draw:name="page1" draw:master-page-name="Brand Master">
   <draw:frame presentation:class="title" svg:x="1.4cm" svg:y="0.6cm" svg:width="25.2cm" svg:height="2.6cm">
    <draw:text-box><text:p>Template slide that must not be copied</text:p></draw:text-box></draw:frame>
  </draw:page>
 </office:presentation></office:body>
</office:document>
"""


def render(tmp_path, name, spec=SPEC, template=None, theme=None, check=0):
    path = write_spec(tmp_path, spec, name + ".json")
    out = tmp_path / (name + ".pptx")
    args = ["render", path, "-o", out]
    if template:
        args += ["--template", template]
    if theme:
        args += ["--theme", theme]
    p = run_folio(*args, check=check)
    return out, p


def soffice(src, fmt, outdir):
    profile = "file:///tmp/lo-pptx-tpl-%d" % os.getpid()
    subprocess.run(["soffice", "-env:UserInstallation=" + profile, "--headless", "--convert-to", fmt,
                    "--outdir", str(outdir), str(src)], check=True, capture_output=True, timeout=300)
    out = outdir / (src.stem + "." + fmt)
    assert out.exists(), "LibreOffice did not convert " + src.name
    return out


def pdf_pages_text(pptx):
    pdf = soffice(pptx, "pdf", pptx.parent / ("lo-" + pptx.stem))
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", info).group(1)), text


def slides(z):
    return sorted((n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                  key=lambda n: int(re.search(r"\d+", n).group()))


def resolve(base, target):
    parts = (base.rsplit("/", 1)[0] + "/" + target).split("/")
    out = []
    for s in parts:
        if s == "..":
            out.pop()
        elif s and s != ".":
            out.append(s)
    return "/".join(out)


def rel_targets(z, part, kind):
    d, b = part.rsplit("/", 1)
    rels = ET.fromstring(z.read(d + "/_rels/" + b + ".rels"))
    return [resolve(part, r.get("Target")) for r in rels if r.get("Type").endswith("/" + kind)]


def master_parts(z):
    """The first master, its layouts and its theme (resolved part names)."""
    master = rel_targets(z, "ppt/presentation.xml", "slideMaster")[0]
    return master, rel_targets(z, master, "slideLayout"), rel_targets(z, master, "theme")


def check_borrowed(template, deck, expect_slides):
    with zipfile.ZipFile(template) as zt, zipfile.ZipFile(deck) as zd:
        tm, tl, tth = master_parts(zt)
        dm, dl, dth = master_parts(zd)
        assert (dm, dl, dth) == (tm, tl, tth)
        for part in [tm, *tl, *tth]:
            assert zd.read(part) == zt.read(part), part + " must be copied unchanged"
        # the layout names and theme survive
        names = [ET.fromstring(zd.read(n)).find("p:cSld", NS).get("name") for n in dl]
        assert names == [ET.fromstring(zt.read(n)).find("p:cSld", NS).get("name") for n in tl]
        # folio's slides only, each on a layout of the template
        ss = slides(zd)
        assert len(ss) == expect_slides
        for s in ss:
            lay = rel_targets(zd, s, "slideLayout")
            assert len(lay) == 1 and lay[0] in dl, (s, lay)
        texts = " ".join(t.text or "" for s in ss for t in ET.fromstring(zd.read(s)).iter("{%s}t" % A))
        assert "must not be copied" not in texts
        assert "Templated deck" in texts and "First section" in texts
        ct = zd.read("[Content_Types].xml").decode()
        for part in [tm, *tl, *tth]:
            assert '"/%s"' % part in ct, part + " has no content type"
        return zd.read(tth[0]) if tth else None


def theme_accents(theme_xml):
    root = ET.fromstring(theme_xml)
    cs = root.find("a:themeElements/a:clrScheme", NS)
    out = []
    for i in range(1, 7):
        el = cs.find("a:accent%d" % i, NS)
        c = el.find("a:srgbClr", NS)
        out.append((c.get("val") if c is not None else el.find("a:sysClr", NS).get("lastClr")).upper())
    return out


def chart_colors(deck):
    with zipfile.ZipFile(deck) as z:
        root = ET.fromstring(z.read("ppt/charts/chart1.xml"))
        return [s.find("c:spPr/a:solidFill/a:srgbClr", NS).get("val").upper()
                for s in root.iter("{%s}ser" % C)]


def test_folio_made_template(tmp_path):
    theme = tmp_path / "brand-theme.json"
    theme.write_text(json.dumps({"folio_theme": 1, "name": "brand",
                                 "fonts": {"heading": "DejaVu Serif", "body": "DejaVu Sans"},
                                 "colors": {"palette": ["#AA0000", "#00AA00", "#0000AA"], "accent": "#AA0000"}}))
    tpl, _ = render(tmp_path, "brand", {"folio": 1, "title": "Brand template", "blocks": [
        {"type": "heading", "text": "Template slide that must not be copied", "level": 1}]}, theme=theme)
    plain, _ = render(tmp_path, "plain")
    deck, _ = render(tmp_path, "deck", template=tpl)
    with zipfile.ZipFile(plain) as z:
        n = len(slides(z))
    theme_xml = check_borrowed(tpl, deck, n)
    assert b"DejaVu Serif" in theme_xml and b"DejaVu Sans" in theme_xml
    assert chart_colors(deck) == theme_accents(theme_xml)[:2]
    assert deck.read_bytes() == render(tmp_path, "deck2", template=tpl)[0].read_bytes()
    if have_lo:
        pages, text = pdf_pages_text(deck)
        assert pages == n
        assert "Templated chart" in text and "must not be copied" not in text


@needs_lo
def test_libreoffice_made_template_from_fodp(tmp_path):
    src = tmp_path / "brand.fodp"
    src.write_text(FODP)
    tpl = soffice(src, "pptx", tmp_path / "tpl")
    deck, _ = render(tmp_path, "deck", template=tpl)
    with zipfile.ZipFile(deck) as z:
        n = len(slides(z))
        master = master_parts(z)[0]
        assert b"fff4e0" in z.read(master).lower()  # the master's background survives
    assert n == 3  # title, "First section", "Chart section"
    theme_xml = check_borrowed(tpl, deck, n)
    assert chart_colors(deck) == theme_accents(theme_xml)[:2]
    pages, text = pdf_pages_text(deck)
    assert pages == n
    for word in ("Templated deck", "First section", "Body text placed", "Templated chart"):
        assert word in text, word
    assert "must not be copied" not in text
    # look at it: PNGs of the rendered slides stay beside the test output
    subprocess.run(["pdftoppm", "-png", "-r", "30", str(deck.parent / "lo-deck" / "deck.pdf"),
                    str(tmp_path / "slide")], check=True)


@needs_lo
def test_folio_deck_saved_by_libreoffice_as_template(tmp_path):
    first, _ = render(tmp_path, "first")
    tpl = soffice(first, "pptx", tmp_path / "lo")
    deck, _ = render(tmp_path, "deck", template=tpl)
    with zipfile.ZipFile(deck) as z:
        n = len(slides(z))
    check_borrowed(tpl, deck, n)
    pages, text = pdf_pages_text(deck)
    assert pages == n and "Templated chart" in text


def test_bad_templates_exit_2_naming_the_file(tmp_path):
    notzip = tmp_path / "notes.pptx"
    notzip.write_text("this is not a zip")
    out, p = render(tmp_path, "bad1", template=notzip, check=2)
    assert "notes.pptx" in p.stderr and "template" in p.stderr
    assert not out.exists()
    nomaster = tmp_path / "empty.pptx"
    with zipfile.ZipFile(nomaster, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns='
                   '"http://schemas.openxmlformats.org/package/2006/content-types"/>')
        z.writestr("ppt/presentation.xml", '<p:presentation xmlns:p="%s"/>' % P)
    out, p = render(tmp_path, "bad2", template=nomaster, check=2)
    assert "empty.pptx" in p.stderr and "no slide master" in p.stderr
    assert not out.exists()
    out, p = render(tmp_path, "bad3", template=tmp_path / "missing.pptx", check=2)
    assert "missing.pptx" in p.stderr


# ---- hostile templates: built here from a folio-made .pptx -----------------
from hostile_template import (BILLION_LAUGHS, assert_refused, entry_names, parts_of, run_measured,  # noqa: E402
                              with_parts, zip_bomb)

RNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


@pytest.fixture
def base(tmp_path):
    tpl, _ = render(tmp_path, "base", {"folio": 1, "title": "Base", "blocks": []}, check=0)
    return tpl


def refused(tmp_path, template, *words):
    out, p = render(tmp_path, template.stem + "-out", template=template, check=None)
    return assert_refused(p, template, out, *words)


def master_rels_part(parts):
    return next(n for n in parts if n.startswith("ppt/slideMasters/_rels/"))


def test_pptx_external_and_escaping_relationships_dropped(tmp_path, base):
    """Issue 16.19: the master's .rels was copied verbatim: a file:///etc/passwd
    relationship and targets outside the package or at folio's own parts survived."""
    parts = parts_of(base)
    name = master_rels_part(parts)
    rels = parts[name].decode().replace("</Relationships>", (
        '<Relationship Id="rId90" Type="%s/image" Target="file:///etc/passwd" TargetMode="External"/>'
        '<Relationship Id="rId91" Type="%s/image" Target="../../../../../tmp/x.png"/>'
        '<Relationship Id="rId92" Type="%s/slideLayout" Target="../slides/slide1.xml"/>'
        '<Relationship Id="rId93" Type="%s/tags" Target="../tags/tag1.xml"/>'
        '<Relationship Id="rId94" Type="%s/hyperlink" Target="https://example.com/" TargetMode="External"/>'
        '</Relationships>') % (RNS, RNS, RNS, RNS, RNS))
    t = with_parts(base, tmp_path / "ext.pptx", {name: rels, "ppt/tags/tag1.xml": "<tags/>",
                                                "ppt/slides/slide1.xml": parts["ppt/slides/slide1.xml"]})
    deck, p = render(tmp_path, "deck", template=t, check=0)
    names = entry_names(deck)
    assert not [n for n in names if ".." in n or n.startswith("/")]
    assert "ppt/tags/tag1.xml" not in names
    out = parts_of(deck)
    allrels = b"".join(v for k, v in out.items() if k.endswith(".rels")).decode()
    assert "file:" not in allrels and "tmp/x.png" not in allrels and "/tags" not in allrels
    mrels = ET.fromstring(out[name])
    ids = {r.get("Id"): r.get("Target") for r in mrels}
    assert ids.get("rId94") == "https://example.com/" and "rId92" not in ids
    assert b"Templated deck" in out["ppt/slides/slide1.xml"]  # folio's slide, not the template's
    # every internal relationship of the copied parts points at a part that exists
    for k, v in out.items():
        if k.endswith(".rels"):
            for r in ET.fromstring(v):
                if r.get("TargetMode") != "External":
                    assert resolve(k.replace("_rels/", "")[:-5], r.get("Target")) in out, (k, r.get("Target"))


def test_pptx_theme_with_dtd_refused(tmp_path, base):
    """Issue 16.19: a theme with a DTD (billion laughs) passed."""
    parts = parts_of(base)
    theme = parts["ppt/theme/theme1.xml"].decode()
    theme = BILLION_LAUGHS + theme[theme.index("?>") + 2:].replace("><", ">&lol9;<", 1)
    refused(tmp_path, with_parts(base, tmp_path / "laughs.pptx", {"ppt/theme/theme1.xml": theme}),
            "ppt/theme/theme1.xml", "DTD")


def test_pptx_zip_bomb_bounded(tmp_path, base):
    """Issue 16.14: parts were read whole at the size the zip claims: a
    2.6 MB template whose theme inflates to 2.5 GiB took gigabytes of memory.
    Now the theme is refused past 8 MiB, with bounded memory."""
    parts = parts_of(base)
    parts.pop("ppt/theme/theme1.xml")
    bomb = zip_bomb(tmp_path / "bomb.pptx", parts, "ppt/theme/theme1.xml")
    assert bomb.stat().st_size < 4 << 20
    spec = write_spec(tmp_path, SPEC, "bomb.json")
    code, err, rss = run_measured("render", spec, "-o", tmp_path / "bomb-out.pptx", "--template", bomb)
    assert code == 2, err
    assert "bomb.pptx" in err and "ppt/theme/theme1.xml" in err and "more than 8 MiB" in err
    assert rss < 200, "peak RSS %.0f MiB" % rss
    assert not (tmp_path / "bomb-out.pptx").exists()


def test_pptx_unreadable_rels_exit_2_with_a_message(tmp_path, base):
    """Issue 16.20c: a rels part libxml2 refuses is exit 2 naming template and part."""
    refused(tmp_path, with_parts(base, tmp_path / "rels.pptx",
                                 {"ppt/_rels/presentation.xml.rels": "<Relationships><Rel"}),
            "ppt/_rels/presentation.xml.rels", "not well-formed")
    refused(tmp_path, with_parts(base, tmp_path / "dots.pptx", {"ppt/./x.xml": "<x/>"}),
            "not a valid part name")
