# test_spec_doc.py — docs/spec.md and `folio schema` cannot drift (issue 14,
# item 15): each section's key table lists exactly the keys the schema
# allows there, every block type has its section, and every JSON example in
# the document is a valid spec fragment (a whole spec, a block, a dataset).
# The man page names every command of `folio --help`.
import json
import re
import subprocess

from conftest import ROOT, run_folio

DOC = (ROOT / "docs" / "spec.md").read_text()


def schema():
    return json.loads(run_folio("schema", check=0).stdout)


def sections():
    """{heading text: [keys in the first column of its tables]}"""
    out, cur = {}, None
    for line in DOC.splitlines():
        m = re.match(r"#{2,4} (.+)", line)
        if m:
            cur = m.group(1).strip().strip("`")
            out[cur] = []
            continue
        m = re.match(r"\| `([^`]+)`(?:, `([^`]+)`)? \|", line)
        if cur and m:
            out[cur] += [k for k in m.groups() if k]
    return out


def props(obj, block=False):
    """Keys an object may have (a block's "type" is its section's name)."""
    return set(obj.get("properties", {})) - ({"type"} if block else set())


def one_of(defs, name, required):
    return next(o for o in defs[name]["oneOf"] if required in o.get("required", []))


def test_every_key_of_the_schema_is_documented_where_it_applies():
    s, doc = schema(), sections()
    defs = s["$defs"]
    expect = {
        "Top level": set(s["properties"]),
        "CSV dataset": props(one_of(defs, "dataset", "csv")),
        "Inline dataset": props(one_of(defs, "dataset", "columns")),
        "Dataset column": props(one_of(defs, "column", "name")),
        "Cell values": set().union(*(props(o) for o in defs["cell"]["oneOf"])),
    }
    blocks = {b["if"]["properties"]["type"]["const"]: b["then"] for b in defs["block"]["allOf"]}
    assert set(blocks) == set(defs["block"]["properties"]["type"]["enum"])
    for kind, then in blocks.items():
        expect[kind] = props(then, block=True)
    for name, keys in expect.items():
        assert name in doc, f"docs/spec.md has no section {name!r}"
    # sections with several tables (a block and its items) hold their items' keys too
    items = {
        "list": props(one_of(defs, "list_item", "text")),
        "metrics": props(blocks["metrics"]["properties"]["items"]["items"]),
        "table": props(blocks["table"]["properties"]["columns"]["items"]["oneOf"][1])
                 | props(blocks["table"]["properties"]["row_styles"]["items"]),
        "chart": props(blocks["chart"]["properties"]["y"]["oneOf"][1]["items"]["oneOf"][1]),
    }
    for name, keys in expect.items():
        documented = set(doc[name])
        wanted = keys | items.get(name, set())
        assert documented == wanted, (name, sorted(documented - wanted), sorted(wanted - documented))


def test_every_example_is_valid(tmp_path):
    s = schema()
    examples = re.findall(r"```json\n(.*?)```", DOC, re.S)
    assert len(examples) >= 12
    for i, text in enumerate(examples):
        text = text.strip()
        if text.startswith('"'):  # a named dataset: "sales": {...}
            spec = {"folio": 1, "data": json.loads("{" + text + "}"), "blocks": []}
        else:
            obj = json.loads(text)
            if "folio" in obj:
                spec = obj
            elif "type" in obj and "name" not in obj:
                spec = {"folio": 1, "blocks": [obj]}
            else:  # a dataset column
                spec = {"folio": 1, "data": {"d": {"columns": [obj], "rows": []}}, "blocks": []}
        data = spec.setdefault("data", {})
        for ref in ("sales",):
            data.setdefault(ref, {"columns": ["month", "revenue", "cost"], "rows": [["Jan", 1, 2]]})
        if "sales" in data and "csv" in data["sales"]:
            (tmp_path / data["sales"]["csv"]).write_text("month,revenue,cost,zip\nJan,1,2,01234\n")
        (tmp_path / "logo.png").write_bytes((ROOT / "samples" / "sales" / "logo.png").read_bytes())
        path = tmp_path / f"ex{i}.json"
        path.write_text(json.dumps(spec))
        p = run_folio("validate", path, "--json")
        assert p.returncode == 0, (text, p.stdout, p.stderr)
    assert s["$schema"].startswith("https://json-schema.org/")


def test_the_man_page_covers_every_command():
    man = (ROOT / "docs" / "folio.1").read_text()
    assert man.startswith(".TH FOLIO 1")
    help_text = run_folio("--help", check=0).stdout
    commands = set(re.findall(r"^\s+folio (\w+)", help_text, re.M))
    assert {"render", "convert", "validate", "schema", "run"} <= commands
    for cmd in commands:
        assert f".B folio {cmd}" in man or f"folio {cmd}" in man, cmd
    out = subprocess.run(["man", "--warnings", "-l", "-Tutf8", str(ROOT / "docs" / "folio.1")],
                         capture_output=True, text=True)
    if out.returncode == 0:  # man-db installed: the page formats, without warnings
        text = re.sub(r".\x08", "", out.stdout)  # overstrike (bold) removed
        assert "max_pages" in text and "docs/spec.md" in text and not out.stderr
