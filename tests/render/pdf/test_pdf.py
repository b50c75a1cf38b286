# test_pdf.py — end-to-end tests of the PDF renderer, read back with qpdf and
# poppler (pdftotext, pdffonts, pdfinfo, pdftoppm): structure, text content
# and reading order, embedded fonts, outline, links, repeated table headers,
# footers, Unicode, determinism, images and charts.
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from conftest import run_folio

pytestmark = pytest.mark.skipif(not shutil.which("qpdf") or not shutil.which("pdftotext"),
                                reason="qpdf and poppler-utils are needed")

ROOT = pathlib.Path(__file__).resolve().parents[3]
LOGO = ROOT / "samples" / "sales" / "logo.png"


def render(tmp_path, spec, name="out.pdf", csvs=None):
    for fname, text in (csvs or {}).items():
        (tmp_path / fname).write_text(text, encoding="utf-8")
    sp = tmp_path / "spec.json"
    sp.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / name
    run_folio("render", sp, "-o", out, check=0)
    return out


def text(pdf, first=None, last=None):
    cmd = ["pdftotext", "-layout"]
    if first:
        cmd += ["-f", str(first), "-l", str(last or first)]
    p = subprocess.run(cmd + [str(pdf), "-"], capture_output=True, text=True, check=True)
    assert "Syntax Warning" not in p.stderr and "Syntax Error" not in p.stderr, p.stderr
    return p.stdout


def pages(pdf):
    out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(next(l.split()[1] for l in out.splitlines() if l.startswith("Pages:")))


def pdffonts(pdf):
    return subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout


def word_boxes(pdf):
    """pdftotext -bbox: {word: (xMin, xMax)} of each word's first occurrence."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    boxes = {}
    for m in re.finditer(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)"[^>]*>([^<]*)</word>', out):
        boxes.setdefault(m.group(3), (float(m.group(1)), float(m.group(2))))
    return boxes


def qpdf_check(pdf):
    p = subprocess.run(["qpdf", "--check", str(pdf)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def qpdf_json(pdf):
    p = subprocess.run(["qpdf", "--json", str(pdf)], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


REPORT = {
    "folio": 1, "title": "Quarterly review", "subtitle": "EMEA", "author": "Finance",
    "date": "2026-09-30",
    "data": {"regions": {"columns": ["region", {"name": "revenue", "type": "number",
                                                 "format": "#,##0.00"}],
                         "rows": [["North", 1204.5], ["South", 980], ["East", 2000.25]]}},
    "blocks": [
        {"type": "toc"},
        {"type": "heading", "text": "Summary", "level": 1},
        {"type": "paragraph", "text": "Revenue grew **12%**; see [the dashboard](https://example.com/dash)."},
        {"type": "heading", "text": "Detail by region", "level": 2},
        {"type": "list", "items": ["first point", {"text": "second point", "items": ["nested point"]}]},
        {"type": "table", "data": "regions", "caption": "Revenue by region",
         "totals": {"revenue": "sum"}},
        {"type": "code", "text": "df.groupby('region').sum()", "language": "python"},
        {"type": "metrics", "items": [{"label": "Revenue", "value": 4184.75, "format": "#,##0.00",
                                       "delta": 0.12, "delta_format": "0.0%"}]},
        {"type": "page_break"},
        {"type": "heading", "text": "Appendix", "level": 1},
        {"type": "paragraph", "text": "The end."},
    ],
}


def test_report_structure_and_reading_order(tmp_path):
    pdf = render(tmp_path, REPORT)
    qpdf_check(pdf)
    t = text(pdf)
    order = ["Quarterly review", "EMEA", "Contents", "Summary", "Revenue grew 12%",
             "the dashboard", "Detail by region", "first point", "nested point",
             "Revenue by region", "North", "1,204.50", "South", "980.00", "Total", "4,184.75",
             "df.groupby('region').sum()", "Revenue", "Appendix", "The end."]
    pos = 0
    for s in order:
        i = t.find(s, pos)
        assert i >= 0, f"{s!r} missing or out of order in:\n{t}"
        pos = i + len(s)
    assert pages(pdf) == 2
    assert "Appendix" in text(pdf, 2)


def test_fonts_embedded(tmp_path):
    pdf = render(tmp_path, REPORT)
    out = pdffonts(pdf)
    rows = out.splitlines()[2:]
    assert rows, out
    for r in rows:
        cols = r.split()
        assert cols[-5] == "yes", f"font not embedded: {r}"   # emb
        assert cols[-3] == "yes", f"font without ToUnicode: {r}"  # uni


def test_outline_nested_by_level(tmp_path):
    pdf = render(tmp_path, REPORT)
    outlines = qpdf_json(pdf)["outlines"]
    titles = [o["title"] for o in outlines]
    assert titles == ["Summary", "Appendix"]
    assert [k["title"] for k in outlines[0]["kids"]] == ["Detail by region"]
    assert outlines[1]["destpageposfrom1"] == 2


def test_links_and_info(tmp_path):
    pdf = render(tmp_path, REPORT)
    raw = subprocess.run(["qpdf", "--qdf", "--object-streams=disable", str(pdf), "-"],
                         capture_output=True, check=True).stdout
    assert b"/URI (https://example.com/dash)" in raw
    assert b"/Subtype /Link" in raw
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "Quarterly review" in info and "Finance" in info
    assert "Producer:        folio" in info
    assert "2026" in next(l for l in info.splitlines() if l.startswith("CreationDate"))


def test_toc_lists_headings_with_pages(tmp_path):
    pdf = render(tmp_path, REPORT)
    t = text(pdf, 1)
    toc = t[t.index("Contents"):]
    lines = [l.split() for l in toc.splitlines() if "Appendix" in l or "Summary" in l][:2]
    assert lines[0][0] == "Summary" and lines[0][-1] == "1"
    assert lines[1][0] == "Appendix" and lines[1][-1] == "2"


def test_long_table_repeats_header_and_footer(tmp_path):
    rows = "\n".join("item %d,%d.5" % (i, i * 1000) for i in range(1, 301))
    spec = {"folio": 1, "title": "Long", "data": {"big": {"csv": "big.csv"}},
            "blocks": [{"type": "table", "data": "big",
                        "columns": [{"field": "name", "title": "Name"},
                                    {"field": "amount", "title": "Amount", "format": "#,##0.00"}],
                        "totals": {"amount": "sum"}}]}
    pdf = render(tmp_path, spec, csvs={"big.csv": "name,amount\n" + rows + "\n"})
    qpdf_check(pdf)
    n = pages(pdf)
    assert n >= 3
    for p in range(1, n + 1):
        t = text(pdf, p)
        assert "Name" in t and "Amount" in t, f"page {p} lacks the header:\n{t}"
        assert f"Page {p} of {n}" in t
    whole = text(pdf)
    assert "item 300" in whole and "300,000.50" in whole
    assert "45,150,150.00" in whole  # sum of i*1000+0.5 for i in 1..300


def test_unicode_round_trips(tmp_path):
    words = ["Grüße", "Ελληνικά", "Кириллица", "naïve café", "€ 1,5"]
    spec = {"folio": 1, "title": "Grüße aus Köln",
            "blocks": [{"type": "heading", "text": "Ελληνικά", "level": 1}] +
                      [{"type": "paragraph", "text": w} for w in words]}
    pdf = render(tmp_path, spec)
    qpdf_check(pdf)
    t = text(pdf)
    for w in words + ["Grüße aus Köln"]:
        assert w in t, f"{w!r} not in {t!r}"
    assert qpdf_json(pdf)["outlines"][0]["title"] == "Ελληνικά"


@pytest.mark.skipif(not os.path.exists("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"),
                    reason="no CJK font installed")
def test_cjk_falls_back_to_a_font_that_has_it(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": "中文测试 and 日本語"}]}
    pdf = render(tmp_path, spec)
    t = text(pdf)
    assert "中文测试" in t and "日本語" in t
    assert "Droid" in pdffonts(pdf)


def test_check_marks_and_crosses_are_drawn(tmp_path):
    # AI-written tables say "✅ done" / "❌ failed": not in Liberation or
    # DejaVu; Noto Color Emoji's pictures (Symbola's outlines without that
    # font: tests/render/text/test_emoji.py), and ✔ (DejaVu) a glyph
    spec = {"folio": 1, "blocks": [{"type": "table", "data": {
        "columns": ["status"], "rows": [["\u2705 done"], ["\u274c failed"], ["\u2713 ok"]]}}]}
    pdf = render(tmp_path, spec)
    t = text(pdf)
    assert "\u2705 done" in t and "\u274c failed" in t and "\u2713 ok" in t
    if os.path.exists("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"):
        lst = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout
        assert len([r for r in lst.splitlines()[2:] if r.split()[2] == "image"]) == 2
    else:
        assert "Symbola" in pdffonts(pdf)


def _ink(png):
    """Mean darkness of a picture: 0 for a white page."""
    out = subprocess.run(["convert", str(png), "-colorspace", "Gray", "-format", "%[fx:1-mean]",
                          "info:"], capture_output=True, text=True, check=True).stdout
    return float(out)


def test_emoji_outside_the_bmp_are_drawn(tmp_path):
    # libharu cannot show U+1F4C8 as text; folio draws Noto Color Emoji's
    # picture of it (Symbola's outline without that font): light colours,
    # so less ink than black outlines (tests/render/text/test_emoji.py)
    pdf = render(tmp_path, {"folio": 1, "blocks": [
        {"type": "paragraph", "text": "\U0001F4C8\U0001F680\U0001F4CA"}]}, "emoji.pdf")
    blank = render(tmp_path, {"folio": 1, "blocks": [{"type": "paragraph", "text": " "}]},
                   "blank.pdf")
    qpdf_check(pdf)
    assert "\ufffd" not in text(pdf)
    for f in (pdf, blank):
        subprocess.run(["pdftoppm", "-r", "50", "-png", "-f", "1", "-l", "1", str(f),
                        str(tmp_path / f.stem)], check=True)
    assert _ink(tmp_path / "emoji-1.png") > 2 * _ink(tmp_path / "blank-1.png")  # footer only
    # and they take room like characters: the text after them moves right
    def x_of_x(t, name):
        return word_boxes(render(tmp_path, {"folio": 1, "blocks": [
            {"type": "paragraph", "text": t}]}, name))["x"][0]
    assert x_of_x("\U0001F680 x", "a.pdf") > x_of_x("x", "b.pdf") + 8   # a rocket and a space


def test_link_underline_starts_at_the_link_not_the_space_before(tmp_path):
    pdf = render(tmp_path, {"folio": 1, "blocks": [
        {"type": "paragraph", "text": "see [the dashboard](https://example.com/d)."}]})
    boxes = word_boxes(pdf)
    the, see_end = boxes["the"][0], boxes["see"][1]
    rects = re.findall(rb"/Rect \[([-\d. ]+)\]", pdf.read_bytes())
    assert len(rects) == 1
    x0 = float(rects[0].split()[0])
    assert x0 > see_end + 1 and abs(x0 - (the - 1.0)) < 0.6, (x0, see_end, the)


def test_missing_glyph_does_not_crash(tmp_path):
    spec = {"folio": 1, "blocks": [{"type": "paragraph", "text": "emoji 😀 and \u0000x \U0001F680 ok"}]}
    sp = tmp_path / "spec.json"
    sp.write_text(json.dumps(spec), encoding="utf-8")
    p = run_folio("render", sp, "-o", tmp_path / "o.pdf")
    assert p.returncode in (0, 2), p.stderr
    if p.returncode == 0:
        qpdf_check(tmp_path / "o.pdf")
        assert "ok" in text(tmp_path / "o.pdf")


def test_deterministic_bytes(tmp_path):
    a = render(tmp_path, REPORT, "a.pdf")
    b = render(tmp_path, REPORT, "b.pdf")
    assert a.read_bytes() == b.read_bytes()
    assert b"/ID" not in a.read_bytes()


def test_image_and_chart(tmp_path):
    shutil.copy(LOGO, tmp_path / "logo.png")
    spec = {"folio": 1, "data": {"m": {"columns": ["month", "revenue", "cost"],
                                       "rows": [["Jan", 10, 7], ["Feb", 12, 8], ["Mar", 9, 6]]}},
            "blocks": [{"type": "image", "path": "logo.png", "width": 200, "caption": "Our logo"},
                       {"type": "chart", "kind": "column", "data": "m", "x": "month",
                        "y": ["revenue", "cost"], "title": "Revenue vs cost"}]}
    pdf = render(tmp_path, spec)
    qpdf_check(pdf)
    t = text(pdf)
    assert "Our logo" in t and "Revenue vs cost" in t and "Feb" in t
    raw = subprocess.run(["qpdf", "--qdf", "--object-streams=disable", str(pdf), "-"],
                         capture_output=True, check=True).stdout
    assert b"/Subtype /Image" in raw
    # the chart is vector: filled paths, not a picture of the chart
    assert raw.count(b"/Subtype /Image") == 1
    assert raw.count(b" re\nf\n") + raw.count(b"\nf\n") > 6


def test_renders_to_png_pages(tmp_path):
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm missing")
    pdf = render(tmp_path, REPORT)
    subprocess.run(["pdftoppm", "-png", "-r", "30", str(pdf), str(tmp_path / "pg")], check=True)
    pngs = sorted(tmp_path.glob("pg-*.png"))
    assert len(pngs) == 2 and all(p.stat().st_size > 1000 for p in pngs)


def _streams(pdf, decode):
    """{object: (dictionary, bytes)} of every stream, as qpdf reads them:
    raw (decode-level none) or decoded by qpdf's own filters."""
    import base64
    p = subprocess.run(["qpdf", "--json=2", "--json-stream-data=inline",
                        "--decode-level=" + ("generalized" if decode else "none"), str(pdf)],
                       capture_output=True, text=True, check=True)
    objs = json.loads(p.stdout)["qpdf"][1]
    return {k: (v["stream"]["dict"], base64.b64decode(v["stream"].get("data", "")))
            for k, v in objs.items() if "stream" in v}


def test_every_stream_is_deflated_and_decodes(tmp_path):
    """folio deflates the PDF's streams itself (libdeflate, render/pdf/deflate.c):
    each one says /FlateDecode and zlib (Python's, independent of both) gives
    back the bytes qpdf decodes, for page contents, fonts and maps alike."""
    import zlib
    spec = dict(REPORT, blocks=REPORT["blocks"] + [
        {"type": "paragraph", "text": "绿茶 橄榄油 — شاي أخضر — हरी चाय"}])
    pdf = render(tmp_path, spec)
    qpdf_check(pdf)
    raw, decoded = _streams(pdf, False), _streams(pdf, True)
    assert len(raw) >= 10
    kinds = set()
    for k, (d, data) in raw.items():
        if d.get("/Type") == "/Metadata":
            assert b"folio:spec_sha256" in data or b"spec_sha256" in data, k
            continue                     # XMP stays plain text, as PDF/A asks: any tool reads it
        assert d.get("/Filter") in ("/FlateDecode", ["/FlateDecode"]), (k, d)
        plain = zlib.decompress(data)
        assert plain == decoded[k][1], k
        assert len(data) < len(plain) or len(plain) < 64, (k, len(data), len(plain))
        kinds.add("font" if "/Length1" in d else "map" if b"begincmap" in plain
                  else "page" if b"BT" in plain else "other")
    assert {"font", "map", "page"} <= kinds, kinds
    assert "Revenue grew 12%" in text(pdf) and "绿茶" in text(pdf)
