# test_ooxml_schemas.py — every XML part folio writes into xlsx, docx and pptx
# is valid against the ECMA-376 Transitional schemas (tests/xsd/, ISO/IEC
# 29500-4), checked by `xmllint --schema`: the samples (samples/*/*.json),
# the corpus (tests/corpus/*.json), the world's scripts
# (tests/render/text/world.json) and a spec with every block, cell kind and
# chart kind (tests/render/schemas/every_block.json), each rendered to the
# three formats.
#
# A part is validated against the schema of its root element's namespace
# (SCHEMAS): workbook, worksheets, styles, sharedStrings, drawings, charts,
# document, styles, numbering, settings, footers, presentation, slides,
# layouts, masters, themes, [Content_Types].xml, every .rels, docProps/app.xml and
# custom.xml, and the same parts of the workbooks embedded for native charts.
# Not validated: docProps/core.xml (its schema imports Dublin Core's from the
# network). Parts whose root namespace has no schema here fail the test, so a
# new kind of part cannot slip by unchecked.
#
# EXCEPTIONS lists what is removed from a part before validation, each with
# the reason it is outside our control; nothing else is.
import io
import json
import re
import shutil
import subprocess
import zipfile
from collections import defaultdict

import pytest
from lxml import etree

from conftest import ROOT, SAMPLES, run_folio

XSD = ROOT / "tests" / "xsd"
CORPUS = ROOT / "tests" / "corpus"
FORMATS = ("xlsx", "docx", "pptx")
SML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
XML_NS = "http://www.w3.org/XML/1998/namespace"

SCHEMAS = {
    SML: "sml.xsd",
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "wml-offline.xsd",
    "http://schemas.openxmlformats.org/presentationml/2006/main": "pml.xsd",
    "http://schemas.openxmlformats.org/drawingml/2006/chart": "dml-chart.xsd",
    "http://schemas.openxmlformats.org/drawingml/2006/main": "dml-main.xsd",  # a:theme
    "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing": "dml-spreadsheetDrawing.xsd",
    "http://schemas.openxmlformats.org/package/2006/content-types": "opc-contentTypes.xsd",
    "http://schemas.openxmlformats.org/package/2006/relationships": "opc-relationships.xsd",
    "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties":
        "shared-documentPropertiesExtended.xsd",
    "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties":
        "shared-documentPropertiesCustom.xsd",
}
NOT_VALIDATED = {"docProps/core.xml"}


def sml_t_space(root):
    """Drops xml:space from SpreadsheetML <t> (shared strings, inline strings).

    sml.xsd types <t> as ST_Xstring, a simple type with no attributes, yet
    Excel itself writes <t xml:space="preserve"> for text with leading or
    trailing spaces and needs it to keep them; libxlsxwriter, which writes
    these parts, does as Excel does. A known gap between the schema and
    Excel, not ours to change: without the attribute the spaces are lost."""
    n = 0
    for t in root.iter("{%s}t" % SML):
        if t.attrib.pop("{%s}space" % XML_NS, None) is not None:
            n += 1
    return n


# (parts, fix-up before validation): the only changes made to what we wrote.
EXCEPTIONS = [(re.compile(r"xl/(sharedStrings|worksheets/sheet\d+)\.xml"), sml_t_space)]


def cases():
    out = [(p.relative_to(ROOT), f) for p in sorted(SAMPLES.glob("*/*.json")) for f in FORMATS]
    out += [(p.relative_to(ROOT), f) for p in sorted(CORPUS.glob("*.json")) for f in FORMATS]
    more = [ROOT / "tests" / "render" / "text" / "world.json",
            ROOT / "tests" / "render" / "schemas" / "every_block.json"]
    out += [(p.relative_to(ROOT), f) for p in more for f in FORMATS]
    return out


def render(tmp_path, spec, fmt):
    src = ROOT / spec
    for f in src.parent.iterdir():  # the spec's CSVs, logos and themes beside it
        if f.is_file():
            shutil.copy(f, tmp_path / f.name)
    out = tmp_path / f"out.{fmt}"
    run_folio("render", tmp_path / src.name, "-o", out, "--quiet", check=0, timeout=600)
    return out


def extract(package, folder, by_schema=None, fixed=None, prefix=""):
    """Writes each XML part to folder (fixed up as EXCEPTIONS say), also the
    parts of embedded workbooks (a chart's data); returns {schema file:
    [paths]} and the parts that were fixed up."""
    by_schema = defaultdict(list) if by_schema is None else by_schema
    fixed = [] if fixed is None else fixed
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    with zipfile.ZipFile(package) as z:
        for i, name in enumerate(z.namelist()):
            if name.endswith(".xlsx"):
                extract(io.BytesIO(z.read(name)), folder, by_schema, fixed, f"{prefix}{name}!")
                continue
            if not name.endswith((".xml", ".rels")) or name in NOT_VALIDATED:
                continue
            data = z.read(name)
            root = etree.fromstring(data, parser)
            ns = etree.QName(root).namespace
            assert ns in SCHEMAS, f"{prefix}{name}: no schema for {ns}"
            for pattern, fix in EXCEPTIONS:
                if pattern.fullmatch(name) and fix(root):
                    data = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
                    fixed.append(prefix + name)
            path = folder / re.sub(r"[/!]", "_", f"{len(list(folder.iterdir())):04d}_{prefix}{name}")
            path.write_bytes(data)
            by_schema[SCHEMAS[ns]].append(path)
    return by_schema, fixed


def xmllint(schema, paths):
    """Errors of `xmllint --schema` on paths (one run per schema)."""
    p = subprocess.run(["xmllint", "--noout", "--nonet", "--schema", str(XSD / schema), *map(str, paths)],
                       capture_output=True, text=True, timeout=600)
    errors = [line for line in p.stderr.splitlines() if not line.endswith(" validates")]
    if p.returncode != 0 and not errors:
        errors = [f"xmllint exit {p.returncode}"]
    return errors


@pytest.mark.skipif(shutil.which("xmllint") is None, reason="xmllint (libxml2-utils) not installed")
@pytest.mark.parametrize("spec,fmt", cases(), ids=[f"{s.stem}.{f}" for s, f in cases()])
def test_every_part_is_valid_against_the_transitional_schemas(tmp_path, spec, fmt):
    out = render(tmp_path, spec, fmt)
    parts = tmp_path / "parts"
    parts.mkdir()
    by_schema, _ = extract(out, parts)
    assert by_schema, "no XML parts"
    main = {"xlsx": "sml.xsd", "docx": "wml-offline.xsd", "pptx": "pml.xsd"}[fmt]
    assert main in by_schema
    if fmt != "xlsx" and "dml-chart.xsd" in by_schema:  # a chart's workbook is checked too
        assert "sml.xsd" in by_schema
    errors = []
    for schema, paths in sorted(by_schema.items()):
        errors += xmllint(schema, paths)
    assert not errors, "\n".join(errors[:20])


def test_an_invalid_part_is_caught(tmp_path):
    """The check itself works: a slide with an element out of its schema
    sequence, and a chart with an unknown element, are reported."""
    out = render(tmp_path, SAMPLES.relative_to(ROOT) / "sales" / "sales.json", "pptx")
    parts = tmp_path / "parts"
    parts.mkdir()
    by_schema, _ = extract(out, parts)
    slide = next(p for p in by_schema["pml.xsd"] if "slides_slide1" in p.name)
    text = slide.read_text(encoding="utf-8")
    slide.write_text(text.replace("<p:cSld>", "<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr><p:cSld>", 1),
                     encoding="utf-8")
    chart = by_schema["dml-chart.xsd"][0]
    chart.write_text(chart.read_text(encoding="utf-8").replace("<c:plotVisOnly", "<c:bogus/><c:plotVisOnly", 1),
                     encoding="utf-8")
    assert any("slides_slide1" in e for e in xmllint("pml.xsd", [slide]))
    assert any("bogus" in e for e in xmllint("dml-chart.xsd", [chart]))


def test_the_exception_only_drops_xml_space_on_sml_text(tmp_path):
    """sharedStrings with a leading space: validated after the fix-up, and
    the fix-up removed nothing but xml:space."""
    spec = tmp_path / "s.json"
    spec.write_text('{"folio": 1, "data": {"t": {"columns": ["a"], "rows": [["  padded"], ["plain"]]}},'
                    ' "blocks": [{"type": "table", "data": "t"}]}')
    out = tmp_path / "s.xlsx"
    run_folio("render", spec, "-o", out, "--quiet", check=0)
    parts = tmp_path / "parts"
    parts.mkdir()
    by_schema, fixed = extract(out, parts)
    assert "xl/sharedStrings.xml" in fixed
    shared = next(p for p in by_schema["sml.xsd"] if p.name.endswith("sharedStrings.xml"))
    texts = [t.text for t in etree.parse(str(shared)).iter("{%s}t" % SML)]
    assert "  padded" in texts and "plain" in texts
    assert not xmllint("sml.xsd", by_schema["sml.xsd"])


def validate_package(tmp_path, out):
    parts = tmp_path / ("parts-" + out.name)
    parts.mkdir()
    by_schema, _ = extract(out, parts)
    errors = []
    for schema, paths in sorted(by_schema.items()):
        errors += xmllint(schema, paths)
    return errors


EVERY = ROOT / "tests" / "render" / "schemas" / "every_block.json"


@pytest.mark.skipif(shutil.which("xmllint") is None, reason="xmllint (libxml2-utils) not installed")
@pytest.mark.parametrize("theme", ["corporate", "midnight", "branded.json"])
def test_themes_keep_the_parts_valid(tmp_path, theme):
    """The built-in themes, and branded.json: header, footer, logo, landscape
    Letter pages (the parts and sections a theme adds)."""
    for f in EVERY.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    spec = json.loads(EVERY.read_text(encoding="utf-8"))
    args = ["--theme", tmp_path / theme] if theme.endswith(".json") else []
    if not args:
        spec["theme"] = theme
    (tmp_path / "themed.json").write_text(json.dumps(spec), encoding="utf-8")
    for fmt in FORMATS:
        out = tmp_path / f"themed.{fmt}"
        run_folio("render", tmp_path / "themed.json", *args, "-o", out, "--quiet", check=0)
        if fmt == "docx" and args:
            assert "word/header1.xml" in zipfile.ZipFile(out).namelist()
        errors = validate_package(tmp_path, out)
        assert not errors, f"{theme}.{fmt}:\n" + "\n".join(errors[:20])


@pytest.mark.skipif(shutil.which("xmllint") is None, reason="xmllint (libxml2-utils) not installed")
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_template_keeps_the_parts_valid(tmp_path, fmt):
    """--template: folio's parts written into a package made by folio."""
    tpl = render(tmp_path, SAMPLES.relative_to(ROOT) / "pnl" / "pnl.json", fmt)
    shutil.move(tpl, tmp_path / f"template.{fmt}")
    for f in EVERY.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    out = tmp_path / f"templated.{fmt}"
    run_folio("render", tmp_path / EVERY.name, "--template", tmp_path / f"template.{fmt}", "-o", out,
              "--quiet", check=0)
    errors = validate_package(tmp_path, out)
    assert not errors, "\n".join(errors[:20])


@pytest.mark.skipif(shutil.which("xmllint") is None, reason="xmllint (libxml2-utils) not installed")
def test_a_big_table_keeps_the_parts_valid(tmp_path):
    """30,000 rows x 4 columns: the workbook in constant memory (inline
    strings), the deck cut to what slides show, with its note."""
    rows = "\n".join(f"r{i}, padded ,{i * 1.25},2024-01-{i % 28 + 1:02d}" for i in range(30000))
    (tmp_path / "big.csv").write_text("name,text,value,day\n" + rows + "\n")
    spec = {"folio": 1, "title": "Big", "data": {"b": {"csv": "big.csv", "types": {"day": "date"}}},
            "blocks": [{"type": "table", "data": "b"}]}
    (tmp_path / "big.json").write_text(json.dumps(spec))
    for fmt in ("xlsx", "pptx"):
        out = tmp_path / f"big.{fmt}"
        run_folio("render", tmp_path / "big.json", "-o", out, "--quiet", check=0, timeout=600)
        errors = validate_package(tmp_path, out)
        assert not errors, f"big.{fmt}:\n" + "\n".join(errors[:20])
