# test_docx_logo.py — a theme's logo in the .docx page header: a picture
# (alt text "logo", 1.5 cm high, aspect kept) right of the header text, its
# media relationship owned by word/header1.xml; a template's own header wins;
# an unreadable logo is an input error naming it.
import json
import re
import zipfile

import docx
import pytest

from conftest import SAMPLES, run_folio
from test_docx import lo_pdf, pdf_pages, pdf_text
from test_docx_template import letterhead  # noqa: F401  (fixture)

R_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
SPEC = {"folio": 1, "title": "Branded report", "date": "2024-05-06",
        "blocks": [{"type": "heading", "text": "Overview", "level": 1},
                   {"type": "paragraph", "text": "Body text under a branded header."},
                   {"type": "page_break"},
                   {"type": "paragraph", "text": "Second page."}]}


def theme(folder, header="{title}", logo="logo.png"):
    (folder / "logo.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    t = {"folio_theme": 1, "name": "brand", "header": header, "logo": logo}
    (folder / "brand.json").write_text(json.dumps(t))
    return folder / "brand.json"


def render(folder, th, name="out.docx", extra=(), check=0):
    (folder / "spec.json").write_text(json.dumps(SPEC))
    out = folder / name
    p = run_folio("render", folder / "spec.json", "-o", out, "--theme", th, *extra, check=check)
    return out, p


def test_logo_in_header_part(tmp_path):
    out, _ = render(tmp_path, theme(tmp_path))
    d = docx.Document(str(out))
    header = d.sections[0].header
    images = [r for r in header.part.rels.values() if r.reltype == R_IMAGE]
    assert len(images) == 1 and images[0].target_part.partname.endswith(".png")
    assert images[0].target_part.blob == (SAMPLES / "sales" / "logo.png").read_bytes()
    assert header.paragraphs[0].text.strip() == "Branded report"
    with zipfile.ZipFile(out) as z:
        xml = z.read("word/header1.xml").decode()
        body = z.read("word/document.xml").decode()
    rid = images[0].rId
    assert f'r:embed="{rid}"' in xml and 'descr="logo"' in xml
    # 1.5 cm high, the 240x80 logo's aspect kept; right tab at the margin
    cx, cy = map(int, re.search(r'<wp:extent cx="(\d+)" cy="(\d+)"', xml).groups())
    assert cy == 540000 and cx == 3 * cy
    assert '<w:tab w:val="right"' in xml
    assert "logo" not in body  # the body is untouched
    # the picture ids stay unique across header and body
    assert 'wp:docPr id="1"' in xml


def test_logo_without_header_text(tmp_path):
    out, _ = render(tmp_path, theme(tmp_path, header=""))
    d = docx.Document(str(out))
    header = d.sections[0].header
    assert not header.is_linked_to_previous
    assert any(r.reltype == R_IMAGE for r in header.part.rels.values())
    xml = zipfile.ZipFile(out).read("word/header1.xml").decode()
    assert '<w:jc w:val="right"/>' in xml and "<w:tab/>" not in xml


def test_libreoffice_shows_logo_on_every_page(tmp_path):
    out, _ = render(tmp_path, theme(tmp_path))
    pdf = lo_pdf(out, tmp_path)
    assert pdf_pages(pdf) == 2
    for page in (1, 2):
        assert "Branded report" in pdf_text(pdf, page)
    import subprocess
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    pages = {int(l.split()[0]) for l in listing}
    assert pages == {1, 2}, listing


def test_same_bytes_twice(tmp_path):
    th = theme(tmp_path)
    a, _ = render(tmp_path, th, "a.docx")
    b, _ = render(tmp_path, th, "b.docx")
    assert a.read_bytes() == b.read_bytes()


def test_template_header_wins(tmp_path, letterhead):  # noqa: F811
    out, _ = render(tmp_path, theme(tmp_path), extra=("--template", letterhead))
    d = docx.Document(str(out))
    assert [p.text for p in d.sections[0].header.paragraphs] == ["ACME Letterhead"]
    with zipfile.ZipFile(out) as z:
        assert not any('descr="logo"' in z.read(n).decode(errors="replace")
                       for n in z.namelist() if n.endswith(".xml"))
        assert not any(n.startswith("word/media/image") for n in z.namelist())


def test_missing_logo_is_input_error(tmp_path):
    th = theme(tmp_path, logo="nowhere/missing.png")
    out, p = render(tmp_path, th, check=2)
    assert "missing.png" in p.stderr
    assert not out.exists()
