# conftest.py — shared fixtures for folio's end-to-end tests.
#
# FOLIO points at the binary under test (make e2e sets it). With
# FOLIO_VALGRIND=1 every run goes through valgrind's memcheck and any leak or
# error fails the run (make valgrind).
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLIO = os.path.abspath(os.environ.get("FOLIO", str(ROOT / "build" / "folio")))
SAMPLES = ROOT / "samples"
# How much slower a run is allowed to be: valgrind alone takes about 2 s to
# start folio, so "answers at once" bounds scale by this.
SLOW = 4 if os.environ.get("FOLIO_VALGRIND") == "1" else 1


def run_folio(*args, cwd=None, check=None, timeout=300, env=None):
    """Runs folio; returns CompletedProcess with text stdout/stderr."""
    cmd = [FOLIO, *map(str, args)]
    if os.environ.get("FOLIO_VALGRIND") == "1":
        # folio execs folio-engine for everything but `run`: follow it
        cmd = ["valgrind", "-q", "--trace-children=yes", "--leak-check=full",
               "--suppressions=" + str(ROOT / "tests" / "valgrind.supp"),
               "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99", *cmd]
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check is not None:
        assert p.returncode == check, f"exit {p.returncode}, expected {check}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    return p


@pytest.fixture
def folio():
    return run_folio


def sanitized():
    """True when FOLIO is a sanitizer build (make asan) or runs under valgrind
    (make valgrind): 5-20 times slower, its own allocator and shadow memory
    (counts of instructions, system calls and page faults mean nothing
    there), and valgrind cannot run an ASan binary."""
    engine = pathlib.Path(FOLIO).parent / "folio-engine"
    with open(engine, "rb") as f:
        return os.environ.get("FOLIO_VALGRIND") == "1" or b"AddressSanitizer" in f.read()


def traced_env(env=None):
    """The environment for folio run under strace or another ptrace: a
    sanitizer build's LeakSanitizer does not work there, so it is off."""
    env = dict(os.environ if env is None else env)
    env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
    return env


def assert_defines(binary, names):
    """binary's dynamic symbol table defines every one of names (folio's
    overrides of a shared library's functions, interposed by the linker)."""
    if not shutil.which("readelf"):
        pytest.skip("readelf is not installed")
    out = subprocess.run(["readelf", "--dyn-syms", "-W", str(binary)], capture_output=True, text=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if " UND " not in l and l.split()}
    for name in names:
        assert name in defined, f"{pathlib.Path(binary).name} does not define {name}"


def write_spec(dirpath, spec, name="spec.json"):
    """Writes spec (dict or str) into dirpath; returns its path."""
    path = pathlib.Path(dirpath) / name
    path.write_text(spec if isinstance(spec, str) else json.dumps(spec, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def render_blocks(dirpath, blocks, *exts, name="s"):
    """Renders a spec of blocks (written as dirpath/NAME.json) to NAME.EXT for
    each of exts; returns the output paths in that order."""
    return render_spec(dirpath, {"folio": 1, "blocks": blocks}, *exts, name=name)


def render_spec(dirpath, spec, *exts, name="s"):
    """render_blocks for a whole spec (dict or str)."""
    spec = write_spec(dirpath, spec, f"{name}.json")
    outs = [pathlib.Path(dirpath) / f"{name}.{e}" for e in exts]
    args = ["render", spec]
    for o in outs:
        args += ["-o", o]
    run_folio(*args, check=0)
    return outs


@pytest.fixture
def spec_file(tmp_path):
    def make(spec, name="spec.json"):
        return write_spec(tmp_path, spec, name)
    return make


@pytest.fixture(scope="session", autouse=True)
def no_session_left_running(tmp_path_factory):
    """Session supervisors the tests started (their environment names this
    run's temporary folders) are ended when the tests end: a spare started
    just before a test closed its sessions would otherwise wait for --idle."""
    yield
    base = str(tmp_path_factory.getbasetemp()).encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"session\0_supervise\0" not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if base not in f.read():
                    continue
            os.kill(int(pid), 9)
        except OSError:
            pass
