# test_incremental.py — a second make builds nothing. Each object depends on
# its .d (the headers the compiler listed); clang writes the .d after the
# object, so without care every later make rebuilt every object of a clang
# tree (build-asan, build-fuzz) again.
import shutil
import subprocess

import pytest

from conftest import ROOT


@pytest.mark.parametrize("cc", ["cc", "clang"])
def test_a_second_make_builds_nothing(tmp_path, cc):
    if not shutil.which(cc):
        pytest.skip(cc + " not installed")
    args = ["make", "-C", str(ROOT), "BUILD=" + str(tmp_path / "b"), "CC=" + cc, "STATIC=",
            str(tmp_path / "b" / "obj" / "base" / "buf.o")]
    first = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    assert "base/buf.c" in first                       # built
    again = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    assert "up to date" in again and " -c " not in again, again
