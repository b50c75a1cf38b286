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
