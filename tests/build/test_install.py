# test_install.py — `make install` into a DESTDIR: the binaries, libfolio.a,
# folio.h and a folio.pc with which a program using what the folio command
# itself uses builds and runs; `make uninstall` removes all of it.
import os
import subprocess

from conftest import ROOT, SAMPLES

PROGRAM = r"""
#include <stdio.h>
#include "folio.h"
int main(int argc, char **argv)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_doc *doc = NULL;
    if (fo_spec_load(argv[1], &doc, &d) != FO_OK) return 2;
    if (fo_doc_set_theme(doc, "midnight", &d) != FO_OK) return 3;
    size_t len = 0;
    if (!fo_schema("spec", &len) || len < 100 || fo_schema("nope", &len)) return 4;
    char name[64];
    if (!fo_theme_builtin(0, name, sizeof name) || !fo_link_schemes_allow("ftp")) return 5;
    const char *outs[] = {argv[2]};
    fo_status st = fo_render(doc, outs, 1, NULL, NULL, &d);
    printf("%zu blocks %zu datasets %s\n", fo_doc_nblocks(doc), fo_doc_ndatasets(doc), fo_strerror(st));
    fo_doc_free(doc);
    fo_diags_free(&d);
    return st == FO_OK ? 0 : 6;
}
"""


def make(*args):
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", str(ROOT), *args],
                          capture_output=True, text=True, timeout=600)


def test_install_pkg_config_and_uninstall(tmp_path):
    dest = tmp_path / "root"
    p = make("install", f"DESTDIR={dest}", "PREFIX=/usr/local")
    assert p.returncode == 0, p.stdout + p.stderr
    pre = dest / "usr/local"
    for f in ("bin/folio", "libexec/folio/folio-engine", "libexec/folio/folio-serve", "lib/libfolio.a", "include/folio.h",
              "lib/pkgconfig/folio.pc"):
        assert (pre / f).is_file(), f
    env = {**os.environ, "PKG_CONFIG_PATH": str(pre / "lib/pkgconfig"), "PKG_CONFIG_SYSROOT_DIR": str(dest)}
    src = tmp_path / "use.c"
    src.write_text(PROGRAM)
    # libfolio.a is a static library: its dependencies are public, so the
    # plain `--libs` links as well as `--static` (it gave 255 undefined
    # references before)
    for how in (["--static"], []):
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", *how, "folio"], env=env,
                               capture_output=True, text=True, check=True).stdout.split()
        assert f"-I{pre}/include" in flags and "-lfolio" in flags
        exe = tmp_path / "use"
        p = subprocess.run(["cc", "-std=c11", str(src), "-o", str(exe), *flags], capture_output=True,
                           text=True)
        assert p.returncode == 0, (how, p.stderr[-2000:])
        out = tmp_path / "out.pdf"
        r = subprocess.run([str(exe), str(SAMPLES / "sales" / "sales.json"), str(out)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "blocks" in r.stdout and out.read_bytes()[:5] == b"%PDF-"
    p = make("uninstall", f"DESTDIR={dest}", "PREFIX=/usr/local")
    assert p.returncode == 0, p.stderr
    left = [str(f.relative_to(dest)) for f in dest.rglob("*") if f.is_file()]
    assert left == []
