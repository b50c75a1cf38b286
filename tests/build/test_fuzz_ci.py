# test_fuzz_ci.py — CI builds and runs every libFuzzer target (issue 38,
# item 5). fuzz_kframe.c had stopped compiling and nothing noticed: `make
# fuzz` was never run by .ci/run. Now .ci/run ends with `make fuzz-ci`, and
# this reads what that would do (`make -n -B`: every command printed, none
# run) so a target cannot be left out: each tests/fuzz/fuzz_*.c is compiled
# with the project's warnings and -Werror, and run on its seeds
# (tests/fuzz/seeds/NAME, which must hold a few inputs) from a fixed seed in
# a corpus emptied first.
import re
import shlex
import subprocess

from conftest import ROOT

TARGETS = sorted(p.stem for p in (ROOT / "tests" / "fuzz").glob("fuzz_*.c"))


def dry_run(*args):
    """The commands `make ARGS` would run, none run (-n), as if nothing were built (-B)."""
    p = subprocess.run(["make", "-n", "-B", "--no-print-directory", "-C", str(ROOT), *args],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    return p.stdout


def ci_steps():
    """The make goals .ci/run runs, in order."""
    steps = []
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        words = shlex.split(line.split("#")[0])
        if words[:1] == ["make"]:
            steps.append([w for w in words[1:] if "=" not in w and not w.startswith("-")])
    return steps


def test_there_are_targets_to_check():
    assert len(TARGETS) >= 15 and "fuzz_kframe" in TARGETS, TARGETS


def test_ci_runs_fuzz_ci_after_the_tests_with_werror():
    text = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in text                 # a failing step fails CI
    assert ci_steps() == [["test"], ["asan"], ["fuzz-ci"]], ci_steps()
    assert re.search(r"^make CI=true fuzz-ci$", text, re.M)


def test_fuzz_ci_compiles_every_target_with_werror():
    out = dry_run("CI=true", "fuzz-ci")
    built = {}
    for line in out.splitlines():
        m = re.match(r"clang .* tests/fuzz/(fuzz_\w+)\.c .*-o build-fuzz/fuzz/(fuzz_\w+)$", line)
        if m:
            assert m.group(1) == m.group(2), line
            built[m.group(1)] = line.split()
    assert sorted(built) == TARGETS
    for name, argv in built.items():
        assert "-Werror" in argv and "-Wall" in argv and "-Wextra" in argv, (name, argv)
        assert "-fsanitize=fuzzer" in argv and "-fsanitize=address,undefined" in argv, (name, argv)
    # the library under them is instrumented for coverage and the sanitizers too
    lib = [l for l in out.splitlines() if l.startswith("clang ") and "-c formats/spec.c" in l]
    assert lib and "-fsanitize=fuzzer-no-link" in lib[0] and "-Werror" in lib[0], lib


def test_fuzz_ci_runs_every_target_on_its_seeds_from_a_fixed_seed():
    out = dry_run("CI=true", "fuzz-ci")
    loops = re.findall(r"for n in ([\w ]+); do", out)
    assert len(loops) == 1, out[-3000:]
    assert sorted(loops[0].split()) == TARGETS
    loop = out[out.index("for n in "):]
    assert "rm -rf build-fuzz/ci-corpus" in out             # a fresh corpus each run
    assert "build-fuzz/fuzz/$n " in loop and "build-fuzz/ci-corpus/$n $seeds" in loop
    assert "seeds=tests/fuzz/seeds/$n" in loop and "no seeds" in loop
    assert "-seed=1 " in loop and re.search(r"-max_total_time=\d+ ", loop)
    assert "exit 1" in loop                                  # a failing target fails the step


def test_every_target_has_seeds():
    for name in TARGETS:
        seeds = ROOT / "tests" / "fuzz" / "seeds" / name
        files = [p for p in seeds.iterdir() if p.is_file()] if seeds.is_dir() else []
        assert len(files) >= 3, f"{seeds}: a few valid inputs for {name}"
        assert all(p.stat().st_size > 0 for p in files), name
