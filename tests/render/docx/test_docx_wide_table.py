# test_docx_wide_table.py — a table too wide for the page keeps its words
# whole: columns start at their longest word; when the words cannot sit side
# by side even at 7 pt, the table gets a landscape section (render/core/table.h).
import json
import zipfile

import pytest

from conftest import run_folio, write_spec

docx = pytest.importorskip("docx")


def test_wide_table_shrinks_text_and_sizes_columns_by_words(tmp_path):
    cols = ["respondent_id", "submitted", "country", "plan", "nps", "ease_of_use", "speed", "reliability",
            "support", "value_for_money", "comment"]
    rows = [[f"{i:05d}", "2026-10-01 10:17", "Österreich", "Enterprise", 7, 4, 5, 3, 2, 1,
             "Support replied within an hour"] for i in range(4)]
    spec = tmp_path / "w.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "table", "data": {"columns": cols, "rows": rows}}]}))
    out = tmp_path / "w.docx"
    run_folio("render", spec, "-o", out, check=0)
    d = docx.Document(out)
    t = d.tables[0]
    widths = [c.width for c in t.rows[0].cells]
    # the id column is wider than the one-digit score columns
    assert widths[0] > widths[4] and widths[9] > widths[6]
    # 7 pt is not enough in portrait: landscape, where 9 pt fits; a table
    # first in the document turns the first section (no empty page before)
    assert len(d.sections) == 1 and d.sections[0].orientation == 1
    assert sum(widths) <= d.sections[0].page_width - d.sections[0].left_margin - d.sections[0].right_margin
    sizes = {r.font.size.pt for c in t.rows[1].cells for p in c.paragraphs for r in p.runs if r.font.size}
    assert not sizes


def test_narrow_table_keeps_style_size(tmp_path):
    spec = tmp_path / "n.json"
    spec.write_text(json.dumps({"folio": 1, "blocks": [{"type": "table", "data": {
        "columns": ["a", "b"], "rows": [["x", 1]]}}]}))
    out = tmp_path / "n.docx"
    run_folio("render", spec, "-o", out, check=0)
    with zipfile.ZipFile(out) as z:
        body = z.read("word/document.xml").decode()
    assert "<w:sz " not in body


def test_a_long_table_is_cut_in_word_with_the_slides_note(tmp_path):
    """Issue 37, item 10: a 50,000-row table went into Word whole (LibreOffice
    could not lay it out in 10 minutes). Word shows the first 1,000 rows,
    the totals of all of them, and the note the slides and a cut PDF carry."""
    rows = [[i, f"item {i}", i * 1.5] for i in range(50000)]
    spec = {"folio": 1, "data": {"t": {"columns": ["id", "name", "v"], "rows": rows}},
            "blocks": [{"type": "table", "data": "t", "caption": "Big", "totals": {"v": "sum"}},
                       {"type": "paragraph", "text": "After the table."}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "b.docx", "-o", tmp_path / "b.pptx", check=0)
    d = docx.Document(tmp_path / "b.docx")
    t = d.tables[0]
    assert len(t.rows) == 1 + 1000 + 1
    assert t.rows[1000].cells[0].text == "999" and t.rows[-1].cells[0].text == "Total"
    assert t.rows[-1].cells[2].text.replace(",", "") == f"{sum(r[2] for r in rows):.0f}"
    texts = [p.text for p in d.paragraphs]
    note = "First 1,000 of 50,000 rows; the full table is in the workbook."
    assert note in texts and texts.index(note) < texts.index("After the table.")
    # the same words as the deck's note
    z = zipfile.ZipFile(tmp_path / "b.pptx")
    deck = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("ppt/slides/slide"))
    assert "the full table is in the workbook." in deck
    # a table within the cap carries no note
    spec["data"]["t"]["rows"] = rows[:1000]
    run_folio("render", write_spec(tmp_path, spec), "-o", tmp_path / "s.docx", check=0)
    d = docx.Document(tmp_path / "s.docx")
    assert len(d.tables[0].rows) == 1002 and not any("full table" in p.text for p in d.paragraphs)
