# test_metric_deltas.py — a metric's delta reads the same, sign and all, in
# every format (issue 37, item 1: pptx printed "▼ +14.7%" for -14.7%).
# Each delta is read back with an independent reader: openpyxl (the Summary
# sheet's number and its format code), python-docx (the "Metric Delta"
# paragraphs), the pptx slide XML (zipfile + lxml: the cards' third
# paragraph) and pdftotext; then the signs are compared with the spec's.
import re
import subprocess
import zipfile

import docx
import openpyxl
from lxml import etree

from conftest import run_folio, write_spec

UP, DOWN = "\u25b2", "\u25bc"
FORMATS = [None, "+0.0%;-0.0%", "0.0%", "0.0%;(0.0%)", '+0.0 "pp";-0.0 "pp";0.0 "pp"', "#,##0", "+#,##0.00"]
DELTAS = [0.147, -0.147, 0.0, 12.5, -1234.0]
CASES = [(f"M{i}x{j}", d, f) for i, f in enumerate(FORMATS) for j, d in enumerate(DELTAS)]
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
GREEN, RED = "2E7D32", "C62828"


def spec():
    blocks = []
    for label, d, f in CASES:  # one card per block: one card per row in every format
        item = {"label": label, "value": 1, "format": "0", "delta": d}
        if f:
            item["delta_format"] = f
        blocks.append({"type": "metrics", "items": [item]})
    return {"folio": 1, "title": "Deltas", "blocks": blocks}


def render(tmp_path):
    path = write_spec(tmp_path, spec())
    run_folio("render", path, *[a for e in ("xlsx", "docx", "pptx", "pdf") for a in ("-o", tmp_path / f"o.{e}")],
              check=0)


def sign_of_text(t):
    """The sign a reader takes from the delta's text: the arrow, checked
    against the number beside it (a minus or brackets say negative)."""
    arrow = 1 if t.startswith(UP) else -1 if t.startswith(DOWN) else 0
    num = t.lstrip(UP + DOWN + " ")
    looks_negative = num.startswith("-") or num.startswith("(") or "\u2212" in num
    assert not (arrow > 0 and looks_negative), f"rising arrow, negative number: {t!r}"
    assert not (arrow < 0 and (num.startswith("+") or not looks_negative)), f"falling arrow, no minus: {t!r}"
    assert not (arrow == 0 and (looks_negative or re.search(r"[1-9]", num))), f"no arrow on a change: {t!r}"
    return arrow


def sign(x):
    return (x > 0) - (x < 0)


def docx_deltas(path):
    d = docx.Document(path)
    out = []
    for t in d.tables:
        for p in t._tbl.iter("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"):
            para = docx.text.paragraph.Paragraph(p, t._parent)
            if para.style.style_id == "MetricDelta":
                runs = para.runs
                color = runs[0].font.color.rgb if runs and runs[0].font.color.type else None
                out.append((para.text, str(color) if color else None))
    return out


def pptx_deltas(path):
    z = zipfile.ZipFile(path)
    names = sorted((n for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)),
                   key=lambda n: int(re.search(r"(\d+)", n).group(1)))
    out = []
    for n in names:
        root = etree.fromstring(z.read(n))
        for sp in root.iter("{http://schemas.openxmlformats.org/presentationml/2006/main}sp"):
            nv = sp.find(".//{http://schemas.openxmlformats.org/presentationml/2006/main}cNvPr")
            if nv is None or not nv.get("name", "").startswith("Metric"):
                continue
            paras = sp.findall(f".//{A}p")
            r = paras[2].find(f"{A}r")
            clr = r.find(f"{A}rPr/{A}solidFill/{A}srgbClr")
            out.append(("".join(t.text or "" for t in paras[2].iter(A + "t")), clr.get("val") if clr is not None else None))
    return out


def pdf_deltas(path):
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    out = []
    for i, ln in enumerate(lines):
        if re.fullmatch(r"M\d+x\d+", ln):
            assert lines[i + 1] == "1"
            out.append(lines[i + 2])
    return out


def xlsx_deltas(path):
    ws = openpyxl.load_workbook(path)["Summary"]
    out = {}
    for row in ws.iter_rows():
        if row[0].value and re.fullmatch(r"M\d+x\d+", str(row[0].value)):
            c = row[2]
            out[row[0].value] = (c.value, c.number_format, c.font.color.rgb if c.font.color else None)
    return out


def test_every_format_shows_every_delta_with_its_sign(tmp_path):
    render(tmp_path)
    dx, px, pdf, xl = (docx_deltas(tmp_path / "o.docx"), pptx_deltas(tmp_path / "o.pptx"),
                       pdf_deltas(tmp_path / "o.pdf"), xlsx_deltas(tmp_path / "o.xlsx"))
    assert len(dx) == len(px) == len(pdf) == len(xl) == len(CASES)
    for k, (label, d, f) in enumerate(CASES):
        want = sign(d)
        # the same text everywhere (one rule), and a sign that matches the data
        assert dx[k][0] == px[k][0], (label, dx[k], px[k])
        assert dx[k][0].replace(" ", "") == pdf[k].replace(" ", ""), (label, dx[k], pdf[k])  # pdftotext's spacing
        assert sign_of_text(dx[k][0]) == want, (label, d, f, dx[k][0])
        value, code, _ = xl[label]
        assert sign(value) == want and value == d, (label, value)
        assert code == (f or "+0.0%;-0.0%;0.0%")


def test_default_format_texts(tmp_path):
    render(tmp_path)
    texts = [t for t, _ in pptx_deltas(tmp_path / "o.pptx")]
    assert texts[:3] == [f"{UP} +14.7%", f"{DOWN} -14.7%", "0.0%"]
    pp = [t for (lab, _, f), (t, _) in zip(CASES, pptx_deltas(tmp_path / "o.pptx")) if f and "pp" in f]
    assert pp[:3] == [f"{UP} +0.1 pp", f"{DOWN} -0.1 pp", "0.0 pp"]


def test_deltas_are_coloured_green_up_red_down_in_docx_pptx_xlsx(tmp_path):
    render(tmp_path)
    xl = xlsx_deltas(tmp_path / "o.xlsx")
    for (label, d, _), (_, dc), (_, pc) in zip(CASES, docx_deltas(tmp_path / "o.docx"), pptx_deltas(tmp_path / "o.pptx")):
        want = GREEN if d > 0 else RED if d < 0 else None
        assert dc == want, (label, dc)
        if want:
            assert pc == want and xl[label][2].endswith(want), (label, pc, xl[label][2])
        else:
            assert pc not in (GREEN, RED) and not str(xl[label][2]).endswith((GREEN, RED)), label


def test_lower_is_better_turns_the_colours_not_the_arrows(tmp_path):
    """Issue 37, B: a falling cost is good news, green ▼, in every format."""
    spec = {"folio": 1, "blocks": [{"type": "metrics", "items": [
        {"label": "Cost", "value": 1, "delta": -0.1, "better": "lower"},
        {"label": "Churn", "value": 1, "delta": 0.1, "better": "lower"},
        {"label": "Revenue", "value": 1, "delta": -0.1, "better": "higher"}]}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, *[a for e in ("xlsx", "docx", "pptx") for a in ("-o", tmp_path / f"o.{e}")], check=0)
    want = [(f"{DOWN} -10.0%", GREEN), (f"{UP} +10.0%", RED), (f"{DOWN} -10.0%", RED)]
    assert docx_deltas(tmp_path / "o.docx") == want
    assert pptx_deltas(tmp_path / "o.pptx") == want
    ws = openpyxl.load_workbook(tmp_path / "o.xlsx")["Summary"]
    cells = {r[0].value: r[2] for r in ws.iter_rows() if r[0].value in ("Cost", "Churn", "Revenue")}
    assert [cells[k].font.color.rgb[-6:] for k in ("Cost", "Churn", "Revenue")] == [GREEN, RED, RED]
    spec["blocks"][0]["items"][0]["better"] = "lowr"
    p = run_folio("validate", write_spec(tmp_path, spec), check=2)
    assert "/blocks/0/items/0/better" in p.stderr and "did you mean 'lower'?" in p.stderr
