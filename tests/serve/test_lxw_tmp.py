# test_lxw_tmp.py — libxlsxwriter's temp files stay in memory (cli/lxw_tmp.c):
# a small workbook's render opens and unlinks no temp file per part (the
# library's own made one each: open, unlink, write, rewind, read, close, most
# of a small render's system calls and of `folio serve --reuse-workers`'s CPU
# per request), both engines carry the definition that replaces the
# library's, and what is rendered -- xlsx, and the docx/pptx whose charts
# embed a workbook -- is byte for byte what the library's own temp files
# give (FOLIO_LXW_TMPFILE=disk).
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import FOLIO, SAMPLES, traced_env

ENGINES = [pathlib.Path(FOLIO).parent / n for n in ("folio-engine", "folio-serve")]
SMALL = {"folio": 1, "title": "Monthly revenue",
         "data": {"s": {"columns": [{"name": "month", "type": "text"}, {"name": "revenue", "type": "number"}],
                        "rows": [[f"m{i:02d}", 1000 + 37 * i] for i in range(20)]}},
         "blocks": [{"type": "heading", "text": "Monthly revenue"}, {"type": "table", "data": "s"},
                    {"type": "chart", "kind": "bar", "data": "s", "x": "month", "y": ["revenue"]}]}


def render(spec_path, out, disk=False):
    env = dict(os.environ)
    env.pop("FOLIO_LXW_TMPFILE", None)
    if disk:
        env["FOLIO_LXW_TMPFILE"] = "disk"
    p = subprocess.run([FOLIO, "render", spec_path.name, "-o", str(out)], cwd=spec_path.parent,
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    return out.read_bytes()


def syscalls(tmp_path, spec_path, disk):
    """{syscall: count} of a render of spec_path to xlsx, children followed."""
    log = tmp_path / ("disk.st" if disk else "mem.st")
    env = traced_env()
    env.pop("FOLIO_LXW_TMPFILE", None)
    if disk:
        env["FOLIO_LXW_TMPFILE"] = "disk"
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,open,unlink,unlinkat", "-o", str(log),
                        FOLIO, "render", spec_path.name, "-o", str(tmp_path / "o.xlsx")],
                       cwd=spec_path.parent, capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    counts = {}
    for line in log.read_text().splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and "(" in parts[1]:
            name = parts[1].split("(", 1)[0]
            counts[name] = counts.get(name, 0) + 1
    return counts


@pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")
def test_small_workbook_makes_no_temp_file_per_part(tmp_path):
    import json
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SMALL))
    mem = syscalls(tmp_path, spec, disk=False)
    disk = syscalls(tmp_path, spec, disk=True)
    # the library's own: a file per part (a dozen and more), each unlinked
    assert disk.get("unlink", 0) >= 10, disk
    # in memory: none (the render's staged output is renamed, not unlinked)
    assert mem.get("unlink", 0) + mem.get("unlinkat", 0) <= 1, mem
    assert mem.get("openat", 0) + 10 <= disk.get("openat", 0), (mem, disk)


@pytest.mark.parametrize("engine", ENGINES, ids=lambda p: p.name)
def test_engines_define_lxw_tmpfile(engine):
    """The definition must be in each executable's dynamic symbol table, or
    libxlsxwriter's PLT calls go to the library's own."""
    if not shutil.which("readelf"):
        pytest.skip("readelf is not installed")
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(engine)], capture_output=True, text=True).stdout
    defined = [l for l in out.splitlines() if l.split()[-1:] == ["lxw_tmpfile"] and " UND " not in l]
    assert defined, f"{engine.name} does not define lxw_tmpfile"


CASES = [(s, f) for s in ("sales", "pnl", "survey", "world") for f in ("xlsx", "docx", "pptx")]


@pytest.mark.parametrize("sample,fmt", CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_same_bytes_as_the_librarys_temp_files(tmp_path, sample, fmt):
    spec = SAMPLES / sample / f"{sample}.json"
    mem = render(spec, tmp_path / f"mem.{fmt}")
    disk = render(spec, tmp_path / f"disk.{fmt}", disk=True)
    assert len(mem) > 1000
    assert mem == disk


def test_big_constant_memory_workbook_same_bytes(tmp_path):
    """Past 100,000 cells the library streams rows through a temp file the
    whole render long: same bytes from memory as from its own file."""
    csv = tmp_path / "big.csv"
    with csv.open("w") as f:
        f.write("id,name,amount\n")
        for i in range(60000):
            f.write(f"{i},name {i % 977},{i * 1.5}\n")
    outs = []
    for disk in (False, True):
        env = dict(os.environ)
        env.pop("FOLIO_LXW_TMPFILE", None)
        if disk:
            env["FOLIO_LXW_TMPFILE"] = "disk"
        out = tmp_path / f"big-{int(disk)}.xlsx"
        p = subprocess.run([FOLIO, "convert", str(csv), str(out)], capture_output=True, text=True, env=env,
                           timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append(out.read_bytes())
    assert len(outs[0]) > 100000
    assert outs[0] == outs[1]
