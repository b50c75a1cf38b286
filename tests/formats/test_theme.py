# test_theme.py — theme files: built-in names, user files, located errors,
# the theme schema, `folio themes`.
import json

import pytest

from conftest import ROOT, SAMPLES, run_folio

THEMES = sorted(p.stem for p in (ROOT / "templates" / "themes").glob("*.json"))


def test_themes_lists_builtins():
    out = run_folio("themes", check=0).stdout
    names = [l.split()[0] for l in out.splitlines()]
    assert names == THEMES and len(names) >= 3
    assert "default" in names and "corporate" in names and "midnight" in names


def test_builtin_themes_match_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(run_folio("schema", "--theme", check=0).stdout)
    v = jsonschema.Draft202012Validator(schema)
    for name in THEMES:
        theme = json.loads((ROOT / "templates" / "themes" / f"{name}.json").read_text())
        assert list(v.iter_errors(theme)) == [], name


def test_unknown_theme_suggests(tmp_path):
    p = run_folio("render", SAMPLES / "pnl" / "pnl.json", "-o", tmp_path / "a.xlsx", "--theme", "corprate", check=2)
    assert "did you mean 'corporate'?" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_unknown_theme_in_spec_is_located(spec_file):
    p = run_folio("validate", spec_file('{"folio": 1,\n "theme": "midnite", "blocks": []}'), "--json", check=2)
    (e,) = json.loads(p.stdout)
    assert e["pointer"] == "/theme" and (e["line"], e["column"]) == (2, 11)
    assert "did you mean 'midnight'?" in e["hint"]


def test_bad_theme_file_errors_are_located(tmp_path):
    theme = tmp_path / "brand.json"
    theme.write_text('{\n  "folio_theme": 1,\n  "colors": {"accent": "blue", "palette": ["#112233", "#12345"]},\n'
                     '  "page": {"size": "A3"},\n  "fontz": {}\n}\n')
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", tmp_path / "o.xlsx", "--theme", theme, "--json", check=2)
    errs = {e["pointer"]: e for e in json.loads(p.stdout)}
    assert errs["/colors/accent"]["line"] == 3 and "#RRGGBB" in errs["/colors/accent"]["hint"]
    assert "/colors/palette/1" in errs
    assert "A4 or Letter" in errs["/page/size"]["hint"]
    assert errs["/fontz"]["line"] == 5
    assert all(e["file"] == str(theme) for e in errs.values())
    assert not (tmp_path / "o.xlsx").exists()


def test_theme_key_typos_suggest_like_spec_typos(tmp_path):
    # the theme reader uses the spec reader's key check: a typo gets a
    # did-you-mean, located at the key, as in a spec
    theme = tmp_path / "brand.json"
    theme.write_text('{\n  "folio_theme": 1,\n  "colours": {},\n  "page": {"orientaton": "landscape"},\n'
                     '  "table": {"bandng": true}\n}\n')
    p = run_folio("convert", SAMPLES / "plain" / "orders.csv", tmp_path / "o.xlsx", "--theme", theme, "--json", check=2)
    errs = {e["pointer"]: e for e in json.loads(p.stdout)}
    assert errs["/colours"]["hint"] == "did you mean 'colors'?"
    assert (errs["/colours"]["line"], errs["/colours"]["column"]) == (3, 3)
    assert errs["/page/orientaton"]["hint"] == "did you mean 'orientation'?"
    assert errs["/table/bandng"]["hint"] == "did you mean 'banding'?"
    assert errs["/table/bandng"]["line"] == 5


def test_theme_file_beside_spec(tmp_path):
    (tmp_path / "brand.json").write_text(json.dumps({"folio_theme": 1, "name": "brand",
                                                     "colors": {"palette": ["#AA0000", "#00AA00"]}}))
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"folio": 1, "theme": "brand.json", "blocks": [{"type": "paragraph", "text": "x"}]}))
    run_folio("validate", spec, check=0)
