#!/usr/bin/env python3
"""check-layers.py — folio's layers, checked on what the compiler reports.

Every C file of the product is handed to `cc -H` (the compiler's own tree
of what it read: quoted or angle-bracket includes, `../` paths, headers that
include headers, system headers alike). Each include, by a .c or a project
header, is mapped to its module (a folder: base, render/core, sandbox/egress ...; a system header to
its library) and checked against ALLOWED below: a module may use itself and
what its row names, nothing else. docs/architecture.md draws the same graph.

    tools/check-layers.py [--root DIR] [--cc CC] [--graph] [FILE.c ...]

Without FILEs: every .c under the product's folders. --graph prints the
module graph with counts (for docs/architecture.md) instead of checking.
Exit 0 when every edge is allowed; 1 with one line per forbidden edge
("sandbox/x.c: cli/cli.h (sandbox may not use cli)")."""
import argparse
import collections
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys

WRITER_COMMON = ["render", "render/chart", "render/core", "base", "include"]
# module -> the modules and system libraries it may use (besides itself)
ALLOWED = {
    "include": [],
    "base": ["include"],
    "render/core": ["base", "include", "fontconfig", "freetype", "fribidi", "harfbuzz", "jansson",
                    "libunibreak", "icu"],
    "formats": ["render/core", "base", "include", "jansson", "zlib"],
    "render/chart": ["render/core", "base", "include"],
    "render/ooxml": ["render/core", "base", "include", "libxml2", "libzip", "libdeflate"],
    "render/chartxml": ["render/chart", "render/ooxml", "render/core", "base", "include", "libxlsxwriter"],
    "render": ["render/core", "base", "include"],
    "render/xlsx": WRITER_COMMON + ["render/ooxml", "render/chartxml", "libxlsxwriter", "libxml2", "libzip", "zlib", "libdeflate"],
    "render/docx": WRITER_COMMON + ["render/ooxml", "render/chartxml", "libxml2"],
    "render/pptx": WRITER_COMMON + ["render/ooxml", "render/chartxml"],
    "render/pdf": WRITER_COMMON + ["render/ooxml", "libharu", "cairo", "libdeflate"],
    "render/png": WRITER_COMMON + ["cairo", "freetype", "zlib", "libdeflate"],
    "sandbox/egress": ["base", "include"],
    "sandbox/policy": ["sandbox", "base", "include", "libseccomp"],
    "sandbox": ["sandbox/egress", "base", "include", "build"],
    "serve": ["sandbox", "base", "include", "build", "jansson", "libmicrohttpd"],
    "cli": ["serve", "sandbox", "base", "include", "jansson", "openssl", "libxlsxwriter", "minizip", "libdeflate"],
}
SOURCES = ["base", "render", "formats", "sandbox", "serve", "cli"]
# system headers -> library (first match); anything else under /usr is libc
SYSTEM = [
    (r"/minizip/", "minizip"), (r"/zip\.h$|/zipconf\.h$", "libzip"), (r"/libxml/", "libxml2"), (r"/xlsxwriter", "libxlsxwriter"),
    (r"/hpdf", "libharu"), (r"/cairo/", "cairo"), (r"/harfbuzz/", "harfbuzz"), (r"/fribidi/", "fribidi"),
    (r"/freetype2/|/ft2build\.h$", "freetype"), (r"/fontconfig/", "fontconfig"), (r"/unicode/", "icu"),
    (r"/linebreak", "libunibreak"), (r"/jansson", "jansson"), (r"/microhttpd\.h$", "libmicrohttpd"),
    (r"^/usr/include/seccomp", "libseccomp"), (r"/openssl/", "openssl"), (r"/libdeflate\.h$", "libdeflate"),
    (r"/zlib\.h$|/zconf\.h$", "zlib"), (r"/glib-2\.0/|/pixman-1/|/libpng16/|/check\.h$", "other"),
]


def module_of(path):
    """The module of a project path (normalized, relative to the root)."""
    parts = path.split("/")
    if parts[0] in ("render", "sandbox") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def library_of(path):
    for pattern, lib in SYSTEM:
        if re.search(pattern, path):
            return lib
    return None                                        # libc, the kernel's headers


def cflags(root):
    pkgs = "libxml-2.0 cairo harfbuzz fribidi freetype2"
    p = subprocess.run(["pkg-config", "--cflags"] + pkgs.split(), capture_output=True, text=True)
    return ["-std=c11", "-D_GNU_SOURCE", "-Iinclude", "-I.", "-Ibuild"] + shlex.split(p.stdout)


def deps(root, cc, flags, src):
    """The includes the compiler followed for src, as (includer, included)
    pairs: `cc -H` prints its include tree, one dot per level."""
    p = subprocess.run([cc, "-H", "-fsyntax-only"] + flags + [src], cwd=root, capture_output=True, text=True)
    if p.returncode != 0:
        return src, None, [l for l in p.stderr.splitlines() if "error" in l][:1] or ["cc -H failed"]
    stack, edges = [src], []
    for line in p.stderr.splitlines():
        m = re.match(r"^(\.+) (.*)$", line)
        if not m:
            continue
        depth, path = len(m.group(1)), m.group(2)
        del stack[depth:]
        edges.append((stack[-1], path))
        stack.append(path)
    return src, edges, None


def sources(root):
    out = []
    for top in SOURCES:
        for d, _, files in os.walk(os.path.join(root, top)):
            out += [os.path.relpath(os.path.join(d, f), root) for f in files if f.endswith(".c")]
    return sorted(out)


BEGIN, END = "<!-- layers: tools/check-layers.py --graph (make layers-doc) -->", "<!-- layers end -->"


def graph_table(graph, nfiles):
    """The module graph as a Markdown table: each module, what it uses
    (the distinct file-to-file includes the compiler followed), what it may use."""
    rows = ["| module | uses (files included from it) | may also use |", "|---|---|---|"]
    for mod in sorted(ALLOWED):
        used = sorted((u, n) for (m, u), n in graph.items() if m == mod)
        spare = [x for x in ALLOWED[mod] if x not in dict(used)]
        rows.append("| `%s` | %s | %s |" % (mod, ", ".join(f"{u} {n}" for u, n in used) or "—",
                                            ", ".join(spare) or "—"))
    return "\n".join(rows) + f"\n\n{nfiles} C files, {sum(graph.values())} includes across modules.\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--graph", action="store_true")
    ap.add_argument("--doc", help="with --graph: write the graph into this file's layers block")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    flags = cflags(root)
    files = a.files or sources(root)
    bad, edges = [], set()
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for src, read, err in pool.map(lambda f: deps(root, a.cc, flags, f), files):
            if err:
                bad.append(f"{src}: the compiler could not read it: {err[0]}")
                continue
            for includer, path in read:
                where = os.path.normpath(os.path.join(root, includer))
                if not where.startswith(root + os.sep):
                    continue                           # inside a system header
                mine = module_of(os.path.relpath(where, root))
                full = os.path.normpath(os.path.join(root, path))
                if full.startswith(root + os.sep):
                    rel = os.path.relpath(full, root)
                    used, what = module_of(rel), rel
                else:
                    used, what = library_of(full), full
                    if used in (None, "other"):
                        continue
                if used == mine:
                    continue
                edges.add((mine, used, os.path.relpath(where, root), what))
                if mine in ALLOWED and used not in ALLOWED[mine]:
                    bad.append(f"{os.path.relpath(where, root)}: {what} ({mine} may not use {used})")
    graph = collections.Counter((m, u) for m, u, _, _ in edges)
    if a.graph:
        text = graph_table(graph, len(files))
        if not a.doc:
            print(text, end="")
            return 0
        path = os.path.join(root, a.doc)
        doc = open(path).read()
        begin, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        open(path, "w").write(doc[:begin] + "\n" + text + doc[end:])
        print(f"check-layers: the graph written into {a.doc}")
        return 0
    for line in sorted(set(bad)):
        print(line)
    if bad:
        print("check-layers: forbidden dependencies (the allowed graph: tools/check-layers.py, "
              "docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(files)} files, layers ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
