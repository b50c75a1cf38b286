# test_cli.py — the command line: help, version, usage errors (exit 1), schema,
# unknown formats, the --json manifest, the ceiling (exit 3) and atomic output.
import hashlib
import json
import subprocess

import pytest

from conftest import SAMPLES, run_folio, write_spec


def test_version_and_help():
    assert run_folio("--version", check=0).stdout.startswith("folio ")
    h = run_folio("--help", check=0).stdout
    for word in ("render", "convert", "validate", "schema", "run", "exit codes", "--max-bytes"):
        assert word in h
    assert "0  success" in h and "3  an output would exceed the ceiling" in h
    assert "folio validate" in run_folio("help", "validate", check=0).stdout
    assert "folio session" in h
    for command in ("run", "session", "serve", "render"):   # every command has its help page
        assert f"folio {command}" in run_folio("help", command, check=0).stdout
    assert "session exec ID" in run_folio("help", "session", check=0).stdout


@pytest.mark.parametrize("args", [
    [], ["frobnicate"], ["render"], ["render", "x.json"], ["render", "x.json", "-o"],
    ["render", "x.json", "-o", "a.xlsx", "--bogus"], ["render", "x.json", "-o", "a.doc"],
    ["render", "x.json", "-o", "a.xlsx", "--max-bytes", "ten"], ["convert", "a.csv"],
    ["validate"], ["help", "nothing"],
])
def test_usage_errors_exit_1(args, tmp_path):
    p = run_folio(*args, cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("folio:") or "usage" in p.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, first, hint", [
    (["render", "x.json", "-o", "a.doc"], "folio: a.doc: unknown output format", "Try 'folio --help'."),
    (["run", "--bogus", "--", "true"], 'folio: run: unknown option "--bogus"', "Try 'folio help run'."),
    (["serve", "--bogus"], "folio: serve: unknown option or missing value: --bogus",
     "Try 'folio help serve'."),
])
def test_usage_errors_read_alike(args, first, hint, tmp_path):
    """One shape for every command (base/usage.c): the problem, then where help is."""
    lines = run_folio(*args, cwd=tmp_path, check=1).stderr.splitlines()
    assert lines[0].startswith(first), lines
    assert lines[-1] == hint, lines
    topic = hint.split("'")[1].split()[1:]
    assert run_folio(*topic, check=0).stdout


def test_unknown_command_suggests():
    p = run_folio("rendr", check=1)
    assert "did you mean 'render'?" in p.stderr


def test_schema_validates_every_sample():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(run_folio("schema", check=0).stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    specs = [s for s in SAMPLES.glob("*/*.json") if "analysis" not in s.parts]
    assert len(specs) >= 3
    for spec in specs:
        errors = list(v.iter_errors(json.loads(spec.read_text())))
        assert errors == [], f"{spec}: {errors[0].message}"
    bad = {"folio": 1, "blocks": [{"type": "tabel"}]}
    assert list(v.iter_errors(bad))


def test_missing_input_is_exit_2(tmp_path):
    p = run_folio("render", tmp_path / "nope.json", "-o", tmp_path / "a.xlsx", check=2)
    assert "cannot open" in p.stderr
    p = run_folio("convert", tmp_path / "nope.csv", tmp_path / "a.xlsx", check=2)
    assert not (tmp_path / "a.xlsx").exists()


def test_json_manifest(tmp_path):
    out = tmp_path / "orders.xlsx"
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", out, "--json", check=0)
    (rec,) = json.loads(p.stdout)
    data = out.read_bytes()
    assert rec == {"path": str(out), "format": "xlsx", "bytes": len(data),
                   "sha256": hashlib.sha256(data).hexdigest()}


def test_ceiling_exit_3_leaves_nothing(tmp_path):
    out = tmp_path / "orders.xlsx"
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", out, "--max-bytes", "1000", check=3)
    assert "ceiling" in p.stderr and "--max-bytes" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_ceiling_keeps_existing_file(tmp_path):
    out = tmp_path / "orders.xlsx"
    out.write_bytes(b"old")
    run_folio("convert", SAMPLES / "plain" / "orders.csv", out, "--max-bytes", "1000", check=3)
    assert out.read_bytes() == b"old"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["orders.xlsx"]


def test_multiple_outputs_all_or_nothing(tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "missing-dir" / "b.xlsx"
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", a, "-o", b)
    assert p.returncode in (2, 5)
    assert list(tmp_path.iterdir()) == []


def test_output_folder_missing_is_reported(tmp_path):
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", tmp_path / "no" / "x.xlsx")
    assert p.returncode != 0 and "cannot create" in p.stderr


def test_quiet_prints_nothing(tmp_path):
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", tmp_path / "o.xlsx", "--quiet", check=0)
    assert p.stdout == "" and p.stderr == ""


def test_template_lends_its_look_to_outputs_of_its_format_only(tmp_path):
    """One render to several formats with a .docx template: the docx borrows
    its styles, the pptx and PDF are drawn with the theme (the pptx writer
    used to load the .docx as a deck and fail); a template of no output's
    format is a warning, not silence."""
    import zipfile
    theme = tmp_path / "brand.json"
    theme.write_text(json.dumps({"folio_theme": 1, "name": "brand",
                                 "fonts": {"heading": "DejaVu Serif", "body": "DejaVu Serif"}}))
    spec = write_spec(tmp_path, {"folio": 1, "blocks": [{"type": "heading", "text": "Hello", "level": 1},
                                                         {"type": "paragraph", "text": "Body text."}]})
    tpl = tmp_path / "brand.docx"
    run_folio("render", spec, "-o", tpl, "--theme", theme, check=0)
    outs = [tmp_path / n for n in ("a.docx", "a.pptx", "a.pdf")]
    p = run_folio("render", spec, *[x for o in outs for x in ("-o", o)], "--template", tpl, check=0)
    assert "warning" not in p.stderr, p.stderr
    with zipfile.ZipFile(outs[0]) as z:
        assert b"DejaVu Serif" in z.read("word/styles.xml")
    with zipfile.ZipFile(outs[1]) as z:
        assert b"DejaVu Serif" not in z.read("ppt/theme/theme1.xml")
    assert "Body text." in subprocess.run(["pdftotext", outs[2], "-"], capture_output=True,
                                          text=True, check=True).stdout
    p = run_folio("render", spec, "-o", tmp_path / "b.pdf", "--template", tpl, check=0)
    assert "warning: --template" in p.stderr and "not used" in p.stderr, p.stderr


def test_a_conversion_error_names_no_place_in_a_spec(tmp_path):
    """A CSV conversion has no spec: its errors said "folio: /: ..." (the
    root JSON Pointer of a spec nobody wrote)."""
    src = tmp_path / "t.csv"
    src.write_text("a,b\n" + "".join("%d,row %d\n" % (i, i) for i in range(40000)))
    p = run_folio("convert", src, tmp_path / "t.pdf", "--max-bytes", "20000", check=3)
    assert p.stderr.startswith("folio: the PDF would pass the output ceiling"), p.stderr
    assert not (tmp_path / "t.pdf").exists()


def test_validate_counts_in_the_singular_too(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["a"], "rows": [[1]]}},
            "blocks": [{"type": "table", "data": "d"}]}
    p = run_folio("validate", write_spec(tmp_path, spec), check=0)
    assert "valid (1 block, 1 dataset)" in p.stderr, p.stderr
