#!/usr/bin/env python3
"""check-format.py — one formatter dialect (.clang-format), checked on the
lines a change touches.

    tools/check-format.py [--base COMMIT] [--fix]

Every C line added or changed since BASE (default: the commit named in
tools/format-base; uncommitted edits count too) must read as clang-format
writes it under .clang-format. Lines nobody touched are left as they are:
hand-aligned tables keep their alignment until someone edits them (and may
keep it then inside `/* clang-format off */ ... on`).

Exit 0 when every changed line is formatted; 1 with one "file:line:" per
hunk clang-format would rewrite and the rewrite itself, then a hint; 2 when
the check cannot run (no clang-format-diff, BASE unknown). Outside a git
checkout (a release tarball) there is nothing to compare: it says so and
exits 0. --fix rewrites those lines in place instead (`make format`)."""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIFF_TOOLS = ("clang-format-diff-14", "clang-format-diff")
FORMAT_TOOLS = ("clang-format-14", "clang-format")
PATHS = ["*.c", "*.h"]


def git(*args, check=True):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=check)


def recorded_base():
    """The first word of the first line of tools/format-base that is not a comment."""
    with open(os.path.join(ROOT, "tools", "format-base")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                return line.split()[0]
    return None


def first_tool(names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def located(rewrite):
    """One 'file:line:' per hunk of clang-format-diff's output: the hunk's
    first line that clang-format would rewrite (past its context lines)."""
    out, path, at = [], None, None
    for line in rewrite.splitlines():
        if line.startswith("--- "):
            path = line[4:].split("\t")[0]
            path = path[2:] if path.startswith(("a/", "b/")) else path
            continue
        if line.startswith("+++ "):
            continue
        m = re.match(r"@@ -(\d+)", line)
        if m:
            at = int(m.group(1))
            continue
        if at is None or not path:
            continue
        if line.startswith("-"):
            out.append(f"{path}:{at}: not as .clang-format writes it")
            at = None                               # one line per hunk
        elif line.startswith(" "):
            at += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", help="compare with this commit (default: tools/format-base)")
    ap.add_argument("--fix", action="store_true", help="rewrite the changed lines in place")
    a = ap.parse_args()

    if git("rev-parse", "--is-inside-work-tree", check=False).returncode != 0:
        print("check-format: not a git checkout; nothing to compare, skipped")
        return 0
    base = a.base or recorded_base()
    if not base or git("cat-file", "-e", f"{base}^{{commit}}", check=False).returncode != 0:
        print(f"check-format: base commit {base!r} is not in this clone "
              "(hint: a full `git clone`, or `git fetch --unshallow`)", file=sys.stderr)
        return 2
    diff_tool, fmt_tool = first_tool(DIFF_TOOLS), first_tool(FORMAT_TOOLS)
    if not diff_tool or not fmt_tool:
        print("check-format: clang-format-diff not found (hint: apt-get install clang-format; "
              "`make deps-test` does)", file=sys.stderr)
        return 2

    changes = git("diff", "-U0", "--no-color", "--no-ext-diff", base, "--", *PATHS).stdout
    cmd = [diff_tool, "-p1", "-style=file", "-binary", fmt_tool] + (["-i"] if a.fix else [])
    p = subprocess.run(cmd, input=changes, capture_output=True, text=True, cwd=ROOT)
    if p.returncode not in (0, 1) or p.stderr.strip():
        print(f"check-format: {os.path.basename(diff_tool)} failed: {p.stderr.strip()}", file=sys.stderr)
        return 2
    if a.fix:
        print(f"check-format: lines changed since {base[:12]} rewritten as .clang-format says")
        return 0
    if not p.stdout.strip():
        print(f"format ok (lines changed since {base[:12]})")
        return 0
    for line in located(p.stdout):
        print(line)
    print(p.stdout, end="" if p.stdout.endswith("\n") else "\n")
    print("check-format: the lines above are not formatted as .clang-format says "
          "(hint: `make format` rewrites the lines you changed)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
