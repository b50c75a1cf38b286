# test_serve_request_cost.py — what `folio serve` itself does per request
# (issue 39: its own CPU per small render), counted with strace attached to
# the server's threads (skipped without strace):
# - where it keeps a request's uploads: a small body (Content-Length up to
#   1 MiB) in memory files (memfd), with no folder on the scratch disk (a
#   folder and a file created and removed per request were most of the
#   server's CPU: ext4 inode allocation and release); a larger body in a
#   folder of the scratch root, as before. Either way the render is the same
#   and nothing is left behind (the other routes' small bodies: test_serve.py's
#   convert, exec and put);
# - a deferred request's thread: one that has answered waits for the next
#   request instead of ending, so back-to-back renders start no thread each.
import json
import shutil
import signal
import subprocess
import time

import pytest

from test_serve import SPEC, Server, render, xlsx_rows

pytestmark = pytest.mark.skipif(not shutil.which("strace"), reason="strace is not installed")


class Traced:
    """strace -f on a running server's threads (not its zygote, older):
    the scratch folders it makes and the memory files it opens."""

    def __init__(self, pid, log, calls="mkdir,memfd_create"):
        self.log = log
        self.p = subprocess.Popen(["strace", "-f", "-qq", "-e", "trace=" + calls, "-o", str(log),
                                   "-p", str(pid)], stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached to every thread

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        self.p.wait(30)
        text = self.log.read_text()
        return text.count("/req-"), text.count('memfd_create("folio-upload"')

    def count(self, call):
        self.p.send_signal(signal.SIGINT)
        self.p.wait(30)
        return sum(1 for line in self.log.read_text().splitlines() if line.split(None, 1)[-1].startswith(call))


def test_small_bodies_stay_in_memory_large_ones_on_disk(tmp_path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    srv = Server("--reuse-workers", 10, scratch=scratch)
    try:
        tr = Traced(srv.p.pid, tmp_path / "small.st")
        for _ in range(4):
            st, _, body = render(srv, ["xlsx"], SPEC)
            assert st == 200, body[:300]
            assert xlsx_rows(body)
        folders, memfds = tr.stop()
        assert folders == 0, "a small render made a scratch folder"
        assert memfds >= 4

        # past 1 MiB: the body goes to a folder on the scratch disk
        rows = "".join(f"r{i},{i}\n" for i in range(120000)).encode()
        spec = {"folio": 1, "data": {"d": {"csv": "big.csv"}}, "blocks": [{"type": "table", "data": "d"}]}
        tr = Traced(srv.p.pid, tmp_path / "big.st")
        st, _, body = render(srv, ["xlsx"], spec, [("big.csv", b"name,n\n" + rows)])
        folders, memfds = tr.stop()
        assert st == 200, body[:300]
        assert len(xlsx_rows(body)) == 120001
        assert folders == 1 and memfds == 0
        left = [p for root in scratch.glob("folio-serve-*") for p in root.iterdir() if p.name.startswith("req-")]
        assert not left, "nothing left behind"
    finally:
        srv.stop()



def test_back_to_back_renders_reuse_the_deferred_thread(tmp_path):
    srv = Server("--reuse-workers", 10, scratch=tmp_path)
    try:
        st, _, _ = render(srv, ["xlsx"], SPEC)   # the first starts a thread (and a worker)
        assert st == 200
        tr = Traced(srv.p.pid, tmp_path / "threads.st", calls="clone,clone3")
        for _ in range(6):
            st, _, body = render(srv, ["xlsx"], SPEC)
            assert st == 200, body[:300]
        started = tr.count("clone")
        assert started <= 1, f"{started} threads started for 6 renders one after the other"
    finally:
        srv.stop()
