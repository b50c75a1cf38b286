# test_emoji.py — colour emoji (issue 15): Noto Color Emoji's pictures in PNG
# (painted through cairo) and in PDF (one image XObject per distinct emoji,
# the character kept in the text layer), where layout put the glyph.
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import run_folio

Image = pytest.importorskip("PIL.Image")
FONT = pathlib.Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
pytestmark = pytest.mark.skipif(not FONT.exists() or not shutil.which("pdftoppm"),
                                reason="fonts-noto-color-emoji and poppler-utils are needed")

EMOJI = "🚀✅📈😀"   # outside the BMP and inside it (✅ U+2705)
TEXT = "Launch 🚀 done ✅ growth 📈 smile 😀 again 🚀 and ✅"


def render(tmp_path, blocks, *exts, name="s"):
    spec = tmp_path / f"{name}.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": blocks}, ensure_ascii=False), encoding="utf-8")
    outs = [tmp_path / f"{name}.{e}" for e in exts]
    args = ["render", spec]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    return outs


def chart(title):
    return {"type": "chart", "kind": "bar", "title": title, "x": "k", "y": "v",
            "data": {"columns": ["k", "v"], "rows": [["a", 1], ["b", 2]]}}


def coloured(img, box):
    """Pixels in box that are clearly coloured (not grey: channels differ)."""
    px = img.convert("RGB").crop(box).getdata()
    return sum(1 for r, g, b in px if max(r, g, b) - min(r, g, b) > 60)


def test_png_emoji_drawn_in_colour(tmp_path):
    (with_emoji,) = render(tmp_path, [chart("Sales " + EMOJI)], "png", name="e")
    (plain,) = render(tmp_path, [chart("Sales")], "png", name="p")
    a, b = Image.open(with_emoji), Image.open(plain)
    band = (0, 0, a.width, 40)   # the title; the bars below are coloured too
    assert coloured(b, band) == 0
    assert coloured(a, band) > 4 * 40, "the emoji in the title are not in colour"


def test_png_emoji_in_shaped_right_to_left_title_drawn_in_colour(tmp_path):
    """A chart title in Arabic (shaped text) with emoji: the emoji in colour."""
    (with_emoji,) = render(tmp_path, [chart("المبيعات 🚀 ✅")], "png", name="e")
    (plain,) = render(tmp_path, [chart("المبيعات")], "png", name="p")
    band = (0, 0, Image.open(plain).width, 40)
    assert coloured(Image.open(plain), band) == 0
    assert coloured(Image.open(with_emoji), band) > 2 * 40


def test_pdf_one_image_per_distinct_emoji_and_text_layer(tmp_path):
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": TEXT}], "pdf")
    lst = subprocess.run(["pdfimages", "-list", pdf], capture_output=True, text=True, check=True).stdout
    rows = [ln.split() for ln in lst.splitlines()[2:]]
    images = {r[10] for r in rows if r[2] == "image"}
    masks = {r[10] for r in rows if r[2] == "smask"}
    assert len(images) == len(set(EMOJI)) and len(masks) == len(set(EMOJI))
    assert len([r for r in rows if r[2] == "image"]) == 6   # 🚀 and ✅ drawn twice
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert TEXT in text
    assert subprocess.run(["qpdf", "--check", pdf], capture_output=True).returncode == 0


def test_pdf_emoji_drawn_in_colour_where_the_glyph_was(tmp_path):
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": TEXT}], "pdf")
    subprocess.run(["pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", pdf, tmp_path / "p"],
                   check=True)
    img = Image.open(next(tmp_path.glob("p-*.png")))
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    words = [(m.group(5), [float(m.group(i)) * 150 / 72 for i in range(1, 5)])
             for m in re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" '
                                  r'yMax="([\d.]+)">([^<]*)</word>', html)]
    boxes = [b for w, b in words if w in EMOJI]
    assert len(boxes) == 6
    for x0, y0, x1, y1 in boxes:
        assert coloured(img, (int(x0), int(y0), int(x1) + 1, int(y1) + 1)) > 8
    for w, (x0, y0, x1, y1) in words:
        if w in ("Launch", "done", "growth"):
            assert coloured(img, (int(x0), int(y0), int(x1) + 1, int(y1) + 1)) == 0


def test_emoji_outputs_are_deterministic(tmp_path):
    a = render(tmp_path, [{"type": "paragraph", "text": TEXT}, chart("Sales " + EMOJI)], "pdf", "png", name="a")
    b = render(tmp_path, [{"type": "paragraph", "text": TEXT}, chart("Sales " + EMOJI)], "pdf", "png", name="b")
    for x, y in zip(a, b):
        assert x.read_bytes() == y.read_bytes()


def test_pdf_emoji_in_shaped_right_to_left_text(tmp_path):
    """An emoji inside Arabic (shaped text) is a picture too, and the text
    layer still reads in logical order."""
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": "مرحبا 🚀 بالعالم ✅ نعم"}], "pdf")
    lst = subprocess.run(["pdfimages", "-list", pdf], capture_output=True, text=True, check=True).stdout
    assert len([ln for ln in lst.splitlines()[2:] if ln.split()[2] == "image"]) == 2
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    text = re.sub("[\u202a-\u202e]", "", text)
    assert "مرحبا 🚀 بالعالم ✅ نعم" in text
