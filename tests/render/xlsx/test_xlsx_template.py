# test_xlsx_template.py — `--template FILE.xlsx` lends the template's theme
# (accent colours, heading/body fonts) to the workbook; a bad template is
# exit 2 with nothing written.
import re
import subprocess
import zipfile

import pytest

from conftest import SAMPLES, run_folio


BRAND = {"accent1": "A4123F", "accent2": "0B6E4F", "accent3": "F2A541", "accent4": "3D5A80",
         "accent5": "98C1D9", "accent6": "EE6C4D"}


@pytest.fixture(scope="module")
def branded(tmp_path_factory):
    """A workbook whose theme is a company's: folio-made, with its theme part
    replaced as Excel would save a branded template."""
    d = tmp_path_factory.mktemp("xtpl")
    base = d / "base.xlsx"
    run_folio("convert", SAMPLES / "plain" / "orders.csv", base, check=0)
    with zipfile.ZipFile(base) as z:
        theme = z.read("xl/theme/theme1.xml").decode()
        parts = {n: z.read(n) for n in z.namelist()}
    for name, rgb in BRAND.items():
        theme = re.sub(rf"(<a:{name}>\s*<a:srgbClr val=\")[0-9A-Fa-f]{{6}}", rf"\g<1>{rgb}", theme)
    theme = re.sub(r'(<a:majorFont>\s*<a:latin typeface=")[^"]*', r"\g<1>DejaVu Serif", theme)
    theme = re.sub(r'(<a:minorFont>\s*<a:latin typeface=")[^"]*', r"\g<1>DejaVu Sans", theme)
    parts["xl/theme/theme1.xml"] = theme.encode()
    path = d / "brand.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in parts.items():
            z.writestr(n, data)
    return path


def test_template_accents_and_fonts_reach_the_workbook(branded, tmp_path):
    out = tmp_path / "pnl.xlsx"
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", branded, check=0)
    with zipfile.ZipFile(out) as z:
        chart = z.read("xl/charts/chart1.xml").decode().upper()
        styles = z.read("xl/styles.xml").decode()
    assert BRAND["accent1"] in chart and BRAND["accent2"] in chart
    assert "2F5597" not in chart  # folio's default palette is gone
    assert "DejaVu Serif" in styles or "DejaVu Sans" in styles
    assert BRAND["accent1"] in styles.upper()  # table header fill


def test_template_without_theme_keeps_folio_look(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,2\n")
    subprocess.run(["soffice", f"-env:UserInstallation=file://{tmp_path}/lo", "--headless", "--convert-to", "xlsx",
                    "--outdir", tmp_path, tmp_path / "t.csv"], check=True, capture_output=True, timeout=180)
    out = tmp_path / "o.xlsx"
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", tmp_path / "t.xlsx", check=0)
    with zipfile.ZipFile(out) as z:
        assert "2F5597" in z.read("xl/charts/chart1.xml").decode().upper()


def test_docx_template_does_not_touch_xlsx(tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", tmp_path / "t.docx", check=0)
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", a, check=0)
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", b, "--template", tmp_path / "t.docx", check=0)
    assert a.read_bytes() == b.read_bytes()


def test_bad_xlsx_template(tmp_path):
    bad = tmp_path / "bad.xlsx"
    bad.write_text("not a zip")
    out = tmp_path / "o.xlsx"
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", bad, check=2)
    assert "bad.xlsx" in p.stderr
    assert not out.exists()
    docx_as_xlsx = tmp_path / "d.xlsx"
    run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", tmp_path / "t.docx", check=0)
    docx_as_xlsx.write_bytes((tmp_path / "t.docx").read_bytes())
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", docx_as_xlsx, check=2)
    assert "not a workbook" in p.stderr and not out.exists()


# ---- hostile templates ---------------------------------------------------------
from hostile_template import XXE, with_parts  # noqa: E402


def test_xlsx_theme_with_external_entity_refused(branded, tmp_path):
    """Issue 16.19: a theme with a DTD declaring an external entity is refused."""
    theme = zipfile.ZipFile(branded).read("xl/theme/theme1.xml").decode()
    theme = XXE + theme[theme.index("?>") + 2:].replace('typeface="DejaVu Serif"', 'typeface="&xxe;"', 1)
    bad = with_parts(branded, tmp_path / "xxe.xlsx", {"xl/theme/theme1.xml": theme})
    out = tmp_path / "o.xlsx"
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", bad, check=2)
    assert "xxe.xlsx" in p.stderr and "xl/theme/theme1.xml" in p.stderr and "DTD" in p.stderr
    assert "root:" not in p.stderr and not out.exists()


def test_xlsx_unreadable_rels_exit_2_with_a_message(branded, tmp_path):
    """Issue 16.20c: the workbook's rels libxml2 refuses: exit 2 naming template and part."""
    bad = with_parts(branded, tmp_path / "rels.xlsx", {"xl/_rels/workbook.xml.rels": "<Relationships"})
    out = tmp_path / "o.xlsx"
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", out, "--template", bad, check=2)
    assert "rels.xlsx" in p.stderr and "xl/_rels/workbook.xml.rels" in p.stderr
    assert "not well-formed" in p.stderr and not out.exists()
