# test_pptx_table_split.py — a table longer than a slide, as a reader of the
# deck sees it (issue 37): every slide that shows the table has a title (the
# section's heading, else the heading right before the table, else its
# caption, else its dataset's name), continuation slides that title plus the
# localized "(cont.)"; and the rows are spread evenly over as few slides as
# they need (25 rows where 17 fit: 13 + 12, not 17 + 8; never a last slide
# with one row), in order, none lost or repeated.
#
# Read back with zipfile + lxml: per slide, the title placeholder's text and
# each a:tbl's rows (a:tr; the first is the repeated header).
import math
import re
import shutil
import subprocess
import zipfile

import pytest
from lxml import etree

from conftest import render_spec

NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
      "p": "http://schemas.openxmlformats.org/presentationml/2006/main"}


def render(tmp_path, spec, name="deck"):
    return render_spec(tmp_path, spec, "pptx", name=name)[0]


def slides(pptx):
    """Per slide: (title text, [rows of each table: [cell texts]], header included)."""
    out = []
    with zipfile.ZipFile(pptx) as z:
        names = [n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]
        for n in sorted(names, key=lambda n: int(re.search(r"\d+", n).group())):
            root = etree.fromstring(z.read(n))
            title = "".join(root.xpath("//p:sp[.//p:ph[@type='title']]//a:t/text()", namespaces=NS))
            tables = [[["".join(tc.xpath(".//a:t/text()", namespaces=NS)) for tc in tr.xpath("a:tc", namespaces=NS)]
                       for tr in tbl.xpath("a:tr", namespaces=NS)]
                      for tbl in root.iter("{%s}tbl" % NS["a"])]
            out.append((title, tables))
    return out


def table_slides(pptx):
    """[(title, body rows)] of the slides that show a table (one table each here)."""
    out = []
    for title, tables in slides(pptx):
        if tables:
            assert len(tables) == 1, title
            out.append((title, tables[0][1:]))
    return out


def data(n, long_every=0):
    rows = []
    for i in range(1, n + 1):
        text = "Item %03d" % i
        if long_every and i % long_every == 0:
            text += " with a long description that wraps over several lines of the narrow column" * 2
        rows.append([text, i * 10])
    return {"columns": ["item", "amount"], "rows": rows}


def table(**kw):
    return dict({"type": "table", "data": "t"}, **kw)


def spec(blocks, n=25, **kw):
    return dict({"folio": 1, "data": {"t": data(n)}, "blocks": blocks}, **kw)


def check_titles(found, first, cont="(cont.)"):
    assert found, "no table slide"
    assert found[0][0] == first, [t for t, _ in found]
    for title, _ in found[1:]:
        assert title == first + " " + cont, [t for t, _ in found]


# What titles the table's slides when no level-1 heading does.
TITLED = {
    "first in the spec": ([table()], "t"),
    "after a level-1 heading": ([{"type": "heading", "text": "Sales", "level": 1}, table()], "Sales"),
    "after a level-2 heading": ([{"type": "heading", "text": "Detail", "level": 2}, table()], "Detail"),
    "after a paragraph": ([{"type": "paragraph", "text": "Numbers follow."}, table()], "t"),
    "with a caption": ([table(caption="Monthly *units*")], "Monthly units"),
    "after a paragraph, with a caption": ([{"type": "paragraph", "text": "Numbers follow."},
                                           table(caption="Units")], "Units"),
    "heading over caption": ([{"type": "heading", "text": "Detail", "level": 3}, table(caption="Units")], "Detail"),
}


@pytest.mark.parametrize("case", list(TITLED))
@pytest.mark.parametrize("title_slide", [False, True], ids=["no title slide", "after the title slide"])
def test_every_table_slide_has_a_title(tmp_path, case, title_slide):
    blocks, first = TITLED[case]
    s = spec(blocks)
    if title_slide:
        s["title"] = "Quarterly deck"
    found = table_slides(render(tmp_path, s))
    assert len(found) == 2
    check_titles(found, first)


def shape_order(pptx, k):
    """Slide k's shapes in reading order: 'title', 'text' or 'table'."""
    with zipfile.ZipFile(pptx) as z:
        root = etree.fromstring(z.read("ppt/slides/slide%d.xml" % k))
    out = []
    for el in root.find("p:cSld/p:spTree", NS):
        if el.xpath(".//p:ph[@type='title']", namespaces=NS):
            out.append("title")
        elif el.xpath(".//a:tbl", namespaces=NS):
            out.append("table")
        elif el.xpath(".//a:t", namespaces=NS) and not el.xpath(".//p:ph[@type='sldNum']", namespaces=NS):
            out.append("text")
    return out


def test_text_before_an_untitled_table_shares_its_titled_slide(tmp_path):
    """A paragraph then a captioned table, no heading: the table starts under
    the paragraph, the slide titled by the caption, the title read first."""
    f = render(tmp_path, spec([{"type": "paragraph", "text": "Numbers follow."}, table(caption="Units")]))
    got = slides(f)
    assert [t for t, _ in got] == ["Units", "Units (cont.)"]
    assert shape_order(f, 1) == ["title", "text", "text", "table"]  # the caption is text too


@pytest.mark.parametrize("caption", [None, "Units"])
@pytest.mark.parametrize("n", range(6, 14))
def test_untitled_text_before_the_table(tmp_path, n, caption):
    """However much text comes first: the table starts under it on a slide
    the table titles, or when too little room is left there, on a slide of
    its own, titled (not "(cont.)"); the text's slide is then not titled by
    the table."""
    paras = [{"type": "paragraph", "text": "Point %d, a line of text." % i} for i in range(n)]
    t = table(caption=caption) if caption else table()
    got = slides(render(tmp_path, spec(paras + [t])))
    first = next(i for i, (_, tb) in enumerate(got) if tb)
    check_titles(table_slides(render(tmp_path, spec(paras + [t]))), caption or "t")
    assert all(t == "" for t, _ in got[:first]), [t for t, _ in got]
    if n >= 12:
        assert first == 1


def test_section_heading_titles_the_table_and_what_follows(tmp_path):
    """Under a level-1 heading the section titles the table (a level-2 heading
    stays text on the slide) and the content after it continues the section."""
    s = spec([{"type": "heading", "text": "Sales", "level": 1},
              {"type": "heading", "text": "Detail", "level": 2}, table(caption="Units"),
              {"type": "paragraph", "text": "After the table. " * 150}])
    got = slides(render(tmp_path, s))
    titles = [t for t, _ in got]
    assert titles[0] == "Sales" and all(t == "Sales (cont.)" for t in titles[1:]), titles
    assert len(got) >= 3


def test_each_table_brings_its_own_title(tmp_path):
    """Two captioned tables with no heading: the second is not "(cont.)" of
    the first; text after a table is not titled as the table."""
    s = spec([table(caption="Units A"), table(caption="Units B"),
              {"type": "paragraph", "text": "After the tables. " * 150}])
    got = slides(render(tmp_path, s))
    titled = [(t, len(tb[0]) - 1) for t, tb in got if tb]
    assert [t for t, _ in titled] == ["Units A", "Units A (cont.)", "Units B", "Units B (cont.)"], titled
    for title, tables in got:
        if not tables:
            assert "Units" not in title, [t for t, _ in got]


@pytest.mark.parametrize("lang,cont", [("de", "(Forts.)"), ("fr", "(suite)")])
def test_continuation_word_is_localized(tmp_path, lang, cont):
    found = table_slides(render(tmp_path, spec([table(caption="Umsatz")], n=40, lang=lang)))
    assert len(found) >= 2
    check_titles(found, "Umsatz", cont)


def capacity(tmp_path):
    """Rows of one line a slide holds under a heading (the most any slide of a
    long table holds)."""
    found = table_slides(render(tmp_path, spec([{"type": "heading", "text": "H", "level": 1}, table()], n=200),
                                "capacity"))
    return max(len(rows) for _, rows in found)


def check_rows(found, rows, totals=False):
    """The table's rows in order over its slides, none lost or repeated."""
    seen = [r for _, body in found for r in body]
    want = [[r[0], "{:,}".format(r[1])] for r in rows]
    if totals:
        assert seen[-1][0] == "Total", seen[-1]
        seen = seen[:-1]
    assert [r[0] for r in seen] == [r[0] for r in want]
    assert seen == want


@pytest.mark.parametrize("n", [13, 18, 25, 40, 52])
@pytest.mark.parametrize("totals", [False, True], ids=["plain", "totals"])
def test_rows_are_spread_evenly(tmp_path, n, totals):
    cap = capacity(tmp_path)
    assert cap >= 10
    t = table(columns=["item", {"field": "amount", "format": "#,##0"}])
    if totals:
        t["totals"] = {"amount": "sum"}
    s = spec([{"type": "heading", "text": "H", "level": 1}, t], n=n)
    found = table_slides(render(tmp_path, s))
    counts = [len(body) for _, body in found]
    shown = n + totals
    assert len(found) == math.ceil(shown / cap), (counts, cap)  # as few slides as before
    assert max(counts) - min(counts) <= 1, counts
    if len(found) > 1:
        assert min(counts) >= 2, counts
        assert len(found[-1][1]) >= 2  # a totals row never alone
    check_rows(found, s["data"]["t"]["rows"], totals)
    check_titles(found, "H")


def test_twenty_five_rows_are_not_seventeen_and_eight(tmp_path):
    """The case readers saw: the greedy split filled slides to the brim and
    left the last a few rows (or one); now the slides hold nearly equal
    counts, the earlier ones the spare row."""
    cap = capacity(tmp_path)
    n = cap + cap // 2  # 25 where 17 fit
    found = table_slides(render(tmp_path, spec([table()], n=n)))
    counts = [len(body) for _, body in found]
    assert counts == [(n + 1) // 2, n // 2], counts


def test_one_row_over_is_not_left_alone(tmp_path):
    cap = capacity(tmp_path)
    s = spec([{"type": "heading", "text": "H", "level": 1}, table()], n=cap + 1)
    counts = [len(body) for _, body in table_slides(render(tmp_path, s))]
    assert len(counts) == 2 and min(counts) >= cap // 2, counts


def test_rows_of_different_heights(tmp_path):
    """Wrapped rows take more room: the split is by height, the counts still
    close, no single-row slide, every row once and in order."""
    s = {"folio": 1, "data": {"t": data(60, long_every=4)},
         "blocks": [{"type": "heading", "text": "H", "level": 1},
                    table(columns=["item", {"field": "amount", "format": "#,##0"}], totals={"amount": "sum"})]}
    found = table_slides(render(tmp_path, s))
    counts = [len(body) for _, body in found]
    assert len(found) >= 3, counts
    assert max(counts) - min(counts) <= 2, counts
    assert min(counts) >= 2, counts
    check_rows(found, s["data"]["t"]["rows"], totals=True)


def test_row_styles_bold_rows(tmp_path):
    s = spec([{"type": "heading", "text": "H", "level": 1},
              table(columns=["item", {"field": "amount", "format": "#,##0"}],
                    row_styles=[{"row": i, "bold": True, "indent": 1} for i in range(0, 40, 3)])], n=40)
    found = table_slides(render(tmp_path, s))
    counts = [len(body) for _, body in found]
    assert max(counts) - min(counts) <= 2 and min(counts) >= 2, counts
    check_rows(found, s["data"]["t"]["rows"])


def test_first_slide_with_less_room(tmp_path):
    """A table that starts below other text: its first slide holds what fits
    there; the slides after it share the rest evenly."""
    cap = capacity(tmp_path)
    paras = [{"type": "paragraph", "text": "Point %d." % i} for i in range(5)]
    s = spec([{"type": "heading", "text": "H", "level": 1}] + paras + [table()], n=3 * cap - 2)
    got = slides(render(tmp_path, s))
    assert any(tb for _, tb in got[:1]), "the table starts below the text"
    found = table_slides(render(tmp_path, s))
    counts = [len(body) for _, body in found]
    assert counts[0] < cap, counts
    assert max(counts[1:]) - min(counts[1:]) <= 1 and min(counts) >= 2, counts
    assert len(found) == 1 + math.ceil((3 * cap - 2 - counts[0]) / cap), counts
    check_rows(found, s["data"]["t"]["rows"])
    check_titles(found, "H")


def test_wide_table_groups_split_evenly(tmp_path):
    """Each column group of a wide table is split on its own, evenly."""
    cols = ["column%02d" % j for j in range(30)]
    rows = [["row %03d" % i] + ["value %d-%d" % (1000 * i, j) for j in range(1, 30)] for i in range(1, 31)]
    s = {"folio": 1, "data": {"t": {"columns": cols, "rows": rows}},
         "blocks": [{"type": "heading", "text": "Wide", "level": 1}, table()]}
    found = table_slides(render(tmp_path, s))
    keys = [r[0] for _, body in found for r in body]
    groups = len(keys) // 30
    assert groups >= 2 and keys == [r[0] for r in rows] * groups
    for title, _ in found[1:]:
        assert title == "Wide (cont.)"
    # the slides of each group hold nearly equal counts
    i = 0
    for _ in range(groups):
        counts, total = [], 0
        while total < 30:
            counts.append(len(found[i][1]))
            total += counts[-1]
            i += 1
        assert total == 30 and max(counts) - min(counts) <= 1, counts


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice not installed")
def test_libreoffice_shows_the_split(tmp_path):
    s = spec([table(caption="Units")], n=25, title="Deck")
    f = render(tmp_path, s)
    subprocess.run(["soffice", "-env:UserInstallation=file:///tmp/lo-pptx-split-test", "--headless",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(f)],
                   check=True, capture_output=True, timeout=300)
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "deck.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = text.split("\f")
    assert "Units (cont.)" in pages[2]
    assert "Item 025" in pages[2] and "Item 001" in pages[1]


def test_cut_table_keeps_its_note_on_its_last_slide(tmp_path):
    """A table cut at 300 rows: the note goes under its last rows (the plan
    leaves it the room), not alone on a slide of its own."""
    s = spec([{"type": "heading", "text": "H", "level": 1},
              table(columns=["item", {"field": "amount", "format": "#,##0"}], totals={"amount": "sum"})], n=1000)
    got = slides(render(tmp_path, s))
    assert got[-1][1], "the last slide holds the table's last rows"
    texts = etree.fromstring(zipfile.ZipFile(tmp_path / "deck.pptx").read("ppt/slides/slide%d.xml" % len(got)))
    assert any(t.startswith("First 300 of 1,000 rows") for t in texts.xpath("//a:t/text()", namespaces=NS))
    found = table_slides(tmp_path / "deck.pptx")
    counts = [len(body) for _, body in found]
    assert max(counts) - min(counts) <= 2 and min(counts) >= 2, counts
    check_rows(found, s["data"]["t"]["rows"][:300], totals=True)
