# test_readers_see.py — what readers of non-English documents see (issue
# "What readers see"): CJK drawn from the CJK font, never the symbol font;
# a document language that picks folio's own words and marks every run;
# right-to-left tables mirrored; long chart categories wrapped, not cut.
import json
import shutil
import subprocess

import pytest

from conftest import run_folio, write_spec

need_poppler = pytest.mark.skipif(not shutil.which("pdffonts"), reason="poppler-utils needed")


def render(tmp_path, spec, *exts, name="s"):
    path = write_spec(tmp_path, spec, f"{name}.json")
    outs = [tmp_path / f"{name}.{e}" for e in exts]
    args = ["render", path]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    return outs


def pdf_fonts(pdf):
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    return [line.split()[0].split("+")[-1] for line in out.splitlines()[2:]]


# ---- 4. CJK from the CJK font ------------------------------------------------
@need_poppler
@pytest.mark.parametrize("text", ["中文の文字", "中国と日本。（中）"])
def test_pdf_cjk_line_is_not_drawn_from_symbola(tmp_path, text):
    pdf, = render(tmp_path, {"folio": 1, "blocks": [{"type": "paragraph", "text": text}]}, "pdf")
    fonts = pdf_fonts(pdf)
    assert "DroidSansFallback" in fonts, fonts
    assert not any("Symbola" in f for f in fonts), fonts
    got = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert text in got


@need_poppler
def test_pdf_chart_cjk_categories_not_from_symbola(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "chart", "kind": "column", "x": "k", "y": "v",
            "data": {"columns": ["k", "v"], "rows": [["中国", 1], ["日本の", 2]]}}]}
    pdf, = render(tmp_path, spec, "pdf")
    assert not any("Symbola" in f for f in pdf_fonts(pdf))


# ---- 5. the document's language ---------------------------------------------
import re
import zipfile

import docx
import openpyxl

ROOT = __import__("pathlib").Path(__file__).resolve().parents[3]
LANGS = ["en", "de", "fr", "es", "pt", "it", "nl", "zh", "ja", "ko", "ar", "he", "hi", "ru"]


def table_spec(lang, rows=2, **extra):
    spec = {"folio": 1, "title": "T", "blocks": [
        {"type": "heading", "text": "H", "level": 1},
        {"type": "table", "caption": "Sales", "totals": {"v": "sum"},
         "data": {"columns": ["k", "v"], "rows": [[f"r{i}", i] for i in range(rows)]}}]}
    if lang:
        spec["lang"] = lang
    spec.update(extra)
    return spec


def pdftext(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def part(path, name):
    with zipfile.ZipFile(path) as z:
        return z.read(name).decode()


def parts(path, prefix):
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n).decode() for n in z.namelist() if n.startswith(prefix) and n.endswith(".xml")}


CATEGORIES = ("zero", "one", "two", "few", "many", "other")
COUNTED = {"columns_of": 3, "first_rows": 2, "table_link": 3, "table_link_sheets": 4}  # key: counted {n}


def test_word_table_is_complete_for_every_language():
    words = json.loads((ROOT / "templates" / "lang" / "words.json").read_text())["languages"]
    assert set(LANGS) <= set(words)
    for lang in LANGS:
        assert set(words[lang]) == set(words["en"]), lang
        assert "{page}" in words[lang]["page_of"] and "{pages}" in words[lang]["page_of"], lang
        for k, w in words[lang].items():
            if isinstance(w, dict):  # plural forms: only counted words, "other" has every argument
                assert k in COUNTED and "other" in w and set(w) <= set(CATEGORIES), (lang, k)
                others = [f for c, f in w.items() if c != "other"]
                assert all(f"{{{i}}}" in f for f in others for i in range(1, COUNTED[k])), (lang, k)
            else:
                assert isinstance(w, str), (lang, k)
        other = {k: w["other"] if isinstance(w, dict) else w for k, w in words[lang].items()}
        assert all(f"{{{i}}}" in other["columns_of"] for i in (1, 2, 3)), lang
        assert all(f"{{{i}}}" in other["first_rows"] for i in (1, 2)), lang


# Counted words take the form CLDR's plural rules give the count (zero, one,
# two, few, many, other): the Summary sheet's "(N rows)" for tables of 0 to
# 101 rows, and the cut note under a table of more than 1,000 rows in Word.
# The Arabic forms follow CLDR's own Arabic count patterns (e.g. its units:
# "{0} يوم", "يوم", "يومان", "{0} أيام", "{0} يومًا"; after a preposition the
# dual is genitive, "خلال يومين").
COUNTS = (0, 1, 2, 3, 11, 100, 101)
ROWS_WORD = {
    "en": ["(0 rows)", "(1 row)", "(2 rows)", "(3 rows)", "(11 rows)", "(100 rows)", "(101 rows)"],
    "ar": ["(0 صف)", "(صف واحد)", "(صفان)", "(3 صفوف)", "(11 صفًا)", "(100 صف)", "(101 صف)"],
    "he": ["(0 שורות)", "(שורה אחת)", "(שתי שורות)", "(3 שורות)", "(11 שורות)", "(100 שורות)", "(101 שורות)"],
    "ru": ["(0 строк)", "(1 строка)", "(2 строки)", "(3 строки)", "(11 строк)", "(100 строк)", "(101 строка)"],
}


def counted_tables_spec(lang, counts, cols=1):
    return {"folio": 1, "lang": lang, "blocks": [
        {"type": "table", "caption": f"t{n}", "data": {"columns": [f"c{j}" for j in range(cols)],
                                                        "rows": [[i] * cols for i in range(n)]}}
        for n in counts]}


@pytest.mark.parametrize("lang", sorted(ROWS_WORD))
def test_row_counts_in_the_summary_sheet_take_their_plural_form(tmp_path, lang):
    xl, = render(tmp_path, counted_tables_spec(lang, COUNTS), "xlsx")
    ws = openpyxl.load_workbook(xl, data_only=True)["Summary"]
    labels = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str) and "t" in c.value]
    got = []
    for n in COUNTS:
        label, = [v for v in labels if f"«t{n}»" in v or f"“t{n}”" in v or f"„t{n}”" in v]
        got.append(label[label.rindex("("):])
    assert got == ROWS_WORD[lang]


CUT = (1001, 1002, 1003, 1011, 1100)
CUT_WORDS = {
    "en": ["of 1,001 rows;", "of 1,002 rows;", "of 1,003 rows;", "of 1,011 rows;", "of 1,100 rows;"],
    "ar": ["من 1,001 صف؛", "من 1,002 صف؛", "من 1,003 صفوف؛", "من 1,011 صفًا؛", "من 1,100 صف؛"],
    "ru": ["из 1,001 строки;", "из 1,002 строк;", "из 1,003 строк;", "из 1,011 строк;", "из 1,100 строк;"],
}


@pytest.mark.parametrize("lang", sorted(CUT_WORDS))
def test_the_cut_note_counts_rows_in_their_plural_form(tmp_path, lang):
    dx, = render(tmp_path, counted_tables_spec(lang, CUT), "docx")
    notes = [p.text for p in docx.Document(str(dx)).paragraphs if "1,000" in p.text]
    assert len(notes) == len(CUT), notes
    for note, want in zip(notes, CUT_WORDS[lang]):
        assert want in note, (note, want)


@need_poppler
def test_german_words_in_every_format(tmp_path):
    pdf, dx, px, xl = render(tmp_path, table_spec("de"), "pdf", "docx", "pptx", "xlsx")
    text = pdftext(pdf)
    assert "Summe" in text and "Seite 1 von 1" in text, text
    assert "Total" not in text and "Page" not in text
    d = docx.Document(str(dx))
    assert d.tables[0].rows[-1].cells[0].text == "Summe"
    assert any(p.text.startswith("Tabelle 1: Sales") for p in d.paragraphs), [p.text for p in d.paragraphs]
    footer = part(dx, "word/footer1.xml")
    assert "Seite" in footer and "Page" not in footer
    slides = "".join(parts(px, "ppt/slides/").values())
    assert ">Summe<" in slides and ">Total<" not in slides
    ws = openpyxl.load_workbook(xl).worksheets[-1]
    assert "Summe" in [c.value for c in ws["A"]]


@need_poppler
def test_pdf_lang_in_catalog(tmp_path):
    pdf, = render(tmp_path, table_spec("ar"), "pdf")
    qdf = subprocess.run(["qpdf", "--qdf", "--object-streams=disable", str(pdf), "-"],
                         capture_output=True, check=True).stdout
    assert b"/Lang (ar)" in qdf
    plain, = render(tmp_path, table_spec(None), "pdf", name="plain")
    # without a lang the document is English, as Word's and the slides' runs say
    assert b"/Lang (en-US)" in subprocess.run(["qpdf", "--qdf", "--object-streams=disable", str(plain), "-"],
                                              capture_output=True, check=True).stdout


def test_docx_and_pptx_runs_carry_the_language_and_script_fonts(tmp_path):
    spec = table_spec("ar")
    spec["blocks"].insert(1, {"type": "paragraph", "text": "مرحبا **بالعالم**"})
    spec["blocks"].append({"type": "chart", "kind": "column", "x": "k", "y": "v", "title": "ت",
                           "y_title": "ي", "data": {"columns": ["k", "v"], "rows": [["أ", 1], ["ب", 2]]}})
    dx, px = render(tmp_path, spec, "docx", "pptx")
    styles = part(dx, "word/styles.xml")
    assert re.search(r'<w:lang w:val="ar" w:eastAsia="en-US" w:bidi="ar"/>', styles), styles[:2000]
    assert 'w:cs="Noto Sans Arabic"' in styles
    assert 'w:themeFontLang w:val="ar"' in part(dx, "word/settings.xml")
    slides = parts(px, "ppt/slides/")
    xml = "".join(slides.values())
    assert 'lang="en-US"' not in xml
    assert re.search(r'<a:rPr lang="ar"[^>]*>', xml)
    assert '<a:cs typeface="Noto Sans Arabic"/>' in xml
    charts = "".join(parts(px, "ppt/charts/").values()) + "".join(parts(dx, "word/charts/").values())
    assert 'lang="en-US"' not in charts and 'val="en-US"' not in charts
    cjk, = render(tmp_path, dict(table_spec("zh-Hans")), "pptx", name="zh")
    assert '<a:ea typeface="Droid Sans Fallback"/>' in "".join(parts(cjk, "ppt/slides/").values())


def test_pptx_continued_slide_in_french(tmp_path):
    px, = render(tmp_path, table_spec("fr", rows=80), "pptx")
    xml = "".join(parts(px, "ppt/slides/").values())
    assert "(suite)" in xml and "(cont.)" not in xml


def test_cut_notes_in_spanish(tmp_path):
    dx, px = render(tmp_path, table_spec("es", rows=1200), "docx", "pptx")
    text = "\n".join(p.text for p in docx.Document(str(dx)).paragraphs)
    assert "Primeras 1,000 de 1,200 filas" in text, text[-300:]
    assert "Primeras 300 de 1,200 filas" in "".join(parts(px, "ppt/slides/").values())


@need_poppler
def test_column_group_note_in_japanese(tmp_path):
    cols = [f"c{i}" for i in range(25)]
    spec = {"folio": 1, "lang": "ja", "blocks": [{"type": "table", "data": {
        "columns": cols, "rows": [[f"value {i} {j}" * 2 for j in range(25)] for i in range(3)]}}]}
    pdf, = render(tmp_path, spec, "pdf")
    text = pdftext(pdf)
    assert "列 1–" in text and "Columns" not in text, text[:500]


def test_chart_data_link_in_italian(tmp_path):
    spec = {"folio": 1, "lang": "it", "blocks": [{"type": "chart", "kind": "column", "x": "k", "y": "v",
            "data": {"columns": ["k", "v"], "rows": [["a", 1], ["b", 2]]}}]}
    xl, = render(tmp_path, spec, "xlsx")
    wb = openpyxl.load_workbook(xl)
    values = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value]
    assert any(str(v).startswith("Dati del grafico") for v in values), values
    assert not any("Chart data" in str(v) for v in values)
    spec["blocks"].insert(0, {"type": "table", "caption": "Vendite", "data": {"columns": ["a"], "rows": [[1]]}})
    xl, = render(tmp_path, spec, "xlsx", name="t")
    values = [c.value for ws in openpyxl.load_workbook(xl).worksheets for row in ws.iter_rows() for c in row if c.value]
    assert "Tabella: Vendite \u2192 foglio \u00abVendite\u00bb (1 riga)" in values, values


@pytest.mark.parametrize("key,value,pointer", [("lang", "english_US", "/lang"), ("lang", "d", "/lang"),
                                                ("dir", "right", "/dir")])
def test_bad_lang_or_dir_is_an_error_naming_it(tmp_path, key, value, pointer):
    spec = write_spec(tmp_path, {"folio": 1, key: value, "blocks": []})
    p = run_folio("validate", spec, "--json", check=2)
    errs = json.loads(p.stdout)
    assert any(e["pointer"] == pointer and e["hint"] for e in errs), errs


# ---- 3. right-to-left tables mirrored ----------------------------------------
NS = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
      "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "c": "http://schemas.openxmlformats.org/drawingml/2006/chart"}


def rtl_spec(lang=None, table_dir=None, cols=("الشهر", "المنطقة", "الإيرادات"), rows=None):
    rows = rows or [["يناير", "الشمال", 1200], ["فبراير", "الجنوب", 980], ["مارس", "الشرق", 1430]]
    t = {"type": "table", "caption": "x", "data": {"columns": list(cols), "rows": rows}}
    if table_dir:
        t["dir"] = table_dir
    spec = {"folio": 1, "blocks": [{"type": "heading", "text": "h", "level": 1}, t]}
    if lang:
        spec["lang"] = lang
    return spec


def word_x(pdf, word):
    """xMin of the first word equal to word in pdftotext -bbox output (which
    gives right-to-left words in visual order: reversed)."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    for m in re.finditer(r'<word xMin="([\d.]+)"[^>]*>([^<]*)</word>', out):
        if m.group(2) in (word, word[::-1]):
            return float(m.group(1))
    raise AssertionError(f"{word!r} not in the PDF")


def mirrored_everywhere(tmp_path, spec, name):
    pdf, dx, px, xl = render(tmp_path, spec, "pdf", "docx", "pptx", "xlsx", name=name)
    tbl = docx.Document(str(dx)).tables[0]._tbl
    bidi = bool(tbl.tblPr.findall("w:bidiVisual", NS))
    slides = "".join(parts(px, "ppt/slides/").values())
    pptx_rtl = bool(re.search(r'<a:tblPr[^>]* rtl="1"', slides))
    ws = openpyxl.load_workbook(xl).worksheets[0]
    return pdf, bidi, pptx_rtl, bool(ws.sheet_view.rightToLeft)


@need_poppler
@pytest.mark.parametrize("lang", ["ar", None])
def test_arabic_table_mirrored_in_every_format(tmp_path, lang):
    """By the document's language, or (no lang) by the table's own text."""
    pdf, bidi, pptx_rtl, xlsx_rtl = mirrored_everywhere(tmp_path, rtl_spec(lang), "ar")
    assert bidi and pptx_rtl and xlsx_rtl
    assert word_x(pdf, "1200") < word_x(pdf, "يناير")   # first column on the right


@need_poppler
def test_hebrew_table_mirrored_and_latin_table_not(tmp_path):
    he = rtl_spec(cols=("חודש", "אזור", "הכנסות"), rows=[["ינואר", "צפון", 1200], ["פברואר", "דרום", 980]])
    pdf, bidi, pptx_rtl, xlsx_rtl = mirrored_everywhere(tmp_path, he, "he")
    assert bidi and pptx_rtl and xlsx_rtl
    assert word_x(pdf, "1200") < word_x(pdf, "ינואר")
    en = rtl_spec(cols=("Month", "Region", "Revenue"), rows=[["Jan", "North", 1200]])
    pdf, bidi, pptx_rtl, xlsx_rtl = mirrored_everywhere(tmp_path, en, "en")
    assert not (bidi or pptx_rtl or xlsx_rtl)
    assert word_x(pdf, "Jan") < word_x(pdf, "1200")


@need_poppler
def test_table_dir_says_so_explicitly(tmp_path):
    en = rtl_spec(table_dir="rtl", cols=("Month", "Region", "Revenue"), rows=[["Jan", "North", 1200]])
    pdf, bidi, pptx_rtl, xlsx_rtl = mirrored_everywhere(tmp_path, en, "en")
    assert bidi and pptx_rtl and xlsx_rtl
    assert word_x(pdf, "1200") < word_x(pdf, "Jan")
    pdf, bidi, pptx_rtl, xlsx_rtl = mirrored_everywhere(tmp_path, rtl_spec("ar", table_dir="ltr"), "ltr")
    assert not (bidi or pptx_rtl or xlsx_rtl)
    assert word_x(pdf, "يناير") < word_x(pdf, "1200")


@need_poppler
def test_rtl_chart_categories_run_from_the_right(tmp_path):
    chart = {"type": "chart", "kind": "column", "x": "k", "y": "v",
             "data": {"columns": ["k", "v"], "rows": [["Alpha", 1], ["Beta", 2], ["Gamma", 3]]}}
    pdf, dx, xl = render(tmp_path, {"folio": 1, "lang": "he", "blocks": [chart]}, "pdf", "docx", "xlsx")
    assert word_x(pdf, "Gamma") < word_x(pdf, "Alpha")
    chart_xml = "".join(v for k, v in parts(dx, "word/charts/").items())
    if chart_xml:   # a native chart: its category axis reversed
        assert re.search(r'<c:catAx>.*?<c:orientation val="maxMin"/>', chart_xml, re.S)
    with zipfile.ZipFile(xl) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/"))
    assert re.search(r'<c:catAx>.*?<c:orientation val="maxMin"/>', xml, re.S)
    ltr, = render(tmp_path, {"folio": 1, "blocks": [chart]}, "pdf", name="ltr")
    assert word_x(ltr, "Alpha") < word_x(ltr, "Gamma")


# ---- 6. long category labels wrap, not cut ------------------------------------
QUESTIONS = ["I understand how my work contributes to the company's goals",
             "I understand how my work contributes to the team's quarterly plan",
             "My manager gives me regular and useful feedback on my work",
             "My manager gives me regular and useful feedback on my career",
             "I would recommend this company as a place to work to a friend"]


@need_poppler
@pytest.mark.parametrize("kind", ["column", "bar"])
def test_pdf_survey_questions_wrap_whole(tmp_path, kind):
    spec = {"folio": 1, "blocks": [{"type": "chart", "kind": kind, "x": "q", "y": "s", "data": {
        "columns": ["q", "s"], "rows": [[q, 4 - i / 2] for i, q in enumerate(QUESTIONS)]}}]}
    pdf, png = render(tmp_path, spec, "pdf", "png")
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    words = re.findall(r"<word [^>]*>([^<]*)</word>", out)
    assert "\u2026" not in "".join(words)
    for last in ("goals", "plan", "work", "career", "friend"):   # what a cut loses first
        assert last in words, (last, words)
    assert png.stat().st_size > 0


@need_poppler
def test_pdf_cjk_labels_wrap_between_characters(tmp_path):
    cats = ["我了解我的工作如何为公司的目标做出贡献", "我的经理经常给我有用的工作反馈意见",
            "我会向朋友推荐这家公司作为工作场所"]
    spec = {"folio": 1, "lang": "zh", "blocks": [{"type": "chart", "kind": "column", "x": "q", "y": "s",
            "data": {"columns": ["q", "s"], "rows": [[q, i + 1] for i, q in enumerate(cats)]}}]}
    pdf, = render(tmp_path, spec, "pdf")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    flat = re.sub(r"\s", "", text)
    assert "\u2026" not in text
    for q in cats:
        assert q in flat, (q, text)


def test_hebrew_docx_keeps_a_complex_script_font_with_digits(tmp_path):
    """Noto Sans Hebrew has no digits: as w:cs font, LibreOffice drew none in
    Hebrew runs ("12%" came out as "%"). Hebrew keeps the body font."""
    dx, px = render(tmp_path, rtl_spec("he"), "docx", "pptx")
    styles = part(dx, "word/styles.xml")
    assert 'w:bidi="he"' in styles and "Noto Sans Hebrew" not in styles
    assert "Noto Sans Hebrew" not in "".join(parts(px, "ppt/slides/").values())
