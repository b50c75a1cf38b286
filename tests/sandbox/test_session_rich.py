# test_session_rich.py — rich output of session cells (PRODUCT.md §8, "Rich
# output"; docs/sessions.md): display(), the _repr_*_ protocol, MIME bundles in
# `displays` and `result_data`, DataFrames as HTML, figures as PNG (and SVG
# when asked), bounded sizes with the truncation said, and a hostile kernel's
# bundles refused. Read back with the standard library (json, base64, html
# parsing) and pandas where the DataFrame is parsed again from its HTML.
import base64
import hashlib
import html.parser
import json
import os

import pytest

from test_session import FOLIO as FOLIO_BIN, Sessions, _SKIP, needs_mpl, needs_pandas  # noqa: F401

pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


@pytest.fixture
def s(tmp_path):
    sessions = Sessions(tmp_path)
    yield sessions
    sessions.close_all()


class Cells(html.parser.HTMLParser):
    """The text of every <td>/<th> of an HTML table, in order."""

    def __init__(self):
        super().__init__()
        self.cells, self._in = [], False

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"):
            self._in = True
            self.cells.append("")

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._in = False

    def handle_data(self, data):
        if self._in:
            self.cells[-1] += data.strip()


@needs_pandas
def test_a_dataframe_is_a_bundle_with_an_html_table(s):
    sid = s.new()
    r = s.exec(sid, "import pandas as pd\n"
                    "df = pd.DataFrame({'region': ['North', 'South'], 'delta': [3.5, -14.7]})\n"
                    "df", expect="ok")
    bundle = r["result_data"]
    assert bundle["metadata"] == {}
    assert bundle["data"]["text/plain"] == r["result"]
    cells = Cells()
    cells.feed(bundle["data"]["text/html"])
    assert cells.cells == ["", "region", "delta", "0", "North", "3.5", "1", "South", "-14.7"]


def test_display_shows_every_repr_in_order_with_the_output_around_it(s):
    sid = s.new()
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    r = s.exec(sid, "class Rich:\n"
                    "    def _repr_html_(self): return '<b>bold</b>'\n"
                    "    def _repr_markdown_(self): return '**bold**'\n"
                    "    def _repr_svg_(self): return '<svg xmlns=\"http://www.w3.org/2000/svg\"/>'\n"
                    "    def _repr_png_(self): return b'\\x89PNG\\r\\n\\x1a\\nfake'\n"
                    "    def _repr_json_(self): return {'a': [1, 2.5, None, True]}\n"
                    "    def __repr__(self): return 'Rich()'\n"
                    "class Bundle:\n"
                    "    def _repr_mimebundle_(self, include=None, exclude=None):\n"
                    "        return {'text/latex': '$x^2$', 'application/vnd.folio+json': [1]}\n"
                    "print('one')\n"
                    "display(Rich(), Bundle())\n"
                    "print('two')\n", expect="ok")
    assert r["stdout"] == "one\ntwo\n"
    rich, other = r["displays"]
    assert rich["data"] == {"text/plain": "Rich()", "text/html": "<b>bold</b>",
                            "text/markdown": "**bold**",
                            "image/svg+xml": '<svg xmlns="http://www.w3.org/2000/svg"/>',
                            "image/png": png, "application/json": {"a": [1, 2.5, None, True]}}
    assert other["data"]["text/latex"] == "$x^2$"
    assert other["data"]["application/vnd.folio+json"] == [1]
    assert other["data"]["text/plain"].startswith("<__main__.Bundle object")
    assert r["result"] is None and r["result_data"] is None


def test_the_terminal_prints_the_text_form_in_the_order_written(s):
    sid = s.new()
    p = s.run("exec", sid, "-c", "class H:\n"
                                 "    def _repr_html_(self): return '<i>x</i>'\n"
                                 "    def __repr__(self): return 'H-as-text'\n"
                                 "print('before')\n"
                                 "display(H())\n"
                                 "print('after')\n"
                                 "41 + 1\n", code=0)
    assert p.stdout == "before\nH-as-text\nafter\n42\n"
    assert "<i>" not in p.stdout


@needs_mpl
def test_a_figure_is_png_in_the_bundle_and_the_same_file_in_out(s, tmp_path):
    sid = s.new()
    r = s.exec(sid, "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nNone", expect="ok")
    (d,) = r["displays"]
    png = base64.b64decode(d["data"]["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert d["data"]["text/plain"].startswith("<Figure size")
    assert d["mime"] == "image/png" and d["path"] == "/out/displays/cell-1-1.png"
    assert d["sha256"] == hashlib.sha256(png).hexdigest() and d["bytes"] == len(png)
    s.run("get", sid, d["path"], "--out", tmp_path, code=0)
    assert (tmp_path / "cell-1-1.png").read_bytes() == png


@needs_mpl
def test_svg_figures_when_asked(s):
    sid = s.new()
    r = s.exec(sid, "import matplotlib.pyplot as plt\nset_matplotlib_formats('svg')\n"
                    "fig, ax = plt.subplots()\nax.bar(['a', 'b'], [1, 2])\ndisplay(fig)\n"
                    "plt.close(fig)\n", expect="ok")
    (d,) = r["displays"]
    assert "image/png" not in d["data"] and "path" not in d
    assert "<svg" in d["data"]["image/svg+xml"]
    r = s.exec(sid, "set_matplotlib_formats('gif')", expect="error")
    assert r["error"]["name"] == "ValueError" and "'png' and/or 'svg'" in r["error"]["value"]


def test_an_oversize_form_is_dropped_and_the_truncation_said(s):
    sid = s.new()
    r = s.exec(sid, "class Big:\n"
                    "    def _repr_html_(self): return '<p>' + 'x' * (6 << 20) + '</p>'\n"
                    "    def __repr__(self): return 'Big()'\n"
                    "Big()", expect="ok")
    b = r["result_data"]
    assert b["data"] == {"text/plain": "Big()"}
    (dropped,) = b["metadata"]["truncated"]["dropped"]
    assert dropped["mime"] == "text/html" and "cap" in dropped["reason"]
    assert b["metadata"]["truncated"]["cap_bytes"] == 4 << 20


def test_displays_are_bounded_per_cell(s):
    sid = s.new()
    r = s.exec(sid, "for k in range(40):\n    display(k)\n", expect="ok")
    assert [d["data"]["text/plain"] for d in r["displays"]] == [str(k) for k in range(32)]
    assert "32" in r["displays_dropped"]


def test_a_hostile_kernel_cannot_smuggle_json_or_names(s):
    """The kernel is the user's: a cell can reach its frame writer and send
    bundles by hand. Bad JSON, bad base64 and odd mime names are refused;
    the result stays JSON."""
    sid = s.new()
    r = s.exec(sid, "send = display.__globals__['send']\n"
                    "send('b', 'd')\n"
                    "send('m', b'text/plain\\0shown')\n"
                    "send('m', b'application/json\\0{\"a\": 1, \"b\": }')\n"
                    "send('m', b'image/png\\0not base64 \"}')\n"
                    "send('m', b'application/vnd.x+json\\0[1e999]')\n"
                    "send('m', b'Text/HTML\\0<script>')\n"
                    "send('m', b'../../etc\\0x')\n"
                    "send('B')\n", expect="ok")
    (d,) = r["displays"]
    assert d["data"] == {"text/plain": "shown"}
    reasons = {x["mime"]: x["reason"] for x in d["metadata"]["truncated"]["dropped"]}
    assert reasons == {"application/json": "not valid JSON", "image/png": "not base64",
                       "application/vnd.x+json": "not valid JSON"}
    assert json.loads(json.dumps(r)) == r


# ---------------------------------------------------------- a full disk

def test_a_full_disk_is_disk_full_not_out_of_memory(s):
    """The disk's pages are the session's memory: filling it used to end as
    `oom_killed` with "process the data in chunks". Now it is `disk_full`,
    whether the cell meets ENOSPC or the kernel is killed for it."""
    sid = s.new("--memory", "512", "--disk", "32")
    r = s.exec(sid, "open('/work/a', 'wb').write(b'x' * (20 << 20))\n"
                    "open('/work/b', 'wb').write(b'x' * (20 << 20))\n", expect="error")
    assert r["error"]["value"].startswith("[Errno 28]")
    assert r["failure"]["code"] == "disk_full" and "--disk" in r["failure"]["hint"]
    assert "os.remove" in r["failure"]["hint"]

    sid = s.new("--cold", "--memory", "128")                 # disk = memory
    r = s.exec(sid, "import os\nfor k in range(20):\n"
                    "    open('/tmp/f%d' % k, 'wb').write(os.urandom(8 << 20))\n",
               expect="restarted")
    assert r["failure"]["code"] == "disk_full", r["failure"]
    assert "variables lost" in r["failure"]["message"]
    r = s.exec(sid, "import os\nfor f in os.listdir('/tmp'):\n"
                    "    f.startswith('f') and os.remove('/tmp/' + f)\n"
                    "x = bytearray(300 << 20)\n", expect="restarted")
    assert r["failure"]["code"] == "oom_killed"             # memory, not files: as before
    assert "hold 0 MB" in r["failure"]["message"]


# ------------------------------------------------------- Ctrl-C in a terminal

LOOP = "import time\nn = 0\nwhile True:\n    n += 1\n    time.sleep(0.01)\n"


def test_ctrl_c_interrupts_the_cell_and_keeps_the_variables(s):
    import signal
    import subprocess
    from test_session import FOLIO
    sid = s.new()
    p = subprocess.Popen([FOLIO, "session", "exec", sid, "--json", "-c", LOOP],
                         env=s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # a --json exec prints nothing until the end: give the loop time to start
        import time
        time.sleep(2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    r = json.loads(out)
    assert p.returncode == 4 and r["status"] == "interrupted", (out, err)
    assert r["failure"]["code"] == "interrupted" and r["error"]["name"] == "KeyboardInterrupt"
    r = s.exec(sid, "n > 10", expect="ok")
    assert r["result"] == "True"                           # the loop's variable is kept


def _cpu_share_files():
    """The cpu.shares (cgroup v1) or cpu.weight (v2) file of every folio cgroup."""
    import glob
    return set(glob.glob("/sys/fs/cgroup/cpu/folio-*/cpu.shares") +
               glob.glob("/sys/fs/cgroup/folio*/cpu.weight") +
               glob.glob("/sys/fs/cgroup/*/folio*/cpu.weight"))


def test_a_long_cell_yields_the_cpu_to_quicker_ones(s):
    """After a second, a running cell's session gets a tenth of the default
    CPU weight (a 1+1 in another session is not queued behind it); at its
    end the weight is back."""
    import subprocess
    import time
    old = _cpu_share_files()
    sid = s.new("--cold")                         # no spare: its cgroup is the new one
    files = sorted(_cpu_share_files() - old)
    if len(files) != 1:
        pytest.skip("no cpu controller for the session's cgroup here")
    idle = os.path.join(os.path.dirname(files[0]), "cpu.idle")   # the kernel's (5.15+)
    has_idle = os.path.exists(idle)
    before = open(files[0]).read().strip()
    p = subprocess.Popen([FOLIO_BIN, "session", "exec", sid, "-c", "import time\ntime.sleep(2.5)"],
                         env=s.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(1.8)
    during = open(files[0]).read().strip()
    idle_during = open(idle).read().strip() if has_idle else "1"
    p.communicate(timeout=30)
    after = open(files[0]).read().strip()
    idle_after = open(idle).read().strip() if has_idle else "0"
    assert int(during) * 10 <= int(before) + 30 and after == before, (before, during, after)
    # an idle group: a task of another session that wakes preempts it at once
    assert (idle_during, idle_after) == ("1", "0")
