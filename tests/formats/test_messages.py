# test_messages.py — the spec is learnable from its messages (issue 14,
# items 10-13): synonyms and explanations, every problem at once, one
# message per repeated mistake, "no rows", captions numbered once, no
# made-up dates, -o x.png for a one-chart spec. Outputs read back with
# python-docx, pdfinfo and the PNG signature.
import json
import subprocess
import zipfile

import docx

from conftest import run_folio, write_spec

DATA = {"d": {"columns": ["region", "sales"], "rows": [["North", 10], ["South", 20]]}}


def errors(tmp_path, spec, check=2):
    path = write_spec(tmp_path, spec)
    p = run_folio("validate", path, "--json", check=check)
    return json.loads(p.stdout) if p.stdout.strip() else []


def by_pointer(errs):
    return {e["pointer"]: e for e in errs}


def test_table_columns_take_name_as_well_as_field(tmp_path):
    spec = {"folio": 1, "data": DATA, "blocks": [
        {"type": "table", "data": "d", "columns": [{"name": "region", "title": "Region"}, {"field": "sales"}]}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "o.docx", check=0)
    table = docx.Document(tmp_path / "o.docx").tables[0]
    assert [c.text for c in table.rows[0].cells] == ["Region", "sales"]
    assert [c.text for c in table.rows[1].cells] == ["North", "10"]
    spec["blocks"][0]["columns"][0]["field"] = "region"
    e = by_pointer(errors(tmp_path, spec))["/blocks/0/columns/0/name"]
    assert "both \"field\" and \"name\"" in e["message"]


def test_type_on_a_table_column_says_where_types_live(tmp_path):
    spec = {"folio": 1, "data": DATA, "blocks": [
        {"type": "table", "data": "d", "columns": ["region", {"field": "sales", "type": "currency"}]}]}
    e = by_pointer(errors(tmp_path, spec))["/blocks/0/columns/1/type"]
    assert "types belong to the dataset's columns" in e["message"]
    assert "/data/d/columns" in e["hint"] and '"type": "currency"' in e["hint"]
    assert e["line"] > 0


def test_synonyms_and_slides_get_a_useful_hint(tmp_path):
    spec = {"folio": 1, "slides": [], "data": DATA, "blocks": [
        {"type": "bullets", "items": ["a"]},
        {"type": "kpis", "items": []},
        {"type": "chart", "chart_type": "bar", "data": "d", "labels": "region", "values": "sales"}]}
    e = by_pointer(errors(tmp_path, spec))
    assert "level-1 headings" in e["/slides"]["hint"]
    assert e["/blocks/0/type"]["hint"] == "did you mean 'list'?"
    assert e["/blocks/1/type"]["hint"] == "did you mean 'metrics'?"
    assert e["/blocks/2/chart_type"]["hint"] == "did you mean 'kind'?"
    assert e["/blocks/2/labels"]["hint"] == "did you mean 'x'?"
    assert e["/blocks/2/values"]["hint"] == "did you mean 'y'?"


def test_one_mistake_repeated_is_one_message_with_count_and_places(tmp_path):
    blocks = [{"type": "paragraph", "txt": f"p{i}"} for i in range(30)]
    errs = errors(tmp_path, {"folio": 1, "blocks": blocks})
    unknown = [e for e in errs if "unknown key \"txt\"" in e["message"]]
    assert len(unknown) == 1, [e["message"] for e in errs]
    m = unknown[0]["message"]
    assert "30 times in all, also at /blocks/1/txt, /blocks/2/txt, /blocks/3/txt, ..." in m
    assert unknown[0]["pointer"] == "/blocks/0/txt" and unknown[0]["line"] > 0
    assert len(errs) <= 3  # and the missing "text", grouped the same way


def test_a_broken_csv_does_not_hide_the_column_errors(tmp_path):
    (tmp_path / "bad.csv").write_text("m,v\na,1\nb,2,3\n")
    spec = {"folio": 1, "data": {"b": {"csv": "bad.csv"}},
            "blocks": [{"type": "chart", "kind": "bar", "data": "b", "x": "m", "y": "vv"}]}
    path = write_spec(tmp_path, spec)
    p = run_folio("validate", path, check=2)
    assert "bad.csv:3:3: record has 3 fields" in p.stderr
    assert "/blocks/0/y: dataset \"b\" has no column \"vv\" (did you mean 'v'?)" in p.stderr
    assert "is text" not in p.stderr


def test_bad_rows_do_not_hide_the_column_errors(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["k", "v"], "rows": {"a": 1}}},
            "blocks": [{"type": "table", "data": "d", "columns": ["k", "vv"]}]}
    e = by_pointer(errors(tmp_path, spec))
    assert "must be an array of arrays" in e["/data/d/rows"]["message"]
    assert e["/blocks/0/columns/1"]["hint"] == "did you mean 'v'?"


def test_an_empty_dataset_says_no_rows(tmp_path):
    (tmp_path / "e.csv").write_text("m,v\n")
    spec = {"folio": 1, "data": {"e": {"csv": "e.csv"}, "i": {"columns": ["k", "n"], "rows": []}},
            "blocks": [{"type": "chart", "kind": "bar", "data": "e", "x": "m", "y": "v"},
                       {"type": "chart", "kind": "line", "data": "i", "x": "k", "y": "n"},
                       {"type": "table", "data": "i", "totals": {"n": "sum"}}]}
    errs = errors(tmp_path, spec, check=0)  # a chart of nothing says "No data"
    msgs = [e["message"] for e in errs]
    assert 'warning: dataset "e" has no rows: the chart says "No data"' in msgs
    assert 'warning: dataset "i" has no rows: the chart says "No data"' in msgs
    assert not [m for m in msgs if "is text" in m]
    assert by_pointer(errs)["/blocks/0/data"]["line"] > 0
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "o.pdf", check=0)
    text = subprocess.run(["pdftotext", tmp_path / "o.pdf", "-"], capture_output=True, text=True).stdout
    assert "No data" in text


def test_a_numbered_caption_is_not_numbered_again(tmp_path):
    spec = {"folio": 1, "data": DATA, "blocks": [
        {"type": "table", "data": "d", "caption": "Table 1. Sales by region"},
        {"type": "table", "data": "d", "caption": "Sales again"}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "o.docx", check=0)
    caps = [p.text for p in docx.Document(tmp_path / "o.docx").paragraphs if p.style.name == "Caption"]
    assert caps[0] == "Table 1. Sales by region"
    assert caps[1].startswith("Table ") and caps[1].endswith("Sales again")


def test_no_date_means_no_date_unless_source_date_epoch(tmp_path):
    spec = {"folio": 1, "title": "T", "data": DATA, "blocks": [{"type": "table", "data": "d"}]}
    path = write_spec(tmp_path, spec)
    outs = ["o.pdf", "o.docx", "o.pptx"]
    args = [a for o in outs for a in ("-o", tmp_path / o)]
    run_folio("render", path, *args, check=0)
    info = subprocess.run(["pdfinfo", tmp_path / "o.pdf"], capture_output=True, text=True).stdout
    assert "CreationDate" not in info and "2000" not in info
    for o in ("o.docx", "o.pptx"):
        core = zipfile.ZipFile(tmp_path / o).read("docProps/core.xml").decode()
        assert "dcterms:created" not in core and "2000-01-01" not in core
    import os
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    run_folio("render", path, *args, check=0, env=env)
    info = subprocess.run(["pdfinfo", tmp_path / "o.pdf"], capture_output=True, text=True).stdout
    assert "2023" in next(line for line in info.splitlines() if line.startswith("CreationDate"))
    core = zipfile.ZipFile(tmp_path / "o.docx").read("docProps/core.xml").decode()
    assert "2023-11-14T22:13:20Z" in core


def test_one_chart_spec_writes_the_png_asked_for(tmp_path):
    spec = {"folio": 1, "data": DATA, "blocks": [
        {"type": "heading", "text": "Sales"},
        {"type": "chart", "kind": "bar", "data": "d", "x": "region", "y": "sales"}]}
    path = write_spec(tmp_path, spec)
    run_folio("render", path, "-o", tmp_path / "x.png", check=0)
    assert (tmp_path / "x.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".png") == ["x.png"]
