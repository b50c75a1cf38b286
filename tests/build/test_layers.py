# test_layers.py — `make check-includes` (tools/check-layers.py) keeps the
# layers one-way: cli -> serve -> sandbox -> base; formats -> render/core <-
# writers; render/core -> base. The check reads what the compiler followed
# (`cc -H`), so a forbidden include is caught however it is spelled: angle
# brackets, `../`, through a header, or a system library's header. Each case
# copies the sources to a scratch tree, plants one forbidden include and
# expects the check to name it and fail.
import shutil
import subprocess

import pytest

from conftest import ROOT

TREE = ("base", "include", "formats", "render", "sandbox", "serve", "cli", "tools")


def check(root):
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "check-includes",
                           f"LAYERS_ROOT={root}"], capture_output=True, text=True, timeout=300)


@pytest.fixture
def tree(tmp_path):
    for d in TREE:
        shutil.copytree(ROOT / d, tmp_path / d, ignore=shutil.ignore_patterns("*.o", "*.d", "__pycache__"))
    (tmp_path / "build").mkdir()
    for h in (ROOT / "build").glob("*.h"):                 # generated headers (the seccomp filter)
        shutil.copy(h, tmp_path / "build" / h.name)
    return tmp_path


def test_the_tree_as_committed_passes():
    p = check(ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "layers ok" in p.stdout


PLANTED = [
    # the renderer half, as before
    ("formats/csv.c", '#include "render/pdf/pdf_int.h"', "render/pdf/pdf_int.h"),   # a reader on a writer
    ("formats/json.h", '#include "render/render.h"', "render/render.h"),             # a reader on the engine
    ("render/core/model.h", '#include "formats/csv.h"', "formats/csv.h"),            # the hub on a reader
    ("render/core/text.c", ' #  include "render/chart/chart.h"', "render/chart/chart.h"),  # the hub on a writer
    ("render/pdf/pdf.c", '#include "formats/image.h"', "formats/image.h"),           # a writer on a reader
    ("render/output.c", '#include "formats/theme.h"', "formats/theme.h"),            # the engine on a reader
    ("cli/main.c", '#include "render/core/model.h"', "render/core/model.h"),         # the CLI past folio.h
    # the seven the quoted-include check let through
    ("sandbox/run.c", "#include <cli/cli.h>", "cli/cli.h"),                           # angle brackets
    ("serve/metrics.c", '#include "../render/core/model.h"', "render/core/model.h"),  # ../
    ("render/chart/layout.c", '#include "render/pdf/pdf_int.h"', "render/pdf/pdf_int.h"),  # a chart on a backend
    ("render/docx/docx.c", '#include "render/xlsx/xlsx_internal.h"', "render/xlsx/xlsx_internal.h"),  # writer internals
    ("sandbox/egress/dns.c", '#include "sandbox/sandbox.h"', "sandbox/sandbox.h"),   # egress back up into sandbox
    ("serve/metrics.c", "#include <zip.h>", "zip.h"),                                 # libzip outside render/ooxml
    ("sandbox/session.h", '#include "serve/serve.h"', "serve/serve.h"),             # upward, through a header
    ("base/utf8.c", '#include "render/core/model.h"', "render/core/model.h"),       # base on anything
]


@pytest.mark.parametrize("where, line, named", PLANTED)
def test_a_forbidden_include_fails(tree, where, line, named):
    path = tree / where
    text = path.read_text()
    if where.endswith(".h"):                                # inside the guard, where the compiler reads it
        cut = text.rindex("#endif")
        path.write_text(text[:cut] + line + "\n" + text[cut:])
    else:
        path.write_text(text + line + "\n")
    p = check(tree)
    assert p.returncode != 0, p.stdout
    hits = [l for l in p.stdout.splitlines() if l.startswith(where + ":") and named in l]
    assert len(hits) == 1, p.stdout                          # named once, with what it included
    assert "may not use" in hits[0]
    assert "forbidden dependencies" in p.stderr


def test_allowed_includes_pass(tree):
    for where, line in (("formats/csv.c", '#include "render/core/numfmt.h"'),
                        ("render/xlsx/xlsx.c", '#include "render/ooxml/xml.h"'),
                        ("serve/metrics.c", '#include "base/sha256.h"'),
                        ("cli/sign.c", '#include "sandbox/sandbox.h"')):
        path = tree / where
        path.write_text(path.read_text() + line + "\n")
    p = check(tree)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_architecture_document_shows_the_graph_the_compiler_sees():
    """docs/architecture.md's module graph is generated (make layers-doc);
    a change of includes that leaves it stale fails here."""
    p = subprocess.run(["/usr/bin/python3", str(ROOT / "tools" / "check-layers.py"), "--graph"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    doc = (ROOT / "docs" / "architecture.md").read_text()
    begin = "<!-- layers: tools/check-layers.py --graph (make layers-doc) -->\n"
    block = doc[doc.index(begin) + len(begin):doc.index("<!-- layers end -->")]
    assert block == p.stdout, "docs/architecture.md's graph is stale: run make layers-doc"
