# test_launcher.py — `folio` is a small launcher: it serves `folio run` without
# loading the renderers' libraries and hands every other command to
# folio-engine, found beside it (build tree) or in ../libexec/folio/ (install).
import os
import shutil
import subprocess
import time

import openpyxl
import pytest

from conftest import FOLIO, SAMPLES

ENGINE = os.path.join(os.path.dirname(FOLIO), "folio-engine")
CSV = SAMPLES / "plain" / "orders.csv"


def _jail_works():
    p = subprocess.run([FOLIO, "run", "--quiet", "--", "/bin/true"], capture_output=True, timeout=30)
    return p.returncode == 0


def test_run_maps_no_renderer_library(tmp_path):
    if not _jail_works():
        pytest.skip("folio run does not work on this kernel")
    p = subprocess.Popen([FOLIO, "run", "--quiet", "--", "/bin/sleep", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(0.7)
        with open("/proc/%d/maps" % p.pid) as f:
            maps = f.read()
    finally:
        p.wait(timeout=30)
    assert p.returncode == 0
    for lib in ("libxml2", "libcairo", "libxlsxwriter", "libhpdf", "libzip", "libicu", "libseccomp"):
        assert lib not in maps, "folio run loaded %s" % lib


def test_other_commands_go_to_the_engine(tmp_path):
    out = tmp_path / "orders.xlsx"
    p = subprocess.run([FOLIO, "convert", "--quiet", str(CSV), str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    ws = openpyxl.load_workbook(out).worksheets[-1]
    assert ws.max_row > 1 and ws.cell(1, 1).value
    v = subprocess.run([FOLIO, "--version"], capture_output=True, text=True)
    assert v.returncode == 0 and v.stdout.startswith("folio ")
    h = subprocess.run([FOLIO, "help", "run"], capture_output=True, text=True)
    assert h.returncode == 0 and "--render" in h.stdout


def test_installed_layout_finds_libexec(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "libexec" / "folio").mkdir(parents=True)
    shutil.copy2(FOLIO, tmp_path / "bin" / "folio")
    shutil.copy2(ENGINE, tmp_path / "libexec" / "folio" / "folio-engine")
    out = tmp_path / "o.xlsx"
    p = subprocess.run([str(tmp_path / "bin" / "folio"), "convert", "--quiet", str(CSV), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert openpyxl.load_workbook(out).worksheets[-1].max_row > 1


def test_missing_engine_is_a_clear_error(tmp_path):
    lone = tmp_path / "folio"
    shutil.copy2(FOLIO, lone)
    out = tmp_path / "o.xlsx"
    p = subprocess.run([str(lone), "convert", str(CSV), str(out)], capture_output=True, text=True)
    assert p.returncode == 5
    assert "folio-engine" in p.stderr and "libexec" in p.stderr
    assert not out.exists()
    if _jail_works():
        # the sandbox itself needs no engine; --render does, and says so before running
        r = subprocess.run([str(lone), "run", "--", "/bin/echo", "hi"], capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout == "hi\n", r.stderr
        r = subprocess.run([str(lone), "run", "--render", "pdf", "--", "/bin/echo", "hi"],
                           capture_output=True, text=True)
        assert r.returncode == 5 and "folio-engine" in r.stderr
        assert "hi" not in r.stdout


def test_engine_does_not_serve_run():
    p = subprocess.run([ENGINE, "run", "--", "/bin/true"], capture_output=True, text=True)
    assert p.returncode == 1 and "folio command itself" in p.stderr


def _fake_engine_env(tmp_path, args, env_extra=None):
    """GLIBC_TUNABLES as an engine started by the launcher sees it: a script
    stands in for folio-engine (and folio-serve) and writes its environment's
    value out."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    shutil.copy2(FOLIO, tmp_path / "bin" / "folio")
    seen = tmp_path / "seen.txt"
    for name in ("folio-engine", "folio-serve"):       # serve has an engine of its own
        fake = tmp_path / "bin" / name
        fake.write_text('#!/bin/sh\nprintf "%%s" "${GLIBC_TUNABLES-unset}" > %s\n' % seen)
        fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    env.update(env_extra or {})
    p = subprocess.run([str(tmp_path / "bin" / "folio")] + args, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return seen.read_text()


def test_render_heap_in_huge_pages_only_for_one_shot_commands(tmp_path):
    assert _fake_engine_env(tmp_path, ["render", "x.json", "-o", "x.pdf"]) == "glibc.malloc.hugetlb=1"
    assert _fake_engine_env(tmp_path, ["convert", "a.csv", "b.xlsx"]) == "glibc.malloc.hugetlb=1"
    # the caller's own tunables are kept, and its own hugetlb choice wins
    kept = _fake_engine_env(tmp_path, ["render", "x.json"], {"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"})
    assert kept == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"
    own = _fake_engine_env(tmp_path, ["render", "x.json"], {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"})
    assert own == "glibc.malloc.hugetlb=0"
    # serve's children are forks of one heap: no huge pages there
    assert _fake_engine_env(tmp_path, ["serve", "--help"]) == "unset"


def test_serve_runs_folio_serve_and_renders_do_not_load_its_http_library():
    """`folio serve` goes to folio-serve (the engine with the service linked
    in); render, convert and the rest go to folio-engine, which does not
    load libmicrohttpd and its TLS chain (a dozen libraries a start)."""
    serve = os.path.join(os.path.dirname(FOLIO), "folio-serve")
    needed = lambda b: subprocess.run(["ldd", b], capture_output=True, text=True, check=True).stdout
    assert "libmicrohttpd" in needed(serve)
    assert "libmicrohttpd" not in needed(ENGINE) and "libgnutls" not in needed(ENGINE)
    p = subprocess.run([ENGINE, "serve", "--listen", "127.0.0.1:0"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 5 and "folio-serve" in p.stderr, p.stderr
    p = subprocess.run([FOLIO, "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "--listen" in p.stdout + p.stderr, p.stdout + p.stderr
