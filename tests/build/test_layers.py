# test_layers.py — `make check-includes` keeps the layers one-way:
# readers (formats/) -> the hub (render/core/) <- writers (render/<fmt>/).
# Each case copies the sources to a scratch tree, plants one forbidden
# include and expects the check to name it and fail.
import shutil
import subprocess

import pytest

from conftest import ROOT


def check(root):
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "check-includes",
                           f"LAYERS_ROOT={root}"], capture_output=True, text=True, timeout=60)


@pytest.fixture
def tree(tmp_path):
    for d in ("formats", "render", "cli"):
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("*.o", "*.d"))
    return tmp_path


def test_the_tree_as_committed_passes():
    p = check(ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "layers ok" in p.stdout


@pytest.mark.parametrize("where, line", [
    ("formats/csv.c", '#include "render/pdf/pdf_int.h"'),     # a reader on a writer
    ("formats/json.h", '#include "render/render.h"'),         # a reader on the engine
    ("render/core/model.h", '#include "formats/csv.h"'),      # the hub on a reader
    ("render/core/text.c", ' #  include "render/chart/chart.h"'),  # the hub on a writer
    ("render/pdf/pdf.c", '#include "formats/image.h"'),       # a writer on a reader
    ("render/output.c", '#include "formats/theme.h"'),        # the engine on a reader
    ("cli/main.c", '#include "render/core/model.h"'),         # the CLI past folio.h
])
def test_a_forbidden_include_fails(tree, where, line):
    path = tree / where
    path.write_text(path.read_text() + line + "\n")
    p = check(tree)
    assert p.returncode != 0
    assert f"{where}:" in p.stdout and line.strip() in p.stdout
    assert "forbidden include" in p.stdout
    assert p.stdout.count(where + ":") == 1  # named once


def test_allowed_includes_pass(tree):
    path = tree / "formats/csv.c"
    path.write_text(path.read_text() + '#include "render/core/numfmt.h"\n')
    path = tree / "render/xlsx/xlsx.c"
    path.write_text(path.read_text() + '#include "render/ooxml/xml.h"\n')
    assert check(tree).returncode == 0
