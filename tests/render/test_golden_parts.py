# test_golden_parts.py — every part of the samples' docx, pptx and xlsx,
# compared with a reviewed copy, libxlsxwriter's way: an unintended change to
# any part shows up here, and an intended one as a readable diff in review.
#
# XML parts are kept normalized (parsed by lxml, one element a line), other
# parts (images, embedded files) by SHA-256 in the folder's MEDIA file.
# FOLIO_UPDATE_REFS=1 rewrites the references from today's output; review the
# diff before committing it.
import hashlib
import os
import pathlib
import shutil
import zipfile

import pytest
from lxml import etree

from conftest import ROOT, SAMPLES

GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("FOLIO_UPDATE_REFS") == "1"
CASES = [(s, f) for s in ("sales", "pnl", "survey") for f in ("docx", "pptx", "xlsx")
         if (s, f) not in (("survey", "pptx"), ("survey", "docx"))]
# survey's pptx and docx are mostly one long table (1.3 MB and 2 MB of XML):
# sales and pnl cover both writers' every kind of part.


def normalized(data):
    """One element a line, attributes as written: stable to diff and review."""
    parser = etree.XMLParser(remove_blank_text=True, resolve_entities=False, no_network=True)
    root = etree.fromstring(data, parser)
    return etree.tostring(root, pretty_print=True, encoding="unicode")


def parts_of(path):
    """{part name: bytes} of an OOXML package."""
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def reference_of(parts):
    """{file name in the golden folder: text} for a package's parts."""
    ref, media = {}, []
    for name in sorted(parts):
        if name.endswith((".xml", ".rels")):
            ref[name] = normalized(parts[name])
        else:
            media.append(f"{hashlib.sha256(parts[name]).hexdigest()}  {name}\n")
    ref["MEDIA"] = "".join(media)
    return ref


@pytest.mark.parametrize("sample,fmt", CASES, ids=[f"{s}.{f}" for s, f in CASES])
def test_parts_match_the_reviewed_copy(folio, tmp_path, sample, fmt):
    out = tmp_path / f"{sample}.{fmt}"
    folio("render", SAMPLES / sample / f"{sample}.json", "-o", out, "--quiet", check=0)
    got = reference_of(parts_of(out))
    folder = GOLDEN / f"{sample}.{fmt}"
    if UPDATE:
        shutil.rmtree(folder, ignore_errors=True)
        for name, text in got.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8")
    assert folder.is_dir(), f"no reference for {sample}.{fmt}: run with FOLIO_UPDATE_REFS=1"
    kept = {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}
    assert kept == set(got), f"parts differ: new {sorted(set(got) - kept)}, gone {sorted(kept - set(got))}"
    for name, text in got.items():
        want = (folder / name).read_text(encoding="utf-8")
        assert text == want, f"{sample}.{fmt}: part {name} changed (FOLIO_UPDATE_REFS=1 to accept)"
