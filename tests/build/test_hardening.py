# test_hardening.py — every binary folio installs is built hardened (the
# Makefile's HARDEN_* flags), read back from the ELF files with readelf and
# nm: a position-independent executable (the static launcher a static PIE),
# full RELRO (a read-only relocation segment and BIND_NOW), a stack that is
# not executable, the stack protector and glibc's fortified calls linked in.
import subprocess

import pytest

from conftest import FOLIO, ROOT

BINARIES = ["folio", "folio-engine", "folio-serve"]


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, check=True).stdout


def symbols(path, dynamic):
    args = ["nm", "-D", str(path)] if dynamic else ["nm", str(path)]
    p = subprocess.run(args, capture_output=True, text=True)
    return [line.split()[-1].split("@")[0] for line in p.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def built():
    folder = ROOT / "build"
    if not str(FOLIO).startswith(str(folder)):
        pytest.skip("FOLIO is not the hardened build of build/ (sanitizer builds turn fortify off)")
    return folder


@pytest.mark.parametrize("name", BINARIES)
def test_every_binary_is_hardened(built, name):
    path = built / name
    assert "DYN (Position-Independent Executable file)" in readelf("-h", str(path))
    segments = readelf("-l", str(path))
    assert "GNU_RELRO" in segments
    stack = [line.split() for line in segments.splitlines() if "GNU_STACK" in line][0]
    assert stack[-2] == "RW", stack                      # not RWE
    dynamic = readelf("-d", str(path))
    assert "BIND_NOW" in dynamic and "PIE" in dynamic      # full RELRO, a PIE
    static = name == "folio"
    syms = symbols(path, dynamic=not static)
    assert "__stack_chk_fail" in syms
    assert any(s.startswith("__") and s.endswith("_chk") and s != "__stack_chk_fail" for s in syms)
