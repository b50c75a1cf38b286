# test_format.py — one formatter dialect, checked on changed lines
# (`make check-format`, tools/check-format.py): every C line changed since the
# commit in tools/format-base reads as clang-format writes it under
# .clang-format; untouched lines keep their hand alignment. Each case builds a
# small git repository with the real .clang-format and checker, a base commit
# whose code is NOT in the dialect, and one change on top.
import shutil
import subprocess

import pytest

from conftest import ROOT

# in the base commit: a two-line guard and a hand-aligned table (both off-dialect)
OLD = """\
static int table[] = {
    1,    2,
    30,   40,
};

static int f(int x)
{
    if (x < 0)
        return 0;
    return x;
}
"""
GOOD = """
static int g(int x)
{
    if (x > 9) return 9;
    return x + table[0];
}
"""
BAD = """
static int g(int x)
{
    if (x > 9)
        return 9;
    return x+table[0];
}
"""


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True, check=True)


def check(repo, *args):
    return subprocess.run(["/usr/bin/python3", str(repo / "tools" / "check-format.py"), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    shutil.copy(ROOT / "tools" / "check-format.py", tmp_path / "tools" / "check-format.py")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.c").write_text(OLD)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    base = git(tmp_path, "rev-parse", "HEAD").stdout.strip()
    (tmp_path / "tools" / "format-base").write_text(f"# the base\n{base}\n")
    return tmp_path


def test_untouched_lines_outside_the_dialect_pass(repo):
    p = check(repo)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "format ok" in p.stdout


def test_a_formatted_change_passes_beside_old_unformatted_lines(repo):
    (repo / "src" / "a.c").write_text(OLD + GOOD)
    p = check(repo)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("commit", [False, True], ids=["uncommitted", "committed"])
def test_an_unformatted_change_fails_with_place_and_fix(repo, commit):
    (repo / "src" / "a.c").write_text(OLD + BAD)
    if commit:
        git(repo, "commit", "-qam", "bad")
    p = check(repo)
    assert p.returncode == 1, p.stdout + p.stderr
    bad_line = len(OLD.splitlines()) + 4                  # "    if (x > 9)"
    assert f"src/a.c:{bad_line}: not as .clang-format writes it" in p.stdout
    assert "+    if (x > 9) return 9;" in p.stdout        # the rewrite, as a diff
    assert "+    return x + table[0];" in p.stdout
    assert "make format" in p.stdout
    assert "table[] = {\n" not in p.stdout and "return 0;" not in p.stdout   # old lines not flagged


def test_fix_rewrites_only_the_changed_lines(repo):
    (repo / "src" / "a.c").write_text(OLD + BAD)
    p = check(repo, "--fix")
    assert p.returncode == 0, p.stdout + p.stderr
    assert (repo / "src" / "a.c").read_text() == OLD + GOOD    # the old table and guard kept as they were
    assert check(repo).returncode == 0


def test_unknown_base_is_a_clear_error(repo):
    (repo / "tools" / "format-base").write_text("0123456789abcdef0123456789abcdef01234567\n")
    p = check(repo)
    assert p.returncode == 2
    assert "is not in this clone" in p.stderr and "hint" in p.stderr


def test_outside_a_git_checkout_it_says_skipped(repo):
    shutil.rmtree(repo / ".git")
    p = check(repo)
    assert p.returncode == 0
    assert "not a git checkout" in p.stdout


def test_the_tree_as_committed_passes():
    p = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), "check-format"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "format ok" in p.stdout


def test_make_test_runs_the_check():
    p = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), "test"],
                       capture_output=True, text=True, timeout=120)
    assert "check-format" in p.stdout
