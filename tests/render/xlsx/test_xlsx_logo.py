# test_xlsx_logo.py — a theme's logo on the Summary sheet: a picture at the
# top right of the title row (over E:F, alt text "logo"), the title merged
# across A:D beside it so the two never overlap; same bytes twice;
# LibreOffice opens the workbook; an unreadable logo is an input error.
import json
import os
import re
import shutil
import subprocess
import zipfile

import pytest

from conftest import SAMPLES, run_folio, write_spec

openpyxl = pytest.importorskip("openpyxl")

SPEC = {"folio": 1, "title": "A long workbook title that wraps beside the logo", "subtitle": "Q3",
        "data": {"s": {"columns": ["k", {"name": "v", "type": "number"}], "rows": [["a", 1], ["b", 2]]}},
        "blocks": [{"type": "paragraph", "text": "Summary text."},
                   {"type": "table", "data": "s"}]}


def render(folder, spec=SPEC, out="out.xlsx", logo="logo.png", check=0):
    (folder / "logo.png").write_bytes((SAMPLES / "sales" / "logo.png").read_bytes())
    (folder / "brand.json").write_text(json.dumps({"folio_theme": 1, "name": "brand", "logo": logo}))
    path = write_spec(folder, spec)
    p = run_folio("render", path, "-o", folder / out, "--theme", folder / "brand.json", check=check)
    return folder / out, p


def summary_part(z):
    wb = z.read("xl/workbook.xml").decode()
    rid = re.search(r'<sheet name="Summary" sheetId="\d+" r:id="(rId\d+)"', wb).group(1)
    rels = z.read("xl/_rels/workbook.xml.rels").decode()
    return "xl/" + re.search(r'Id="%s"[^>]*Target="([^"]+)"' % rid, rels).group(1)


def test_logo_drawing_on_summary(tmp_path):
    out, _ = render(tmp_path)
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        assert "xl/drawings/drawing1.xml" in names and "xl/media/image1.png" in names
        assert z.read("xl/media/image1.png") == (SAMPLES / "sales" / "logo.png").read_bytes()
        sheet = summary_part(z)
        d, f = sheet.rsplit("/", 1)
        assert "../drawings/drawing1.xml" in z.read(f"{d}/_rels/{f}.rels").decode()
        drawing = z.read("xl/drawings/drawing1.xml").decode()
        assert 'descr="logo"' in drawing
        # anchored in row 1 from column E; 44 px high (3:1 aspect kept), 6 px from the top
        frm = re.search(r"<xdr:from><xdr:col>(\d+)</xdr:col>.*?<xdr:row>(\d+)</xdr:row>"
                        r"<xdr:rowOff>(\d+)</xdr:rowOff>", drawing).groups()
        assert frm == ("4", "0", str(6 * 9525))
        cx, cy = map(int, re.search(r'<a:ext cx="(\d+)" cy="(\d+)"/>', drawing).groups())
        assert cy == 44 * 9525 and cx == 132 * 9525
    ws = openpyxl.load_workbook(out)["Summary"]
    assert ws["A1"].value == SPEC["title"]
    assert "A1:D1" in [str(r) for r in ws.merged_cells.ranges]  # the title stops before E
    assert ws["A1"].alignment.wrap_text
    assert ws.row_dimensions[1].height >= 42


def test_logo_without_title_gets_its_own_row(tmp_path):
    spec = {k: v for k, v in SPEC.items() if k != "title"}
    out, _ = render(tmp_path, spec)
    with zipfile.ZipFile(out) as z:
        assert "<xdr:row>0</xdr:row>" in z.read("xl/drawings/drawing1.xml").decode()
    ws = openpyxl.load_workbook(out)["Summary"]
    assert ws["A1"].value is None and ws["A2"].value == "Q3"


def test_same_bytes_twice(tmp_path):
    a, _ = render(tmp_path, out="a.xlsx")
    b, _ = render(tmp_path, out="b.xlsx")
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_converts(tmp_path):
    out, _ = render(tmp_path)
    subprocess.run(["soffice", f"-env:UserInstallation=file:///tmp/lo-xlsx-logo-{os.getpid()}",
                    "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(out)],
                   capture_output=True, timeout=300, check=True)
    pdf = tmp_path / "out.pdf"
    assert pdf.exists()
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    # the Summary sheet (after the table's sheet) prints on the page with the title
    pages = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")
    title_page = next(i for i, t in enumerate(pages, 1) if "A long workbook title" in t)
    assert len(listing) == 1 and int(listing[0].split()[0]) == title_page  # the logo, beside the title


def test_missing_logo_is_input_error(tmp_path):
    out, p = render(tmp_path, logo="nope.png", check=2)
    assert "nope.png" in p.stderr and not out.exists()
