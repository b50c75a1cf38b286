# test_pdf_images.py — pictures and page colour in PDFs, checked on rendered
# pixels: a 16-bit PNG keeps its size and colours (libharu alone misreads it),
# and a dark theme paints the whole page.
import json
import re
import subprocess

from conftest import SAMPLES, run_folio


def pixel(png, x, y):
    out = subprocess.run(["convert", png, "-format", f"%[pixel:p{{{x},{y}}}]", "info:"],
                         check=True, capture_output=True, text=True).stdout
    return out.strip()


def rgb_of(spec):
    s = spec.replace("srgb(", "").replace(")", "").split(",")
    return tuple(int(float(v)) for v in s[:3])


def test_16bit_png_logo_keeps_colour(tmp_path):
    logo = SAMPLES / "sales" / "logo.png"
    assert "16-bit" in subprocess.run(["file", logo], capture_output=True, text=True).stdout
    (tmp_path / "logo.png").write_bytes(logo.read_bytes())
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "image", "path": "logo.png", "width": 480}]}))
    run_folio("render", spec, "-o", tmp_path / "s.pdf", check=0)
    subprocess.run(["pdftoppm", "-png", "-r", "72", "-singlefile", tmp_path / "s.pdf", tmp_path / "p"], check=True)
    png = tmp_path / "p.png"
    # the image is centred under the top margin: 480 px = 360 pt wide, 120 pt high
    r, g, b = rgb_of(pixel(png, 140, 90))
    assert abs(r - 0x2F) < 12 and abs(g - 0x55) < 12 and abs(b - 0x97) < 12, (r, g, b)
    images = subprocess.run(["pdfimages", "-list", tmp_path / "s.pdf"], capture_output=True, text=True).stdout
    assert " 240    80 " in images  # full width, not halved


def test_dark_theme_paints_page(tmp_path):
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "--theme", "midnight", "-o", tmp_path / "d.pdf", check=0)
    subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "1", "-singlefile", tmp_path / "d.pdf",
                    tmp_path / "d"], check=True)
    assert rgb_of(pixel(tmp_path / "d.png", 2, 2)) == (0x12, 0x1A, 0x2B)


def test_theme_logo_on_every_page(tmp_path):
    (tmp_path / "logo.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    theme = tmp_path / "brand.json"
    theme.write_text(json.dumps({"folio_theme": 1, "name": "brand", "logo": "logo.png"}))
    pdf = tmp_path / "s.pdf"
    run_folio("render", SAMPLES / "sales" / "sales.json", "--theme", theme, "-o", pdf, check=0)
    pages = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout).group(1))
    listing = subprocess.run(["pdfimages", "-list", pdf], capture_output=True, text=True).stdout.splitlines()[2:]
    logo_pages = {int(l.split()[0]) for l in listing if " 240    80 " in l}
    assert pages > 1 and logo_pages >= set(range(1, pages + 1))


def test_missing_theme_logo_is_located(tmp_path):
    theme = tmp_path / "brand.json"
    theme.write_text('{"folio_theme": 1,\n "logo": "nope.png"}')
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "--theme", theme, "-o", tmp_path / "x.pdf", "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/logo" and e["line"] == 2 and "nope.png" in e["message"]
    assert not (tmp_path / "x.pdf").exists()


def test_wide_table_never_breaks_words(tmp_path):
    cols = ["respondent_id", "submitted", "country", "plan", "enterprise_tier", "ease_of_use", "reliability",
            "support_quality", "value_for_money", "comment"]
    rows = [[f"{i:05d}", "2026-10-01", "Österreich", "Enterprise", "Platinum", 4, 5, 3, 2,
             "Support replied within an hour"] for i in range(5)]
    spec = tmp_path / "w.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "table", "data": {"columns": cols, "rows": rows}}]}))
    run_folio("render", spec, "-o", tmp_path / "w.pdf", check=0)
    words = subprocess.run(["pdftotext", "-raw", tmp_path / "w.pdf", "-"], capture_output=True, text=True).stdout.split()
    for w in ("respondent_id", "value_for_money", "Enterprise", "Österreich", "Platinum", "00003"):
        assert w in words, f"{w} was broken: {words[:40]}"
