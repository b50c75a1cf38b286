# test_sandbox.py — black-box tests of `folio run` (PRODUCT.md §5): each property
# is checked from inside the jail. Needs $FOLIO; skips where the kernel lacks a feature.
import hashlib
import json
import os
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLIO = os.environ.get("FOLIO", os.path.join(ROOT, "build", "folio"))
PY = "/usr/bin/python3"          # Debian's python: it lives under /usr, visible in the jail


def _probe():
    if not os.path.exists(FOLIO):
        return "no folio binary at %s (set FOLIO)" % FOLIO
    try:
        with open("/proc/sys/user/max_user_namespaces") as f:
            if int(f.read()) == 0:
                return "user namespaces are disabled (user.max_user_namespaces = 0)"
    except OSError:
        return "kernel without user namespaces"
    p = subprocess.run([FOLIO, "run", "--quiet", "--", "/bin/true"], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        return "folio run does not work here (%d): %s" % (p.returncode, p.stderr.strip()[:300])
    return None


_SKIP = _probe()
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


def run(args, *, code=None, out=None, timeout=60):
    """Runs `folio run ARGS`; returns (CompletedProcess, manifest or None)."""
    cmd = [FOLIO, "run"]
    if out is not None:
        cmd += ["--out", str(out)]
    p = subprocess.run(cmd + args, capture_output=True, text=True, timeout=timeout)
    if code is not None:
        assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    manifest = None
    if out is not None and os.path.exists(os.path.join(str(out), "manifest.json")):
        with open(os.path.join(str(out), "manifest.json")) as f:
            manifest = json.load(f)
    return p, manifest


def py(src, *extra, **kw):
    return run(list(extra) + ["--", PY, "-c", src], **kw)


# ---------------------------------------------------------------- isolation

def test_host_loopback_listener_is_unreachable_but_own_loopback_works():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    try:
        p, _ = py("""
import socket
s = socket.socket(); s.settimeout(2)
try:
    s.connect(("127.0.0.1", %d)); print("HOST-REACHED")
except OSError as e:
    print("refused", e.errno)
own = socket.socket(); own.bind(("127.0.0.1", 0)); own.listen(1)
c = socket.create_connection(own.getsockname(), timeout=2); print("own-loopback-ok")
""" % port, code=0)
    finally:
        srv.close()
    assert "HOST-REACHED" not in p.stdout
    assert "refused" in p.stdout and "own-loopback-ok" in p.stdout


def test_secrets_home_and_project_are_not_visible(tmp_path):
    probe = [ "/etc/shadow", "/root", "/home", ROOT, str(tmp_path), os.path.dirname(FOLIO)]
    p, _ = run(["--", PY, "-c", "import os, sys\nfor x in sys.argv[1:]: print(x, os.path.exists(x))"]
               + probe, code=0)
    for x in probe:
        assert "%s False" % x in p.stdout, p.stdout
    p, _ = py("print(open('/etc/passwd').read())", code=0)
    assert "root:" not in p.stdout and "folio:x:1000" in p.stdout


def test_system_folders_are_read_only():
    p, _ = py("""
import errno
for path in ("/usr/folio-was-here", "/etc/folio", "/folio", "/usr/bin/python3"):
    try:
        open(path, "a").close(); print("WROTE", path)
    except OSError as e:
        print("denied", path, errno.errorcode[e.errno])
open("/tmp/ok", "w").write("x"); open("/work/ok", "w").write("x"); print("tmp-work-ok")
""", code=0)
    assert "WROTE" not in p.stdout
    assert p.stdout.count("denied") == 4 and "tmp-work-ok" in p.stdout


def test_proc_shows_only_the_sandbox():
    p, _ = py("import os; print(sorted(int(x) for x in os.listdir('/proc') if x.isdigit()))",
              code=0)
    pids = json.loads(p.stdout)
    assert max(pids) < 10 and len(pids) <= 3, pids       # init, python
    assert os.getpid() not in pids or os.getpid() < 10


def test_unprivileged_identity_no_caps_nnp_seccomp():
    p, _ = py("""
import os
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())
print("uid", os.getuid(), os.getgid(), os.getgroups())
for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"):
    print(k, st[k].strip())
print("map", open("/proc/self/uid_map").read().split())
""", code=0)
    out = p.stdout
    assert "uid 1000 1000 []" in out or "uid 1000 1000 [1000]" in out
    for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert "%s 0000000000000000" % k in out
    assert "NoNewPrivs 1" in out and "Seccomp 2" in out
    m = json.loads(out.split("map ", 1)[1].replace("'", '"'))
    assert m[0] == "1000" and m[1] != "0" and m[2] == "1"     # never host root


def test_ptrace_mount_unshare_fail():
    p, _ = py("""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def t(name, r):
    print(name, r, ctypes.get_errno())
t("ptrace", libc.ptrace(16, 1, 0, 0))                      # PTRACE_ATTACH init
t("mount", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))
t("unshare", libc.unshare(0x10000000))                       # CLONE_NEWUSER
t("setns", libc.setns(os.open("/proc/self/ns/mnt", os.O_RDONLY), 0))
t("keyctl", libc.syscall(250, 0, 0, 0, 0))                   # keyctl on x86_64
""", code=0)
    for name in ("ptrace", "mount", "unshare", "setns"):
        assert "%s -1 1" % name in p.stdout, p.stdout          # EPERM


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x32 is an x86_64 ABI")
def test_x32_abi_is_killed(tmp_path):
    p, m = py("import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39); print('ALIVE')",
              out=tmp_path / "o", code=4)
    assert "ALIVE" not in p.stdout
    assert m["signal"] == "SIGSYS"


# ------------------------------------------------------------------- limits

def test_endless_loop_dies_at_the_timeout_with_its_children(tmp_path):
    t0 = time.monotonic()
    child = "sleep 1000.%d" % os.getpid()  # unique: other runs on the machine may sleep too
    p, m = run(["--timeout", "1", "--", "/bin/sh", "-c", child + " & while :; do :; done"],
               out=tmp_path / "o", code=4)
    assert time.monotonic() - t0 < 30          # time is what is checked (--timeout 1): generous
    assert m["timed_out"] is True and m["limit"] == "timeout" and m["exit"] == 4
    assert "hint: the program ran past --timeout 1 s; raise --timeout" in p.stderr
    assert subprocess.run(["pgrep", "-f", child], capture_output=True).returncode != 0


def test_memory_limit_stops_a_2gib_allocation(tmp_path):
    p, m = py("b = bytearray(2 << 30); b[::4096] = b'x' * len(b[::4096]); print('ALLOCATED')",
              "--memory", "256", out=tmp_path / "o", code=4)
    assert "ALLOCATED" not in p.stdout
    if m["limits"]["memory_via"].startswith("cgroup"):
        assert m["limit"] == "memory" and m["signal"] == "SIGKILL"
        assert "hint: the program needed more than --memory 256 MB; raise --memory" in p.stderr
    else:
        assert "MemoryError" in m["stderr"]["tail"]


BOMB = """
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
"""


def _spawn_seconds():
    t0 = time.monotonic()
    subprocess.run(["/bin/true"], check=True)
    return time.monotonic() - t0


def test_fork_bomb_is_contained_and_host_stays_responsive(tmp_path):
    # the host's own pace first: this machine may be busy with other work
    base = sorted(_spawn_seconds() for _ in range(5))[2]
    bomb = subprocess.Popen([FOLIO, "run", "--quiet", "--out", str(tmp_path / "o"),
                             "--pids", "64", "--timeout", "3", "--",
                             PY, "-c", BOMB],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        during = sorted(_spawn_seconds() for _ in range(5))[2]
        assert during < max(1.0, 20 * base), (base, during)   # the host still starts processes
        assert bomb.wait(timeout=20) == 4
    finally:
        bomb.kill()
    with open(tmp_path / "o" / "manifest.json") as f:
        m = json.load(f)
    assert m["exit"] == 4
    if m["limits"]["memory_via"].startswith("cgroup"):
        assert m["limits_reached"]["pids_max_hits"] > 0


def test_file_over_the_ceiling_kills_by_default(tmp_path):
    # sh/head die of SIGXFSZ; python ignores it and fails with EFBIG: both are "file_size"
    p, m = run(["--", "/bin/sh", "-c", "head -c 40000000 /dev/zero > /out/big.bin"],
               out=tmp_path / "o", code=4)
    assert m["limit"] == "file_size"
    assert "hint: a file reached the ceiling of 31457280 bytes (--max-bytes)" in p.stderr
    assert not (tmp_path / "o" / "big.bin").exists()
    p, m = py("open('/out/big.bin', 'wb').write(b'x' * 40_000_000)", out=tmp_path / "p", code=4)
    assert m["limit"] == "file_size" and "File too large" in m["stderr"]["tail"]
    assert m["refused"] == [{"name": "big.bin", "reason": "over the ceiling (--max-bytes)"}]
    assert not (tmp_path / "p" / "big.bin").exists()


def test_40mb_file_in_out_is_refused(tmp_path):
    p, m = py("""
import signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
try:
    with open('/out/big.bin', 'wb') as f:
        for _ in range(40): f.write(b'x' * 1_000_000)
except OSError as e:
    print('EFBIG', e.errno)
open('/out/small.txt', 'w').write('fine')
""", out=tmp_path / "o", code=3)
    assert "EFBIG" in p.stdout
    assert [f["name"] for f in m["files"]] == ["small.txt"]
    assert {"name": "big.bin", "reason": "over the ceiling (--max-bytes)"} in m["refused"]
    assert not (tmp_path / "o" / "big.bin").exists()
    assert (tmp_path / "o" / "small.txt").read_text() == "fine"


def test_symlink_and_fifo_in_out_are_never_followed(tmp_path):
    # a FIFO opened for reading blocks until a writer comes, and none ever
    # does: had folio opened it, run()'s timeout would fail this test
    p, m = py("""
import os
os.symlink('/etc/passwd', '/out/passwd-link')
os.symlink('/proc/1/root/etc/passwd', '/out/root-link')
os.mkfifo('/out/pipe')
os.mkdir('/out/sub')
open('/out/.hidden', 'w').write('x')
open('/out/ok.csv', 'w').write('a,b\\n1,2\\n')
""", out=tmp_path / "o", code=0)
    refused = {r["name"]: r["reason"] for r in m["refused"]}
    assert refused == {"passwd-link": "symlink", "root-link": "symlink", "pipe": "fifo",
                       ".hidden": "unsafe name"}           # the empty sub/ yields nothing
    assert [f["name"] for f in m["files"]] == ["ok.csv"]
    assert sorted(os.listdir(tmp_path / "o")) == ["manifest.json", "ok.csv"]


# ------------------------------------------------------- subfolders of /out

def tree(top):
    """Every file and link under top, as relative paths."""
    found = set()
    for d, dirs, files in os.walk(top):
        for n in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            found.add(os.path.relpath(os.path.join(d, n), top))
    return found


def test_files_in_subfolders_are_delivered_with_their_paths(tmp_path):
    p, m = py("""
import os
os.makedirs('/out/charts'); os.makedirs('/out/deep/er')
open('/out/charts/a.png', 'wb').write(bytes(range(256)) * 3)
open('/out/deep/er/b.txt', 'w').write('deeper')
open('/out/top.txt', 'w').write('top')
open('/out/deep/manifest.json', 'w').write('{}')       # reserved only at the top
""", out=tmp_path / "o", code=0)
    a = bytes(range(256)) * 3
    assert m["refused"] == []
    assert [f["name"] for f in m["files"]] == ["charts/a.png", "deep/er/b.txt",
                                               "deep/manifest.json", "top.txt"]
    assert m["files"][0] == {"name": "charts/a.png", "bytes": len(a),
                             "sha256": hashlib.sha256(a).hexdigest()}
    assert (tmp_path / "o" / "charts" / "a.png").read_bytes() == a
    assert (tmp_path / "o" / "deep" / "er" / "b.txt").read_text() == "deeper"
    assert tree(tmp_path / "o") == {"manifest.json", "top.txt", "charts/a.png",
                                    "deep/er/b.txt", "deep/manifest.json"}


def test_links_to_and_inside_subfolders_are_never_followed(tmp_path):
    p, m = py("""
import os
os.symlink('/etc', '/out/etc')
os.mkdir('/out/sub')
os.symlink('/etc/passwd', '/out/sub/p')
os.symlink('/etc', '/out/sub/etc')
open('/out/sub/ok.txt', 'w').write('ok')
""", out=tmp_path / "o", code=0)
    refused = {r["name"]: r["reason"] for r in m["refused"]}
    assert refused == {"etc": "symlink", "sub/p": "symlink", "sub/etc": "symlink"}
    assert [f["name"] for f in m["files"]] == ["sub/ok.txt"]
    assert tree(tmp_path / "o") == {"manifest.json", "sub/ok.txt"}   # nothing of /etc


def test_a_link_planted_in_the_out_dir_is_not_followed(tmp_path):
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    os.symlink(str(elsewhere), str(out / "charts"))
    p, m = py("import os; os.mkdir('/out/charts'); open('/out/charts/x.png', 'w').write('x')",
              out=out, code=5)
    assert "folio: run: can't write %s/charts/x.png: " % out in p.stderr, p.stderr
    assert os.listdir(str(elsewhere)) == []


def test_too_deep_a_folder_is_refused_shallower_files_arrive(tmp_path):
    p, m = py("""
import os
d = '/out'
for i in range(1, 11):
    d += '/d%d' % i
    os.mkdir(d)
    open(d + '/f%d.txt' % i, 'w').write(str(i))
""", out=tmp_path / "o", code=0)
    deep = "/".join("d%d" % i for i in range(1, 10))
    assert m["refused"] == [{"name": deep, "reason": "too deep"}]
    names = ["/".join(["d%d" % k for k in range(1, i + 1)] + ["f%d.txt" % i])
             for i in range(1, 9)]
    assert sorted(f["name"] for f in m["files"]) == sorted(names)
    for i, n in enumerate(names, 1):
        assert (tmp_path / "o" / n).read_text() == str(i)
    assert not (tmp_path / "o" / deep).exists()


def test_unsafe_folder_and_file_names_are_refused(tmp_path):
    p, m = py("""
import os
for d in ('/out/.hidden', '/out/has space', '/out/sub', '/out/' + 'a' * 200):
    os.mkdir(d)
open('/out/.hidden/x', 'w').write('x')
open('/out/has space/x', 'w').write('x')
open('/out/sub/bad name.txt', 'w').write('x')
open('/out/sub/-dash', 'w').write('x')
open('/out/sub/good.txt', 'w').write('good')
open('/out/' + 'a' * 200 + '/' + 'b' * 100, 'w').write('x')
""", out=tmp_path / "o", code=0)
    refused = {r["name"]: r["reason"] for r in m["refused"]}
    long_name = ("a" * 200 + "/" + "b" * 100)[:255]        # shown cut to the field
    assert refused == {".hidden": "unsafe name", "has space": "unsafe name",
                       "sub/bad name.txt": "unsafe name", "sub/-dash": "unsafe name",
                       long_name: "path too long"}
    assert [f["name"] for f in m["files"]] == ["sub/good.txt"]
    assert tree(tmp_path / "o") == {"manifest.json", "sub/good.txt"}


# ------------------------------------------------------- files and manifest

def test_inputs_outputs_and_manifest(tmp_path):
    src = tmp_path / "data.csv"
    src.write_text("x,y\n1,2\n3,4\n")
    p = subprocess.run([FOLIO, "run", "--in", str(src), "--out", str(tmp_path / "o"), "--",
                        PY, "-c", """
import os, sys
print("cwd", os.getcwd(), sorted(os.listdir('.')))
data = open('data.csv').read()
open('/out/copy.csv', 'w').write(data)
print('to stderr', file=sys.stderr)
"""], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "cwd /work ['data.csv']" in p.stdout             # streamed live to our stdout
    assert "to stderr" in p.stderr
    m = json.loads((tmp_path / "o" / "manifest.json").read_text())
    body = src.read_bytes()
    assert m["files"] == [{"name": "copy.csv", "bytes": len(body),
                           "sha256": hashlib.sha256(body).hexdigest()}]
    assert (tmp_path / "o" / "copy.csv").read_bytes() == body
    assert m["exit_code"] == 0 and m["signal"] is None and m["limit"] is None
    assert "cwd /work" in m["stdout"]["tail"] and "to stderr" in m["stderr"]["tail"]
    assert m["command"][0] == PY


def test_failing_program_keeps_output_and_manifest(tmp_path):
    p, m = run(["--", "/bin/sh", "-c", "echo partial > /out/part.txt; echo oops >&2; exit 7"],
               out=tmp_path / "o", code=4)
    assert m["exit_code"] == 7 and m["exit"] == 4
    assert "oops" in m["stderr"]["tail"]
    assert (tmp_path / "o" / "part.txt").read_text() == "partial\n"


def test_json_prints_the_manifest(tmp_path):
    p = subprocess.run([FOLIO, "run", "--json", "--", "/bin/echo", "hello"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    m = json.loads(p.stdout)
    assert m["stdout"]["tail"] == "hello\n" and "hello" in p.stderr


def test_bad_inputs_and_usage(tmp_path):
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(2000)
    p, _ = run(["--max-bytes", "1000", "--in", str(big), "--", "/bin/true"], code=2)
    assert "ceiling" in p.stderr
    p, _ = run(["--in", str(tmp_path / "missing.csv"), "--", "/bin/true"], code=2)
    os.mkfifo(tmp_path / "fifo")
    p, _ = run(["--in", str(tmp_path / "fifo"), "--", "/bin/true"], code=2)
    assert "not a regular file or folder" in p.stderr
    p, _ = run(["--bogus", "--", "/bin/true"], code=1)
    assert p.stderr.startswith("folio: run: ")
    run(["--timeout", "-1", "--", "/bin/true"], code=1)
    run(["--net", "allow=127.0.0.1", "--", "/bin/true"], code=1)
    run(["--render", "docx,gif", "--", "/bin/true"], code=1)
    run([], code=1)
    assert not (tmp_path / "o").exists()


def test_in_folder_is_copied_whole_and_links_in_it_are_refused(tmp_path):
    data = tmp_path / "data"
    (data / "raw" / "2024").mkdir(parents=True)
    (data / "a.csv").write_text("x\n1\n")
    (data / "raw" / "2024" / "b.csv").write_bytes(b"y\n2\n")
    listing = ("import os\n"
               "for r, ds, fs in sorted(os.walk('/work')):\n"
               "    for f in sorted(fs): print(os.path.join(r, f), open(os.path.join(r, f)).read().split()[1])\n")
    p, _ = py(listing, "--in", str(data) + "/", code=0)
    assert p.stdout.splitlines() == ["/work/data/a.csv 1", "/work/data/raw/2024/b.csv 2"], p.stdout
    # a link inside the folder could point anywhere on this machine: refused, nothing runs
    (data / "raw" / "pw").symlink_to("/etc/passwd")
    p, _ = py("print('RAN')", "--in", str(data), code=2)
    assert "raw/pw: a symbolic link" in p.stderr and "RAN" not in p.stdout
    (data / "raw" / "pw").unlink()
    # a file and a folder of the same name cannot both be /work/data
    other = tmp_path / "other"
    other.mkdir()
    (other / "data").write_text("z")
    p, _ = py("print('RAN')", "--in", str(data), "--in", str(other / "data"), code=2)
    assert "clashes with another input" in p.stderr


def test_missing_command_is_a_program_failure(tmp_path):
    p, m = run(["--", "/no/such/program"], out=tmp_path / "o", code=4)
    assert m["exit_code"] == 127


# ------------------------------------------------------------------- render

SPEC = {
    "folio": 1, "title": "Sandbox render",
    "blocks": [
        {"type": "heading", "text": "Hello", "level": 1},
        {"type": "table", "data": {"columns": ["a", "b"], "rows": [[1, 2], [3, 4]]}},
    ],
}


def test_result_json_is_rendered_in_a_jail(tmp_path):
    p, m = run(["--render", "xlsx", "--", PY, "-c",
                "import json, sys; json.dump(json.loads(sys.argv[1]), open('/out/result.json', 'w'))",
                json.dumps(SPEC)], out=tmp_path / "o", timeout=120)
    r = m["render"]
    assert r is not None, m                          # the attempt is recorded
    assert r["formats"] == ["xlsx"]
    assert r["command"][:3] == ["/run/folio", "render", "/out/result.json"]
    assert r["exit_code"] is not None or r["signal"] is not None
    if r["exit_code"] == 0:
        assert p.returncode == 0
        assert [f["name"] for f in r["files"]] == ["result.xlsx"]
        assert (tmp_path / "o" / "result.xlsx").read_bytes()[:2] == b"PK"
    else:                                            # xlsx not built yet: recorded, not a crash
        assert p.returncode in (2, 5), p.stderr
        assert m["exit"] == p.returncode


def test_render_places_an_image_from_a_subfolder(tmp_path):
    spec = {"folio": 1, "title": "Charts",
            "blocks": [{"type": "heading", "text": "Plot", "level": 1},
                       {"type": "image", "path": "charts/plot.png", "alt": "a plot"}]}
    p, m = run(["--render", "pdf", "--", PY, "-c", """
import json, os, struct, sys, zlib
def chunk(kind, data):
    return (struct.pack('>I', len(data)) + kind + data
            + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
w, h = 40, 30
rows = b''.join(b'\\0' + b''.join(bytes((x * 6, y * 8, 120)) for x in range(w)) for y in range(h))
os.mkdir('/out/charts')
open('/out/charts/plot.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n'
    + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
    + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
json.dump(json.loads(sys.argv[1]), open('/out/result.json', 'w'))
""", json.dumps(spec)], out=tmp_path / "o", code=0, timeout=120)
    r = m["render"]
    assert r["exit_code"] == 0, r
    assert [f["name"] for f in m["files"]] == ["charts/plot.png", "result.json"]
    assert [f["name"] for f in r["files"]] == ["result.pdf"]   # the copied inputs are not new
    assert (tmp_path / "o" / "charts" / "plot.png").read_bytes()[:4] == b"\x89PNG"
    listing = subprocess.run(["pdfimages", "-list", str(tmp_path / "o" / "result.pdf")],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    images = [l.split() for l in listing[2:] if l.strip()]
    assert images and any(i[3:5] == ["40", "30"] for i in images), listing


def test_render_is_skipped_without_a_spec_or_after_a_failure(tmp_path):
    p, m = run(["--render", "xlsx", "--", "/bin/true"], out=tmp_path / "a", code=0)
    assert m["render"] == {"skipped": "no regular file /out/result.json"}
    p, m = run(["--render", "xlsx", "--", "/bin/sh", "-c", "echo {} > /out/result.json; exit 1"],
               out=tmp_path / "b", code=4)
    assert m["render"] == {"skipped": "the program failed"}
    p, m = run(["--", "/bin/true"], out=tmp_path / "c", code=0)
    assert m["render"] is None


def test_render_jail_has_no_network_and_same_restrictions(tmp_path):
    # the rendered files come only from the renderer; a spec can't smuggle links
    p, m = run(["--render", "xlsx", "--", "/bin/sh", "-c",
                "ln -s /etc/passwd /out/result.json"], out=tmp_path / "o", code=0)
    assert m["render"] == {"skipped": "no regular file /out/result.json"}
    assert {"name": "result.json", "reason": "symlink"} in m["refused"]


def test_net_all_reaches_the_host_loopback():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    try:
        p, _ = py("import socket; socket.create_connection(('127.0.0.1', %d), timeout=5); "
                  "print('HOST-REACHED')" % srv.getsockname()[1], "--net", "all", code=0)
    finally:
        srv.close()
    assert "HOST-REACHED" in p.stdout


def test_killing_folio_kills_the_jail():
    # The jailed program's own command line is "sleep 1001.<pid>"; anchoring
    # on it keeps pgrep from matching folio's command line (which holds the
    # same words), so folio is killed only once the jail is really running.
    child = "sleep 1001.%d" % os.getpid()
    pattern = "^" + child.replace(".", "\\.") + "$"
    f = subprocess.Popen([FOLIO, "run", "--quiet", "--", "/bin/sh", "-c", child + "; true"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if subprocess.run(["pgrep", "-f", pattern], capture_output=True).returncode == 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the jailed program never started")
        f.kill()
        f.wait(timeout=10)
        for _ in range(200):
            if subprocess.run(["pgrep", "-f", pattern], capture_output=True).returncode != 0:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the jail outlived folio")
    finally:
        f.kill()


def test_sample_analysis_produces_a_report(tmp_path):
    # The demo's analysis (samples/analysis/, run by `make demo`): Python reads
    # the CSV in the jail, writes a spec, and the render jail makes the report.
    import openpyxl
    here = os.path.join(ROOT, "samples", "analysis")
    out = tmp_path / "o"
    p, m = run(["--in", os.path.join(here, "sales.csv"), "--in", os.path.join(here, "analyze.py"),
                "--render", "pdf,xlsx", "--timeout", "60", "--memory", "512",
                "--", PY, "/work/analyze.py", "sales.csv"], out=out, code=0, timeout=120)
    assert m["exit"] == 0 and m["render"]["exit_code"] == 0, m["render"]
    assert "analyze.py:" in m["stdout"]["tail"]
    text = subprocess.run(["pdftotext", "-layout", str(out / "result.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "Sales review" in text and "By month" in text
    assert "Mean revenue" in text and "1,385.28" in text       # formatted as the spec asks
    names = {f["name"]: f for f in m["render"]["files"]}
    assert set(names) == {"result.pdf", "result.xlsx"}
    for n, f in names.items():
        data = (out / n).read_bytes()
        assert len(data) == f["bytes"] and hashlib.sha256(data).hexdigest() == f["sha256"]
    wb = openpyxl.load_workbook(out / "result.xlsx")
    cells = [c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row]
    assert "2024-01" in cells and "North" in cells


def test_refused_namespaces_give_a_hint_and_leave_nothing(tmp_path):
    # Inside a user namespace of our own whose limit on nested ones is 0, the
    # kernel refuses folio's clone (ENOSPC): exit 5, the cause named, no files.
    out = tmp_path / "o"
    script = ("echo 0 > /proc/sys/user/max_user_namespaces || exit 99; "
              "exec \"$0\" run --out \"$1\" -- /bin/true")
    p = subprocess.run(["unshare", "-Ur", "sh", "-c", script, FOLIO, str(out)],
                       capture_output=True, text=True, timeout=30)
    if p.returncode == 99 or "unshare:" in p.stderr:
        pytest.skip("cannot make a user namespace with a lower limit here: " + p.stderr.strip())
    assert p.returncode == 5, p.stderr
    assert "can't create the namespaces (clone)" in p.stderr
    assert "hint:" in p.stderr and "max_user_namespaces" in p.stderr
    assert not out.exists()


def test_a_host_path_the_jail_cannot_see_gets_a_hint(tmp_path):
    # The commonest mistake: naming a host file without --in. The program
    # fails; folio says which argument and how to pass it.
    script = tmp_path / "analysis.py"
    script.write_text("print('ran')\n")
    p = subprocess.run([FOLIO, "run", "--", PY, "analysis.py"], cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 4
    assert ("hint: analysis.py is a file here but not in the jail" in p.stderr
            and "pass --in analysis.py and refer to it as analysis.py" in p.stderr), p.stderr
    # passed with --in, but named by its host path
    p = subprocess.run([FOLIO, "run", "--in", str(script), "--", PY, str(script)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 4
    assert "--in copied it to /work/analysis.py, so refer to it as analysis.py" in p.stderr, p.stderr
    # right: no hint
    p = subprocess.run([FOLIO, "run", "--in", str(script), "--", PY, "analysis.py"],
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout == "ran\n" and "hint" not in p.stderr, p.stderr


def test_render_without_a_result_says_nothing_was_rendered(tmp_path):
    p, m = run(["--render", "pdf", "--", "/bin/true"], out=tmp_path / "o", code=0)
    assert "--render: nothing rendered, no regular file /out/result.json" in p.stderr
    assert m["render"] == {"skipped": "no regular file /out/result.json"}


def test_matplotlib_font_cache_is_prebuilt_in_the_jail(tmp_path):
    # make builds matplotlib's font list once; each jail gets a copy of its own
    # in /tmp/.matplotlib, so a plotting script does not rebuild it (~0.4 s)
    cache = os.path.join(os.path.dirname(FOLIO), "matplotlib")
    if not os.path.isdir(cache) or not any(f.startswith("fontlist-") for f in os.listdir(cache)):
        pytest.skip("no prebuilt matplotlib font cache (python3-matplotlib not installed at build)")
    p, _ = py("""
import os
d = '/tmp/.matplotlib'
names = [n for n in os.listdir(d) if n.startswith('fontlist-')]
before = {n: os.stat(os.path.join(d, n)).st_mtime_ns for n in names}
import matplotlib.font_manager as fm
fm.findfont('DejaVu Sans')
after = {n: os.stat(os.path.join(d, n)).st_mtime_ns for n in os.listdir(d) if n.startswith('fontlist-')}
print(names, 'owner', os.stat(d).st_uid, 'same' if before == after else 'rebuilt')
""", code=0)
    assert "owner 1000 same" in p.stdout and "fontlist-" in p.stdout, p.stdout + p.stderr
    # the copy is the jail's own: a program that rewrites it changes nothing outside
    py("import os\n"
       "d = '/tmp/.matplotlib'\n"
       "for n in os.listdir(d): open(os.path.join(d, n), 'w').write('x')\n", code=0)
    for n in os.listdir(cache):
        if n.startswith("fontlist-"):
            with open(os.path.join(cache, n)) as f:
                assert f.read(1) == "{"


def test_folio_in_a_private_folder(tmp_path):
    # folio installed where the jail's identity cannot look (a 0700 folder, as
    # under /root): the matplotlib cache still arrives (folio opens it), and
    # --render, which must bind folio-engine, says what the folder needs
    import shutil
    priv = tmp_path / "priv"
    priv.mkdir(mode=0o700)
    here = os.path.dirname(FOLIO)
    shutil.copy2(FOLIO, priv / "folio")
    shutil.copy2(os.path.join(here, "folio-engine"), priv / "folio-engine")
    if os.path.isdir(os.path.join(here, "matplotlib")):
        shutil.copytree(os.path.join(here, "matplotlib"), priv / "matplotlib")
    lone = str(priv / "folio")
    p = subprocess.run([lone, "run", "--", PY, "-c",
                        "import os; print(sorted(os.listdir('/tmp/.matplotlib')) "
                        "if os.path.isdir('/tmp/.matplotlib') else [])"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    cache = priv / "matplotlib"
    if cache.is_dir() and any(n.startswith("fontlist-") for n in os.listdir(cache)):
        assert "fontlist-" in p.stdout, p.stdout
    if os.geteuid() == 0:   # as root the jail's identity is not the folder's owner
        r = subprocess.run([lone, "run", "--quiet", "--render", "pdf", "--", "/bin/sh", "-c",
                            "echo '{\"folio\": 1, \"blocks\": []}' > /out/result.json"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 5 and "must be readable by others" in r.stderr, r.stderr
