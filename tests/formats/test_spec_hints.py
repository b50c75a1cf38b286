# test_spec_hints.py — messages that teach the right spelling (issue 37,
# A.12): a stacked kind points at "stacked": true, an x_scale at y_scale
# (not at x_title), a format code with bare words at the quotes Excel
# wants around literal text.
from conftest import run_folio, write_spec


def validate(tmp_path, **chart):
    block = {"type": "chart", "kind": "column", "data": "d", "x": "m", "y": "v"}
    block.update(chart)
    spec = {"folio": 1, "data": {"d": {"columns": ["m", "v"], "rows": [["a", 1]]}}, "blocks": [block]}
    return run_folio("validate", write_spec(tmp_path, spec), check=2).stderr


def test_stacked_kind_points_at_stacked(tmp_path):
    for kind, base in (("stacked_bar", "bar"), ("stacked-column", "column"), ("StackedArea", "area")):
        err = validate(tmp_path, kind=kind)
        assert f'/blocks/0/kind: unknown chart kind "{kind}"' in err
        assert f'"kind": "{base}", "stacked": true' in err, err


def test_x_scale_points_at_y_scale(tmp_path):
    err = validate(tmp_path, x_scale="log")
    assert '/blocks/0/x_scale: unknown key "x_scale"' in err
    assert '"y_scale": "log"' in err and "x_title" not in err


def test_format_words_are_quoted_in_the_hint(tmp_path):
    spec = {"folio": 1, "data": {"d": {"columns": ["m", {"name": "v", "format": "+0.0 pp;-0.0 pp"}],
                                       "rows": [["a", 1]]}},
            "blocks": [{"type": "metrics", "items": [{"label": "x", "value": 1, "format": "0 units"}]}]}
    err = run_folio("validate", write_spec(tmp_path, spec), check=2).stderr
    assert r'literal text goes in double quotes: "+0.0 \"pp\";-0.0 pp"' in err, err
    assert r'"0 \"units\""' in err, err
