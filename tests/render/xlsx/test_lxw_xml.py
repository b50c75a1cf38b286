# test_lxw_xml.py — libxlsxwriter's XML writer taken over (cli/lxw_xml.c):
# both engines define the writer's entry points, and every workbook --
# xlsx, and the workbooks docx and pptx embed for their charts -- is byte
# for byte what the library's own writer gives (FOLIO_LXW_XML=lib), the
# samples and a spec whose every text needs escaping (& < > " and newlines
# in the title, sheet names, headers, cells, a chart's titles and series).
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import FOLIO, SAMPLES, assert_defines, sanitized

ENGINES = [pathlib.Path(FOLIO).parent / n for n in ("folio-engine", "folio-serve")]
ENTRY_POINTS = ("lxw_xml_start_tag", "lxw_xml_start_tag_unencoded", "lxw_xml_empty_tag",
                "lxw_xml_empty_tag_unencoded", "lxw_xml_end_tag", "lxw_xml_data_element",
                "lxw_xml_declaration", "lxw_xml_rich_si_element", "lxw_new_attribute_str",
                "lxw_new_attribute_int", "lxw_new_attribute_dbl")
NASTY = 'A & B <c> "q" \'s\nnext line'
ESCAPES = {
    "folio": 1, "title": NASTY, "subtitle": NASTY,
    "data": {"t": {"columns": [{"name": "k & <k>", "type": "text"}, {"name": 'v "q"', "type": "number"},
                               {"name": "w>\n", "type": "number"}],
                   "rows": [[NASTY, -1.5, 1e14], ["<tag attr=\"x\">", 0.1, -2147483648],
                            ["&amp; already", 3, 4294967296]]}},
    "blocks": [{"type": "heading", "text": NASTY},
               {"type": "paragraph", "text": "**b & i** <x> \"q\""},
               {"type": "table", "data": "t", "caption": NASTY, "sheet": "s & <q>"},
               {"type": "chart", "kind": "bar", "data": "t", "x": "k & <k>", "y": ['v "q"', "w>\n"],
                "title": NASTY},
               {"type": "chart", "kind": "line", "data": "t", "x": "k & <k>", "y": ['v "q"']}],
}


def render(spec, out, lib=False):
    env = dict(os.environ)
    env.pop("FOLIO_LXW_XML", None)
    if lib:
        env["FOLIO_LXW_XML"] = "lib"
    p = subprocess.run([FOLIO, "render", str(spec), "-o", str(out), "--quiet"], capture_output=True, text=True,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    return out.read_bytes()


@pytest.mark.parametrize("engine", ENGINES, ids=lambda p: p.name)
def test_engines_define_the_xml_writers_entry_points(engine):
    assert_defines(engine, ENTRY_POINTS)


@pytest.mark.parametrize("fmt", ["xlsx", "docx", "pptx"])
@pytest.mark.parametrize("sample", ["sales", "pnl", "survey", "world", "escapes"])
def test_the_librarys_bytes(tmp_path, sample, fmt):
    if sample == "escapes":
        spec = tmp_path / "escapes.json"
        spec.write_text(json.dumps(ESCAPES))
    else:
        spec = SAMPLES / sample / f"{sample}.json"
    ours = render(spec, tmp_path / f"ours.{fmt}")
    assert ours == render(spec, tmp_path / f"lib.{fmt}", lib=True)


def test_escaped_text_reads_back(tmp_path):
    spec = tmp_path / "escapes.json"
    spec.write_text(json.dumps(ESCAPES))
    render(spec, tmp_path / "e.xlsx")
    import openpyxl
    wb = openpyxl.load_workbook(tmp_path / "e.xlsx")
    cells = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.value is not None]
    assert "<tag attr=\"x\">" in cells and "&amp; already" in cells and "k & <k>" in cells
    assert -2147483648 in cells and 4294967296 in cells


@pytest.mark.skipif(not shutil.which("valgrind") or sanitized(), reason="no valgrind, or a sanitizer build")
def test_fewer_instructions_than_the_librarys_writer(tmp_path):
    """The whole `folio render` of bench-serve's workbook (callgrind): 23.23 M
    instructions with the library's writer, 22.47 M with ours (issue 39: the
    same 0.75 M is a sixth of a folio serve child's render of it)."""
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({
        "folio": 1, "title": "Monthly revenue",
        "data": {"s": {"columns": [{"name": "month", "type": "text"}, {"name": "revenue", "type": "number"}],
                       "rows": [[f"m{i:02d}", 1000 + 37 * i] for i in range(20)]}},
        "blocks": [{"type": "heading", "text": "Monthly revenue"}, {"type": "table", "data": "s"},
                   {"type": "chart", "kind": "bar", "data": "s", "x": "month", "y": ["revenue"]}]}))

    def instructions(lib):
        env = dict(os.environ)
        env.pop("FOLIO_LXW_XML", None)
        if lib:
            env["FOLIO_LXW_XML"] = "lib"
        engine = pathlib.Path(FOLIO).parent / "folio-engine"
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp_path}/cg.%p",
                            str(engine), "render", str(spec), "-o", str(tmp_path / "o.xlsx"), "--quiet"],
                           capture_output=True, text=True, env=env, timeout=600)
        assert p.returncode == 0, p.stderr
        import re
        return int(re.search(r"Collected : (\d+)", p.stderr).group(1))

    ours, lib = instructions(False), instructions(True)
    assert ours + 500_000 <= lib, (ours, lib)
