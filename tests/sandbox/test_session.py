# test_session.py — `folio session` from the outside, as a chat backend uses it
# (PRODUCT.md §6, docs/sessions.md): state across cells, errors, interrupts and
# restarts, files in and out, render, hibernation, limits, and the jail's
# isolation for a session's cells. Each test has its own runtime folder
# (XDG_RUNTIME_DIR) and closes what it started. Needs $FOLIO.
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
FOLIO = os.environ.get("FOLIO", str(ROOT / "build" / "folio"))


def _probe():
    if not os.path.exists(FOLIO):
        return "no folio binary at %s (set FOLIO)" % FOLIO
    p = subprocess.run([FOLIO, "run", "--quiet", "--", "/bin/true"], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        return "folio run does not work here (%d): %s" % (p.returncode, p.stderr.strip()[:300])
    if not os.path.exists("/usr/bin/python3"):
        return "no /usr/bin/python3 for the session kernel"
    return None


_SKIP = _probe()
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


def _has(module):
    return subprocess.run(["/usr/bin/python3", "-c", "import " + module],
                          capture_output=True).returncode == 0


needs_pandas = pytest.mark.skipif(not _has("pandas"), reason="python3-pandas is not installed")
needs_mpl = pytest.mark.skipif(not _has("matplotlib"), reason="python3-matplotlib is not installed")


class Sessions:
    """folio session with a private runtime folder; closes its sessions."""

    def __init__(self, tmp_path):
        self.rt = tmp_path / "rt"
        self.rt.mkdir(mode=0o700, parents=True)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=str(self.rt))
        self.ids = []

    def run(self, *args, code=None, timeout=120, input=None):
        p = subprocess.run([FOLIO, "session", *map(str, args)], env=self.env, input=input,
                           capture_output=True, text=True, timeout=timeout)
        if code is not None:
            assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
        return p

    def new(self, *opts):
        p = self.run("new", "--json", *opts, code=0)
        info = json.loads(p.stdout)
        self.ids.append(info["id"])
        return info["id"]

    def exec(self, sid, code, *opts, expect=None):
        p = self.run("exec", sid, "--json", *opts, "-c", code)
        r = json.loads(p.stdout)
        if expect is not None:
            assert r["status"] == expect, r
        assert p.returncode == (0 if r["status"] == "ok" else 4), (p.returncode, r)
        return r

    def store(self, sid):
        return self.rt / "folio" / sid

    def supervisors(self, sid):
        pids = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/cmdline" % d, "rb") as f:
                        if ("_supervise\0%s" % sid).encode() in f.read():
                            pids.append(int(d))
                except OSError:
                    pass
        return pids

    def gone(self, sid, seconds=5):
        """True once no supervisor of sid is left (it exits just after answering)."""
        end = time.monotonic() + seconds
        while self.supervisors(sid) and time.monotonic() < end:
            time.sleep(0.05)
        return not self.supervisors(sid)

    def close_all(self):
        spares = self.rt / "folio" / "spares"
        for sid in self.ids + spare_ids(spares):
            self.run("close", sid, timeout=60)
            for pid in self.supervisors(sid):       # ours only: their argv names our id
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:           # it ended meanwhile
                    pass


def spare_ids(folder):
    """The spares waiting in RT/spares (not a marker being written: .NAME.folio-*)."""
    return [n for n in os.listdir(folder) if not n.startswith(".")] if folder.is_dir() else []


@pytest.fixture
def s(tmp_path):
    sess = Sessions(tmp_path)
    yield sess
    sess.close_all()


# ------------------------------------------------------------- state

def test_a_variable_and_an_import_persist_across_cells(s):
    sid = s.new()
    assert len(sid) == 32 and int(sid, 16) >= 0
    r = s.exec(sid, "import math\nx = 41", expect="ok")
    assert r["cell"] == 1 and r["result"] is None and r["error"] is None
    r = s.exec(sid, "print('x is', x)\nmath.sqrt(x + 8)", expect="ok")
    assert r["cell"] == 2 and r["stdout"] == "x is 41\n" and r["result"] == "7.0"


@needs_pandas
def test_a_dataframe_from_cell_1_is_summed_in_cell_3(s):
    sid = s.new()
    s.exec(sid, "import pandas as pd\ndf = pd.DataFrame({'v': range(1, 101)})", expect="ok")
    s.exec(sid, "df['w'] = df.v * 2", expect="ok")
    r = s.exec(sid, "int(df.v.sum()), int(df.w.sum())", expect="ok")
    assert r["result"] == "(5050, 10100)"


def test_a_file_from_cell_2_is_read_in_cell_4_and_fetched_with_get(s, tmp_path):
    sid = s.new()
    s.exec(sid, "rows = ['a,1', 'b,2']", expect="ok")
    r = s.exec(sid, "open('/out/t.csv', 'w').write('\\n'.join(rows))\nopen('notes.txt', 'w').write('n')",
               expect="ok")
    assert [f["path"] for f in r["files"]] == ["/out/t.csv"]
    assert r["files"][0]["bytes"] == 7 and len(r["files"][0]["sha256"]) == 64
    s.exec(sid, "pass", expect="ok")
    r = s.exec(sid, "open('/out/t.csv').read().splitlines()", expect="ok")
    assert r["result"] == "['a,1', 'b,2']" and r["files"] == []     # unchanged: not listed
    p = s.run("get", sid, "/out/t.csv", "notes.txt", "--out", tmp_path / "got", code=0)
    assert (tmp_path / "got" / "t.csv").read_text() == "a,1\nb,2"
    assert (tmp_path / "got" / "notes.txt").read_text() == "n"
    assert str(tmp_path / "got" / "t.csv") in p.stdout


def test_an_exception_names_its_line_and_the_next_cell_keeps_the_variables(s):
    sid = s.new()
    s.exec(sid, "total = 10", expect="ok")
    r = s.exec(sid, "a = 1\nb = 2\nc = a / 0\nd = 4", expect="error")
    e = r["error"]
    assert e["name"] == "ZeroDivisionError" and e["value"] == "division by zero"
    assert 'File "<cell-2>", line 3, in <module>' in e["traceback"]
    assert "folio-kernel" not in e["traceback"]                   # no frames of the kernel
    r = s.exec(sid, "total + a + b", expect="ok")
    assert r["result"] == "13"
    r = s.exec(sid, "def f(:\n  pass", expect="error")
    assert r["error"]["name"] == "SyntaxError" and "<cell-4>" in r["error"]["traceback"]


def test_put_copies_into_work_and_refuses_links(s, tmp_path):
    sid = s.new()
    (tmp_path / "data.csv").write_text("k,v\nx,3\n")
    s.run("put", sid, tmp_path / "data.csv", "--to", "in", code=0)
    r = s.exec(sid, "open('/work/in/data.csv').read()", expect="ok")
    assert r["result"] == repr("k,v\nx,3\n")
    os.symlink("/etc/passwd", tmp_path / "link.csv")
    p = s.run("put", sid, tmp_path / "link.csv", code=2)
    assert "symbolic link" in p.stderr
    # a link planted inside the jail is not followed by get either
    s.exec(sid, "import os\nos.symlink('/etc/hostname', '/work/h')", expect="ok")
    p = s.run("get", sid, "/work/h", "--out", tmp_path / "g", code=2)
    assert "no such regular file" in p.stderr and not (tmp_path / "g" / "h").exists()


# ------------------------------------------------- interrupts and restarts

def test_an_endless_cell_is_interrupted_at_its_timeout_and_the_session_lives(s):
    sid = s.new()
    s.exec(sid, "kept = 'yes'", expect="ok")
    t0 = time.monotonic()
    r = s.exec(sid, "while True:\n    pass", "--timeout", "0.5", expect="timeout")
    took = time.monotonic() - t0
    assert r["error"]["name"] == "KeyboardInterrupt"
    assert r["failure"]["code"] == "cell_timeout" and "--timeout" in r["failure"]["hint"]
    # time is what is checked here (--timeout 0.5 is honoured): a bound, generous
    assert 0.5 <= took < 3, took
    assert s.exec(sid, "kept", expect="ok")["result"] == "'yes'"


def test_a_cell_that_blocks_sigint_is_restarted_with_its_files_kept(s):
    sid = s.new()
    s.exec(sid, "v = 1\nopen('/work/f.txt', 'w').write('kept')", expect="ok")
    t0 = time.monotonic()
    r = s.exec(sid, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True: pass",
               "--timeout", "0.5", expect="restarted")
    # time is what is checked (the escalation 1 s past --timeout 0.5): a generous bound
    assert time.monotonic() - t0 < 5
    assert r["failure"]["code"] == "cell_timeout"
    r = s.exec(sid, "open('/work/f.txt').read(), 'v' in globals()", expect="ok")
    assert r["result"] == "('kept', False)"


def exec_later(s, sid, code):
    """An exec in a thread; box["r"] its result, box["at"] when it came."""
    box = {}

    def go():
        box["r"] = s.exec(sid, code)
        box["at"] = time.monotonic()
    th = threading.Thread(target=go, daemon=True)
    th.start()
    return th, box


def test_interrupt_stops_the_running_cell_and_keeps_the_variables(s):
    sid = s.new()
    s.exec(sid, "kept = 'yes'", expect="ok")
    p = s.run("interrupt", sid, "--json", code=0)
    assert json.loads(p.stdout) == {"interrupted": False}, "no cell runs"
    th, box = exec_later(s, sid, "import time\nfor i in range(600):\n    time.sleep(0.1)")
    time.sleep(1.0)
    p = s.run("interrupt", sid, "--json", code=0)
    assert json.loads(p.stdout) == {"interrupted": True}
    th.join(30)
    r = box["r"]
    assert r["status"] == "interrupted" and r["error"]["name"] == "KeyboardInterrupt", r
    assert r["failure"]["code"] == "interrupted"
    # the loop's count where the interrupt stopped it: not at the cell's end (60 s)
    done = int(s.exec(sid, "i", expect="ok")["result"])
    assert 0 < done < 599, "answered at the interrupt, not at the cell's end: i = %d" % done
    assert s.exec(sid, "kept", expect="ok")["result"] == "'yes'"
    # one that ignores it is escalated as for a timeout: restarted, files kept
    s.exec(sid, "open('/work/f.txt', 'w').write('kept')", expect="ok")
    th, box = exec_later(s, sid, "import signal, time\nsignal.signal(signal.SIGINT, "
                                 "signal.SIG_IGN)\nwhile True: time.sleep(0.05)")
    time.sleep(1.0)
    s.run("interrupt", sid, code=0)
    th.join(30)
    assert box["r"]["status"] == "restarted" and box["r"]["failure"]["code"] == "interrupted"
    r = s.exec(sid, "open('/work/f.txt').read(), 'kept' in globals()", expect="ok")
    assert r["result"] == "('kept', False)"
    p = s.run("interrupt", "0" * 32, code=2)
    assert "session_not_found" in p.stderr


def test_put_and_get_are_served_while_a_cell_runs(s, tmp_path):
    """A file goes in and out while a cell runs (PRODUCT.md section 8: no
    request waits for another): the supervisor reads put and get on its
    control socket during the cell. The cell waits for the file it is given;
    had the put waited for the cell's end, the cell would have given up."""
    sid = s.new()
    th, box = exec_later(s, sid, "import os, time\nopen('/work/progress.txt', 'w').write('started')\n"
                                 "for polls in range(600):\n"
                                 "    if os.path.exists('/work/in/go.txt'): break\n"
                                 "    time.sleep(0.1)\n"
                                 "open('/work/in/go.txt').read() if os.path.exists('/work/in/go.txt') else None")
    for _ in range(300):                                   # until the cell has begun
        got = s.run("get", sid, "/work/progress.txt", "--out", tmp_path / "got")
        if got.returncode == 0:
            break
        time.sleep(0.1)
    assert (tmp_path / "got" / "progress.txt").read_text() == "started"
    assert th.is_alive(), "the cell still runs"
    (tmp_path / "go.txt").write_text("go")
    s.run("put", sid, tmp_path / "go.txt", "--to", "in", code=0)
    th.join(60)
    r = box["r"]
    assert r["status"] == "ok" and r["result"] == "'go'", r
    # a get still answers after the cell, and the session goes on
    assert s.exec(sid, "open('/work/in/go.txt').read()", expect="ok")["result"] == "'go'"


@pytest.mark.parametrize("code,why", [
    ("import os\nos._exit(1)", "exited (code 1)"),
    ("import ctypes\nctypes.string_at(0)", "killed by SIGSEGV"),
])
def test_a_dying_interpreter_gives_restarted(s, code, why):
    sid = s.new()
    s.exec(sid, "x = 1", expect="ok")
    r = s.exec(sid, code, expect="restarted")
    assert r["failure"]["code"] == "kernel_restarted" and why in r["failure"]["message"]
    r = s.exec(sid, "print('alive'); 'x' in globals()", expect="ok")
    assert r["stdout"] == "alive\n" and r["result"] == "False"


def test_a_memory_bomb_is_oom_killed_inside_the_session(s):
    sid = s.new("--memory", "256")
    info = json.loads(s.run("new", "--json", "--memory", "64").stdout)
    s.ids.append(info["id"])
    r = s.exec(sid, "b = bytearray(2 << 30)\nb[::4096] = b'x' * len(b[::4096])")
    if info["limits"]["memory_via"].startswith("cgroup"):
        assert r["status"] == "restarted" and r["failure"]["code"] == "oom_killed"
        assert "--memory" in r["failure"]["hint"]
    else:
        assert r["status"] == "error" and r["error"]["name"] == "MemoryError"
    assert s.exec(sid, "1 + 1", expect="ok")["result"] == "2"


def _spawn_seconds():
    """How long the host takes to start /bin/true: the median of 5."""
    took = []
    for _ in range(5):
        t0 = time.monotonic()
        subprocess.run(["/bin/true"], check=True)
        took.append(time.monotonic() - t0)
    return sorted(took)[2]


def test_a_fork_bomb_stays_inside_its_session(s):
    base = _spawn_seconds()                              # this machine's pace, before the bomb
    sid = s.new("--pids", "32")
    r = s.exec(sid, "import os, time\nwhile True:\n    try:\n        os.fork()\n"
                    "    except OSError:\n        time.sleep(0.01)", "--timeout", "2")
    assert r["status"] in ("timeout", "restarted")
    after = _spawn_seconds()                             # the host still starts processes,
    assert after < max(0.5, 20 * base), (base, after)    # at about its own pace
    r = s.exec(sid, "import os\nlen([p for p in os.listdir('/proc') if p.isdigit()])", expect="ok")
    assert int(r["result"]) <= 32


def test_ten_megabytes_printed_are_capped_with_a_truncation_record(s):
    sid = s.new()
    r = s.exec(sid, "import sys\nfor _ in range(160):\n    sys.stdout.write('x' * 65536)",
               expect="ok")
    assert r["truncated"]["stdout_bytes"] == 160 * 65536
    assert len(r["stdout"]) == r["truncated"]["kept"] == 1 << 20


# -------------------------------------------------------- files and render

@needs_mpl
def test_a_figure_left_open_appears_in_displays(s, tmp_path):
    sid = s.new()
    r = s.exec(sid, "import matplotlib.pyplot as plt\nplt.plot(range(100))\nNone", expect="ok")
    assert len(r["displays"]) == 1
    d = r["displays"][0]
    assert d["mime"] == "image/png" and d["path"] == "/out/displays/cell-1-1.png"
    s.run("get", sid, d["path"], "--out", tmp_path, code=0)
    png = (tmp_path / "cell-1-1.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) == d["bytes"]
    r = s.exec(sid, "len(plt.get_fignums())", expect="ok")
    assert r["result"] == "0" and r["displays"] == []             # closed after the cell


def test_render_makes_a_pdf_of_out_result_json(s, tmp_path):
    sid = s.new()
    s.exec(sid, """import json
spec = {"folio": 1, "title": "Session sums",
        "data": {"t": {"columns": ["k", "v"], "rows": [["alpha", 1], ["beta", 2]]}},
        "blocks": [{"type": "heading", "text": "Totals", "level": 1},
                   {"type": "table", "data": "t"}]}
json.dump(spec, open("/out/result.json", "w"))""", expect="ok")
    p = s.run("render", sid, "--render", "pdf,xlsx", "--out", tmp_path / "r", "--json", code=0)
    r = json.loads(p.stdout)
    assert r["exit"] == 0 and sorted(f["name"] for f in r["files"]) == ["result.pdf", "result.xlsx"]
    text = subprocess.run(["pdftotext", str(tmp_path / "r" / "result.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "Session sums" in text and "alpha" in text and "beta" in text
    p = s.run("render", s.new(), "--render", "pdf", "--out", tmp_path / "none", code=2)
    assert "no /out/result.json" in p.stderr


def test_render_is_not_shadowed_by_a_result_pdf_the_cell_left(s, tmp_path):
    """A cell's own /out/result.pdf made the render answer `files: []` with
    exit 0 (the rendered file was taken for the cell's). As in folio run, the
    render's names are reserved: the PDF is rendered, the clash is said."""
    sid = s.new()
    s.exec(sid, """import json
json.dump({"folio": 1, "title": "Rendered here",
           "blocks": [{"type": "heading", "text": "Rendered here", "level": 1}]},
          open("/out/result.json", "w"))
open("/out/result.pdf", "w").write("the cell's own file")""", expect="ok")
    p = s.run("render", sid, "--render", "pdf,xlsx", "--out", tmp_path / "j", "--json", code=0)
    r = json.loads(p.stdout)
    assert sorted(f["name"] for f in r["files"]) == ["result.pdf", "result.xlsx"], r
    assert {"name": "result.pdf", "reason": "reserved for the --render output"} in r["refused"]
    p = s.run("render", sid, "--render", "pdf", "--out", tmp_path / "t", code=0)
    assert "refused /out/result.pdf: reserved for the --render output" in p.stderr, p.stderr
    text = subprocess.run(["pdftotext", str(tmp_path / "t" / "result.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "Rendered here" in text
    r = s.exec(sid, "open('/out/result.pdf').read()", expect="ok")
    assert r["result"] == repr("the cell's own file"), "the session's file is left as it was"


def test_out_is_hashed_only_for_files_a_cell_changed_and_within_max_total(s):
    """Hardening issue item 3: after every cell the supervisor lists what
    changed in /out. Sparse files cost the jail nothing and the host their
    whole apparent size to hash: files past --max-total are refused before
    hashing, and files a cell left unchanged (inode, size, mtime, ctime) are
    not read again (hashed_bytes counts what was read)."""
    mib = 1 << 20
    sid = s.new("--max-bytes", 8 * mib, "--max-total", 32 * mib, "--memory", 256)
    r = s.exec(sid, "for i in range(40):\n"
                    "    with open('/out/s%02d.bin' % i, 'wb') as f: f.truncate(8 << 20)",
               expect="ok")
    assert [f["path"] for f in r["files"]] == ["/out/s%02d.bin" % i for i in range(4)]
    assert r["hashed_bytes"] == 32 * mib, r["hashed_bytes"]
    assert len(r["refused"]) == 36 and r["refused"][0] == {
        "path": "/out/s04.bin", "reason": "over the total of all files (--max-total)"}
    r = s.exec(sid, "x = 1", expect="ok")
    assert r["files"] == [] and r["refused"] == [] and r["hashed_bytes"] == 0, r
    r = s.exec(sid, "open('/out/s01.bin', 'r+b').write(b'changed')", expect="ok")
    assert [f["path"] for f in r["files"]] == ["/out/s01.bin"]
    assert r["hashed_bytes"] == 8 * mib and r["refused"] == []
    import hashlib
    h = hashlib.sha256(b"changed" + bytes(8 * mib - 7)).hexdigest()
    assert r["files"][0]["sha256"] == h


# --------------------------------------------------------- hibernation

@needs_pandas
def test_hibernation_keeps_a_dataframe_and_a_file_and_names_what_it_could_not(s):
    sid = s.new("--idle", "1")
    s.exec(sid, "import pandas as pd, socket\ndf = pd.DataFrame({'v': range(10)})\n"
                "sock = socket.socket()\nopen('/work/f.txt', 'w').write('kept')", expect="ok")
    for _ in range(100):
        if (s.store(sid) / "state").read_text() == "hibernated\n":
            break
        time.sleep(0.1)
    assert (s.store(sid) / "state").read_text() == "hibernated\n"
    assert s.gone(sid) and not (s.store(sid) / "sock").exists()
    assert '"state": "hibernated"' in s.run("ls", "--json").stdout
    r = s.exec(sid, "int(df.v.sum()), open('f.txt').read(), pd.__name__", expect="ok")
    assert r["result"] == "(45, 'kept', 'pandas')" and r["cell"] == 2
    assert r["resumed"] is True
    assert [x["name"] for x in r["not_restored"]] == ["sock"]
    assert "socket" in r["not_restored"][0]["reason"]


def test_a_cell_sent_while_the_session_hibernates_is_run_not_lost(s):
    """A request that waits in the socket's queue while the supervisor saves
    the session is never read by it: the client resumes and sends it again."""
    sid = s.new()
    s.exec(sid, "blob = b'x' * (25 << 20)\nn = 0", expect="ok")     # saving takes a while
    for k in range(3):
        t = threading.Thread(target=s.run, args=("hibernate", sid))
        t.start()
        time.sleep(0.05 * k)
        r = s.exec(sid, "n += 1\nlen(blob) >> 20, n", expect="ok")
        t.join(60)
        assert r["result"].startswith("(25, "), r
    r = s.exec(sid, "n", expect="ok")
    assert r["result"] == "3", "every cell ran exactly once"


def test_state_over_the_file_ceiling_is_saved_in_pieces(s):
    """A file may not pass the ceiling (--max-bytes, RLIMIT_FSIZE in the jail):
    a variable larger than it is saved in pieces, not cut."""
    sid = s.new("--max-bytes", 4 << 20)
    s.exec(sid, "a = b'a' * (6 << 20)\nb = list(range(500000))", expect="ok")
    s.run("hibernate", sid, code=0)
    r = s.exec(sid, "len(a) >> 20, a[-1:], sum(b)", expect="ok")
    assert r["result"] == "(6, b'a', 124999750000)", r
    assert r["not_restored"] == [], r


def _allocated(folder):
    """Bytes of disk the files under folder take (st_blocks), and their apparent size."""
    alloc = size = 0
    for root, _, names in os.walk(folder):
        for n in names:
            st = os.lstat(os.path.join(root, n))
            alloc += st.st_blocks * 512
            size += st.st_size
    return alloc, size


def _memory_cgroup(s, sid):
    """The session's memory cgroup folder on the host (its jail's init's), or None."""
    sup = s.supervisors(sid)[0]
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % d) as f:
                if d.isdigit() and f.read().rsplit(")", 1)[1].split()[1] == str(sup):
                    lines = open("/proc/%s/cgroup" % d).read().splitlines()
                    break
        except (OSError, IndexError):
            pass
    else:
        return None
    for line in lines:
        _, ctl, path = line.split(":", 2)
        if "memory" in ctl.split(","):
            return "/sys/fs/cgroup/memory" + path
    for line in lines:
        if line.startswith("0::") and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            return "/sys/fs/cgroup" + line[3:]
    return None


def _shmem(cgroup):
    with open(os.path.join(cgroup, "memory.stat")) as f:
        return dict(line.split() for line in f)["shmem"]


SPARSE_12 = """
for i in range(12):
    with open('/tmp/s%02d' % i, 'wb') as f:
        f.truncate(30 << 20)
        f.seek(1 << 20)
        f.write(b'data%02d' % i)
"""


def test_sparse_files_are_saved_and_restored_sparse_within_the_disk_budget(s):
    """Hardening issue item 1: twelve ftruncate'd 30 MiB files cost a --memory
    64 session nothing, but were saved by apparent size (361 MiB of real
    blocks in the store on the host) and copied back dense. Holes stay holes
    both ways, and the store is bounded by --disk counted by allocated size."""
    sid = s.new("--memory", 64, "--disk", 400)
    s.exec(sid, SPARSE_12, expect="ok")
    s.run("hibernate", sid, code=0)
    alloc, size = _allocated(s.store(sid) / "files" / "tmp")
    assert size >= 12 * (30 << 20) and alloc < 4 << 20, (alloc, size)
    r = s.exec(sid, "import os\n[(os.stat('/tmp/s%02d' % i).st_size, os.stat('/tmp/s%02d' % i)"
                    ".st_blocks * 512, open('/tmp/s%02d' % i, 'rb').read()[(1 << 20) - 1:"
                    "(1 << 20) + 7]) for i in range(12)]", expect="ok")
    got = eval(r["result"])
    assert [g[0] for g in got] == [30 << 20] * 12
    assert [g[2] for g in got] == [b"\0data%02d\0" % i for i in range(12)]
    assert sum(g[1] for g in got) < 1 << 20, got      # sparse in the jail too
    assert r["not_restored"] == [{"name": "f", "reason": "a closed file object: not saved "
                                  "(the file itself is; open it again)"}], r["not_restored"]


def test_files_are_restored_inside_the_sessions_memory_cgroup(s):
    """Hardening issue item 1: the resume copied the files into the jail's
    tmpfs from the supervisor, so their pages were charged to it, not to the
    session. The copy now runs in a child that joined the session's cgroup:
    the session's memory.stat counts them (shmem)."""
    sid = s.new("--memory", 128)
    s.exec(sid, "import os\nfor i in range(2):\n"
                "    open('/tmp/blob%d' % i, 'wb').write(os.urandom(20 << 20))", expect="ok")
    s.run("hibernate", sid, code=0)
    r = s.exec(sid, "import os\nos.path.getsize('/tmp/blob0') + os.path.getsize('/tmp/blob1')",
               expect="ok")
    assert r["result"] == str(40 << 20)
    cg = _memory_cgroup(s, sid)
    if cg is None or not os.path.exists(os.path.join(cg, "memory.stat")):
        pytest.skip("no memory cgroup for the session here")
    assert int(_shmem(cg)) >= 40 << 20, _shmem(cg)


def test_a_restore_over_memory_reports_the_files_it_left_out(s):
    """Hard links are saved (and restored) once per name: 20 MiB linked three
    times needs 60 MiB of a 64 MiB session's memory when restored. Files that
    would leave less than an eighth of --memory free are not restored and
    listed; the session is not OOM-killed."""
    sid = s.new("--memory", 64, "--disk", 400)
    s.exec(sid, "import os\nopen('/work/a', 'wb').write(os.urandom(20 << 20))\n"
                "os.link('/work/a', '/work/b')\nos.link('/work/a', '/work/c')", expect="ok")
    s.run("hibernate", sid, code=0)
    r = s.exec(sid, "import os\nsorted(n for n in 'abc' if os.path.exists('/work/' + n))",
               expect="ok")
    kept = eval(r["result"])
    lost = [x for x in r["not_restored"] if x.get("path")]
    if _memory_cgroup(s, sid) is None:
        pytest.skip("no memory cgroup for the session here")
    assert 1 <= len(kept) < 3, (kept, r["not_restored"])
    assert sorted(x["path"] for x in lost) == ["/work/" + n for n in "abc" if n not in kept]
    assert all(x["reason"].startswith("over --memory when restored") for x in lost), lost
    assert s.exec(sid, "1 + 1", expect="ok")["result"] == "2"


def test_files_hibernation_could_not_save_are_listed_after_the_resume(s):
    """Hardening issue item 13: files over the disk budget were dropped
    silently (the resume said nothing was lost). 20 MiB hard-linked four
    times is 80 MiB to save for a --disk 64 session: what does not fit is
    listed in not_restored with its path and reason; a link comes back as a
    link (its target as text: it resolves in the jail only)."""
    sid = s.new("--memory", 256, "--disk", 64)
    s.exec(sid, "import os\nopen('/tmp/a', 'wb').write(os.urandom(20 << 20))\n"
                "for n in 'bcd':\n    os.link('/tmp/a', '/tmp/' + n)\n"
                "os.symlink('/etc/passwd', '/out/link')", expect="ok")
    s.run("hibernate", sid, code=0)
    r = s.exec(sid, "import os\n[p for p in ('/tmp/a', '/tmp/b', '/tmp/c', '/tmp/d') "
                    "if os.path.exists(p)], os.readlink('/out/link')", expect="ok")
    kept, link = eval(r["result"])
    lost = {x["path"]: x["reason"] for x in r["not_restored"] if x.get("path")}
    assert len(kept) == 3, (kept, r["not_restored"])
    missing = sorted({"/tmp/a", "/tmp/b", "/tmp/c", "/tmp/d"} - set(kept))
    assert len(missing) == 1 and lost[missing[0]].startswith("over --disk when saved"), lost
    assert link == "/etc/passwd"                  # a link is saved as a link, never followed
    assert len(lost) == 1 and all(x["name"] == x["path"] for x in r["not_restored"]
                                  if x.get("path"))


def test_close_removes_the_store_and_unknown_ids_are_typed(s):
    sid = s.new()
    s.exec(sid, "open('/work/x', 'w').write('x')", expect="ok")
    assert s.store(sid).is_dir()
    s.run("close", sid, code=0)
    assert not s.store(sid).exists() and s.gone(sid)
    p = s.run("exec", sid, "--json", "-c", "1", code=2)
    assert json.loads(p.stdout)["error"]["code"] == "session_not_found"
    p = s.run("exec", "../../etc", "-c", "1", code=2)
    assert "session_not_found" in p.stderr


def test_a_killed_supervisor_gives_session_expired(s):
    sid = s.new()
    for pid in s.supervisors(sid):
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    p = s.run("exec", sid, "--json", "-c", "1", code=2)
    e = json.loads(p.stdout)["error"]
    assert e["code"] == "session_expired" and "folio session new" in e["hint"]


def test_the_session_limit_is_enforced(s):
    s.new("--cold", "--max-sessions", "1")
    p = s.run("new", "--json", "--cold", "--max-sessions", "1", code=5)
    e = json.loads(p.stdout)["error"]
    assert e["code"] == "limit_reached" and "--max-sessions" in e["hint"]
    assert len(list((s.rt / "folio").glob("[0-9a-f]" * 32))) == 1     # nothing left behind


def test_the_hosts_limit_counts_every_runtime_folder(tmp_path):
    """The host's slots (a folder the administrator made, one file per live
    session allowed) are shared by every user's sessions; --max-sessions
    cannot raise it."""
    slots = tmp_path / "slots"
    slots.mkdir(mode=0o755)
    for k in range(2):
        (slots / str(k)).write_text("")
    users = [Sessions(tmp_path / ("u%d" % k)) for k in range(2)]
    for u in users:
        u.env["FOLIO_SESSION_SLOTS"] = str(slots)
    try:
        users[0].new("--cold")
        users[1].new("--cold", "--max-sessions", "50")
        for u in users:
            p = u.run("new", "--json", "--cold", "--max-sessions", "50", code=5)
            e = json.loads(p.stdout)["error"]
            assert e["code"] == "limit_reached" and "host's limit" in e["message"], e
        users[0].run("close", users[0].ids[0], code=0)
        users[1].new("--cold")                            # a slot is free again
    finally:
        for u in users:
            u.close_all()


def live_supervisors(sess):
    """Sessions and spares of this runtime folder that are up (a socket, a
    supervisor): a supervisor refused a slot ends before it builds a jail."""
    store = sess.rt / "folio"
    return sum(len(sess.supervisors(d.name)) for d in store.glob("[0-9a-f]" * 32)
               if (d / "sock").exists())


def test_spares_count_against_max_sessions_whatever_the_options(s):
    """Each distinct option set left a live spare, none holding a slot: 8
    spares against a limit of 2. Now a folder has one spare at most, holding
    a slot; a `new` that finds the slots full ends it and takes its place."""
    first = s.new("--max-sessions", "2")
    peak = 0
    for k in range(5):
        sid = s.new("--max-sessions", "2", "--idle", str(100 + k))   # a new option set
        end = time.monotonic() + 3                # its spare starts in the background
        while time.monotonic() < end:
            peak = max(peak, live_supervisors(s))
            time.sleep(0.1)
        assert len(spare_ids(s.rt / "folio" / "spares")) <= 1
        s.run("close", sid, code=0)
        assert s.gone(sid)
    assert peak <= 2, "live supervisors %d over --max-sessions 2" % peak
    # the slots are full (first + a spare of other options): the spare gives way
    other = s.new("--max-sessions", "2", "--timeout", "9")
    assert s.exec(other, "1 + 1", expect="ok")["result"] == "2"
    assert s.exec(first, "2 + 2", expect="ok")["result"] == "4"
    p = s.run("new", "--json", "--max-sessions", "2", code=5)       # real sessions only now
    assert json.loads(p.stdout)["error"]["code"] == "limit_reached"
    time.sleep(1)
    assert live_supervisors(s) <= 2


def test_new_takes_a_spare_started_ahead_and_cold_starts_none(s):
    """After a `new`, a spare with the same options waits; the next `new`
    takes it (a fresh jail of its own: nothing of another session in it) and
    leaves another; --cold neither takes nor leaves one."""
    first = s.new()
    spares = s.rt / "folio" / "spares"
    for _ in range(200):
        if spare_ids(spares):
            break
        time.sleep(0.05)
    (spare,) = spare_ids(spares)
    assert json.loads(s.run("ls", "--json").stdout) == [{"id": first, "state": "live"}], \
        "a spare is nobody's session: ls does not show it"
    s.exec(first, "open('mine.txt', 'w').write('first')\nsecret = 1", expect="ok")
    second = s.new()
    assert second == spare, "the spare was taken"
    r = s.exec(second, "import os\nsorted(os.listdir('.')), 'secret' in globals()", expect="ok")
    assert r["result"] == "([], False)", r
    assert r["cell"] == 1
    for _ in range(200):
        if spare_ids(spares):
            break
        time.sleep(0.05)
    assert spare_ids(spares) and spare_ids(spares) != [spare], "another spare waits"
    other = s.new("--timeout", "7")
    assert other not in spare_ids(spares), "a spare only serves the options it was made with"
    cold = s.new("--cold", "--idle", "99")
    time.sleep(1)
    keys = [(spares / n).read_text() for n in spare_ids(spares)]
    assert "--idle\n99\n" not in keys, "--cold leaves no spare"


# ------------------------------------------------------------ bad options

@pytest.mark.parametrize("opts,said", [
    (["--memory", "abc"], '--memory: expected megabytes in 16..1048576, got "abc"'),
    (["--memory", "8"], '--memory: expected megabytes in 16..1048576, got "8"'),
    (["--timeout", "soon"], '--timeout: expected seconds in (0, 86400], got "soon"'),
    (["--cpus", "0"], '--cpus: expected CPUs in [0.01, 1024], got "0"'),
    (["--pids", "1"], '--pids: expected 2..65536, got "1"'),
    (["--max-bytes", "-1"], '--max-bytes: expected a positive byte count'),
    (["--net", "bogus"], '--net: expected none, all, packages or allow=LIST, got "bogus"'),
    (["--idle", "0"], '--idle: expected seconds in 1..10000000, got "0"'),
    (["--disk", "lots"], '--disk: expected megabytes in 1..10000000, got "lots"'),
    (["--max-sessions", "0"], '--max-sessions: expected a number of sessions'),
    (["--bogus", "1"], 'unknown option "--bogus"'),
    (["--render", "pdf"], '--render is not an option of session new'),
    (["--memory"], '--memory needs a value'),
    (["--in", "/nonexistent/x.csv"], '--in /nonexistent/x.csv: No such file or directory'),
])
def test_a_bad_option_of_new_is_named_with_why(s, opts, said):
    """Each option's own complaint reaches the caller (it was "Try 'folio
    help run'.", the last line of the supervisor's log); nothing is left."""
    p = s.run("new", "--cold", *opts)
    assert p.returncode in (1, 2), (p.returncode, p.stderr)
    first = p.stderr.splitlines()[0]
    assert first.startswith("folio: session new: ") and said in first, p.stderr
    assert "Try 'folio help run'" not in p.stderr
    p = s.run("new", "--cold", "--json", *opts)
    e = json.loads(p.stdout)["error"]
    assert e["code"] == "bad_request" and said in e["message"], e
    assert not list((s.rt / "folio").glob("[0-9a-f]" * 32)), "nothing left behind"


@pytest.mark.parametrize("args,said", [
    (["--timeout", "abc", "-c", "1"], '--timeout: expected seconds in (0, 86400], got "abc"'),
    (["--timeout", "0", "-c", "1"], '--timeout: expected seconds in (0, 86400], got "0"'),
    (["-c", "1", "--bogus"], 'unknown option "--bogus"'),
    (["-c"], "-c needs a value"),
    (["--timeout"], "--timeout needs a value"),
    (["-c", "1", "-c", "2"], "the cell is given twice"),
    ([], "needs a cell: -c CODE, FILE or -"),
])
def test_a_bad_option_of_exec_is_named_with_why(s, args, said):
    p = s.run("exec", "0" * 32, *args, code=1)
    assert p.stderr.startswith("folio: session exec: ") and said in p.stderr, p.stderr


# ------------------------------------------------------------ isolation

def test_two_sessions_see_neither_files_nor_processes_of_each_other(s):
    a, b = s.new(), s.new()
    s.exec(a, "open('/work/secret-a', 'w').write('a')\nopen('/tmp/secret-a', 'w').write('a')",
           expect="ok")
    r = s.exec(b, "import os\nsorted(os.listdir('/work')), sorted(os.listdir('/tmp')), "
                  "sorted(int(p) for p in os.listdir('/proc') if p.isdigit())", expect="ok")
    work, tmp, pids = eval(r["result"])
    assert "secret-a" not in work and "secret-a" not in tmp
    assert max(pids) < 10, pids                   # its own PID namespace: init and its kernel


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
def test_another_user_cannot_open_the_socket(s):
    sid = s.new()
    sock = s.store(sid) / "sock"
    assert sock.stat().st_mode & 0o777 == 0o600
    assert (s.rt / "folio").stat().st_mode & 0o777 == 0o700
    os.chmod(s.rt, 0o755)                         # even with the parent open to all
    short = "/tmp/folio-test-sock-%d" % os.getpid()   # sun_path holds 108 bytes
    os.symlink(str(sock), short)
    probe = ("import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect(%r)\n"
             "    print('CONNECTED')\nexcept OSError as e:\n    print('refused', e.errno)") % short
    try:
        p = subprocess.run(["/usr/bin/python3", "-c", probe], capture_output=True, text=True,
                           preexec_fn=lambda: (os.setgid(65534), os.setuid(65534)), timeout=30)
        mine = subprocess.run(["/usr/bin/python3", "-c", probe], capture_output=True, text=True,
                              timeout=30)
    finally:
        os.unlink(short)
    assert "CONNECTED" not in p.stdout and "refused 13" in p.stdout, p     # EACCES
    assert "CONNECTED" in mine.stdout                                      # the path is right


def test_the_run_isolation_holds_for_session_cells(s):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        sid = s.new()
        r = s.exec(sid, """import ctypes, os, socket
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())
libc = ctypes.CDLL(None, use_errno=True)
c = socket.socket(); c.settimeout(2)
try:
    c.connect(("127.0.0.1", %d)); host = "REACHED"
except OSError:
    host = "unreachable"
def denied(path):
    try:
        open(path, "a").close(); return False
    except OSError:
        return True
(os.getuid(), st["CapEff"].strip(), st["NoNewPrivs"].strip(), st["Seccomp"].strip(),
 os.path.exists("/etc/shadow"), os.path.exists("/root"), denied("/usr/x"),
 libc.unshare(0x10000000), libc.ptrace(16, 1, 0, 0), host)""" % srv.getsockname()[1],
                   expect="ok")
    finally:
        srv.close()
    assert eval(r["result"]) == (1000, "0000000000000000", "1", "2", False, False, True, -1, -1,
                                 "unreachable")


def test_disk_of_work_out_and_tmp_is_capped_together(s):
    sid = s.new("--disk", "20", "--memory", "512")
    r = s.exec(sid, """import os
def fill(path):
    try:
        with open(path, "wb") as f:
            for _ in range(30): f.write(b"x" * (1 << 20))
    except OSError as e:
        return e.errno
fill("/work/a"), fill("/out/b"), os.path.getsize("/work/a") + os.path.getsize("/out/b")""",
               expect="ok")
    first, second, total = eval(r["result"])
    assert first == 28 and second == 28 and total <= 20 << 20     # ENOSPC, one budget


@needs_mpl
def test_the_demo_conversation_ends_in_a_rendered_report(s, tmp_path):
    p = subprocess.run([str(ROOT / "samples" / "demo-session.sh"), FOLIO, str(tmp_path)],
                       env=s.env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, (p.stdout, p.stderr)
    assert "(12, '2024-01', '2024-06')" in p.stdout and "total revenue 15152.35" in p.stdout
    pdf = tmp_path / "session" / "result.pdf"
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "Sales review (session demo)" in text and "2184.5" in text
    images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True)
    assert images.returncode != 0 or len(images.stdout.splitlines()) >= 3   # the figure is in it
    assert (tmp_path / "session" / "cell-2-1.png").read_bytes()[:4] == b"\x89PNG"
    assert not list((s.rt / "folio").glob("[0-9a-f]" * 32))                 # closed at the end


def test_a_cell_that_forges_kernel_frames_gets_the_interpreter_restarted(s):
    sid = s.new()
    s.exec(sid, "v = 1", expect="ok")
    # every descriptor the cell can write to, the kernel's answer pipe among them:
    # a header announcing a 4 GiB frame of an unknown type
    r = s.exec(sid, "import os\nfor fd in range(3, 64):\n    try:\n"
                    "        os.write(fd, b'Z\\xff\\xff\\xff\\xff' + b'x' * 64)\n"
                    "    except OSError:\n        pass\nimport time\ntime.sleep(5)",
               "--timeout", "20")
    assert r["status"] == "restarted" and r["failure"]["code"] == "kernel_restarted", r
    assert r["ms"] < 5000                             # ended at the bad frame, not the sleep
    assert s.exec(sid, "'v' in globals()", expect="ok")["result"] == "False"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root to hide the cgroups")
def test_no_memory_cgroup_refuses_the_session_unless_per_process_is_accepted(tmp_path):
    """Without a usable memory cgroup, --memory fell back to RLIMIT_AS per
    process: six children of 400 MB each ran at once under memory 512. Now
    the session is refused, naming what is missing, unless the operator
    accepts per-process limits. /sys/fs/cgroup hidden by a tmpfs (a mount
    namespace of this test) is the host without cgroups."""
    ss = Sessions(tmp_path)
    hide = "mount -t tmpfs none /sys/fs/cgroup && exec \"$@\""
    cmd = ["unshare", "-m", "sh", "-c", hide, "sh", FOLIO, "session", "new", "--json", "--memory", "512"]
    try:
        state = tmp_path / "state"                     # a shared state folder, as folio serve's
        p = subprocess.run(cmd, env=dict(ss.env, FOLIO_STATE_DIR=str(state)), capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 5, (p.returncode, p.stdout, p.stderr)
        assert list(state.iterdir()) == [], "a refused session leaves nothing in the state folder"
        err = json.loads(p.stdout)["error"]
        assert err["code"] == "memory_unenforced" and "512 MB" in err["message"], err
        assert "Delegate=yes" in err["hint"] and "--memory-per-process" in err["hint"], err
        left = [d for d in (ss.rt / "folio").iterdir() if len(d.name) == 32]
        assert left == [], "a refused session leaves nothing behind"
        probe = subprocess.run(["unshare", "-m", "sh", "-c", hide, "sh", FOLIO, "run", "--memory", "512",
                                "--", "/bin/true"], capture_output=True, text=True, timeout=120)
        if probe.returncode != 0:
            pytest.skip("this build can't run under RLIMIT_AS (a sanitizer's shadow memory): " +
                        probe.stderr[-200:])
        env = dict(ss.env, FOLIO_MEMORY_PER_PROCESS="1")
        p = subprocess.run(cmd + ["--idle", "30"], env=env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (p.stdout, p.stderr)
        info = json.loads(p.stdout)
        ss.ids.append(info["id"])
        assert info["limits"]["memory_via"] == "rlimit-as", info
    finally:
        ss.close_all()
