"""Word-by-word shaping (render/core/shape.c) gives the glyphs the whole
line gives, or is not used.

A font whose class-based context rule reaches the space through class 0
("any glyph the class definition does not list") must be shaped line by
line: HarfBuzz's list of a lookup's glyphs leaves class 0 out
(render/core/otlayout.h). The font is built here with fontTools from Noto
Sans Hebrew: an alef followed by any glyph but a Hebrew letter becomes a
bet, so a word's last alef turns into a bet before a space and stays an
alef at the end of the text, or of a word shaped alone. Noto Sans Bengali
has such a rule of its own (its lookup 18)."""
import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import run_folio
from test_bidi_styles import drawn_glyphs

HERE = pathlib.Path(__file__).resolve().parent
HEBREW = "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf"
TEXT = "אבא אבא אבא אבא"
NAME = "SpaceClassTest"

need = pytest.mark.skipif(not shutil.which("hb-shape") or not shutil.which("qpdf"),
                          reason="hb-shape (libharfbuzz-bin) and qpdf are needed")


def class_def(mapping):
    """A ClassDef of fontTools for {glyph name: class}."""
    from fontTools.ttLib.tables import otTables as ot
    cd = ot.ClassDef()
    cd.classDefs = mapping
    return cd


def class_chain(kind, first, classes, back, ahead, lookup_index):
    """A format 2 chained context subtable of kind "Subst" or "Pos" (GSUB's
    classes are named "Sub" for rules and sets): glyph
    first (input class 1), the backtrack and lookahead class sequences
    back and ahead, applying lookup_index to it; classes: the backtrack,
    input and lookahead class definitions ({glyph name: class})."""
    from fontTools.ttLib.tables import otTables as ot
    chain = getattr(ot, f"ChainContext{kind}")()
    chain.Format = 2
    chain.Coverage = ot.Coverage()
    chain.Coverage.glyphs = [first]
    chain.BacktrackClassDef, chain.InputClassDef, chain.LookAheadClassDef = map(class_def, classes)
    short = "Sub" if kind == "Subst" else kind
    rule = getattr(ot, f"Chain{short}ClassRule")()
    rule.Backtrack, rule.BacktrackGlyphCount = back, len(back)
    rule.Input, rule.InputGlyphCount = [], 1
    rule.LookAhead, rule.LookAheadGlyphCount = ahead, len(ahead)
    rec = getattr(ot, f"{kind}LookupRecord")()
    rec.SequenceIndex, rec.LookupListIndex = 0, lookup_index
    setattr(rule, f"{kind}LookupRecord", [rec])
    setattr(rule, f"{kind}Count", 1)
    rules = getattr(ot, f"Chain{short}ClassSet")()
    setattr(rules, f"Chain{short}ClassRule", [rule])
    setattr(rules, f"Chain{short}ClassRuleCount", 1)
    setattr(chain, f"Chain{short}ClassSet", [None, rules])
    setattr(chain, f"Chain{short}ClassSetCount", 2)
    return chain


def add_feature(table, tag, lookup_index):
    """Feature tag of GSUB or GPOS table (a tag the font lacks: HarfBuzz
    takes the first feature of a tag) with the one lookup, in every
    language system."""
    from fontTools.ttLib.tables import otTables as ot
    feature = ot.FeatureRecord()
    feature.FeatureTag = tag
    feature.Feature = ot.Feature()
    feature.Feature.FeatureParams = None
    feature.Feature.LookupListIndex, feature.Feature.LookupCount = [lookup_index], 1
    table.FeatureList.FeatureRecord.append(feature)
    table.FeatureList.FeatureCount = len(table.FeatureList.FeatureRecord)
    index = table.FeatureList.FeatureCount - 1
    for script in table.ScriptList.ScriptRecord:
        for ls in [script.Script.DefaultLangSys] + [r.LangSys for r in script.Script.LangSysRecord]:
            if ls is not None:
                ls.FeatureIndex.append(index)
                ls.FeatureCount = len(ls.FeatureIndex)


def rename(font, name):
    """Family "Space Class Test" and names "SpaceClassTest" for name "SpaceClassTest"."""
    for rec in font["name"].names:
        if rec.nameID in (1, 3, 4, 6):
            rec.string = name if rec.nameID != 1 else name.replace("Test", " Test")


def class_zero_font(path):
    """Noto Sans Hebrew plus 'calt': alef, then a glyph of class 0 in the
    lookahead class definition (which lists the Hebrew letters only), is
    substituted by bet; a ChainContextSubst of format 2."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    from fontTools.ttLib.tables import otTables as ot
    f = ttlib.TTFont(HEBREW)
    cmap = f.getBestCmap()
    alef, bet = cmap[0x05D0], cmap[0x05D1]
    letters = [cmap[c] for c in range(0x05D0, 0x05EB) if c in cmap]
    gsub = f["GSUB"].table
    lookups = gsub.LookupList.Lookup

    single = ot.SingleSubst()
    single.mapping = {alef: bet}
    to_bet = ot.Lookup()
    to_bet.LookupType, to_bet.LookupFlag, to_bet.SubTable = 1, 0, [single]
    to_bet.SubTableCount = 1
    lookups.append(to_bet)

    chain = class_chain("Subst", alef, ({}, {alef: 1}, {g: 1 for g in letters}), [], [0], len(lookups) - 1)
    context = ot.Lookup()
    context.LookupType, context.LookupFlag, context.SubTable = 6, 0, [chain]
    context.SubTableCount = 1
    lookups.append(context)
    gsub.LookupList.LookupCount = len(lookups)
    add_feature(gsub, "calt", len(lookups) - 1)
    rename(f, NAME)
    f.save(path)
    return alef, bet


def render(tmp_path, text, **theme):
    """text as a paragraph in a theme whose body font is tmp_path/h.ttf."""
    (tmp_path / "t.json").write_text(json.dumps(
        {"folio_theme": 1, "name": "t", **theme,
         "fonts": {"body": {"family": "Space Class Test", "files": {"regular": "h.ttf"}}}}))
    (tmp_path / "s.json").write_text(json.dumps(
        {"folio": 1, "theme": "t.json", "blocks": [{"type": "paragraph", "text": text}]},
        ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "o.pdf"
    run_folio("render", tmp_path / "s.json", "-o", pdf, check=0)
    return pdf


def hb_glyphs(font, text):
    out = subprocess.run(["hb-shape", "--no-glyph-names", "--no-positions", "--no-clusters", font, text],
                         capture_output=True, text=True, check=True).stdout
    return [int(g) for g in out.strip().strip("[]").split("|")]


@need
def test_a_font_matching_the_space_by_class_zero_is_shaped_whole(tmp_path):
    ttlib = pytest.importorskip("fontTools.ttLib")
    from fontTools.pens.recordingPen import DecomposingRecordingPen
    sys.path.insert(0, str(HERE.parent / "pdf"))
    from test_glyph_closure import embedded_fonts
    font = tmp_path / "h.ttf"
    alef, bet = class_zero_font(font)
    src = ttlib.TTFont(font)
    gid = {src.getGlyphName(i): i for i in range(len(src.getGlyphOrder()))}
    whole = hb_glyphs(str(font), TEXT)
    word = hb_glyphs(str(font), TEXT.split()[0])
    # the rule fires before each space only: word by word it never would
    assert whole.count(gid[bet]) == 4 + 3 and word.count(gid[bet]) == 1

    pdf = render(tmp_path, TEXT, footer="")
    drawn = drawn_glyphs(pdf)
    assert NAME in drawn, drawn.keys()
    sub = dict(embedded_fonts(pdf))
    sub = next(f for name, f in sub.items() if name.endswith(NAME))

    def shape(f, g):
        gs = f.getGlyphSet()
        pen = DecomposingRecordingPen(gs)
        gs[f.getGlyphName(g)].draw(pen)
        return pen.value, f["hmtx"][f.getGlyphName(g)][0]

    assert [shape(sub, g) for g in drawn[NAME]] == [shape(src, g) for g in whole]


@need
def test_latin_a_hebrew_only_theme_font_lacks_comes_from_the_fallback(tmp_path):
    """A theme font without Latin letters: "Page 1 of 1" and the Latin words
    of an unshaped line were drawn as its .notdef boxes, silently
    (fo_pdf_cover took ASCII for granted). Now DejaVu Sans draws them, and
    no glyph drawn is a .notdef."""
    class_zero_font(tmp_path / "h.ttf")
    pdf = render(tmp_path, "Total 2024, in euros")
    drawn = drawn_glyphs(pdf)
    assert any(name.startswith("DejaVuSans") for name in drawn), drawn.keys()
    assert all(0 not in glyphs for glyphs in drawn.values()), drawn
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "Total 2024, in euros" in text and "Page 1 of 1" in text


def test_a_font_that_covers_the_whole_bmp_draws_shaped_text_as_outlines(tmp_path):
    """Shaped glyphs take codes the font's cmap lacks; a font that maps every
    BMP code point has none. Its shaped text is then drawn as outlines with
    an invisible text layer (as past 2,048 codes), not dropped: with no free
    code left, each glyph used to be skipped, leaving a blank line that
    pdftotext could not read either."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    f = ttlib.TTFont(HEBREW)
    cmap = f.getBestCmap()
    order = f.getGlyphOrder()
    # every other code to some glyph other than .notdef, in runs of
    # consecutive glyphs so that format 4 stays small (delta segments)
    full = {u: cmap.get(u, order[1 + u % (len(order) - 1)])
            for u in range(0x01, 0x10000) if not 0xD800 <= u <= 0xDFFF}
    for table in f["cmap"].tables:
        if table.isUnicode():
            table.cmap = dict(full)
    for rec in f["name"].names:
        if rec.nameID in (1, 4, 6):
            rec.string = "Whole BMP Test" if rec.nameID != 6 else "WholeBMPTest"
    f.save(tmp_path / "h.ttf")
    pdf = render(tmp_path, "שלום עולם")
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    assert "שלום" in text and "עולם" in text, text
    png = tmp_path / "p"
    subprocess.run(["pdftoppm", "-r", "50", "-gray", "-png", "-f", "1", "-l", "1", pdf, png], check=True)
    from PIL import Image
    page = Image.open(f"{png}-1.png").convert("L")
    top = page.crop((0, 0, page.width, page.height // 4))       # the paragraph, not the footer
    assert sum(1 for p in top.getdata() if p < 128) > 20, "no ink where the text is"


TAMIL = "/usr/share/fonts/truetype/noto/NotoSansTamil-Regular.ttf"
KA, NGA, CA = "\u0b95", "\u0b99", "\u0b9a"     # க ங ச


def beyond_space_font(path):
    """Noto Sans Tamil plus a 'mkmk' rule that looks past the space: nga
    after any glyph but ka (class 0: the space) that follows a ka is set
    2,000 units wider, a ChainContextPos of format 2 whose backtrack has
    class 0 inside it. Shaped word by word with the spaces around each
    word (shape.c's WORDS_SPACED), "க ங" would never see the ka: folio must
    check the glyphs before the space against the rule (words_beyond) and
    shape that line whole."""
    ttlib = pytest.importorskip("fontTools.ttLib")
    from fontTools.ttLib.tables import otTables as ot
    f = ttlib.TTFont(TAMIL)
    cmap = f.getBestCmap()
    ka, nga = cmap[ord(KA)], cmap[ord(NGA)]
    gpos = f["GPOS"].table
    lookups = gpos.LookupList.Lookup

    wider = ot.SinglePos()
    wider.Format, wider.ValueFormat = 1, 4
    wider.Coverage = ot.Coverage()
    wider.Coverage.glyphs = [nga]
    wider.Value = ot.ValueRecord()
    wider.Value.XAdvance = 2000
    single = ot.Lookup()
    single.LookupType, single.LookupFlag, single.SubTable, single.SubTableCount = 1, 0, [wider], 1
    lookups.append(single)

    chain = class_chain("Pos", nga, ({ka: 1}, {nga: 1}, {}), [0, 1], [], len(lookups) - 1)
    context = ot.Lookup()
    context.LookupType, context.LookupFlag, context.SubTable, context.SubTableCount = 8, 0, [chain], 1
    lookups.append(context)
    gpos.LookupList.LookupCount = len(lookups)
    add_feature(gpos, "mkmk", len(lookups) - 1)   # sorts after the font's 'kern'
    rename(f, "BeyondTest")
    f.save(path)


def hb_x(font, text, size):
    """The pen position (pt at size) where each cluster of text starts, by
    hb-shape for the whole text."""
    out = subprocess.run(["hb-shape", "--no-glyph-names", "--utf8-clusters", font, text],
                         capture_output=True, text=True, check=True).stdout
    upem = 1000
    x, starts = 0, {}
    for g in out.strip().strip("[]").split("|"):
        cluster = int(g.split("=")[1].split("@")[0].split("+")[0])
        starts.setdefault(cluster, x)
        x += int(g.rsplit("+", 1)[1])
    return {c: v * size / upem for c, v in starts.items()}


@need
def test_a_rule_that_looks_past_the_space_gets_the_line_shaped_whole(tmp_path):
    ttlib = pytest.importorskip("fontTools.ttLib")
    font = tmp_path / "h.ttf"
    beyond_space_font(font)
    assert ttlib.TTFont(font)["head"].unitsPerEm == 1000
    fires, quiet = f"{KA} {NGA} {CA}", f"{CA} {NGA} {CA}"
    size = 20
    for text, wide in ((fires, True), (quiet, False)):
        starts = hb_x(str(font), text, size)
        last = len(text.encode()) - len(CA.encode())
        gap = starts[last] - starts[0]
        # hb-shape widens the nga only after "ka, space"
        assert (gap > 70) == wide, (text, gap)
        pdf = render(tmp_path, text, sizes={"body": size})
        html = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                              check=True).stdout
        words = [(float(x), w) for x, w in re.findall(r'<word xMin="([\d.]+)"[^>]*>([^<]+)</word>', html)]
        first = next(x for x, w in words if w == text.split()[0])
        third = [x for x, w in words if w == CA][-1]
        assert abs((third - first) - gap) < 0.5, (text, third - first, gap, words)
