# test_provenance.py — every rendered file says where it came from
# (PRODUCT.md §9, docs/provenance.md): the spec's SHA-256, folio's version
# and what --provenance (or a run) adds, in each format's own metadata, read
# back here by readers that are not folio's: zipfile + lxml (docProps/
# custom.xml; openpyxl when it has custom_doc_props), python-docx, pdfinfo
# -meta, Pillow, qpdf --check, pngcheck; and `folio inspect` agrees.
import hashlib
import json
import shutil
import subprocess
import zipfile

import pytest
from lxml import etree
from PIL import Image

from conftest import FOLIO, SAMPLES, run_folio

SALES = SAMPLES / "sales"
EXTS = ("xlsx", "docx", "pptx", "pdf", "png")
CP = "{http://schemas.openxmlformats.org/officeDocument/2006/custom-properties}"


def custom_props(path):
    """{name: value} of docProps/custom.xml, read with zipfile and lxml."""
    with zipfile.ZipFile(path) as z:
        root = etree.fromstring(z.read("docProps/custom.xml"))
        rels = z.read("_rels/.rels").decode()
    assert "relationships/custom-properties" in rels and 'Target="docProps/custom.xml"' in rels
    return {p.get("name"): "".join(p.itertext()) for p in root.iter(CP + "property")}


def xmp_props(path):
    """{name: value} of folio's XMP properties, from `pdfinfo -meta`."""
    xmp = subprocess.run(["pdfinfo", "-meta", str(path)], capture_output=True, check=True).stdout
    root = etree.fromstring(xmp[xmp.index(b"<x:xmpmeta"):xmp.index(b"</x:xmpmeta>") + 12])
    ns = "{https://folio.invalid/ns/provenance/1/}"
    return {"folio." + e.tag[len(ns):]: e.text for e in root.iter() if str(e.tag).startswith(ns)}


def png_props(path):
    """The iTXt texts, as Pillow reads them."""
    with Image.open(path) as im:
        return {k: v for k, v in im.text.items() if k.startswith("folio.")}


def props_of(path):
    ext = path.suffix[1:]
    return (png_props if ext == "png" else xmp_props if ext == "pdf" else custom_props)(path)


def render_all(tmp_path, *extra):
    spec = tmp_path / "sales.json"
    for f in SALES.iterdir():
        shutil.copy(f, tmp_path / f.name)
    args = ["render", spec, *extra]
    for e in EXTS:
        args += ["-o", tmp_path / f"out.{e}"]
    run_folio(*args, check=0)
    return hashlib.sha256(spec.read_bytes()).hexdigest(), \
        [tmp_path / f"out.{e}" for e in EXTS if e != "png"] + sorted(tmp_path.glob("out-*.png"))


def test_every_format_records_the_spec_hash_and_version(tmp_path):
    sha, outs = render_all(tmp_path)
    version = run_folio("--version", check=0).stdout.split()[1]
    assert len(outs) == 4 + 3                        # sales has three charts: out-1..3.png
    for out in outs:
        assert props_of(out) == {"folio.spec_sha256": sha, "folio.version": version}, out
    # the files are still valid to their own tools
    subprocess.run(["qpdf", "--check", str(tmp_path / "out.pdf")], check=True, capture_output=True)
    for png in tmp_path.glob("out-*.png"):
        p = subprocess.run(["pngcheck", str(png)], capture_output=True, text=True)
        assert p.returncode == 0 and "OK" in p.stdout, p.stdout
    import docx
    import openpyxl
    assert docx.Document(str(tmp_path / "out.docx")).core_properties.title
    wb = openpyxl.load_workbook(tmp_path / "out.xlsx")
    if hasattr(wb, "custom_doc_props"):              # openpyxl >= 3.1
        assert {p.name: p.value for p in wb.custom_doc_props.props}["folio.spec_sha256"] == sha


def test_provenance_option_adds_run_cell_and_inputs_everywhere(tmp_path):
    csv = hashlib.sha256((SALES / "sales.csv").read_bytes()).hexdigest()
    prov = tmp_path / "prov.json"
    prov.write_text(json.dumps({"session": "abc123", "cell": 4,
                                "inputs": [{"path": "data/sales.csv", "sha256": csv}]}))
    sha, outs = render_all(tmp_path, "--provenance", prov)
    want = {"folio.spec_sha256": sha, "folio.session": "abc123", "folio.cell": "4",
            "folio.input.1": csv + "  data/sales.csv"}
    for out in outs:
        got = props_of(out)
        assert {k: got.get(k) for k in want} == want, out
        ins = json.loads(run_folio("inspect", out, "--json", check=0).stdout)
        assert ins["provenance"] == got and ins["format"] == out.suffix[1:]
    text = run_folio("inspect", tmp_path / "out.pdf", check=0).stdout
    assert "folio.session" in text and "abc123" in text


@pytest.mark.parametrize("bad, why", [
    ('{"run": "x", "colour": 1}', 'unknown member "colour"'),
    ('{"inputs": [{"path": "a", "sha256": "xyz"}]}', "64 lowercase hex"),
    ('{"cell": ', "--provenance JSON"),
])
def test_a_bad_provenance_is_refused_and_nothing_is_written(tmp_path, bad, why):
    out = tmp_path / "o.pdf"
    p = run_folio("render", SALES / "sales.json", "-o", out, "--provenance", bad, check=2)
    assert why in p.stderr and not out.exists()


def test_inspect_says_plainly_when_a_file_has_none(tmp_path):
    p = run_folio("inspect", SALES / "logo.png", check=2)
    assert "no folio provenance" in p.stderr and p.stdout == ""
    p = run_folio("inspect", SALES / "logo.png", "--json", check=2)
    assert json.loads(p.stdout) == {"file": str(SALES / "logo.png"), "format": "png", "provenance": None}
    p = run_folio("inspect", SALES / "sales.json", check=2)
    assert "not a document folio writes" in p.stderr
    run_folio("inspect", check=1)


def test_a_run_records_its_id_and_input_hashes_in_its_documents(tmp_path):
    for f in SALES.iterdir():
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "mk.py").write_text(
        "import shutil\n"
        "for f in ('sales.csv', 'monthly.csv', 'logo.png'): shutil.copy('/work/' + f, '/out/' + f)\n"
        "shutil.copy('/work/sales.json', '/out/result.json')\n")
    ins = ["sales.csv", "monthly.csv", "logo.png", "sales.json", "mk.py"]
    outs = {}
    for o in ("a", "b"):
        args = ["run", "--out", tmp_path / o, "--render", "pdf,xlsx,png,docx,pptx", "--quiet"]
        for n in ins:
            args += ["--in", tmp_path / n]
        subprocess.run([FOLIO, *map(str, args), "--", "python3", "/work/mk.py"], check=True,
                       capture_output=True, timeout=300)
        outs[o] = {p.name: p.read_bytes() for p in (tmp_path / o).glob("result*") if p.suffix != ".json"}
    man = json.loads((tmp_path / "a" / "manifest.json").read_text())
    prov = man["provenance"]
    assert [i["path"] for i in prov["inputs"]] == ins
    for i in prov["inputs"]:
        assert i["sha256"] == hashlib.sha256((tmp_path / i["path"]).read_bytes()).hexdigest()
    assert len(outs["a"]) == 4 + 3 and outs["a"] == outs["b"]     # same run, same bytes
    for name in outs["a"]:
        got = props_of(tmp_path / "a" / name)
        assert got["folio.run"] == prov["run"] and len(prov["run"]) == 32
        assert got["folio.spec_sha256"] == hashlib.sha256((tmp_path / "sales.json").read_bytes()).hexdigest()
        assert [got[f"folio.input.{k + 1}"] for k in range(len(ins))] == \
            [f"{i['sha256']}  {i['path']}" for i in prov["inputs"]]


def test_a_session_render_records_the_session_id_and_cell(tmp_path):
    import os
    rt = tmp_path / "rt"
    rt.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(rt))
    (tmp_path / "in.csv").write_text("k,v\nalpha,1\n")

    def session(*args, code=0):
        p = subprocess.run([FOLIO, "session", *map(str, args)], env=env, capture_output=True,
                           text=True, timeout=120)
        assert code is None or p.returncode == code, (p.stdout, p.stderr)
        return p
    sid = json.loads(session("new", "--json", "--in", tmp_path / "in.csv").stdout)["id"]
    try:
        session("exec", sid, "-c", "x = 1")
        session("exec", sid, "-c", 'import json; json.dump({"folio": 1, "blocks": [{"type": '
                '"paragraph", "text": "hi"}]}, open("/out/result.json", "w"))')
        session("render", sid, "--render", "pdf,docx", "--out", tmp_path / "r")
    finally:
        session("close", sid, code=None)
    csv = hashlib.sha256((tmp_path / "in.csv").read_bytes()).hexdigest()
    for name in ("result.pdf", "result.docx"):
        got = props_of(tmp_path / "r" / name)
        assert got["folio.session"] == sid and got["folio.cell"] == "2", got
        assert got["folio.input.1"] == csv + "  in.csv"


def test_the_appendix_closes_every_document_with_the_hashes(tmp_path):
    for f in SALES.iterdir():
        shutil.copy(f, tmp_path / f.name)
    spec = json.loads((SALES / "sales.json").read_text())
    spec["provenance"] = {"appendix": True}
    path = tmp_path / "apx.json"
    path.write_text(json.dumps(spec))
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    csv = hashlib.sha256((SALES / "sales.csv").read_bytes()).hexdigest()
    prov = json.dumps({"run": "r1", "inputs": [{"path": "sales.csv", "sha256": csv}]})
    outs = [tmp_path / f"a.{e}" for e in ("pdf", "docx", "pptx", "xlsx")]
    args = ["render", path, "--provenance", prov]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    want = ["How this was computed", "spec_sha256: " + sha, "version: ", "run: r1",
            f"input.1: {csv}  sales.csv"]
    pdf = subprocess.run(["pdftotext", str(outs[0]), "-"], capture_output=True, text=True, check=True).stdout
    import docx
    import openpyxl
    docx_text = "\n".join(p.text for p in docx.Document(str(outs[1])).paragraphs)
    with zipfile.ZipFile(outs[2]) as z:
        n = max(int(name[len("ppt/slides/slide"):-4]) for name in z.namelist()
                if name.startswith("ppt/slides/slide") and name.endswith(".xml"))
        last = "\n".join(etree.fromstring(z.read(f"ppt/slides/slide{n}.xml")).itertext())
    wb = openpyxl.load_workbook(outs[3])
    xlsx_text = "\n".join(str(c.value) for ws in wb.worksheets for row in ws.iter_rows() for c in row
                          if c.value is not None)
    for name, text in (("pdf", pdf), ("docx", docx_text), ("pptx last slide", last), ("xlsx", xlsx_text)):
        flat = " ".join(text.split())             # pdftotext folds runs of spaces
        for w in want:
            assert " ".join(w.split()) in flat, (name, w)
    # without the option there is none; a wrong value is refused, located
    (tmp_path / "plain").mkdir()
    _, plain = render_all(tmp_path / "plain")
    assert plain[3].suffix == ".pdf"
    assert "How this was computed" not in subprocess.run(["pdftotext", str(plain[3]), "-"],
                                                         capture_output=True, text=True).stdout
    spec["provenance"] = {"appendix": "yes"}
    path.write_text(json.dumps(spec))
    p = run_folio("render", path, "-o", tmp_path / "bad.pdf", check=2)
    assert "/provenance/appendix" in p.stderr and not (tmp_path / "bad.pdf").exists()
