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
