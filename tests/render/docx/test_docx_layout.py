# test_docx_layout.py — pagination and small-content fixes in .docx: headings
# keep with what follows, small tables stay on one page, big ones split with
# the header repeated; metric deltas carry one sign; nested lists follow
# their own `ordered`.
import json
import re
import zipfile

import pytest

from conftest import run_folio
from test_docx import lo_pdf, pdf_pages, pdf_text

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def render(folder, spec, name="out.docx"):
    (folder / "spec.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = folder / name
    run_folio("render", folder / "spec.json", "-o", out, "--quiet", check=0)
    return out


def document_xml(path):
    with zipfile.ZipFile(path) as z:
        return z.read("word/document.xml").decode()


def table_spec(nrows, totals=True):
    rows = [[f"r{i}", i * 1.5] for i in range(1, nrows + 1)]
    t = {"type": "table", "data": {"columns": ["name", "v"], "rows": rows}, "caption": "T"}
    if totals:
        t["totals"] = {"v": "sum"}
    return t


def test_headings_keep_with_next_directly(tmp_path):
    out = render(tmp_path, {"folio": 1, "blocks": [
        {"type": "heading", "text": f"H{n}", "level": n} for n in range(1, 7)]})
    doc = document_xml(out)
    for n in range(1, 7):
        assert f'<w:pStyle w:val="Heading{n}"/><w:keepNext/><w:keepLines/>' in doc


def test_small_table_kept_together_big_one_splits(tmp_path):
    import docx
    out = render(tmp_path, {"folio": 1, "blocks": [table_spec(8), table_spec(60)]})
    d = docx.Document(str(out))
    small, big = d.tables

    def keeps(row):
        return all(p._p.pPr.find(W + "keepNext") is not None
                   for c in row.cells for p in c.paragraphs)

    assert all(keeps(r) for r in small.rows[:-1]) and not keeps(small.rows[-1])
    assert all(r._tr.trPr.find(W + "cantSplit") is not None for r in small.rows)
    assert not any(keeps(r) for r in big.rows[1:])
    assert big.rows[0]._tr.trPr.find(W + "tblHeader") is not None


def test_small_table_not_split_in_libreoffice(tmp_path):
    # fill most of page 1 so a 10-row table would straddle the page break
    blocks = [{"type": "paragraph", "text": f"filler line {i}"} for i in range(33)]
    blocks.append(table_spec(10))
    pdf = lo_pdf(render(tmp_path, {"folio": 1, "blocks": blocks}), tmp_path)
    pages = [pdf_text(pdf, p) for p in range(1, pdf_pages(pdf) + 1)]
    holding = [i for i, t in enumerate(pages) if re.search(r"\br\d+\b", t)]
    assert len(holding) == 1, f"table rows on pages {holding}"
    assert "Total" in pages[holding[0]]


def test_metric_delta_has_one_sign(tmp_path):
    import docx
    out = render(tmp_path, {"folio": 1, "blocks": [{"type": "metrics", "items": [
        {"label": "Up", "value": 1, "delta": 0.12},
        {"label": "Down", "value": 1, "delta": -0.008},
        {"label": "Plain", "value": 1, "delta": 0.05, "delta_format": "0%"}]}]})
    cells = [c.text for c in docx.Document(str(out)).tables[0].rows[0].cells]
    assert "\u25b2 +12.0%" in cells[0] and "++" not in cells[0]
    assert "\u25bc -0.8%" in cells[1]
    assert "\u25b2 5%" in cells[2]


def test_nested_lists_follow_their_ordered(tmp_path):
    import docx
    spec = {"folio": 1, "blocks": [
        {"type": "list", "ordered": True, "items": [
            {"text": "n1", "items": ["n1.a", "n1.b"]},                 # inherits ordered
            {"text": "n2", "ordered": False, "items": ["b1", "b2"]},  # says bullets
        ]},
        {"type": "list", "items": [
            {"text": "b", "ordered": True, "items": ["num under bullet"]}]},
    ]}
    d = docx.Document(str(render(tmp_path, spec)))
    style = {p.text: p.style.name for p in d.paragraphs}
    assert style["n1"] == style["n1.a"] == style["n1.b"] == "List Number"
    assert style["n2"] == "List Number"
    assert style["b1"] == style["b2"] == "List Bullet"
    assert style["b"] == "List Bullet" and style["num under bullet"] == "List Number"
    numid = {p.text: p._p.pPr.numPr.numId.val for p in d.paragraphs if p.text}
    ilvl = {p.text: p._p.pPr.numPr.ilvl.val for p in d.paragraphs if p.text}
    assert numid["n1.a"] == numid["n1"] and ilvl["n1.a"] == 1
    assert numid["b1"] == 1 and numid["num under bullet"] not in (1, 2, numid["n1"])
