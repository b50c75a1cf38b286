# test_warnings.py — the compile flags every build uses carry the project's
# warnings, -Wswitch-enum and -Wwrite-strings among them (issue 38): a switch
# whose default: hides enum values, or a string literal written through a
# char *, is a warning, and an error under CI=true. Read back from `make -n`
# (dry run: nothing is built) for the library objects and the unit test
# programs, with gcc and clang, and from the fuzz rule, which compiles its
# harnesses itself. No source may turn them off with a pragma.
import re
import subprocess

import pytest

from conftest import ROOT

FLAGS = ["-Wswitch-enum", "-Wwrite-strings"]
OFF = ["-Wno-switch-enum", "-Wno-write-strings", "-Wno-discarded-qualifiers",
       "-Wno-incompatible-pointer-types-discards-qualifiers"]


def dry_run(target, *args):
    """The commands `make -n -B` would run for TARGET in a scratch BUILD
    folder (-B: as if nothing were built yet)."""
    p = subprocess.run(["make", "-n", "-B", "--no-print-directory", "-C", str(ROOT),
                        "BUILD=build-dryrun", *args, f"build-dryrun/{target}"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def compile_line(out, source):
    lines = [l for l in out.splitlines() if source in l.split() and (" -c " in l or " -o " in l)]
    assert lines, f"no compile of {source} in:\n{out}"
    return lines[0].split()


@pytest.mark.parametrize("cc", ["cc", "clang"])
@pytest.mark.parametrize("target,source", [
    ("obj/base/alloc.o", "base/alloc.c"),            # libfolio
    ("obj/sandbox/run.o", "sandbox/run.c"),          # libfolio-sandbox
    ("obj/serve/runs.o", "serve/runs.c"),            # folio-serve
    ("tests/formats/t_csv", "tests/formats/t_csv.c"),  # a unit test program
])
def test_every_compile_has_the_warnings(cc, target, source):
    words = compile_line(dry_run(target, f"CC={cc}", "CI=true"), source)
    for flag in FLAGS:
        assert flag in words, (flag, " ".join(words))
    assert "-Werror" in words                         # CI=true: a warning fails the build
    assert not set(OFF) & set(words)


def test_fuzz_harnesses_have_the_warnings():
    """make fuzz and fuzz-ci compile tests/fuzz/*.c with FUZZ_CFLAGS: it takes
    $(WARN) too (test_fuzz_ci.py reads the compile lines themselves)."""
    text = (ROOT / "Makefile").read_text()
    warn = re.search(r"^WARN\s*:=((?:.*\\\n)*.*)$", text, re.M).group(1).split()
    for flag in FLAGS:
        assert flag in warn
    fuzz = re.search(r"^FUZZ_CFLAGS\s*:=((?:.*\\\n)*.*)$", text, re.M).group(1)
    assert "$(WARN)" in fuzz, fuzz                    # every harness compiles with them


def test_no_source_turns_them_off():
    names = ["switch-enum", "write-strings", "discarded-qualifiers",
             "incompatible-pointer-types-discards-qualifiers"]
    found = []
    for path in ROOT.glob("**/*.[ch]"):
        rel = path.relative_to(ROOT)
        if rel.parts[0].startswith("build") or rel.parts[0] in (".git", "out"):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if "diagnostic" in line and any(f"-W{name}" in line for name in names):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, found
