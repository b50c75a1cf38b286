# test_corpus.py — specs written the way an assistant's model writes them
# (issue 14: table exports, a sales report, "5 slides on Q3", a survey memo,
# a pie chart, n/a markers, dates in several notations, currency and
# percentages, European numbers with NaN, long text, a 30-column table,
# colour formats, a 100,000-row export), each rendered to every format and
# read back with openpyxl/pandas, python-docx, the PPTX XML, pdftotext and
# qpdf; a few also through LibreOffice.
import datetime
import json
import re
import shutil
import subprocess
import zipfile

import docx
import openpyxl
import pandas
import pytest
from lxml import etree

from conftest import ROOT, run_folio

CORPUS = ROOT / "tests" / "corpus"
SPECS = sorted(p.name for p in CORPUS.glob("*.json"))
FORMATS = ("xlsx", "docx", "pptx", "pdf")
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


def render(tmp_path, name, formats=FORMATS, check=0):
    for f in CORPUS.iterdir():
        if f.suffix in (".json", ".csv"):
            (tmp_path / f.name).write_bytes(f.read_bytes())
    args = [a for e in formats for a in ("-o", tmp_path / f"out.{e}")]
    p = run_folio("render", tmp_path / name, *args, check=check)
    return p, {e: tmp_path / f"out.{e}" for e in formats}


def pdf_text(path):
    return subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True, check=True).stdout


def pptx_texts(path):
    z = zipfile.ZipFile(path)
    out = []
    for n in sorted(z.namelist()):
        if re.match(r"ppt/slides/slide\d+\.xml$", n):
            out += [t.text or "" for t in etree.fromstring(z.read(n)).iter(A + "t")]
    return out


@pytest.mark.parametrize("name", SPECS)
def test_every_spec_renders_to_files_every_reader_opens(tmp_path, name):
    p, out = render(tmp_path, name)
    assert "error" not in p.stderr.lower()
    wb = openpyxl.load_workbook(out["xlsx"])
    assert wb.sheetnames
    assert docx.Document(out["docx"]) is not None
    assert pptx_texts(out["pptx"])
    subprocess.run(["qpdf", "--check", out["pdf"]], capture_output=True, check=True)
    assert pdf_text(out["pdf"]).strip()


def test_export_opens_on_the_data_with_real_amounts(tmp_path):
    _, out = render(tmp_path, "export_orders.json", ("xlsx",))
    df = pandas.read_excel(out["xlsx"])
    assert list(df.columns) == ["order_id", "customer", "order_date", "amount", "status"]
    assert len(df) == 40 and df["amount"].sum() == pytest.approx(sum(i * 37.5 for i in range(1, 41)))
    assert isinstance(df["order_date"][0], (pandas.Timestamp, datetime.datetime))


def test_sales_report(tmp_path):
    _, out = render(tmp_path, "sales_report.json")
    text = pdf_text(out["pdf"])
    assert "$380,650.00" in text and "Table 1. Monthly revenue" in text and "Table 1: Table 1." not in text
    caps = [p.text for p in docx.Document(out["docx"]).paragraphs if p.style.name == "Caption"]
    assert caps == ["Table 1. Monthly revenue"]
    ws = openpyxl.load_workbook(out["xlsx"])["Table 1. Monthly revenue"]
    assert [ws.cell(r, 2).value for r in (2, 3, 4)] == [120500, 131250, 128900]
    assert [ws.cell(r, 3).value for r in (2, 3, 4)] == [0.045, 0.089, -0.018]


def test_q3_slides_put_the_chart_under_its_heading(tmp_path):
    _, out = render(tmp_path, "q3_slides.json", ("pptx",))
    z = zipfile.ZipFile(out["pptx"])
    chart_slides = [n for n in z.namelist() if n.startswith("ppt/slides/_rels/")
                    and b"/chart" in z.read(n)]
    assert len(chart_slides) == 1
    slide = chart_slides[0].replace("_rels/", "").replace(".rels", "")
    texts = [t.text for t in etree.fromstring(z.read(slide)).iter(A + "t")]
    assert "Sales by region" in texts and not any("(cont.)" in (t or "") for t in texts)


def test_survey_memo_keeps_scores_numeric(tmp_path):
    _, out = render(tmp_path, "survey_memo.json", ("xlsx", "docx"))
    ws = openpyxl.load_workbook(out["xlsx"])["Scores (1-5)"]
    assert [ws.cell(r, 2).value for r in range(2, 7)] == [3.8, "n/a", 4.4, 3.1, 3.6]
    assert ws.cell(2, 2).data_type == "n" and ws.cell(5, 3).value == "-"
    table = docx.Document(out["docx"]).tables[0]
    assert table.rows[-1].cells[2].text == "478"  # the total of the numeric responses


def test_pie_chart_png(tmp_path):
    _, out = render(tmp_path, "pie.json", ("png",))
    assert out["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    subprocess.run(["pngcheck", out["png"]], capture_output=True, check=True)


def test_uk_dates_currency_and_percentages(tmp_path):
    p, out = render(tmp_path, "uk_dates.json", ("xlsx", "pdf"))
    ws = openpyxl.load_workbook(out["xlsx"])["uk"]
    assert [ws.cell(r, 1).value for r in (2, 3, 4)] == [datetime.datetime(2024, 1, 15),
                                                       datetime.datetime(2024, 2, 3),
                                                       datetime.datetime(2024, 2, 28)]
    assert [ws.cell(r, 2).value for r in (2, 3, 4)] == [1200.5, -80, 95.1]
    assert [ws.cell(r, 3).value for r in (2, 3, 4)] == [0.125, -0.03, "n/a"]
    assert "warning" not in p.stderr
    assert "15/01/2024" in pdf_text(out["pdf"])


def test_european_numbers_and_nan(tmp_path):
    p, out = render(tmp_path, "eu.json", ("xlsx",))
    assert p.stderr.count("NaN") == 1
    ws = openpyxl.load_workbook(out["xlsx"])["eu"]
    assert [ws.cell(r, 2).value for r in (2, 3, 4)] == [1234.5, 899, 45.9]
    assert ws.cell(3, 3).value is None


def test_long_text_wraps(tmp_path):
    _, out = render(tmp_path, "long_text.json", ("xlsx",))
    ws = openpyxl.load_workbook(out["xlsx"])["n"]
    assert ws["B2"].alignment.wrap_text and ws.row_dimensions[2].height > 30
    assert ws["B4"].alignment.wrap_text


def test_colour_formats_and_long_kpis(tmp_path):
    _, out = render(tmp_path, "pnl_colours.json", ("docx", "pdf"))
    runs = {r.text: r for t in docx.Document(out["docx"]).tables for row in t.rows
            for c in row.cells for par in c.paragraphs for r in par.runs}
    assert str(runs["(212,879.90)"].font.color.rgb) == "FF0000"
    assert "$31,234,567.89" in pdf_text(out["pdf"])


def test_a_hundred_thousand_row_export(tmp_path):
    with open(tmp_path / "big.csv", "w") as f:
        f.write("id,amount,when\n")
        for i in range(100000):
            f.write(f"{i},{i % 977}.25,2024-01-{1 + i % 28:02d}\n")
    (tmp_path / "big.json").write_text(json.dumps({"folio": 1, "title": "Everything", "data": {"b": {"csv": "big.csv"}},
                                                   "blocks": [{"type": "table", "data": "b"}]}))
    p = run_folio("render", tmp_path / "big.json", "-o", tmp_path / "b.xlsx", "-o", tmp_path / "b.pptx", check=0)
    assert len(pandas.read_excel(tmp_path / "b.xlsx")) == 100000
    notes = [t for t in pptx_texts(tmp_path / "b.pptx") if "full table is in the workbook" in t]
    assert notes == ["First 300 of 100,000 rows; the full table is in the workbook."]


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_converts_the_sales_report(tmp_path):
    _, out = render(tmp_path, "sales_report.json", ("docx", "pptx", "xlsx"))
    for fmt in ("docx", "pptx", "xlsx"):
        d = tmp_path / fmt
        subprocess.run(["soffice", f"-env:UserInstallation=file:///tmp/lo-corpus-{fmt}", "--headless",
                        "--convert-to", "pdf", "--outdir", str(d), str(out[fmt])],
                       capture_output=True, timeout=300, check=True)
        text = pdf_text(d / "out.pdf")
        assert "September" in text, fmt


def test_wide_table_keeps_every_number_whole(tmp_path):
    """30 columns (render/core/table.h): PDF on landscape pages, docx in a
    landscape section, both in column groups repeating the id column, slides
    in groups on successive slides; every value read back whole."""
    spec = json.loads((CORPUS / "wide.json").read_text())
    want = {f"{v:g}" if isinstance(v, float) else str(v) for r in spec["data"]["w"]["rows"] for v in r}
    _, out = render(tmp_path, "wide.json", ("pdf", "docx", "pptx"))
    text = pdf_text(out["pdf"])
    assert not want - set(text.split())
    assert "Columns 1–" in text and "(key column repeated)" in text
    d = docx.Document(out["docx"])
    assert all(s.orientation == 1 for s in d.sections)  # the table is all there is: turned
    cells = {c.text for t in d.tables for r in t.rows for c in r.cells}
    assert not want - cells and all(t.cell(0, 0).text == "id" for t in d.tables)
    texts = pptx_texts(out["pptx"])
    assert not want - set(texts)
    assert sum(t.startswith("Columns ") for t in texts) >= 2


# ---- scripts, science and time (issue 37) -----------------------------------------
# Six more specs written from docs/spec.md alone, as a model would: a science
# report (units, numbers of 1e-9, two log-scale charts), a Chinese report, an
# Arabic one (right to left), a Hindi one, a Japanese deck with metrics, and a
# timeline whose line chart runs over datetimes. Each is read back per format
# by a reader folio did not write: its own words, its numbers, its language,
# its direction, the PDF's fonts.

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
# name -> (lang, the PDF font its script must be drawn with, right to left)
SCRIPTS = {
    "science.json": (None, None, False),
    "timeline.json": (None, None, False),
    "zh_report.json": ("zh-Hans", r"DroidSansFallback|NotoSansCJK", False),
    "ja_deck.json": ("ja", r"DroidSansFallback|NotoSansCJK", False),
    "ar_report.json": ("ar", r"NotoSansArabic|NotoNaskhArabic|NotoKufiArabic", True),
    "hi_report.json": ("hi", r"NotoSansDevanagari|NotoSerifDevanagari", False),
}
BIDI_MARKS = dict.fromkeys(map(ord, "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Renders each of SCRIPTS once, to every format and PNG: name -> (spec, paths)."""
    cache = {}

    def get(name):
        if name not in cache:
            d = tmp_path_factory.mktemp(name.split(".")[0])
            p, out = render(d, name, FORMATS + ("png",))
            assert p.returncode == 0 and "warning" not in p.stderr and "error" not in p.stderr.lower(), p.stderr
            cache[name] = (json.loads((CORPUS / name).read_text()), out, d)
        return cache[name]
    return get


def spec_words(spec):
    """Every word of the spec's own text (title, headings, paragraphs, list
    items, captions, column names, text cells, chart titles): the words with
    a letter in them, markup and punctuation around them taken off."""
    texts = [spec.get(k) for k in ("title", "subtitle", "author")]

    def items(xs):
        for i in xs:
            if isinstance(i, dict):
                texts.append(i["text"])
                items(i.get("items", []))
            else:
                texts.append(i)
    for b in spec["blocks"]:
        texts += [b.get(k) for k in ("text", "caption", "title", "x_title", "y_title")]
        items(b.get("items", []) if b["type"] == "list" else [])
        texts += [m["label"] for m in b.get("items", []) if b["type"] == "metrics"]
        texts += [c["title"] for c in b.get("columns", []) if isinstance(c, dict) and "title" in c]
        if b["type"] == "table":  # a header a table shows under the field's own name
            ds = spec["data"][b["data"]]
            names = [c if isinstance(c, str) else c["name"] for c in ds["columns"]]
            texts += [c if isinstance(c, str) else c["field"] for c in b.get("columns", names)
                      if isinstance(c, str) or "title" not in c]
    for ds in spec["data"].values():
        texts += [v for r in ds["rows"] for v in r if isinstance(v, str)]
    words = set()
    for t in filter(None, texts):
        for w in t.replace("**", " ").split():
            w = w.strip(".,:;()[]（）、。，!?*،")
            if any(ch.isalpha() for ch in w):
                words.add(w)
    return words


def squeeze(text):
    return "".join(text.translate(BIDI_MARKS).split())


def xml_texts(path, pattern, tags):
    z = zipfile.ZipFile(path)
    return [t.text or "" for n in sorted(z.namelist()) if re.match(pattern, n)
            for t in etree.fromstring(z.read(n)).iter(*tags)]


def format_text(fmt, path):
    """All the text a reader finds in one file, chart text included."""
    if fmt == "pdf":
        return subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True, check=True).stdout
    if fmt == "docx":
        d = docx.Document(path)
        parts = [p.text for p in d.paragraphs] + [c.text for t in d.tables for r in t.rows for c in r.cells]
        return "\n".join(parts + xml_texts(path, r"word/charts/chart\d+\.xml$", (A + "t", C + "v")))
    if fmt == "pptx":
        return "\n".join(pptx_texts(path) + xml_texts(path, r"ppt/charts/chart\d+\.xml$", (A + "t", C + "v")))
    wb = openpyxl.load_workbook(path)
    cells = [str(c.value) for ws in wb.worksheets for r in ws.iter_rows() for c in r if c.value is not None]
    return "\n".join(wb.sheetnames + cells + xml_texts(path, r"xl/charts/chart\d+\.xml$", (A + "t", C + "v")))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_specs_own_words_come_back(rendered, name, fmt):
    """Every word of the spec, in its script (Han, kana, Arabic letters,
    Devanagari conjuncts, µ and subscripts), read back from each format."""
    spec, out, _ = rendered(name)
    text = squeeze(format_text(fmt, out[fmt]))
    missing = sorted(w for w in spec_words(spec) if squeeze(w) not in text)
    assert not missing


def cell_value(v):
    if isinstance(v, dict):
        return datetime.datetime.fromisoformat(v["date"])
    if isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", v):
        return datetime.datetime.fromisoformat(v)  # a date column inferred
    return v


def table_sheets(spec, wb):
    """(table block, its data rows as the spec gives them, its sheet's rows)
    for each table: the sheet is the one whose header row is the table's."""
    for b in (b for b in spec["blocks"] if b["type"] == "table"):
        ds = spec["data"][b["data"]]
        names = [c if isinstance(c, str) else c["name"] for c in ds["columns"]]
        cols = b.get("columns") or names
        fields = [c if isinstance(c, str) else c["field"] for c in cols]
        titles = [c if isinstance(c, str) else c.get("title", c["field"]) for c in cols]
        want = [[cell_value(r[names.index(f)]) for f in fields] for r in ds["rows"]]
        sheets = [ws for ws in wb.worksheets if [c.value for c in ws[1]][:len(titles)] == titles]
        assert len(sheets) == 1, (b.get("caption"), wb.sheetnames)
        got = [[c.value for c in row][:len(fields)] for row in sheets[0].iter_rows(min_row=2, max_row=1 + len(want))]
        yield b, want, got, sheets[0]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_table_numbers_read_back_exactly(rendered, name):
    """openpyxl reads every table cell as the spec wrote it: 2.41e-09 stays
    2.41e-09 (not its 4-digit display), ¥48,200,000 stays 48200000, a datetime
    a datetime; totals come after the data."""
    spec, out, _ = rendered(name)
    wb = openpyxl.load_workbook(out["xlsx"])
    n = 0
    for b, want, got, ws in table_sheets(spec, wb):
        assert got == want, b.get("caption")
        if b.get("totals"):
            assert ws.cell(2 + len(want), 1).value  # the totals row's label
        n += 1
    assert n == sum(b["type"] == "table" for b in spec["blocks"])


def pdf_lang(path):
    qdf = subprocess.run(["qpdf", "--qdf", "--object-streams=disable", path, "-"],
                         capture_output=True, check=True).stdout
    m = re.search(rb"/Lang \(([^)]*)\)", qdf)
    return m and m.group(1).decode()


@pytest.mark.parametrize("name", sorted(n for n, s in SCRIPTS.items() if s[0]))
def test_the_document_language_in_every_format(rendered, name):
    """docx: the default run properties carry the language (w:val, and
    w:eastAsia for Chinese and Japanese, w:bidi for Arabic and Hindi) with
    the font folio draws the script with, and no run says otherwise; pptx:
    every run's lang, with its a:ea or a:cs font; PDF: the catalog's /Lang."""
    lang, _, _ = SCRIPTS[name]
    spec, out, _ = rendered(name)
    z = zipfile.ZipFile(out["docx"])
    styles = etree.fromstring(z.read("word/styles.xml"))
    rpr = styles.find(f"{W}docDefaults/{W}rPrDefault/{W}rPr")
    wlang, fonts = rpr.find(W + "lang"), rpr.find(W + "rFonts")
    assert wlang.get(W + "val") == lang
    script_attr = "eastAsia" if lang in ("zh-Hans", "ja") else "bidi"
    font_attr = "eastAsia" if lang in ("zh-Hans", "ja") else "cs"
    assert wlang.get(W + script_attr) == lang
    assert re.search(r"Droid Sans Fallback|Noto Sans CJK|Noto Sans Arabic|Noto Sans Devanagari",
                     fonts.get(W + font_attr))
    body = etree.fromstring(z.read("word/document.xml"))
    assert not [e for e in body.iter(W + "lang") if e.get(W + "val") not in (None, lang)]
    z = zipfile.ZipFile(out["pptx"])
    langs, script_fonts = [], []
    for n in z.namelist():
        if re.match(r"ppt/slides/slide\d+\.xml$", n):
            root = etree.fromstring(z.read(n))
            for r in root.iter(A + "rPr", A + "endParaRPr"):
                langs.append(r.get("lang"))
            script_fonts += [e.get("typeface") for e in root.iter(A + ("ea" if font_attr == "eastAsia" else "cs"))]
    script_fonts = [theme_font(z, f) for f in script_fonts]
    assert langs and set(langs) == {lang}
    assert script_fonts and len(set(script_fonts)) == 1
    assert script_fonts[0] in fonts.get(W + font_attr)  # the same font as Word's
    assert pdf_lang(out["pdf"]) == lang


def theme_font(z, face):
    """The typeface a run's a:ea names, through the theme for +mn-ea/+mj-ea:
    the font its minor/major collection lists for an East Asian script
    (a:font script="Jpan"/"Hans"/"Hant"/"Hang"); other names as they are."""
    if face not in ("+mn-ea", "+mj-ea"):
        return face
    theme = etree.fromstring(z.read("ppt/theme/theme1.xml"))
    coll = theme.find(f".//{A}{'minorFont' if face == '+mn-ea' else 'majorFont'}")
    fonts = {f.get("script"): f.get("typeface") for f in coll.findall(A + "font")}
    got = [fonts[k] for k in ("Jpan", "Hans", "Hant", "Hang") if k in fonts]
    return got[0] if len(got) == 1 else None


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_draws_every_number_of_the_japanese_numbered_list(rendered, tmp_path):
    """LibreOffice Impress draws a numbered paragraph's number in the East
    Asian font of its first character; with Droid Sans Fallback (no digits)
    named there, the first item's "1" fell back to the colour emoji font and
    was drawn as nothing ("．名古屋店…"). Each number is a word of its own, at
    the same place as the others, no glyph from the emoji font, and every run
    still says its East Asian font (directly or through the theme)."""
    spec, out, _ = rendered("ja_deck.json")
    items = next(b["items"] for b in spec["blocks"] if b["type"] == "list" and b.get("ordered"))
    subprocess.run(["soffice", "-env:UserInstallation=file:///tmp/lo-corpus-ja", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(out["pptx"])],
                   check=True, capture_output=True, timeout=300)
    pdf = tmp_path / (out["pptx"].stem + ".pdf")
    bbox = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True, check=True).stdout
    page = next(p for p in bbox.split("<page ") if items[0] in p)
    words = [(float(x), float(y), w) for x, y, w in
             re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)</word>', page)]
    got = []
    for item in items:
        line = [w for w in words if w[2] == item]
        assert len(line) == 1, (item, [w for w in words if item in w[2]])
        x, y, _ = line[0]
        before = [w for w in words if abs(w[1] - y) < 1 and w[0] < x]
        got.append([(w[2], round(w[0])) for w in before])
    assert [[w for w, _ in g] for g in got] == [["1."], ["2."], ["3."]], got
    assert len({g[0][1] for g in got}) == 1, got   # the numbers in one column
    fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout
    assert "Emoji" not in fonts, fonts
    z = zipfile.ZipFile(out["pptx"])
    for n in z.namelist():
        if re.match(r"ppt/slides/slide\d+\.xml$", n):
            for r in etree.fromstring(z.read(n)).iter(A + "r"):
                ea = r.find(f"{A}rPr/{A}ea")
                assert ea is not None and theme_font(z, ea.get("typeface")) == "Droid Sans Fallback", n


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_pdf_has_a_language_and_passes_qpdf(rendered, name):
    spec, out, _ = rendered(name)
    subprocess.run(["qpdf", "--check", out["pdf"]], capture_output=True, check=True)
    assert (pdf_lang(out["pdf"]) or "").split("-")[0] == (spec.get("lang") or "en").split("-")[0]


@pytest.mark.parametrize("name", sorted(n for n, s in SCRIPTS.items() if s[1]))
def test_the_pdf_draws_each_script_with_its_own_font(rendered, name):
    """pdffonts: the script's Noto (or, for Chinese and Japanese, the Droid
    Sans Fallback docs/text.md names) is embedded, and no symbol or
    last-resort font (Symbola, DejaVu) stands in for its letters."""
    _, out, _ = rendered(name)
    fonts = subprocess.run(["pdffonts", out["pdf"]], capture_output=True, text=True, check=True).stdout
    names = [line.split()[0] for line in fonts.splitlines()[2:]]
    assert any(re.search(SCRIPTS[name][1], n) for n in names), names
    assert not [n for n in names if re.search(r"Symbola|DejaVu", n)], names
    assert all(line.split()[-5:-2] == ["yes", "yes", "yes"] for line in fonts.splitlines()[2:])  # emb sub uni


def test_the_arabic_table_is_mirrored_in_every_format(rendered):
    """`lang: ar` makes the table right to left: Word's w:bidiVisual,
    PowerPoint's a:tblPr rtl="1", the table's sheet read right to left, and
    in the PDF the first column (الفرع) drawn right of the last (الحالة) and
    the chart's first category (الرياض) rightmost."""
    spec, out, d = rendered("ar_report.json")
    body = etree.fromstring(zipfile.ZipFile(out["docx"]).read("word/document.xml"))
    assert [t.find(f"{W}tblPr/{W}bidiVisual") is not None for t in body.iter(W + "tbl")] == [True]
    z = zipfile.ZipFile(out["pptx"])
    tbls = [t for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)
            for t in etree.fromstring(z.read(n)).iter(A + "tblPr")]
    assert tbls and all(t.get("rtl") == "1" for t in tbls)
    wb = openpyxl.load_workbook(out["xlsx"])
    (_, _, _, ws), = table_sheets(spec, wb)
    assert ws.sheet_view.rightToLeft
    assert pdf_rows(out["pdf"], "الحالة") == [["الفرع", "المبيعات", "الهدف", "الحالة"]]
    rows = pdf_rows(out["pdf"], "الرياض")  # the list item, the table's row and the chart's axis
    assert ["الرياض", "452,300", "400,000", "تجاوز الهدف"] in rows
    assert ["الرياض", "جدة", "الدمام", "مكة المكرمة"] in rows  # the categories run from the right


def pdf_rows(path, word):
    """The words on each PDF line that holds word, from the right (pdftotext
    -bbox gives Arabic words in visual order, so each is turned back), words
    closer than a space apart joined: the cells of a right-to-left row."""
    bbox = subprocess.run(["pdftotext", "-bbox", path, "-"], capture_output=True, text=True, check=True).stdout
    words = [(float(x0), float(x1), (float(y0) + float(y1)) / 2,  # the middle: fonts differ in ascent
              re.sub(r"[\u0600-\u06ff]+", lambda m: m.group(0)[::-1], t))
             for x0, y0, x1, y1, t in re.findall(
                 r'xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]+)<', bbox)]
    rows = []
    for y in sorted({w[2] for w in words if w[3] == word}):
        cells = []
        for x0, x1, _, t in sorted((w for w in words if abs(w[2] - y) < 3), key=lambda w: -w[0]):
            if cells and cells[-1][0] - x1 < 8:
                cells[-1] = (x0, cells[-1][1] + " " + t)
            else:
                cells.append((x0, t))
        rows.append([t for _, t in cells])
    return rows


@pytest.mark.parametrize("name", sorted(n for n, s in SCRIPTS.items() if not s[2]))
def test_left_to_right_tables_are_not_mirrored(rendered, name):
    spec, out, _ = rendered(name)
    body = etree.fromstring(zipfile.ZipFile(out["docx"]).read("word/document.xml"))
    assert not list(body.iter(W + "bidiVisual"))
    wb = openpyxl.load_workbook(out["xlsx"])
    assert not any(ws.sheet_view.rightToLeft for ws in wb.worksheets)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_every_chart_makes_a_png(rendered, name):
    spec, out, d = rendered(name)
    n = sum(b["type"] == "chart" for b in spec["blocks"])
    pngs = sorted(d.glob("out*.png"))
    assert len(pngs) == n and pngs == ([out["png"]] if n == 1 else [d / f"out-{i}.png" for i in range(1, n + 1)])
    for p in pngs:
        subprocess.run(["pngcheck", p], capture_output=True, check=True)


def test_log_scale_charts_are_log_in_every_office_format(rendered):
    """Both science charts have `y_scale: log`: Excel's, Word's and
    PowerPoint's charts carry c:logBase 10 on their value axis."""
    _, out, _ = rendered("science.json")
    for fmt, part in (("xlsx", "xl"), ("docx", "word"), ("pptx", "ppt")):
        z = zipfile.ZipFile(out[fmt])
        charts = [n for n in z.namelist() if re.match(part + r"/charts/chart\d+\.xml$", n)]
        bases = [e.get("val") for n in charts for e in etree.fromstring(z.read(n)).iter(C + "logBase")]
        assert len(charts) == 2 and bases == ["10", "10"], fmt


def test_the_timeline_charts_its_datetimes_in_order(rendered):
    """A line chart over a datetime column: the PDF labels each point with
    its day and time, in order; the workbook keeps the times as datetimes."""
    spec, out, _ = rendered("timeline.json")
    text = pdf_text(out["pdf"])
    rows = spec["data"]["traffic"]["rows"]
    times = [r[0]["date"].replace("T", " ") for r in rows]
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if "2026-05-18" in ln and "06:00" in lines[k + 1])
    days, hours = lines[i].split(), lines[i + 1].split()
    assert [f"{a} {b}" for a, b in zip(days, hours)] == times


@pytest.mark.parametrize("name", ["zh_report.json", "ja_deck.json", "ar_report.json", "hi_report.json"])
def test_a_caption_numbered_in_its_own_script_is_not_numbered_twice(rendered, name):
    spec, out, _ = rendered(name)
    caption = next(b["caption"] for b in spec["blocks"] if b["type"] == "table")
    caps = [p.text for p in docx.Document(out["docx"]).paragraphs if p.style.name == "Caption"]
    assert caps == [caption]


def test_every_arabic_paragraph_in_word_runs_right_to_left(rendered):
    _, out, _ = rendered("ar_report.json")
    z = zipfile.ZipFile(out["docx"])
    ltr = [(n, "".join(t.text or "" for t in p.iter(W + "t")))
           for n in z.namelist() if re.match(r"word/(document|footer\d*)\.xml$", n)
           for p in etree.fromstring(z.read(n)).iter(W + "p")
           if re.search("[\u0600-\u06ff]", "".join(t.text or "" for t in p.iter(W + "t")))
           and p.find(f"{W}pPr/{W}bidi") is None]
    assert not ltr


def test_the_japanese_deck_metrics_and_slides(rendered):
    """The deck: a title slide, then one slide per level-1 heading (the
    chart and the table each on their heading's slide); the metric cards
    show ▲ for a rise and ▼ for the fall of a cost, signs as the format
    writes them, in the PDF and on the slide alike."""
    spec, out, _ = rendered("ja_deck.json")
    z = zipfile.ZipFile(out["pptx"])
    slides = sorted((n for n in z.namelist() if re.match(r"ppt/slides/slide\d+\.xml$", n)),
                    key=lambda n: int(re.search(r"\d+", n).group()))
    h1 = [b["text"] for b in spec["blocks"] if b["type"] == "heading" and b.get("level", 1) == 1]
    assert len(slides) == 1 + len(h1)
    for n, h in zip(slides[1:], h1):
        assert h in [t.text for t in etree.fromstring(z.read(n)).iter(A + "t")]
    for text in (pdf_text(out["pdf"]), "\n".join(pptx_texts(out["pptx"]))):
        assert "¥136,400,000" in text and "95,090" in text and "¥41,800,000" in text
        assert re.search(r"▲\s*\+5\.8%", text) and re.search(r"▲\s*\+3\.1%", text) and re.search(r"▼\s*-2\.4%", text)
    rels = {n: z.read(n.replace("slides/", "slides/_rels/") + ".rels") for n in slides}
    assert [h for n, h in zip(slides[1:], h1) if b"/chart" in rels[n]] == ["店舗別売上高"]


def test_science_numbers_keep_their_scientific_format(rendered):
    """0.00E+00 and 0.000E+00 formats: the PDF, Word and slides show
    2.410E-09 (never 0.00 or 2.41e-09), the workbook keeps the number
    with the format; µ, ₀ and ± come back as written."""
    spec, out, _ = rendered("science.json")
    shown = ["1.00E-06", "2.410E-09", "1.190E-07", "1.00E-03", "2.710E-07", "120,000", "171"]
    d = docx.Document(out["docx"])
    texts = {"pdf": pdf_text(out["pdf"]), "pptx": "\n".join(pptx_texts(out["pptx"])),  # not the charts' data
             "docx": "\n".join(c.text for t in d.tables for r in t.rows for c in r.cells)}
    for fmt, text in texts.items():
        assert all(s in text.split() for s in shown), fmt
        assert "0.000" not in text.split() and "2.41e-09" not in text, fmt
    ws = next(ws for _, _, _, ws in table_sheets(spec, openpyxl.load_workbook(out["xlsx"])) if ws.max_column == 4)
    assert ws.cell(2, 1).number_format == "0.00E+00" and ws.cell(2, 2).number_format == "0.000E+00"
    assert ws.cell(2, 2).value == 2.41e-09
    assert "1.00 µM" in pdf_text(out["pdf"]) and "± 0.02" in pdf_text(out["pdf"])


def test_the_arabic_byline_keeps_its_date_as_written(rendered):
    """"إدارة المبيعات · 2026-10-01" was drawn "01-10-2026": after Arabic
    letters the bidi algorithm makes the date's digits Arabic numbers. A
    left-to-right mark before the date keeps it whole, in every format."""
    spec, out, _ = rendered("ar_report.json")
    html = subprocess.run(["pdftotext", "-bbox", "-f", "1", "-l", "1", out["pdf"], "-"],
                          capture_output=True, text=True, check=True).stdout
    dates = [w.replace("\u200e", "") for w in re.findall(r">([^<]*2026[^<]*)</word>", html)]
    assert dates == [spec["date"]], dates
    byline = [p.text for p in docx.Document(out["docx"]).paragraphs if p.style.name == "Byline"]
    assert byline == [spec["author"] + " \u00b7 \u200e" + spec["date"]], byline
    assert any(t.endswith("\u200e" + spec["date"]) for t in pptx_texts(out["pptx"]))


def test_a_left_to_right_byline_has_no_mark(rendered):
    _, out, _ = rendered("zh_report.json")
    assert not [t for t in pptx_texts(out["pptx"]) if "\u200e" in t]


def test_the_arabic_chart_has_its_value_axis_on_the_right(rendered):
    """Categories from the right, and the value axis there too, as Office
    draws the same chart (it stayed on the left in PDF and PNG)."""
    _, out, _ = rendered("ar_report.json")
    html = subprocess.run(["pdftotext", "-bbox", out["pdf"], "-"], capture_output=True, text=True,
                          check=True).stdout
    width = float(re.search(r'<page width="([\d.]+)"', html).group(1))
    ticks = {w: float(x) for x, w in re.findall(r'<word xMin="([\d.]+)"[^>]*>(100,000|300,000|500,000)</word>', html)}
    assert len(ticks) == 3 and min(ticks.values()) > 0.7 * width, (ticks, width)


def test_the_arabic_summary_links_are_formulas_libreoffice_draws(rendered, tmp_path):
    """LibreOffice Calc drew the Arabic Summary sheet's link cells (a table's
    "جدول: … ← ورقة «…»", a chart's data sheet) run together, with boxes: its
    hyperlink field breaks right-to-left text. In a right-to-left workbook
    they are HYPERLINK formulas whose cached value is the label."""
    _, out, _ = rendered("ar_report.json")
    ws = openpyxl.load_workbook(out["xlsx"])["Summary"]
    cached = openpyxl.load_workbook(out["xlsx"], data_only=True)["Summary"]
    links = [(c.value, cached[c.coordinate].value) for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and c.value.startswith("=HYPERLINK(")]
    assert len(links) == 2, links                           # the table's, the chart data's
    for formula, label in links:
        assert formula.startswith("=HYPERLINK(\"#'") and formula.endswith('"' + label + '")'), formula
    assert not [c for row in ws.iter_rows() for c in row if c.hyperlink]
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice not installed")
    subprocess.run(["soffice", "-env:UserInstallation=file:///tmp/lo-corpus-links", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(out["xlsx"])],
                   check=True, capture_output=True, timeout=300)
    text = pdf_text(tmp_path / (out["xlsx"].stem + ".pdf"))
    assert "الفرع ← ورقة" in text, text


def test_a_left_to_right_workbook_keeps_link_cells(rendered):
    _, out, _ = rendered("zh_report.json")
    ws = openpyxl.load_workbook(out["xlsx"])["Summary"]
    assert [c for row in ws.iter_rows() for c in row if c.hyperlink]
    assert not [c for row in ws.iter_rows() for c in row
                if isinstance(c.value, str) and c.value.startswith("=HYPERLINK(")]


def test_the_arabic_chart_mirrors_its_clusters_and_its_legend(rendered, tmp_path):
    """Right to left, a cluster's first series stands on its right, as in
    Office's chart with its category axis reversed (it stood on the left in
    PDF and PNG), and the legend reads from the right too: the first series'
    label right of the second's, each label left of its swatch."""
    from PIL import Image
    _, out, _ = rendered("ar_report.json")
    html = subprocess.run(["pdftotext", "-bbox", "-f", "1", "-l", "1", out["pdf"], "-"],
                          capture_output=True, text=True, check=True).stdout
    words = [(float(x0), float(y0), float(x1), w) for x0, y0, x1, w in
             re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>', html)]
    axis = [w for w in words if w[3] in ("400,000", "500,000")]
    axis = [w for w in axis if w[0] == max(a[0] for a in axis)]          # the value axis, at the right
    tick = {w: (y0 + 4) for _, y0, _, w in axis}
    # the lowest: the legend's (a chart's labels may come out in visual order)
    sales = max((w for w in words if "المبيعات" in (w[3], w[3][::-1])), key=lambda w: w[1])
    target = max((w for w in words if "الهدف" in (w[3], w[3][::-1])), key=lambda w: w[1])
    assert abs(sales[1] - target[1]) < 2 and sales[0] > target[2], (sales, target)   # one row, sales first from the right
    # the Riyadh cluster (the rightmost): sales 452,300 over target 400,000
    subprocess.run(["pdftoppm", "-r", "144", "-f", "1", "-l", "1", "-png", out["pdf"], str(tmp_path / "p")], check=True)
    img = Image.open(next(tmp_path.glob("p*.png"))).convert("RGB")
    k = img.width / float(re.search(r'<page width="([\d.]+)"', html).group(1))
    y400, y500 = tick["400,000"] * k, tick["500,000"] * k
    right_edge = axis[0][0] * k

    def bar_columns(y):
        xs = [x for x in range(int(img.width * 0.55), int(right_edge)) if sum(img.getpixel((x, int(y)))) < 600]
        return xs
    both = bar_columns(y400 + (y400 - y500) * 0.5)          # 350,000: both bars of each cluster
    only = bar_columns(y400 - (y400 - y500) * 0.3)          # 430,000: only Riyadh's sales bar
    assert only and both, (only[:3], both[:3])
    riyadh = [x for x in both if x > min(only) - (max(only) - min(only)) * 1.5]
    centre = (min(riyadh) + max(riyadh)) / 2
    assert (min(only) + max(only)) / 2 > centre + (max(riyadh) - min(riyadh)) / 8, (only[0], only[-1], riyadh[0], riyadh[-1])
