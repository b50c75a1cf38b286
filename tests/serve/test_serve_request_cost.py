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

from conftest import sanitized
from test_serve import FOLIO, SPEC, Server, render, xlsx_rows

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


# the zygote's warm-up spec (serve/zygote.c, warm_up): every part of its
# workbook is learned (cli/lxw_zip.c), so a request for it is answered with
# learned deflated parts but for those that carry the spec's hash or title
WARM_SPEC = {"folio": 1, "title": "warm-up", "data": {"d": {"columns": [
    {"name": "k", "type": "text"}, {"name": "v", "type": "number"}], "rows": [["a", 1], ["b", 2]]}},
    "blocks": [{"type": "heading", "text": "W"}, {"type": "paragraph", "text": "**w** _w_"},
               {"type": "table", "data": "d"}, {"type": "chart", "kind": "bar", "data": "d", "x": "k", "y": ["v"]}]}


def renders(srv, n, fmt="xlsx"):
    """n renders of SPEC to fmt, each answered 200; returns n."""
    for _ in range(n):
        st, _, body = render(srv, [fmt], SPEC)
        assert st == 200, body[:300]
    return n


def _perf_page_faults(pids, seconds, out, work):
    """The page faults perf stat counts in pids (a comma-separated list; and
    the children they fork once it is attached) while work() runs; skips the
    test where perf cannot count them."""
    pr = subprocess.Popen(["perf", "stat", "-x,", "-e", "page-faults", "-o", str(out), "-p", pids,
                           "--", "sleep", str(seconds)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    work()
    pr.wait(30)
    faults = [l.split(",")[0] for l in out.read_text().splitlines() if "page-faults" in l]
    if not faults or not faults[0].isdigit():
        pytest.skip("perf cannot count page faults here: " + out.read_text()[-200:])
    return int(faults[0])


def zygote_of(srv):
    from test_serve import _children
    init = _children(srv.p.pid)
    assert len(init) == 1
    zygote = _children(init[0])
    assert len(zygote) == 1
    return zygote[0]


@pytest.mark.skipif(sanitized(), reason="a sanitizer's allocator makes its own system calls")
def test_a_render_childs_system_calls(tmp_path):
    """What a default (one request, one fresh child) xlsx render costs in
    system calls, the zygote's fork and hand-over included (strace -f -c on
    the zygote). 146 a request before libxlsxwriter's archive was held in
    memory (minizip's stdio file: a write per header, part and central
    entry, two seeks per part) and the default theme parsed once in the
    zygote (its font files resolved again per request); 80 after; 48 once
    the outputs were written in place instead of staged (render/output.h,
    scratch: no temporary, sweep, flock, link, rename or signal handlers)
    (issue 39)."""
    srv = Server(scratch=tmp_path)
    try:
        renders(srv, 3)   # the zygote's spare child is forked
        log = tmp_path / "z.st"
        tr = subprocess.Popen(["strace", "-f", "-c", "-o", str(log), "-p", str(zygote_of(srv))],
                              stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        n = renders(srv, 20)
        time.sleep(0.5)
        tr.send_signal(signal.SIGINT)
        tr.wait(30)
        total = [l.split() for l in log.read_text().splitlines() if l.rstrip().endswith(" total")]
        calls = int(total[0][3])
        assert calls / n <= 60, f"{calls / n:.0f} system calls a render"
    finally:
        srv.stop()


def test_served_workbooks_are_the_clis_learned_parts_or_not(tmp_path):
    """The service's xlsx is `folio render`'s, byte for byte, whether its
    parts were deflated in the child or learned by the zygote's warm-up (the
    warm-up's own spec: all but the few that name the spec; another: some)."""
    srv = Server(scratch=tmp_path)
    try:
        for k, spec in enumerate((WARM_SPEC, SPEC)):
            st, _, body = render(srv, ["xlsx"], spec)
            assert st == 200, body[:300]
            (tmp_path / f"s{k}.json").write_text(json.dumps(spec))
            subprocess.run([FOLIO, "render", str(tmp_path / f"s{k}.json"), "-o", str(tmp_path / f"cli{k}.xlsx"),
                            "--quiet"], check=True)
            assert (tmp_path / f"cli{k}.xlsx").read_bytes() == body, k
            assert xlsx_rows(body)
    finally:
        srv.stop()


def test_a_render_is_one_message_each_way(tmp_path):
    """The server sends a render's child one message ('G', the job with the
    spec's descriptor) and the control connection one ('J', the child's
    socket); the child answers with one ('R', the status with the output's
    descriptor): serve/zygote.c's wire. Counted on the server's threads
    (strace), beside the bytes and the status a client reads."""
    srv = Server(scratch=tmp_path)
    try:
        st, _, _ = render(srv, ["xlsx"], SPEC)
        assert st == 200
        log = tmp_path / "msgs.st"
        tr = Traced(srv.p.pid, log, calls="sendmsg,recvmsg")
        n = 5
        for _ in range(n):
            st, _, body = render(srv, ["xlsx"], SPEC)
            assert st == 200 and xlsx_rows(body)
        tr.p.send_signal(signal.SIGINT)
        tr.p.wait(30)
        calls = [l.split(None, 1)[-1] for l in log.read_text().splitlines()]
        sent = sum(1 for c in calls if c.startswith("sendmsg(") and "SCM_RIGHTS" in c)
        got = sum(1 for c in calls if c.startswith("recvmsg(") and "SCM_RIGHTS" in c)
        assert sent == 2 * n, sent
        assert got == n, got
    finally:
        srv.stop()


@pytest.mark.skipif(not shutil.which("perf"), reason="perf is not installed")
@pytest.mark.skipif(sanitized(), reason="a sanitizer's shadow memory faults pages of its own")
def test_a_render_childs_page_faults(tmp_path):
    """Page faults of the zygote and its children per default xlsx render
    (perf stat follows the children forked after it attaches): 139 when the
    zygote kept the deflate compressor its warm-up made, so that every child
    copied its hash tables page by page as it wrote them (45 faults); 90
    with the compressor freed after the warm-up and made by each child in
    its own memory (issue 39)."""
    srv = Server(scratch=tmp_path)
    try:
        renders(srv, 3)
        n = 20
        faults = _perf_page_faults(str(zygote_of(srv)), 6, tmp_path / "perf.txt", lambda: renders(srv, n))
        assert faults / n <= 115, f"{faults / n:.0f} page faults a render"
    finally:
        srv.stop()


def _minor_faults(pid):
    """The minor page faults a process has taken (/proc/PID/stat, field 10)."""
    stat = open(f"/proc/{pid}/stat").read()
    return int(stat[stat.rindex(")") + 2:].split()[7])


@pytest.mark.skipif(sanitized(), reason="a sanitizer writes its shadow of the stack and its own state")
def test_the_zygote_takes_few_faults_a_render(tmp_path):
    """Every fork write-protects the zygote's pages, so each page the zygote
    writes between two requests costs it a fault (a copy and a TLB flush)
    after each fork: 6 a render when its message buffer and spare socket
    were statics (a page of .bss, one of .data), send_msg's 64 KiB buffer
    reached a second stack page, and the kernel wrote glibc's rseq area in
    its thread control block; now its stack and one other page."""
    srv = Server(scratch=tmp_path)
    try:
        renders(srv, 3)
        zygote = zygote_of(srv)
        before = _minor_faults(zygote)
        n = renders(srv, 30)
        per = (_minor_faults(zygote) - before) / n
        assert per <= 3, f"{per:.1f} page faults of the zygote a render"
    finally:
        srv.stop()


@pytest.mark.skipif(not shutil.which("perf"), reason="perf is not installed")
@pytest.mark.skipif(sanitized(), reason="a sanitizer's shadow memory faults pages of its own")
def test_a_reused_workers_pdf_renders_fault_little(tmp_path):
    """Page faults of a reused worker's PDF renders after its first (perf
    stat on the zygote's children): 11-17 a render, or 120-180 when glibc
    trimmed the heap's top after each render and the next one faulted it in
    again; 0-5 with the freed pages kept (zygote.c, keep_heap) and the
    system's fonts kept mapped (render/pdf/fontfile.c; issue 39)."""
    from test_serve import _children
    srv = Server("--reuse-workers", 100, scratch=tmp_path)
    try:
        renders(srv, 5, "pdf")
        pids = ",".join(str(p) for p in _children(zygote_of(srv)))
        n = 30
        faults = _perf_page_faults(pids, 5, tmp_path / "perf.txt", lambda: renders(srv, n, "pdf"))
        assert faults / n <= 8, f"{faults / n:.1f} page faults a render"
    finally:
        srv.stop()


def _smaps(pid):
    """[(perms, path, AnonHugePages kB)] of a process's mappings."""
    maps, cur = [], None
    for line in open(f"/proc/{pid}/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            cur = [head[1], head[5] if len(head) > 5 else "", 0]
            maps.append(cur)
        elif head[0] == "AnonHugePages:":
            cur[2] = int(head[1])
    return maps


@pytest.mark.skipif(sanitized(), reason="not done in sanitizer builds (serve/hugetext.c)")
def test_the_zygotes_own_code_is_on_huge_pages(tmp_path):
    """The jailed zygote's own code and rodata are anonymous 2 MiB pages
    (serve/hugetext.c): no mapping of folio-serve's read-only segments is
    left, each child reads them for one page-table fill, and renders are
    the CLI's bytes all the same (test_served_workbooks_are_the_clis...)."""
    srv = Server(scratch=tmp_path)
    try:
        renders(srv, 2)
        maps = _smaps(zygote_of(srv))
        own = [m for m in maps if m[1].endswith("/folio-serve") or m[1] == "/run/folio"]
        # left as the file's: only its data segment (and that segment's part
        # made read-only after relocation, RELRO)
        assert own and not any("x" in m[0] for m in own) and len(own) <= 2, own
        anon_code = [m for m in maps if m[0] == "r-xp" and not m[1]]
        assert len(anon_code) == 1, maps
        thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
        if "[never]" not in thp:
            assert anon_code[0][2] >= 2048
        assert renders(srv, 2) == 2
    finally:
        srv.stop()
