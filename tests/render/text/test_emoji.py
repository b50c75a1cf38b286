# test_emoji.py — colour emoji (issue 15): Noto Color Emoji's pictures in PNG
# (painted through cairo) and in PDF (one image XObject per distinct emoji,
# the character kept in the text layer), where layout put the glyph.
import json
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import render_blocks as render

Image = pytest.importorskip("PIL.Image")
FONT = pathlib.Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
pytestmark = pytest.mark.skipif(not FONT.exists() or not shutil.which("pdftoppm"),
                                reason="fonts-noto-color-emoji and poppler-utils are needed")

EMOJI = "🚀✅📈😀"   # outside the BMP and inside it (✅ U+2705)
TEXT = "Launch 🚀 done ✅ growth 📈 smile 😀 again 🚀 and ✅"


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


# ---- emoji sequences (UTS #51): one cluster, one picture -------------------
# Each is one glyph of Noto Color Emoji (hb-shape says so), so folio must
# measure it as that glyph's advance and draw one picture there.
SEQUENCES = {
    "zwj-family": "👨‍👩‍👧", "zwj-rainbow-flag": "🏳️‍🌈", "zwj-technologist": "👩‍💻",
    "flag-jp": "🇯🇵", "flag-de": "🇩🇪", "flag-us": "🇺🇸",
    "skin-tone": "👍🏽", "keycap-1": "1️⃣", "keycap-hash": "#️⃣",
    "vs16-heart": "❤️", "vs16-warning": "⚠️", "tag-scotland": "🏴󠁧󠁢󠁳󠁣󠁴󠁿",
}
BODY = 10.5   # pt, the default theme's body size


def hb_shape(text):
    """[(gid, advance in font units)] of text shaped by hb-shape on the colour font."""
    out = subprocess.run(["hb-shape", "--no-glyph-names", str(FONT), text], capture_output=True,
                         text=True, check=True).stdout
    return [(int(g), int(a)) for g, a in re.findall(r"(\d+)=\d+\+(\d+)", out)]


def image_draws(pdf, tmp_path):
    """(x, y, w, h) in pt of every image drawn on page 1, from its content stream."""
    q = tmp_path / "q.pdf"
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, q], check=True)
    data = q.read_bytes().decode("latin-1")
    return [tuple(float(m.group(i)) for i in (3, 4, 1, 2)) for m in
            re.finditer(r"([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm\s*/\w+ Do", data)]


def bbox_words(pdf):
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    return [(m.group(5), float(m.group(1)), float(m.group(3))) for m in
            re.finditer(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" '
                        r'yMax="([\d.]+)">([^<]*)</word>', html)]


need_hb = pytest.mark.skipif(not shutil.which("hb-shape") or not shutil.which("qpdf"),
                             reason="libharfbuzz-bin and qpdf are needed")


@need_hb
@pytest.mark.parametrize("seq", SEQUENCES.values(), ids=SEQUENCES.keys())
def test_pdf_sequence_is_one_picture_where_layout_put_it(tmp_path, seq):
    (adv,) = [a for _, a in hb_shape(seq)]          # one glyph in the colour font
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": f"before {seq} after"}], "pdf")
    draws = image_draws(pdf, tmp_path)
    assert len(draws) == 1, f"{seq}: {len(draws)} pictures"
    x, _, w, _ = draws[0]
    words = bbox_words(pdf)
    (before,) = [x1 for t, x0, x1 in words if t == "before"]
    (after,) = [x0 for t, x0, x1 in words if t == "after"]
    want = adv / 2048 * BODY
    assert w == pytest.approx(want, abs=0.05)
    # the picture fills the space between the two words' spaces: layout
    # reserved exactly the colour glyph's advance
    space = (after - before - want) / 2
    assert x == pytest.approx(before + space, abs=0.3)
    assert 2 < space < 4
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert f"before {seq} after" in text        # every code point, ZWJs and VS16 included
    assert [t for t, _, _ in words if t not in ("before", "after")][0] == seq


@need_hb
def test_pdf_two_flags_are_two_pictures_and_text_presentation_stays_text(tmp_path):
    """🇯🇵🇩🇪 is two flags (hb-shape: two glyphs); ❤︎ (U+FE0E) stays a
    monochrome glyph: no picture."""
    assert len(hb_shape("🇯🇵🇩🇪")) == 2
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": "a 🇯🇵🇩🇪 b ❤︎ c"}], "pdf")
    draws = image_draws(pdf, tmp_path)
    assert len(draws) == 2
    assert draws[1][0] == pytest.approx(draws[0][0] + 2550 / 2048 * BODY, abs=0.05)
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "a 🇯🇵🇩🇪 b ❤︎ c" in text


@need_hb
def test_pdf_sequence_inside_right_to_left_text(tmp_path):
    (pdf,) = render(tmp_path, [{"type": "paragraph", "text": "مرحبا 👨‍👩‍👧 بالعالم 👍🏽 نعم"}], "pdf")
    assert len(image_draws(pdf, tmp_path)) == 2
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "مرحبا 👨‍👩‍👧 بالعالم 👍🏽 نعم" in re.sub("[\u202a-\u202e]", "", text)


def title_band(png):
    img = Image.open(png).convert("RGB")
    return img, (0, 0, img.width, 40)


def title_left(png):
    """x of the title's first inked column (text or picture)."""
    img, (x0, y0, x1, y1) = title_band(png)
    px = img.load()
    return min(x for x in range(x0, x1) for y in range(y0, y1) if sum(px[x, y]) < 600)


def ink_blobs(png, after):
    """[(x0, x1)] of runs of inked columns in the title right of column
    after (gaps of up to 3 columns joined)."""
    img, (x0, y0, x1, y1) = title_band(png)
    px = img.load()
    cols = [x for x in range(after, x1) if any(sum(px[x, y]) < 690 for y in range(y0, y1))]
    blobs = []
    for x in cols:
        if blobs and x - blobs[-1][1] <= 4:
            blobs[-1][1] = x
        else:
            blobs.append([x, x])
    return [tuple(b) for b in blobs]


def title_right(png):
    """x of the title's last inked column."""
    img, (x0, y0, x1, y1) = title_band(png)
    px = img.load()
    return max(x for x in range(x0, x1) for y in range(y0, y1) if sum(px[x, y]) < 600)


@need_hb
@pytest.mark.parametrize("seq", ["👨‍👩‍👧", "🏳️‍🌈", "🇩🇪", "👍🏽", "1️⃣", "❤️"],
                         ids=["family", "rainbow", "flag", "skin", "keycap", "heart"])
def test_png_sequence_is_one_picture_of_one_glyph_width(tmp_path, seq):
    """A chart title "Sales SEQ" is centred: laid out with the sequence as one
    glyph of the colour font's advance, it starts where "Sales 😀" starts
    (hb-shape: both 2550 units); right of "Sales" the sequence is one picture,
    in colour, no wider than that advance (measured from "Sales 😀😀", half
    an advance further left)."""
    assert len(hb_shape(seq)) == 1 and hb_shape(seq)[0][1] == hb_shape("😀")[0][1]
    (s,) = render(tmp_path, [chart("Sales " + seq)], "png", name="s")
    (one,) = render(tmp_path, [chart("Sales 😀")], "png", name="one")
    (two,) = render(tmp_path, [chart("Sales 😀😀")], "png", name="two")
    (word,) = render(tmp_path, [chart("Sales")], "png", name="w")
    adv = 2 * (title_left(one) - title_left(two))
    assert adv > 10
    assert abs(title_left(s) - title_left(one)) <= 1
    sales_end = title_left(s) + title_right(word) - title_left(word)
    blobs = ink_blobs(s, sales_end + 2)
    assert len(blobs) == 1, f"{seq}: {blobs}"
    assert 0.4 * adv <= blobs[0][1] - blobs[0][0] + 1 <= adv + 2
    img, band = title_band(s)
    if seq != "👨‍👩‍👧":     # Noto's family is grey silhouettes on a grey tile
        assert coloured(img, (blobs[0][0], 0, blobs[0][1] + 1, 40)) > 0


def test_sequences_outputs_are_deterministic(tmp_path):
    text = " ".join(SEQUENCES.values())
    blocks = [{"type": "paragraph", "text": text}, chart("Team " + text)]
    a = render(tmp_path, blocks, "pdf", "png", name="a")
    b = render(tmp_path, blocks, "pdf", "png", name="b")
    for x, y in zip(a, b):
        assert x.read_bytes() == y.read_bytes()


# ---- without the colour font ------------------------------------------------
def without_colour_font(tmp_path, spec, out):
    """Renders spec to out with Noto Color Emoji unreadable: /dev/null is
    bind-mounted over it in a private user and mount namespace (unshare), so
    folio finds the file empty, as on a machine without the package."""
    folio = pathlib.Path(__import__("os").environ.get("FOLIO", "build/folio")).resolve()
    script = f'mount --bind /dev/null "{FONT}" && exec "{folio}" render "{spec}" -o "{out}"'
    p = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                       capture_output=True, text=True)
    if p.returncode != 0 and ("unshare" in p.stderr or "mount" in p.stderr):
        pytest.skip(f"no user and mount namespaces here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr


@pytest.mark.skipif(not shutil.which("unshare"), reason="util-linux unshare is needed")
def test_without_the_colour_font_emoji_are_symbola_outlines(tmp_path):
    """The fallback: no pictures, each emoji drawn as Symbola's monochrome
    outline in the text colour (ink where the emoji is, none of it coloured),
    and the text layer still gives every character back."""
    text = "Launch 🚀 done ✅ family 👨‍👩‍👧 end"
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "paragraph", "text": text}]},
                               ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    without_colour_font(tmp_path, spec, pdf)
    lst = subprocess.run(["pdfimages", "-list", pdf], capture_output=True, text=True, check=True).stdout
    assert lst.splitlines()[2:] == []
    got = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "Launch 🚀 done ✅ family" in got and "end" in got
    subprocess.run(["pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", pdf, tmp_path / "p"],
                   check=True)
    img = Image.open(next(tmp_path.glob("p-*.png"))).convert("RGB")
    words = bbox_words(pdf)
    (done,) = [x0 for t, x0, x1 in words if t == "done"]
    (launch,) = [x1 for t, x0, x1 in words if t == "Launch"]
    rocket = (int(launch * 150 / 72) + 2, 100, int(done * 150 / 72) - 2, 150)
    band = img.crop((0, 100, img.width, 150))
    assert coloured(img, (0, 100, img.width, 150)) == 0, "an emoji in colour without the font"
    assert sum(1 for p in img.crop(rocket).getdata() if sum(p) < 300) > 20, "no outline for 🚀"
    assert band.getbbox() is not None


@need_hb
def test_pdf_table_cell_wraps_sequences_by_their_drawn_width(tmp_path):
    """A wrapped table cell measures each sequence as the one glyph drawn:
    lines stay inside the column, no sequence is cut, and lines are filled
    (measured as three pictures, a family took three times its room)."""
    t = "Family 👨‍👩‍👧 and 👨‍👩‍👧 with 👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧 flags 🇯🇵🇩🇪🇺🇸🇯🇵🇩🇪🇺🇸 long text here " * 3
    (pdf,) = render(tmp_path, [{"type": "table", "data": {"columns": ["a", "b", "c"],
                                                          "rows": [[t, t, t]]}}], "pdf")
    draws = image_draws(pdf, tmp_path)
    assert len(draws) == 3 * 3 * 12
    words = bbox_words(pdf)
    (b_left,) = [x0 for w, x0, _ in words if w == "b"]
    col_a = [d for d in draws if d[0] < b_left]
    assert len(col_a) == 36 and all(x + w < b_left - 2 for x, _, w, _ in col_a)
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert text.count("👨‍👩‍👧") == 3 * 3 * 6 and text.count("🇩🇪") == 3 * 3 * 2
    html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                          check=True).stdout
    lines_a = {round(float(m.group(2))) for m in re.finditer(
        r'<word xMin="([\d.]+)" yMin="([\d.]+)"', html) if float(m.group(1)) < b_left}
    assert len(lines_a) <= 9 + 1      # 8 lines and the header


@pytest.mark.skipif(not shutil.which("unshare") or not shutil.which("qpdf"),
                    reason="util-linux unshare and qpdf are needed")
def test_without_the_colour_font_digits_after_an_emoji_keep_the_text_font(tmp_path):
    """"مرحبا 🚀 2024": the rocket is Symbola's (no colour font), the digits
    after it are not: Symbola's ToUnicode maps one glyph, the rocket's."""
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "paragraph",
                                                        "text": "مرحبا 🚀 2024"}]},
                               ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "s.pdf"
    without_colour_font(tmp_path, spec, pdf)
    q = tmp_path / "q.pdf"
    subprocess.run(["qpdf", "--qdf", "--object-streams=disable", pdf, q], check=True)
    data = q.read_bytes().decode("latin-1")
    blocks = re.findall(r"\d+ beginbfchar\n(.*?)endbfchar", data, re.S)
    (rocket,) = [b for b in blocks if "<D83DDE80>" in b]
    assert rocket.strip().count("\n") == 0, f"Symbola maps more than the rocket: {rocket!r}"
    got = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "2024" in got and "🚀" in got
