# test_hardening_output.py — issue 16, the output side of `folio run`: the echo of
# the program's stdout/stderr never stalls the supervisor (item 7), is capped (8)
# and neutralises terminal escapes (9); /out totals are capped by apparent size (3),
# before anything is hashed;
# renders are never shadowed by the program's own files (11) and over-ceiling
# renders exit 3 with a message (12); --out is written all or nothing (17).
# Needs $FOLIO; skips where user namespaces are unavailable.
import json
import os
import pty
import resource
import select
import subprocess
import time

import pytest

# the same binary and the same skip (no user namespaces, no folio) as test_sandbox.py
from test_sandbox import FOLIO, PY, pytestmark  # noqa: F401  (pytestmark applies here)

ECHO_MAX = 8 << 20


def manifest(out):
    with open(os.path.join(str(out), "manifest.json")) as f:
        return json.load(f)


def run(args, out=None, timeout=120, **kw):
    cmd = [FOLIO, "run"] + (["--out", str(out)] if out is not None else []) + args
    return subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)


# ------------------------------------------------------------ item 7: stalled reader

def test_timeout_holds_when_nobody_reads_stdout(tmp_path):
    """The caller holds the read end of folio's stdout and never reads it: the
    program prints forever, and folio must still end at --timeout."""
    r, w = os.pipe()
    err = open(tmp_path / "err.txt", "wb")
    t0 = time.monotonic()
    p = subprocess.Popen([FOLIO, "run", "--timeout", "2", "--out", str(tmp_path / "o"), "--",
                          PY, "-c", "import sys\nb = b'y' * 65536\n"
                          "while True: sys.stdout.buffer.write(b)"], stdout=w, stderr=err)
    os.close(w)
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail("folio run blocked on a stdout nobody reads, past --timeout 2")
    finally:
        os.close(r)
        err.close()
    took = time.monotonic() - t0
    assert rc == 4 and took < 12, (rc, took)   # time is what is checked (--timeout 2): generous
    m = manifest(tmp_path / "o")
    assert m["timed_out"] is True and m["limit"] == "timeout"
    assert m["stdout"]["not_echoed"] > 0
    text = (tmp_path / "err.txt").read_text()
    assert "stdout:" in text and "not echoed: the reader stopped reading" in text


def test_slow_reader_loses_nothing(tmp_path):
    """A reader that is slow but keeps reading gets every byte (flow control)."""
    n = 3 << 20
    p = subprocess.Popen([FOLIO, "run", "--timeout", "60", "--", PY, "-c",
                          "import sys\nsys.stdout.buffer.write(b'z' * %d)" % n],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    got = 0
    time.sleep(1.0)                 # let the pipe and folio's queue fill up first
    while True:
        chunk = p.stdout.read(65536)
        if not chunk:
            break
        got += len(chunk)
    assert p.wait(timeout=60) == 0
    assert got == n


# ------------------------------------------------------------ item 8: echo cap

def test_echo_is_capped_and_says_so(tmp_path):
    """10^9 bytes of output: at most FO_SANDBOX_ECHO_MAX are echoed, then one note;
    the manifest counts every byte and keeps the last 64 KiB."""
    total = 10 ** 9
    src = ("import sys\nb = b'x' * 1000000\n"
           "for _ in range(%d): sys.stdout.buffer.write(b)\nsys.stdout.buffer.write(b'END')"
           % (total // 1000000))
    out = open(tmp_path / "stdout.bin", "wb")
    p = subprocess.run([FOLIO, "run", "--timeout", "300", "--out", str(tmp_path / "o"), "--",
                        PY, "-c", src], stdout=out, stderr=subprocess.PIPE, timeout=600)
    out.close()
    assert p.returncode == 0, p.stderr[-2000:]
    size = os.path.getsize(tmp_path / "stdout.bin")
    assert size == ECHO_MAX
    assert ("folio: run: stdout truncated after %d bytes (the manifest keeps the last 64 KiB)"
            % ECHO_MAX) in p.stderr.decode()
    m = manifest(tmp_path / "o")
    assert m["stdout"]["bytes"] == total + 3
    assert m["stdout"]["echo_truncated"] is True and m["stdout"]["echoed"] == ECHO_MAX
    assert m["stdout"]["tail"].endswith("xxxEND") and len(m["stdout"]["tail"]) == 65536


# ------------------------------------------------------------ item 9: terminal escapes

HOSTILE = ("import sys\n"
           "sys.stdout.write('A\\x1b]52;c;ZXZpbA==\\x07B\\x1b[2JC\\x1b]0;title\\x07D\\u009bE\\tF\\n')\n"
           "sys.stdout.flush()\n")


def test_escapes_are_shown_escaped_on_a_terminal():
    master, slave = pty.openpty()
    p = subprocess.Popen([FOLIO, "run", "--", PY, "-c", HOSTILE], stdout=slave,
                         stderr=subprocess.DEVNULL)
    os.close(slave)
    data = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if not ready:
            if p.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    p.wait(timeout=30)
    os.close(master)
    assert b"\x1b" not in data and b"\x07" not in data and b"\xc2\x9b" not in data
    text = data.decode()
    assert "A\\x1b]52;c;ZXZpbA==\\x07B" in text
    assert "\\x1b[2JC" in text and "\\x1b]0;title\\x07D" in text
    assert "D\\xc2\\x9bE\tF" in text


def test_escapes_pass_unchanged_into_a_pipe():
    p = run(["--", PY, "-c", HOSTILE])
    assert p.returncode == 0
    assert p.stdout == "A\x1b]52;c;ZXZpbA==\x07B\x1b[2JC\x1b]0;title\x07D\u009bE\tF\n".encode()


# ------------------------------------------------------------ item 3: --max-total

SPARSE = ("import os\nfor i in range(10):\n"
          "    with open('/out/s%02d.bin' % i, 'wb') as f: f.truncate(1000000)\n")


def sha256(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_sparse_files_are_capped_by_apparent_size(tmp_path):
    """Ten sparse 1 MB files take no tmpfs space; --max-total counts st_size,
    keeps the first files by name that fit and refuses the rest, before
    writing anything of them."""
    out = tmp_path / "o"
    p = run(["--max-bytes", "1000000", "--max-total", "3000000", "--", PY, "-c", SPARSE], out=out)
    assert p.returncode == 3, p.stderr
    err = p.stderr.decode()
    assert "more than --max-total 3000000 bytes" in err
    assert "refused /out/s03.bin: over the total of all files (--max-total)" in err
    kept = sorted(f for f in os.listdir(out) if f.endswith(".bin"))
    assert kept == ["s00.bin", "s01.bin", "s02.bin"]
    assert sum(os.path.getsize(out / f) for f in kept) == 3000000
    m = manifest(out)
    assert [f["name"] for f in m["files"]] == kept
    assert {r["name"] for r in m["refused"]} == {"s%02d.bin" % i for i in range(3, 10)}
    for f in m["files"]:                     # the hash is of the bytes delivered
        assert f["sha256"] == sha256(out / f["name"]) and f["bytes"] == 1000000


def test_max_total_defaults_to_four_ceilings(tmp_path):
    out = tmp_path / "o"
    p = run(["--max-bytes", "1000000", "--", PY, "-c", SPARSE], out=out)
    assert p.returncode == 3
    assert sorted(f["name"] for f in manifest(out)["files"]) == ["s0%d.bin" % i for i in range(4)]


def test_max_total_is_checked_by_the_option_parser():
    p = run(["--max-total", "0", "--", "/bin/true"])
    assert p.returncode == 1 and b"--max-total: expected a positive byte count" in p.stderr


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


MANY_SPARSE = ("import os, sys\nfor i in range(int(sys.argv[1])):\n"
               "    with open('/out/s%03d.bin' % i, 'wb') as f: f.truncate(8 << 20)\n")


def test_files_past_max_total_are_refused_before_they_are_hashed(tmp_path):
    """Hardening issue item 3: sparse files cost no tmpfs space, but hashing
    one reads all its apparent size on the host. Only the files --max-total
    keeps are hashed (hashed_bytes counts the bytes read), so 120 sparse 8 MiB
    files (960 MiB) cost what 2 do; before, all 120 were hashed first."""
    args = ["--max-bytes", str(8 << 20), "--max-total", str(16 << 20), "--", PY, "-c",
            MANY_SPARSE]
    cpu0 = _children_cpu()
    p = run(args + ["2"], out=tmp_path / "base")
    cpu1 = _children_cpu()
    assert p.returncode == 0, p.stderr
    assert manifest(tmp_path / "base")["hashed_bytes"] == 16 << 20
    p = run(args + ["120"], out=tmp_path / "many")
    cpu2 = _children_cpu()
    assert p.returncode == 3, p.stderr
    m = manifest(tmp_path / "many")
    assert [f["name"] for f in m["files"]] == ["s000.bin", "s001.bin"]
    assert len(m["refused"]) == 118 and m["hashed_bytes"] == 16 << 20
    assert all(f["sha256"] == sha256(tmp_path / "many" / f["name"]) for f in m["files"])
    base, many = cpu1 - cpu0, cpu2 - cpu1
    # 960 MiB of SHA-256 is seconds of CPU; the two runs differ by 118 empty listings
    assert many < 3 * base + 0.5, (base, many)


# ------------------------------------------------------------ items 11, 12: renders

SPEC = {"folio": 1, "title": "Render", "blocks": [
    {"type": "heading", "text": "Rendered by folio", "level": 1},
    {"type": "table", "data": {"columns": ["a", "b"], "rows": [[1, 2], [3, 4]]}}]}

WRITE_SPEC = ("import json, sys\njson.dump(json.loads(sys.argv[1]), open('/out/result.json', 'w'))\n")


def test_render_is_never_shadowed_by_the_programs_file(tmp_path):
    out = tmp_path / "o"
    src = WRITE_SPEC + "open('/out/result.pdf', 'w').write('NOT A PDF, written by the program')\n"
    p = run(["--render", "pdf", "--", PY, "-c", src, json.dumps(SPEC)], out=out)
    assert p.returncode == 0, p.stderr
    assert b"refused /out/result.pdf: reserved for the --render output" in p.stderr
    assert (out / "result.pdf").read_bytes()[:5] == b"%PDF-"
    text = subprocess.run(["pdftotext", str(out / "result.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Rendered by folio" in text
    m = manifest(out)
    assert {"name": "result.pdf", "reason": "reserved for the --render output"} in m["refused"]
    assert [f["name"] for f in m["render"]["files"]] == ["result.pdf"]
    assert "result.pdf" not in [f["name"] for f in m["files"]]


def big_spec(rows):
    """A program writing a spec of one table of `rows` rows (built inside: too
    big for an argument)."""
    return ("import json\nrows = [[i, 'name %%d' %% i, i * 1.5, 'note number %%d' %% i] "
            "for i in range(%d)]\n"
            "json.dump({'folio': 1, 'title': 'Big', 'blocks': [{'type': 'table', 'data': "
            "{'columns': ['id', 'name', 'value', 'note'], 'rows': rows}}]}, "
            "open('/out/result.json', 'w'))\n" % rows)


def test_render_over_the_ceiling_exits_3_with_a_message(tmp_path):
    out = tmp_path / "o"
    p = run(["--render", "pdf", "--max-bytes", "20000", "--", PY, "-c", big_spec(200)], out=out, timeout=300)
    err = p.stderr.decode()
    assert p.returncode == 3, err
    assert ("--render pdf: a rendered file passed the ceiling of 20000 bytes (--max-bytes); "
            "nothing rendered was kept") in err
    assert not (out / "result.pdf").exists()
    assert manifest(out)["exit"] == 3


NUMBERS = ("import json\nwith open('/out/n.csv', 'w') as f:\n    f.write('a,b\\n')\n"
           "    for i in range(100000): f.write('%d,%d\\n' % (i, i * 7))\n"
           "json.dump({'folio': 1, 'data': {'n': {'csv': 'n.csv'}}, 'blocks': "
           "[{'type': 'table', 'data': 'n'}]}, open('/out/result.json', 'w'))\n")


def test_render_jail_does_not_refuse_an_xlsx_whose_work_files_pass_the_ceiling(tmp_path):
    """100k rows: a 1.3 MB CSV, a 1.4 MB .xlsx, but 9 MB of worksheet XML that
    libxlsxwriter writes first. The render jail's file-size limit must not be
    the ceiling (it killed this render with SIGXFSZ: exit 5)."""
    openpyxl = pytest.importorskip("openpyxl")
    out = tmp_path / "o"
    p = run(["--render", "xlsx", "--max-bytes", "1500000", "--", PY, "-c", NUMBERS], out=out,
            timeout=300)
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    assert os.path.getsize(out / "result.xlsx") <= 1500000
    ws = openpyxl.load_workbook(out / "result.xlsx", read_only=True).worksheets[-1]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0] == ("a", "b") and rows[-1] == (99999, 699993) and len(rows) == 100001


# ------------------------------------------------------------ item 17: --out all or nothing

TWO = "open('/out/a.txt', 'w').write('new a'); open('/out/b.txt', 'w').write('new b')"


def test_out_is_written_all_or_nothing(tmp_path):
    """b.txt cannot be put in place (a folder has its name): a.txt, already
    renamed, is rolled back to what it replaced, and so is manifest.json."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (out / "manifest.json").write_text("{\"old\": true}")
    (out / "b.txt").mkdir()
    p = run(["--", PY, "-c", TWO], out=out)
    assert p.returncode == 5
    assert "can't put %s/b.txt in place" % out in p.stderr.decode()
    assert "nothing in %s was changed" % out in p.stderr.decode()
    assert (out / "a.txt").read_text() == "old a"
    assert json.loads((out / "manifest.json").read_text()) == {"old": True}
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt", "manifest.json"]


def test_out_replaces_a_whole_set(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    p = run(["--", PY, "-c", TWO], out=out)
    assert p.returncode == 0, p.stderr
    assert (out / "a.txt").read_text() == "new a" and (out / "b.txt").read_text() == "new b"
    m = manifest(out)
    assert [f["name"] for f in m["files"]] == ["a.txt", "b.txt"]
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt", "manifest.json"]


def test_stale_out_temporaries_are_swept(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / ".a.txt.folio-zzz999").write_text("left by a killed folio")
    (out / ".manifest.json.folio~zzz999").write_text("a killed folio's backup")
    p = run(["--", PY, "-c", TWO], out=out)
    assert p.returncode == 0
    assert sorted(os.listdir(out)) == ["a.txt", "b.txt", "manifest.json"]
