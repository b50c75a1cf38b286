# test_pptx_logo.py — a picture that opens the document is the title slide's
# logo, not a slide of its own.
import json
import re
import zipfile

from conftest import SAMPLES, run_folio


def test_leading_image_goes_on_title_slide(tmp_path):
    (tmp_path / "logo.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    spec = {"folio": 1, "title": "Deck", "blocks": [
        {"type": "image", "path": "logo.png", "alt": "ACME logo"},
        {"type": "heading", "text": "One"}, {"type": "paragraph", "text": "text"}]}
    (tmp_path / "s.json").write_text(json.dumps(spec))
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "s.pptx", check=0)
    with zipfile.ZipFile(tmp_path / "s.pptx") as z:
        slides = sorted(n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n))
        assert len(slides) == 2
        first = z.read("ppt/slides/slide1.xml").decode()
        assert "<p:pic>" in first and 'descr="ACME logo"' in first and "Deck" in first
        assert "<p:pic>" not in z.read("ppt/slides/slide2.xml").decode()


# ---- the theme's logo ---------------------------------------------------------
# Top right of every slide but the title slide, placed once per layout (content,
# section, blank) over one media part; on the title slide above the title unless
# the document opens with a picture of its own; never with a --template deck.
import os
import shutil
import subprocess

import pytest

R_IMAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
BRAND_SPEC = {"folio": 1, "title": "Branded deck", "subtitle": "With a logo", "blocks": [
    {"type": "heading", "text": "One"}, {"type": "paragraph", "text": "text"},
    {"type": "heading", "text": "A rather long section title that needs two lines on a slide"},
    {"type": "paragraph", "text": "more"}, {"type": "toc"}]}


def brand_theme(folder, logo="logo.png"):
    (folder / "logo.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    (folder / "brand.json").write_text(json.dumps({"folio_theme": 1, "name": "brand", "logo": logo}))
    return folder / "brand.json"


def render_brand(folder, name="b", spec=BRAND_SPEC, extra=(), check=0):
    (folder / (name + ".json")).write_text(json.dumps(spec))
    out = folder / (name + ".pptx")
    p = run_folio("render", folder / (name + ".json"), "-o", out, "--theme", brand_theme(folder),
                  *extra, check=check)
    return out, p


def rels(z, part):
    d, f = part.rsplit("/", 1)
    return z.read(f"{d}/_rels/{f}.rels").decode()


def test_logo_on_layouts_not_title_layout(tmp_path):
    out, _ = render_brand(tmp_path)
    with zipfile.ZipFile(out) as z:
        media = [n for n in z.namelist() if n.startswith("ppt/media/")]
        assert media == ["ppt/media/image1.png"]  # one copy for the whole deck
        assert z.read(media[0]) == (SAMPLES / "sales" / "logo.png").read_bytes()
        for i in (2, 3, 4):
            part = f"ppt/slideLayouts/slideLayout{i}.xml"
            xml, r = z.read(part).decode(), rels(z, part)
            rid = re.search(r'Id="(rId\d+)" Type="' + re.escape(R_IMAGE) + r'" Target="../media/image1.png"', r)
            assert rid, r
            assert f'r:embed="{rid.group(1)}"' in xml and 'descr="logo"' in xml
            # top right: right edge on the content margin (5% of 960 pt), 0.45 in high
            off = re.search(r'<p:pic>.*?<a:off x="(\d+)" y="(\d+)"/><a:ext cx="(\d+)" cy="(\d+)"/>', xml)
            x, y, cx, cy = map(int, off.groups())
            assert cy == round(0.45 * 914400) and cx == 3 * cy
            assert x + cx == round(912 * 12700) and y < 40 * 12700
        assert "<p:pic>" not in z.read("ppt/slideLayouts/slideLayout1.xml").decode()
        assert "image" not in rels(z, "ppt/slideLayouts/slideLayout1.xml")
        # the slide title box gives way to the logo
        master = z.read("ppt/slideMasters/slideMaster1.xml").decode()
        tx, tcx = map(int, re.search(r'Title Placeholder 1.*?<a:off x="(\d+)".*?<a:ext cx="(\d+)"',
                                     master, re.S).groups())
        assert tx + tcx < x
        # content slides carry no picture of their own; the title slide shows the logo
        slides = sorted((n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                        key=lambda n: int(re.search(r"\d+", n).group()))
        first = z.read(slides[0]).decode()
        assert "<p:pic>" in first and 'descr="logo"' in first
        assert "../media/image1.png" in rels(z, slides[0])
        for s in slides[1:]:
            assert "<p:pic>" not in z.read(s).decode()


def test_leading_image_beats_theme_logo(tmp_path):
    (tmp_path / "own.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    spec = dict(BRAND_SPEC, blocks=[{"type": "image", "path": "own.png", "alt": "ACME logo"}]
                + BRAND_SPEC["blocks"])
    out, _ = render_brand(tmp_path, spec=spec)
    with zipfile.ZipFile(out) as z:
        first = z.read("ppt/slides/slide1.xml").decode()
        assert first.count("<p:pic>") == 1 and 'descr="ACME logo"' in first


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_converts_branded_deck(tmp_path):
    out, _ = render_brand(tmp_path)
    with zipfile.ZipFile(out) as z:
        nslides = sum(1 for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n))
    subprocess.run(["soffice", f"-env:UserInstallation=file:///tmp/lo-pptx-logo-{os.getpid()}",
                    "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(out)],
                   capture_output=True, timeout=300, check=True)
    pdf = tmp_path / "b.pdf"
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"Pages:\s+(\d+)", info).group(1)) == nslides == 4
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    assert {int(l.split()[0]) for l in listing} == {1, 2, 3, 4}, listing


def test_branded_deck_same_bytes_twice(tmp_path):
    a, _ = render_brand(tmp_path, "a")
    b, _ = render_brand(tmp_path, "b")
    assert a.read_bytes() == b.read_bytes()


def test_template_deck_gets_no_logo(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps(BRAND_SPEC))
    tpl = tmp_path / "tpl.pptx"
    run_folio("render", tmp_path / "t.json", "-o", tpl, check=0)  # a plain deck as template
    out, _ = render_brand(tmp_path, extra=("--template", tpl))
    with zipfile.ZipFile(out) as z:
        assert not any(n.startswith("ppt/media/") for n in z.namelist())
        assert not any('descr="logo"' in z.read(n).decode() for n in z.namelist()
                       if n.endswith(".xml"))


def test_missing_logo_is_input_error(tmp_path):
    (tmp_path / "s.json").write_text(json.dumps(BRAND_SPEC))
    (tmp_path / "brand.json").write_text(json.dumps({"folio_theme": 1, "logo": "gone.png"}))
    p = run_folio("render", tmp_path / "s.json", "-o", tmp_path / "s.pptx", "--theme",
                  tmp_path / "brand.json", check=2)
    assert "gone.png" in p.stderr and not (tmp_path / "s.pptx").exists()
