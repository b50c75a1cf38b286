# test_themes_render.py — every built-in theme renders every sample in every
# format, the files open in independent readers, and the theme's colors and
# fonts are found in what was written.
import json
import re
import subprocess
import zipfile

import pytest

from conftest import ROOT, SAMPLES, run_folio

THEMES = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "templates" / "themes").glob("*.json"))}
SPECS = [SAMPLES / "sales" / "sales.json", SAMPLES / "survey" / "survey.json", SAMPLES / "pnl" / "pnl.json"]


def hexes(theme):
    return [c.lstrip("#").upper() for c in theme["colors"]["palette"]]


@pytest.fixture(scope="module", params=sorted(THEMES))
def rendered(request, tmp_path_factory):
    name = request.param
    out = tmp_path_factory.mktemp(f"theme-{name}")
    files = {}
    for spec in SPECS:
        stem = spec.stem
        targets = [out / f"{stem}.{ext}" for ext in ("xlsx", "docx", "pptx", "pdf", "png")]
        args = ["render", spec, "--theme", name, "--quiet"]
        for t in targets:
            args += ["-o", t]
        run_folio(*args, check=0)
        files[stem] = targets
    return name, out, files


def test_xlsx_opens_and_charts_use_palette(rendered):
    openpyxl = pytest.importorskip("openpyxl")
    name, out, files = rendered
    palette = hexes(THEMES[name])
    for stem, (xlsx, *_rest) in files.items():
        wb = openpyxl.load_workbook(xlsx)
        assert wb.sheetnames
        with zipfile.ZipFile(xlsx) as z:
            charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
            assert charts, stem
            xml = z.read(charts[0]).decode()
            assert palette[0] in xml.upper(), f"{stem}: first palette color missing in {charts[0]}"


def test_docx_styles_carry_theme_fonts_and_colors(rendered):
    docx = pytest.importorskip("docx")
    name, out, files = rendered
    theme = THEMES[name]
    for stem, targets in files.items():
        d = docx.Document(targets[1])
        assert d.paragraphs
        with zipfile.ZipFile(targets[1]) as z:
            styles = z.read("word/styles.xml").decode()
        assert theme["fonts"]["body"] in styles
        assert theme["fonts"]["heading"] in styles
        # a dark theme gives Word its light variant: its background colour is the text
        dark = theme["colors"]["background"].upper() not in ("#FFFFFF", "#FFF")
        want = theme["colors"]["background" if dark else "heading"]
        assert want.lstrip("#").upper() in styles.upper()


def test_pptx_theme_part_carries_palette_and_fonts(rendered):
    name, out, files = rendered
    theme = THEMES[name]
    for stem, targets in files.items():
        with zipfile.ZipFile(targets[2]) as z:
            assert z.testzip() is None
            theme_xml = z.read("ppt/theme/theme1.xml").decode()
        for c in hexes(theme)[:6]:
            assert c in theme_xml.upper(), f"{stem}: accent {c} missing from theme1.xml"
        assert theme["fonts"]["heading"] in theme_xml and theme["fonts"]["body"] in theme_xml


def test_pdf_is_valid_and_embeds_theme_fonts(rendered):
    name, out, files = rendered
    theme = THEMES[name]
    want = {f.replace(" ", "") for f in (theme["fonts"]["heading"], theme["fonts"]["body"])}
    for stem, targets in files.items():
        pdf = targets[3]
        subprocess.run(["qpdf", "--check", pdf], check=True, capture_output=True)
        fonts = subprocess.run(["pdffonts", pdf], check=True, capture_output=True, text=True).stdout
        for f in want:
            assert re.search(re.escape(f), fonts), f"{stem}: {f} not embedded\n{fonts}"
        for line in fonts.splitlines()[2:]:
            assert " yes " in line, f"font not embedded: {line}"
        info = subprocess.run(["pdfinfo", pdf], check=True, capture_output=True, text=True).stdout
        size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info)
        w, h = float(size.group(1)), float(size.group(2))
        page = theme["page"]
        expect = (612, 792) if page["size"] == "Letter" else (595.3, 841.9)
        if page.get("orientation") == "landscape":
            expect = expect[::-1]
        assert abs(w - expect[0]) < 1 and abs(h - expect[1]) < 1


def test_png_charts_use_palette(rendered):
    name, out, files = rendered
    first = hexes(THEMES[name])[0]
    rgb = tuple(int(first[i:i + 2], 16) for i in (0, 2, 4))
    for stem in files:
        pngs = sorted(out.glob(f"{stem}*.png"))
        assert pngs
        subprocess.run(["pngcheck", "-q", *pngs], check=True)
        txt = subprocess.run(["convert", pngs[0], "-depth", "8", "txt:-"], check=True,
                             capture_output=True, text=True).stdout
        assert f"#{first}" in txt.upper(), f"{stem}: {rgb} not drawn in {pngs[0].name}"
