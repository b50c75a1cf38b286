# test_spec_errors.py — the spec reader's located errors, end to end through
# `folio validate` and `folio render`: exit 2, file:line:column, JSON Pointer,
# message and hint, all problems at once, nothing written.
import json
import os

from conftest import run_folio

BAD = """{
  "folio": 1,
  "titel": "Q3",
  "data": {
    "sales": {"columns": ["month", "revenue"], "rows": [["Jan", 1], ["Feb"]]}
  },
  "blocks": [
    {"type": "heading", "text": "Summary", "level": 9},
    {"type": "tabel", "data": "sales"},
    {"type": "table", "data": "sale"},
    {"type": "table", "data": "sales", "columns": ["month", {"field": "revenue", "format": "#,##0.0.0"}]},
    {"type": "chart", "kind": "colum", "data": "sales", "x": "month", "y": ["revenu"]}
  ]
}
"""


def errors_of(p):
    return json.loads(p.stdout)


def test_all_errors_reported_at_once_with_positions(spec_file):
    path = spec_file(BAD)
    p = run_folio("validate", path, "--json", check=2)
    errs = errors_of(p)
    by_ptr = {e["pointer"]: e for e in errs}
    # unknown top-level key, located at the key, with a suggestion
    e = by_ptr["/titel"]
    assert (e["line"], e["column"]) == (3, 3)
    assert e["hint"] == "did you mean 'title'?"
    # short row
    e = by_ptr["/data/sales/rows/1"]
    assert e["line"] == 5 and "row has 1 cells, expected 2" in e["message"]
    # level out of range
    assert by_ptr["/blocks/0/level"]["line"] == 8
    # unknown block type with suggestion
    e = by_ptr["/blocks/1/type"]
    assert e["hint"] == "did you mean 'table'?" and e["line"] == 9
    # unknown dataset with suggestion
    assert by_ptr["/blocks/2/data"]["hint"] == "did you mean 'sales'?"
    # the contract's example: invalid number format
    e = by_ptr["/blocks/3/columns/1/format"]
    assert 'unknown number format "#,##0.0.0"' in e["message"]
    assert e["line"] == 11 and e["column"] > 40
    # chart kind and series
    assert by_ptr["/blocks/4/kind"]["hint"] == "did you mean 'column'?"
    assert by_ptr["/blocks/4/y/0"]["hint"] == "did you mean 'revenue'?"
    for e in errs:
        assert e["file"] == str(path)
    assert len(errs) >= 8


def test_text_form_one_line_per_problem(spec_file):
    path = spec_file(BAD)
    p = run_folio("validate", path, check=2)
    lines = [l for l in p.stderr.splitlines() if l]
    assert len(lines) >= 8
    assert f"folio: {path}:11:" in p.stderr
    assert '/blocks/3/columns/1/format: unknown number format "#,##0.0.0"' in p.stderr
    assert "(did you mean 'title'?)" in p.stderr


def test_render_with_bad_spec_writes_nothing(spec_file, tmp_path):
    path = spec_file(BAD)
    out = tmp_path / "out.xlsx"
    run_folio("render", path, "-o", out, check=2)
    assert not out.exists()
    assert [f.name for f in tmp_path.iterdir()] == ["spec.json"]


def test_existing_file_not_replaced_on_error(spec_file, tmp_path):
    path = spec_file(BAD)
    out = tmp_path / "out.xlsx"
    out.write_bytes(b"previous")
    run_folio("render", path, "-o", out, check=2)
    assert out.read_bytes() == b"previous"


def test_syntax_error_located(spec_file):
    path = spec_file('{\n  "folio": 1,\n  "blocks": [\n    {"type": "heading" "text": "x"}\n  ]\n}\n')
    p = run_folio("validate", path, "--json", check=2)
    (e,) = errors_of(p)
    assert e["line"] == 4 and e["column"] == 24
    assert "invalid JSON" in e["message"]


def test_missing_required_keys(spec_file):
    p = run_folio("validate", spec_file({"title": "x"}), "--json", check=2)
    msgs = " ".join(e["message"] for e in errors_of(p))
    assert '"folio"' in msgs and '"blocks"' in msgs


def test_duplicate_keys_rejected(spec_file):
    p = run_folio("validate", spec_file('{"folio": 1, "blocks": [], "blocks": []}'), "--json", check=2)
    assert "duplicate" in errors_of(p)[0]["message"]


def test_csv_path_outside_spec_folder(spec_file, tmp_path):
    (tmp_path / "sub").mkdir()
    outside = tmp_path / "secret.csv"
    outside.write_text("a,b\n1,2\n")
    spec = {"folio": 1, "data": {"d": {"csv": "../secret.csv"}}, "blocks": [{"type": "table", "data": "d"}]}
    path = spec_file(spec, "sub/spec.json") if False else None
    sub = tmp_path / "sub" / "spec.json"
    sub.write_text(json.dumps(spec))
    p = run_folio("validate", sub, "--json", check=2)
    e = errors_of(p)[0]
    assert e["pointer"] == "/data/d/csv" and "outside" in e["message"]
    abs_spec = dict(spec, data={"d": {"csv": str(outside)}})
    sub.write_text(json.dumps(abs_spec))
    e = errors_of(run_folio("validate", sub, "--json", check=2))[0]
    assert "absolute path" in e["message"]


def test_symlink_escape_rejected(tmp_path):
    (tmp_path / "outside.csv").write_text("a\n1\n")
    d = tmp_path / "spec"
    d.mkdir()
    os.symlink(tmp_path / "outside.csv", d / "link.csv")
    (d / "spec.json").write_text(json.dumps({"folio": 1, "data": {"d": {"csv": "link.csv"}},
                                             "blocks": [{"type": "table", "data": "d"}]}))
    e = errors_of(run_folio("validate", d / "spec.json", "--json", check=2))[0]
    assert "outside" in e["message"]


def test_csv_errors_name_row_and_column(spec_file, tmp_path):
    (tmp_path / "bad.csv").write_bytes(b"a,b\n1,2\n3,\xff\xfe\n")
    p = run_folio("validate", spec_file({"folio": 1, "data": {"d": {"csv": "bad.csv"}},
                                         "blocks": [{"type": "table", "data": "d"}]}), check=2)
    assert "bad.csv:3" in p.stderr and "UTF-8" in p.stderr


def test_chart_series_must_be_numeric(spec_file):
    spec = {"folio": 1, "blocks": [{"type": "chart", "kind": "bar", "x": "a", "y": "b",
                                    "data": {"columns": ["a", "b"], "rows": [["x", "text"]]}}]}
    e = errors_of(run_folio("validate", spec_file(spec), "--json", check=2))[0]
    assert e["pointer"] == "/blocks/0/y" and "is text" in e["message"]


def test_totals_need_numbers_and_known_ops(spec_file):
    spec = {"folio": 1, "blocks": [{"type": "table", "totals": {"a": "sum", "b": "total", "c": "sum"},
                                    "data": {"columns": ["a", "b"], "rows": [["x", 1]]}}]}
    errs = errors_of(run_folio("validate", spec_file(spec), "--json", check=2))
    ptrs = {e["pointer"]: e for e in errs}
    assert "needs numbers" in ptrs["/blocks/0/totals/a"]["message"]
    assert "unknown total" in ptrs["/blocks/0/totals/b"]["message"]
    assert "no column" in ptrs["/blocks/0/totals/c"]["message"]


def test_bad_cells(spec_file):
    spec = {"folio": 1, "data": {"d": {"columns": ["a", "b", "c"], "rows": [
        [{"date": "2024-02-30"}, {"formual": "=1"}, [1]]]}}, "blocks": []}
    ptrs = {e["pointer"] for e in errors_of(run_folio("validate", spec_file(spec), "--json", check=2))}
    assert {"/data/d/rows/0/0/date", "/data/d/rows/0/1", "/data/d/rows/0/2"} <= ptrs


def test_valid_samples_validate(folio):
    from conftest import SAMPLES
    for spec in sorted(SAMPLES.glob("*/*.json")):
        if "analysis" in spec.parts:
            continue
        p = run_folio("validate", spec, "--json", check=0)
        assert json.loads(p.stdout) == []


def test_huge_and_fractional_numbers_are_errors_not_crashes(spec_file):
    spec = {"folio": 1, "blocks": [{"type": "heading", "text": "x", "level": 6.66e86},
                                   {"type": "heading", "text": "y", "level": 2.5},
                                   {"type": "chart", "kind": "bar", "x": "a", "y": "b", "width": -1e300,
                                    "data": {"columns": ["a", "b"], "rows": [["x", 1]]}}]}
    errs = json.loads(run_folio("validate", spec_file(spec), "--json", check=2).stdout)
    # the same mistake twice is one message naming both places
    assert {e["pointer"] for e in errs} == {"/blocks/0/level", "/blocks/2/width"}
    level = next(e for e in errs if e["pointer"] == "/blocks/0/level")
    assert "2 times in all, also at /blocks/1/level" in level["message"]
