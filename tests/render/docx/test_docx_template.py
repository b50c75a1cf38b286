# test_docx_template.py — `--template FILE.docx`: the template's styles,
# page setup (sectPr) and header (a letterhead) carry into folio's output;
# its body does not. The template is made here by LibreOffice from a flat
# ODF file (data/letterhead.fodt: header "ACME Letterhead", Letter page with
# 1.25in/1.1in side margins, Heading 1 in dark red DejaVu Serif 22pt).
import json
import pathlib
import re
import shutil
import subprocess
import zipfile
import xml.etree.ElementTree as ET

import pytest

from conftest import run_folio
from test_docx import lo_pdf, pdf_pages, pdf_text

HERE = pathlib.Path(__file__).parent
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
SPEC = {"folio": 1, "title": "Templated",
        "blocks": [{"type": "heading", "text": "First section", "level": 1},
                   {"type": "paragraph", "text": "Body of folio."},
                   {"type": "list", "ordered": True, "items": ["one", "two"]}]}


@pytest.fixture(scope="module")
def letterhead(tmp_path_factory):
    if not shutil.which("soffice"):
        pytest.skip("LibreOffice not installed")
    d = tmp_path_factory.mktemp("tpl")
    src = d / "letterhead.fodt"
    shutil.copy(HERE / "data" / "letterhead.fodt", src)
    subprocess.run(["soffice", f"-env:UserInstallation=file://{d}/lo", "--headless",
                    "--convert-to", "docx", "--outdir", str(d), str(src)],
                   capture_output=True, timeout=240, check=True)
    return d / "letterhead.docx"


def render(folder, template, name="out.docx", extra=()):
    (folder / "spec.json").write_text(json.dumps(SPEC))
    out = folder / name
    p = run_folio("render", folder / "spec.json", "-o", out, *extra, "--template", template, "--quiet")
    return out, p


def sectpr(docx):
    xml = zipfile.ZipFile(docx).read("word/document.xml").decode()
    return re.search(r"<w:sectPr.*</w:sectPr>", xml).group(0)


def test_letterhead_styles_and_page_setup(tmp_path, letterhead):
    import docx
    out, p = render(tmp_path, letterhead)
    assert p.returncode == 0, p.stderr
    d = docx.Document(str(out))
    assert [x.text for x in d.sections[0].header.paragraphs] == ["ACME Letterhead"]
    s, t = d.sections[0], docx.Document(str(letterhead)).sections[0]
    assert (s.page_width, s.page_height, s.left_margin, s.right_margin) == \
        (t.page_width, t.page_height, t.left_margin, t.right_margin)
    assert re.sub(r'r:id="[^"]*"', "", sectpr(out)) == re.sub(r'r:id="[^"]*"', "", sectpr(letterhead))
    h1 = d.styles.element.find(f"{W}style[@{W}styleId='Heading1']")
    rpr = h1.find(f"{W}rPr")
    assert rpr.find(f"{W}color").get(f"{W}val").upper() == "8B0000"
    assert rpr.find(f"{W}rFonts").get(f"{W}ascii") == "DejaVu Serif"
    heading = next(x for x in d.paragraphs if x.text == "First section")
    assert heading.style.style_id == "Heading1"
    texts = [x.text for x in d.paragraphs]
    assert "Template body text that must not be copied." not in texts
    assert d.styles.element.find(f"{W}style[@{W}styleId='ListNumber']") is not None  # folio's, added
    pdf = lo_pdf(out, tmp_path)
    page = pdf_text(pdf, 1)
    assert "ACME Letterhead" in page and "First section" in page and "one" in page


def test_folio_docx_as_template(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps({"folio": 1, "blocks": [{"type": "paragraph", "text": "x"}]}))
    run_folio("render", tmp_path / "t.json", "-o", tmp_path / "t.docx", "--theme", "corporate", check=0)
    out, p = render(tmp_path, tmp_path / "t.docx")
    assert p.returncode == 0, p.stderr
    assert sectpr(out).count("Reference") == sectpr(tmp_path / "t.docx").count("Reference")
    import docx
    d = docx.Document(str(out))
    assert [x.text for x in d.paragraphs if x.text][:2] == ["Templated", "First section"]


def test_bad_template_is_input_error_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.docx"
    bad.write_text("not a zip")
    out, p = render(tmp_path, bad)
    assert p.returncode == 2 and "bad.docx" in p.stderr and not out.exists()
    z = tmp_path / "nostyles.docx"
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("word/document.xml", "<x/>")
    out, p = render(tmp_path, z)
    assert p.returncode == 2 and "nostyles.docx" in p.stderr and not out.exists()


def test_docx_template_ignored_for_other_formats(tmp_path, letterhead):
    (tmp_path / "spec.json").write_text(json.dumps(SPEC))
    a = tmp_path / "a.xlsx"
    run_folio("render", tmp_path / "spec.json", "-o", a, "--template", letterhead, check=0)
    b = tmp_path / "b.xlsx"
    run_folio("render", tmp_path / "spec.json", "-o", b, check=0)
    assert a.read_bytes() == b.read_bytes()


# ---- hostile templates: built here from a folio-made .docx -----------------
from hostile_template import BILLION_LAUGHS, XXE, assert_refused, entry_names, parts_of, with_parts, write_zip  # noqa: E402

WNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
RNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG = "http://schemas.openxmlformats.org/package/2006/relationships"


@pytest.fixture
def base(tmp_path):
    """A folio .docx with a header and footer (corporate theme)."""
    (tmp_path / "b.json").write_text(json.dumps({"folio": 1, "blocks": [{"type": "paragraph", "text": "x"}]}))
    run_folio("render", tmp_path / "b.json", "-o", tmp_path / "base.docx", "--theme", "corporate", check=0)
    return tmp_path / "base.docx"


def refused(tmp_path, template, *words):
    out, p = render(tmp_path, template, name=template.stem + "-out.docx")
    return assert_refused(p, template, out, *words)


def numbering_ids(docx):
    root = ET.fromstring(zipfile.ZipFile(docx).read("word/numbering.xml"))
    return ([a.get("{%s}abstractNumId" % WNS) for a in root.findall("{%s}abstractNum" % WNS)],
            [n.get("{%s}numId" % WNS) for n in root.findall("{%s}num" % WNS)])


def test_numbering_end_tag_before_first_num(tmp_path, base):
    """Issue 16.4: "</w:numbering>" before the first "<w:num " made a
    negative-length memcpy. In a comment it is text; after the root it is not XML."""
    ns = 'xmlns:w="%s"' % WNS
    absn = '<w:abstractNum w:abstractNumId="4"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>'
    ok = with_parts(base, tmp_path / "comment.docx", {"word/numbering.xml":
        '<w:numbering %s><!-- </w:numbering> --><![CDATA[</w:numbering>]]>%s'
        '<w:num w:numId="7"><w:abstractNumId w:val="4"/></w:num></w:numbering>' % (ns, absn)})
    out, p = render(tmp_path, ok)
    assert p.returncode == 0, p.stderr
    absids, numids = numbering_ids(out)
    assert absids[0] == "4" and numids[0] == "7"
    assert len(absids) > 1 and len(numids) > 1 and all(int(x) > 4 for x in absids[1:])
    assert all(int(x) > 7 for x in numids[1:])
    import docx
    assert "one" in [x.text for x in docx.Document(str(out)).paragraphs]
    bad = with_parts(base, tmp_path / "after.docx", {"word/numbering.xml":
        '<w:numbering %s>%s</w:numbering><w:num w:numId="1"/>' % (ns, absn)})
    refused(tmp_path, bad, "word/numbering.xml", "not well-formed")


def test_missing_quote_in_sectpr_rid(tmp_path, base):
    """Issue 16.4: r:id="rId5/> (no closing quote) was a NULL dereference."""
    doc = parts_of(base)["word/document.xml"].decode().replace('r:id="rId5"', 'r:id="rId5', 1)
    bad = with_parts(base, tmp_path / "quote.docx", {"word/document.xml": doc})
    refused(tmp_path, bad, "word/document.xml", "not well-formed", "line")


@pytest.mark.parametrize("name,why", [("word/sub/../../../../tmp/x.xml", '".."'),
                                      ("/etc/folio-x.xml", "leading '/'"),
                                      ("word\\evil.xml", "backslash"),
                                      ("word/STYLES.xml", "same part")],
                         ids=["dotdot", "absolute", "backslash", "case-twin"])
def test_bad_entry_names_refused(tmp_path, base, name, why):
    """Issue 16.19: a template entry that is not an OPC part name (or names a
    part twice, ignoring case) refuses the template: nothing with ".." is written."""
    bad = with_parts(base, tmp_path / "names.docx", {name: "<x/>"})
    refused(tmp_path, bad, "not a valid part name" if why != "same part" else "name the same part", why)


def test_relationships_leaving_the_package_or_external_dropped(tmp_path, base):
    """Issue 16.19: a header relationship to file:///etc/passwd, a picture
    outside the package and a header at ../../x.xml are dropped; a web link stays."""
    rels = ('<Relationships xmlns="%s">'
            '<Relationship Id="rId1" Type="%s/image" Target="file:///etc/passwd" TargetMode="External"/>'
            '<Relationship Id="rId2" Type="%s/image" Target="../../../../etc/x.png"/>'
            '<Relationship Id="rId3" Type="%s/hyperlink" Target="https://example.com/" TargetMode="External"/>'
            '<Relationship Id="rId4" Type="%s/oleObject" Target="embeddings/x.bin"/>'
            '</Relationships>' % (PKG, RNS, RNS, RNS, RNS))
    docrels = parts_of(base)["word/_rels/document.xml.rels"].decode().replace(
        'Target="footer1.xml"', 'Target="../../../../tmp/footer1.xml"')
    t = with_parts(base, tmp_path / "ext.docx", {"word/_rels/header1.xml.rels": rels,
                                                "word/_rels/document.xml.rels": docrels,
                                                "word/embeddings/x.bin": "secret"})
    out, p = render(tmp_path, t)
    assert p.returncode == 0, p.stderr
    names = entry_names(out)
    assert not [n for n in names if ".." in n or n.startswith("/")]
    assert "word/embeddings/x.bin" not in names and "word/footer1.xml" not in names
    allrels = b"".join(v for k, v in parts_of(out).items() if k.endswith(".rels")).decode()
    assert "file:" not in allrels and "etc/" not in allrels and "oleObject" not in allrels
    hdr = ET.fromstring(parts_of(out)["word/_rels/header1.xml.rels"])
    assert [(r.get("Id"), r.get("Target")) for r in hdr] == [("rId3", "https://example.com/")]
    import docx
    assert docx.Document(str(out)).sections[0].header is not None


@pytest.mark.parametrize("part,dtd", [("word/theme/theme1.xml", BILLION_LAUGHS),
                                      ("word/styles.xml", XXE),
                                      ("word/_rels/document.xml.rels", BILLION_LAUGHS)],
                         ids=["theme-laughs", "styles-xxe", "rels-laughs"])
def test_dtd_refused(tmp_path, base, part, dtd):
    """Issue 16.19: a DTD (billion laughs, an external entity) in any part
    refuses the template, at once."""
    body = parts_of(base)[part].decode()
    body = body[body.index("?>") + 2:] if body.startswith("<?xml") else body
    if "&" not in body:
        body = body.replace("><", ">&lol9;<", 1) if "lol" in dtd else body.replace("><", ">&xxe;<", 1)
    bad = with_parts(base, tmp_path / "dtd.docx", {part: dtd + body})
    err = refused(tmp_path, bad, part, "DTD")
    assert "root:" not in err


def test_unreadable_rels_exit_2_with_a_message(tmp_path, base):
    """Issue 16.20c: a rels part libxml2 refuses was exit 2 with no message."""
    bad = with_parts(base, tmp_path / "rels.docx", {"word/_rels/document.xml.rels": "<Relationships"})
    refused(tmp_path, bad, "word/_rels/document.xml.rels", "not well-formed")


def test_sectpr_with_foreign_prefix_refused(tmp_path, base):
    """The body's sectPr is copied into folio's document.xml, which declares
    only w: and r:; a prefix from elsewhere would make the output unreadable."""
    doc = parts_of(base)["word/document.xml"].decode().replace(
        "<w:sectPr>", '<w:sectPr><x:evil xmlns:x="urn:x"/>', 1)
    bad = with_parts(base, tmp_path / "prefix.docx", {"word/document.xml": doc})
    refused(tmp_path, bad, "word/document.xml", "outside the w: and r: namespaces")


def test_empty_styles_and_numbering_roots(tmp_path, base):
    """<w:styles/> has no end tag to add folio's styles before: refused;
    <w:numbering/> lends no lists: folio's own numbering is written."""
    ns = 'xmlns:w="%s"' % WNS
    bad = with_parts(base, tmp_path / "nostyles.docx", {"word/styles.xml": "<w:styles %s/>" % ns})
    refused(tmp_path, bad, "word/styles.xml", "has no styles")
    ok = with_parts(base, tmp_path / "nonum.docx", {"word/numbering.xml": "<w:numbering %s/>" % ns})
    out, p = render(tmp_path, ok)
    assert p.returncode == 0, p.stderr
    run_folio("render", tmp_path / "spec.json", "-o", tmp_path / "plain.docx", check=0)
    assert numbering_ids(out) == numbering_ids(tmp_path / "plain.docx")


def test_header_with_a_short_part_name(tmp_path, base):
    """A header relationship resolving to a name shorter than "word/" (h.x)
    was read past its end; it is not a header folio copies."""
    docrels = parts_of(base)["word/_rels/document.xml.rels"].decode().replace(
        'Target="header1.xml"', 'Target="../h.x"')
    t = with_parts(base, tmp_path / "short.docx", {"word/_rels/document.xml.rels": docrels, "h.x": "<w:hdr/>"})
    out, p = render(tmp_path, t)
    assert p.returncode == 0, p.stderr
    assert "h.x" not in entry_names(out) and "word/footer1.xml" in entry_names(out)


def test_section_with_another_prefix_for_relationships_is_refused(tmp_path, base):
    """folio's document.xml binds only w: and r:, so a sectPr naming the
    relationships namespace by another prefix cannot be carried over."""
    doc = zipfile.ZipFile(base).read("word/document.xml").decode()
    sect = re.search(r"<w:sectPr\b.*?</w:sectPr>", doc, re.S).group(0)
    hdr = re.search(r'<w:headerReference [^>]*r:id="([^"]+)"', sect).group(1)
    odd = ("<w:sectPr xmlns:rel='%s'><w:headerReference w:type='default' rel:id='%s'/>"
           "<w:pgSz w:w='12240' w:h='15840'/></w:sectPr>") % (RNS, hdr)
    tpl = with_parts(base, tmp_path / "odd.docx", {"word/document.xml": doc.replace(sect, odd)})
    out, p = render(tmp_path, tpl)
    assert p.returncode == 2, p.stderr
    assert "w: and r:" in p.stderr and not out.exists()


def test_section_single_quotes_and_gt_in_values(tmp_path, base):
    """The sectPr's r:id attributes are found and rewritten through libxml2,
    not by scanning text: single quotes and a '>' inside another attribute's
    value are just XML."""
    doc = zipfile.ZipFile(base).read("word/document.xml").decode()
    sect = re.search(r"<w:sectPr\b.*?</w:sectPr>", doc, re.S).group(0)
    hdr = re.search(r'<w:headerReference [^>]*r:id="([^"]+)"', sect).group(1)
    odd = ("<w:sectPr w:rsidR='a&gt;b'><w:headerReference w:type='default' r:id='%s'/>"
           "<w:pgSz w:w='12240' w:h='15840'/><w:pgMar w:top='1440' w:right='1800' w:bottom='1440'"
           " w:left='1800' w:header='708' w:footer='708' w:gutter='0'/></w:sectPr>") % hdr
    tpl = with_parts(base, tmp_path / "odd.docx", {"word/document.xml": doc.replace(sect, odd)})
    out, p = render(tmp_path, tpl)
    assert p.returncode == 0, p.stderr
    z = zipfile.ZipFile(out)
    got = z.read("word/document.xml").decode()
    new = re.search(r"<w:sectPr\b.*?</w:sectPr>", got, re.S).group(0)
    rid = re.search(r'<w:headerReference w:type="default" r:id="([^"]+)"/>', new).group(1)
    rels = z.read("word/_rels/document.xml.rels").decode()
    target = re.search(r'Id="%s"[^>]*Target="([^"]+)"' % rid, rels) or re.search(r'Target="([^"]+)"[^>]*Id="%s"' % rid, rels)
    assert target and target.group(1).startswith("header") and ("word/" + target.group(1)) in z.namelist()
    assert 'w:rsidR="a&gt;b"' in new and '<w:pgSz w:w="12240"' in new
    import docx
    assert docx.Document(str(out)).sections[0].page_width == 12240 * 635
