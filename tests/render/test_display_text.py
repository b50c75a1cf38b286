# test_display_text.py — a value reads the same in every document format:
# PDF, DOCX and PPTX show each cell as Excel would (one function,
# fo_value_text, makes that text), read back with pdftotext, python-docx and
# the pptx slide XML.
import re
import subprocess
import zipfile

import docx

from conftest import run_folio, write_spec

SPEC = {
    "folio": 1,
    "title": "Display text",
    "blocks": [{"type": "table", "data": {
        "columns": [
            {"name": "weight", "type": "text", "format": "0;-0;0;@\" kg\""},
            {"name": "amount", "format": "#,##0.00"},
            {"name": "share", "format": "0.0%"},
            {"name": "ok", "type": "boolean"},
            {"name": "site"},
            {"name": "day", "type": "date", "format": "yyyy-mm-dd"},
            {"name": "calc", "format": "0.0"}],
        "rows": [["12", 1385.28, -0.125, True, {"url": "https://a.example", "text": "site A"},
                  {"date": "2024-01-01"}, {"formula": "=B2*2", "value": 42}]]}}],
}
WANT = ["12 kg", "1,385.28", "-12.5%", "TRUE", "site A", "2024-01-01", "42.0"]


def test_cells_read_the_same_in_pdf_docx_pptx(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    outs = [tmp_path / ("t." + ext) for ext in ("pdf", "docx", "pptx")]
    run_folio("render", spec, *[a for o in outs for a in ("-o", o)], "--quiet", check=0)

    pdf = subprocess.run(["pdftotext", "-layout", str(outs[0]), "-"], capture_output=True,
                         text=True, check=True).stdout
    doc = docx.Document(str(outs[1]))
    # every w:t of the cell: python-docx's .text skips runs inside a hyperlink
    w_t = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}t"
    cells = ["".join(t.text or "" for t in c._tc.iter(w_t))
             for t in doc.tables for r in t.rows for c in r.cells]
    with zipfile.ZipFile(outs[2]) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist()
                      if re.match(r"ppt/slides/slide\d+\.xml$", n))
    pptx = re.findall(r"<a:t>([^<]*)</a:t>", xml)
    for want in WANT:
        assert want in pdf, (want, pdf)
        assert want in cells, (want, cells)
        assert want in pptx, (want, pptx)
