# test_wide_tables.py — tables of 30 and 40 columns never split a number or a
# word, in PDF, docx and pptx (render/core/table.h): the text is set smaller
# (7 pt in PDF and docx, 9 pt in pptx), then the table gets landscape pages
# (PDF) or a landscape section (docx), then its columns are split into groups
# that repeat the first column under a note "Columns 1–11 of 30 (key column
# repeated)". Read back with pdftotext -layout and pdfinfo, python-docx, the
# pptx slide XML, and LibreOffice's own layout of the docx and pptx.
import re
import shutil
import subprocess
import zipfile

import pytest
from lxml import etree

from conftest import run_folio, write_spec

docx = pytest.importorskip("docx")

A = "http://schemas.openxmlformats.org/drawingml/2006/main"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def is_comment(j):
    return j % 5 == 0


def value(i, j):
    return round(1234567.89 * (1 + i * 0.137 + j * 0.011) * (-1 if (i + j) % 7 == 0 else 1), 2)


def spec(ncols, nrows=12):
    """ncols columns: a region key, long numbers shown as 1,234,567.89 and,
    every fifth column, a few words."""
    cols = [{"name": "Region", "type": "text"}]
    cols += [{"name": f"Comment {j}", "type": "text"} if is_comment(j) else {"name": f"Revenue {j}", "type": "number"}
             for j in range(1, ncols)]
    rows = [[f"Northwest-{i}"] + [f"steady growth quarter{j}" if is_comment(j) else value(i, j) for j in range(1, ncols)]
            for i in range(nrows)]
    table = {"type": "table", "data": "wide", "caption": f"A {ncols}-column table",
             "columns": [c["name"] if c["type"] == "text" else {"field": c["name"], "format": "#,##0.00"} for c in cols],
             "totals": {"Revenue 1": "sum"}}
    return {"folio": 1, "title": f"Wide {ncols}", "data": {"wide": {"columns": cols, "rows": rows}},
            "blocks": [{"type": "paragraph", "text": "Before the table."},
                       {"type": "heading", "text": "Revenue by region", "level": 2}, table,
                       {"type": "paragraph", "text": "After the table."}]}


def words(ncols, nrows=12):
    """Every number and word the table shows, as the reader must find it."""
    out = {f"{value(i, j):,.2f}" for i in range(nrows) for j in range(1, ncols) if not is_comment(j)}
    out |= {f"quarter{j}" for j in range(1, ncols) if is_comment(j)}
    out |= {f"Northwest-{i}" for i in range(nrows)}
    out.add(f"{sum(value(i, 1) for i in range(nrows)):,.2f}")  # the total
    return out


def groups(ncols):
    return ncols > 12


def render(tmp_path, ncols, ext):
    out = tmp_path / f"w{ncols}.{ext}"
    run_folio("render", write_spec(tmp_path, spec(ncols)), "-o", out, "--quiet", check=0)
    return out


def pdf_pages(path):
    info = subprocess.run(["pdfinfo", "-f", "1", "-l", "999", str(path)], capture_output=True, text=True,
                          check=True).stdout
    return [(float(w), float(h)) for w, h in re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)", info)]


def tokens(pdf):
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    return text, set(text.split())


# ---- PDF -----------------------------------------------------------------------


@pytest.mark.parametrize("ncols", [30, 40])
def test_pdf_never_splits_a_number(tmp_path, ncols):
    out = render(tmp_path, ncols, "pdf")
    assert subprocess.run(["qpdf", "--check", str(out)], capture_output=True).returncode == 0
    text, found = tokens(out)
    missing = words(ncols) - found
    assert not missing, f"split or lost: {sorted(missing)[:10]}"
    # the table's pages are landscape, the text before and after portrait
    pages = pdf_pages(out)
    assert pages[0][0] < pages[0][1] and pages[-1][0] < pages[-1][1]
    assert all(w > h for w, h in pages[1:-1]) and len(pages) >= 3
    # the heading right before the table goes with it, not left behind
    second = subprocess.run(["pdftotext", "-f", "2", "-l", "2", str(out), "-"], capture_output=True,
                            text=True, check=True).stdout
    assert second.lstrip().startswith("Revenue by region")
    # column groups, each repeating the key column, under a note
    notes = re.findall(r"Columns (\d+)–(\d+) of (\d+)( \(key column repeated\))?", text)
    assert len(notes) >= 2 and int(notes[-1][1]) == ncols and all(int(n[2]) == ncols for n in notes)
    assert notes[0][0] == "1" and not notes[0][3] and all(n[3] for n in notes[1:])
    assert all(int(b[0]) == int(a[1]) + 1 for a, b in zip(notes, notes[1:]))  # no column left out
    assert text.count("Northwest-0") == len(notes)


def test_pdf_shrinks_before_turning(tmp_path):
    """8 columns fit a portrait page once the text is smaller: no landscape
    page, no groups, every number whole."""
    out = render(tmp_path, 8, "pdf")
    text, found = tokens(out)
    assert not words(8) - found
    assert all(w < h for w, h in pdf_pages(out))
    assert "Columns " not in text


def test_pdf_pages_look_right(tmp_path):
    """Render a landscape page as an image: wider than tall, with ink across
    most of its width (the table uses the turned page)."""
    out = render(tmp_path, 30, "pdf")
    subprocess.run(["pdftoppm", "-gray", "-r", "30", "-f", "2", "-l", "2", str(out), str(tmp_path / "p")],
                   check=True)
    data = next(tmp_path.glob("p-*.pgm")).read_bytes()
    head = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
    w, h = int(head[1]), int(head[2])
    pixels = data[head.end():]
    assert w > h and len(pixels) == w * h
    inked = [x for x in range(w) if any(pixels[y * w + x] < 200 for y in range(h))]
    assert inked[-1] - inked[0] > 0.8 * w


# ---- docx ----------------------------------------------------------------------


def text_width(section):
    return section.page_width - section.left_margin - section.right_margin


@pytest.mark.parametrize("ncols", [30, 40])
def test_docx_landscape_section_and_groups(tmp_path, ncols):
    out = render(tmp_path, ncols, "docx")
    d = docx.Document(out)
    # portrait, the table's landscape section, portrait again
    assert [s.orientation for s in d.sections] == [0, 1, 0]
    wide = d.sections[1]
    assert wide.page_width > wide.page_height
    body = d.element.body
    # each table lies in the landscape section: after the first break, before the second
    breaks = [i for i, el in enumerate(body) if el.find(f"{{{W}}}pPr/{{{W}}}sectPr") is not None]
    tables = [i for i, el in enumerate(body) if el.tag == f"{{{W}}}tbl"]
    assert len(breaks) == 2 and all(breaks[0] < t < breaks[1] for t in tables)
    # the heading right before the table is in its section
    heading = [i for i, el in enumerate(body)
               if el.tag == f"{{{W}}}p" and "Revenue by region" in "".join(t.text or "" for t in el.iter(f"{{{W}}}t"))]
    assert len(heading) == 1 and breaks[0] < heading[0] < tables[0]
    assert len(d.tables) >= 2
    seen = set()
    for t in d.tables:
        grid = [int(g.get(f"{{{W}}}w")) * 635 for g in t._tbl.tblGrid.iterchildren()]
        assert sum(grid) <= text_width(wide)
        assert t.cell(0, 0).text == "Region"  # the key column repeated
        for r in t.rows:
            seen |= {c.text for c in r.cells}
            seen |= {w for c in r.cells for w in c.text.split()}
    assert not words(ncols) - seen
    # the text is 7 pt in the table only: caption and notes keep their style
    for p in d.paragraphs:
        if p.text.startswith(("Columns ", "Table ")):
            assert all(r.font.size is None for r in p.runs)
    notes = [p.text for p in d.paragraphs if p.text.startswith("Columns ")]
    assert len(notes) == len(d.tables) and notes[0].startswith("Columns 1–")
    assert all(n.endswith(f"of {ncols} (key column repeated)") for n in notes[1:])


def test_docx_shrinks_before_turning(tmp_path):
    """8 columns fit the portrait page at 8 pt: smaller text, no new section."""
    out = render(tmp_path, 8, "docx")
    d = docx.Document(out)
    assert [s.orientation for s in d.sections] == [0]
    t = d.tables[0]
    sizes = {r.font.size.pt for c in t.rows[1].cells for p in c.paragraphs for r in p.runs if r.font.size}
    assert sizes and all(7 <= s < 9 for s in sizes)
    assert sum(c.width for c in t.rows[0].cells) <= text_width(d.sections[0])


# ---- pptx ----------------------------------------------------------------------


def slides(path):
    z = zipfile.ZipFile(path)
    names = sorted((n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
                   key=lambda n: int(re.findall(r"\d+", n)[0]))
    for n in names:
        x = etree.fromstring(z.read(n))
        texts = ["".join(t.text or "" for t in p.iter(f"{{{A}}}t")) for p in x.iter(f"{{{A}}}p")]
        tables = []
        for tbl in x.iter(f"{{{A}}}tbl"):
            grid = [int(g.get("w")) for g in tbl.find(f"{{{A}}}tblGrid")]
            rows = [["".join(t.text or "" for t in tc.iter(f"{{{A}}}t")) for tc in tr.findall(f"{{{A}}}tc")]
                    for tr in tbl.findall(f"{{{A}}}tr")]
            sizes = {int(r.get("sz")) for r in tbl.iter(f"{{{A}}}rPr") if r.get("sz")}
            tables.append((grid, rows, sizes))
        yield texts, tables


@pytest.mark.parametrize("ncols", [30, 40])
def test_pptx_column_groups_on_successive_slides(tmp_path, ncols):
    out = render(tmp_path, ncols, "pptx")
    found, notes, headers = set(), [], []
    for texts, tables in slides(out):
        notes += [t for t in texts if t.startswith("Columns ")]
        assert len(tables) <= 1
        for grid, rows, sizes in tables:
            assert sizes and min(sizes) >= 900  # never below 9 pt
            assert sum(grid) <= 12192000  # within a 16:9 slide
            assert rows[0][0] == "Region"  # the key column on every slide
            assert rows[-1][0] != "Total" or len(rows) > 2  # a totals row never alone on a slide
            headers += rows[0][1:]
            for r in rows:
                found |= set(r) | {w for c in r for w in c.split()}
    assert not words(ncols) - found
    assert len(notes) >= 2 and notes[0].startswith("Columns 1–") and notes[0].endswith(f"of {ncols}")
    assert all(n.endswith(f"of {ncols} (key column repeated)") for n in notes[1:])
    # every column shown once besides the repeated key
    assert len(set(headers)) == ncols - 1


def test_pptx_shrinks_before_splitting(tmp_path):
    """12 columns fit a slide at a smaller size (9-12 pt): one group, no note."""
    out = render(tmp_path, 12, "pptx")
    found, notes, sizes = set(), [], set()
    for texts, tables in slides(out):
        notes += [t for t in texts if t.startswith("Columns ")]
        for grid, rows, sz in tables:
            assert len(grid) == 12
            sizes |= sz
            found |= {c for r in rows for c in r} | {w for r in rows for c in r for w in c.split()}
    assert not notes and sizes and all(900 <= s < 1200 for s in sizes)
    assert not words(12) - found


# ---- LibreOffice's own layout: no number broken over two lines ------------------


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
@pytest.mark.parametrize("ext", ["docx", "pptx"])
def test_libreoffice_lays_out_every_number_whole(tmp_path, ext):
    out = render(tmp_path, 30, ext)
    subprocess.run(["soffice", f"-env:UserInstallation=file:///tmp/lo-wide-{ext}", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path / "lo"), str(out)],
                   capture_output=True, check=True, timeout=180)
    _, found = tokens(tmp_path / "lo" / f"w30.pdf")
    missing = words(30) - found
    assert not missing, f"split or lost: {sorted(missing)[:10]}"


# ---- a CSV table of many column groups -----------------------------------------


def csv_spec(tmp_path, ncols, nrows):
    """spec(ncols, nrows) with its data in wide.csv instead of inline."""
    s = spec(ncols, nrows)
    data = s["data"]["wide"]
    lines = [",".join(c["name"] for c in data["columns"])]
    lines += [",".join(str(v) for v in row) for row in data["rows"]]
    (tmp_path / "wide.csv").write_text("\n".join(lines) + "\n")
    s["data"]["wide"] = {"csv": "wide.csv"}
    return s


def shown_text(path):
    """What a reader sees in a pdf, docx or pptx, as one string."""
    if path.suffix == ".pdf":
        return tokens(path)[0]
    if path.suffix == ".docx":
        d = docx.Document(str(path))
        return "\n".join([p.text for p in d.paragraphs] +
                         ["|".join(c.text for c in r.cells) for t in d.tables for r in t.rows])
    return "\n".join("\n".join(texts) + "".join("|".join(r) for _, rows, _ in tables for r in rows)
                     for texts, tables in slides(path))


@pytest.mark.parametrize("ext", ["pdf", "docx", "pptx"])
def test_csv_table_in_many_groups_reads_as_inline(tmp_path, ext):
    """A table from a CSV file is drawn one column group at a time from rows
    read once and kept (render/core/rows.c): every group shows the same
    cells as the same table from inline data, the last group included."""
    ncols, nrows = 150, 25
    inline, from_csv = tmp_path / f"inline.{ext}", tmp_path / f"csv.{ext}"
    run_folio("render", write_spec(tmp_path, spec(ncols, nrows), "inline.json"), "-o", inline, "--quiet")
    run_folio("render", write_spec(tmp_path, csv_spec(tmp_path, ncols, nrows), "csv.json"), "-o", from_csv,
              "--quiet")
    text = shown_text(from_csv)
    assert text == shown_text(inline)
    notes = re.findall(r"Columns (\d+)–(\d+) of 150", text)
    assert len(notes) >= 10 and notes[-1][1] == "150"
    found = set(text.replace("|", " ").split())
    assert not words(ncols, nrows) - found
    assert f"{value(nrows - 1, ncols - 1):,.2f}" in found  # the last cell of the last group
