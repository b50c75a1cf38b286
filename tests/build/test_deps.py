# test_deps.py — `make deps` (run by `make test` and `make demo`): apt-get
# runs only when a package is missing, and a user who is neither root nor
# has sudo is told what to install instead. apt-get and sudo are replaced
# by stubs that record being called.
import os
import shutil
import subprocess

import pytest

from conftest import ROOT


def stub_path(tmp_path, with_sudo):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "calls"
    names = ["apt-get"] + (["sudo"] if with_sudo else [])
    for name in names:
        (bin_ / name).write_text(f"#!/bin/sh\necho {name} \"$@\" >> {log}\nexit 0\n")
        (bin_ / name).chmod(0o755)
    # everything else from the system, minus a real sudo
    path = [str(bin_)] + [d for d in os.environ["PATH"].split(":") if d and not os.path.exists(os.path.join(d, "sudo"))]
    return ":".join(path), log


def make_deps(path, packages, user=None):
    cmd = ["make", "-s", "--no-print-directory", "-C", str(ROOT), "deps", f"DEB_BUILD={packages}", "DEB_STACK="]
    if user:
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env={**os.environ, "PATH": path})


def test_nothing_missing_runs_no_apt_get(tmp_path):
    path, log = stub_path(tmp_path, with_sudo=True)
    p = make_deps(path, "coreutils dpkg")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert not log.exists()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to become nobody")
def test_not_root_without_sudo_says_what_to_install(tmp_path):
    path, log = stub_path(tmp_path, with_sudo=False)
    tmp_path.chmod(0o755)
    p = make_deps(path, "coreutils folio-no-such-package", user="nobody")
    assert p.returncode != 0
    assert "missing Debian packages: folio-no-such-package" in p.stdout
    assert "as root run: apt-get install folio-no-such-package" in p.stdout
    assert "coreutils" not in p.stdout
    assert not log.exists()


def test_missing_package_is_installed_through_apt_get(tmp_path):
    path, log = stub_path(tmp_path, with_sudo=True)
    p = make_deps(path, "coreutils folio-no-such-package")
    assert p.returncode == 0, p.stderr
    assert "installing folio-no-such-package" in p.stdout
    calls = log.read_text()
    assert "install -y -qq --no-install-recommends folio-no-such-package" in calls
    assert "coreutils" not in calls
