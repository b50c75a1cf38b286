# folio_kernel.py — the Python kernel of a folio session (docs/sessions.md).
#
# Runs inside the session's jail: `python3 -E -s -c BOOT` reads this file,
# embedded into folio at build time (nothing is written or generated at run
# time), from fd 0 up to a NUL and runs it as <folio-kernel>. It then reads
# requests from fd 0 and answers on fd 1, both in folio's frame format:
#
#     [type: 1 byte][length: 4 bytes, little-endian][payload: length bytes]
#
# Requests:  'c' cell (u32 LE cell number, then UTF-8 code), 'h' hibernate
#            (save picklable globals to /tmp/.folio/state.pkl), 'r' restore.
# Answers:   'k' ready; 'o'/'e' stdout/stderr bytes (<= 64 KiB each);
#            'x' repr of a last bare expression; 'n' 'v' 't' error name,
#            value, traceback; 'b' a MIME bundle begins (payload 'd' for a
#            display, 'x' for the last expression's value, then for a figure
#            also saved to /out its path below /out), 'm' one representation
#            of it ("mime\0data"; several 'm' of one mime in a row are one
#            value cut in pieces), 'B' the bundle ends; 'u' a name that was
#            not saved or restored, with the reason; 'E' end, payload "ok"
#            or "error"; 'h' a hint on the error (a missing module: what
#            lists the environment, what would install it).
# The host trusts none of it: it bounds every frame and builds the result
# object itself. File descriptors 1 and 2 of the cell (and of anything it
# starts) are pipes this kernel reads in a thread and forwards as 'o'/'e'.
import ast
import base64
import fcntl
import io
import linecache
import os
import pickle
import signal
import struct
import sys
import termios
import threading
import time
import traceback
import types
import json

MAX_TEXT = 65536                  # repr, error value, traceback, one stream frame
VALUE_CAP = 256 << 20             # one pickled variable
TOTAL_CAP = 1 << 30               # all of them
STATE = "/tmp/.folio/state.pkl"
BUNDLE_CAP = 4 << 20              # one MIME bundle (the host bounds it again)
PIECE = 60000                     # one 'm' frame's data

_send_lock = threading.Lock()
_rep = None                       # the answer channel (the original fd 1)
_in_cell = False
_capture = None                   # the cell's stdout/stderr pump (Capture)


def send(kind, payload=b""):
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "replace")
    head = kind.encode() + struct.pack("<I", len(payload))
    with _send_lock:
        _write_all(head + payload)


def _write_all(data):
    view = memoryview(data)
    while view:
        n = os.write(_rep, view)
        view = view[n:]


def _read_exact(fd, n):
    chunks = []
    while n:
        b = os.read(fd, n)
        if not b:
            raise EOFError
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def clip(text, cap=MAX_TEXT):
    b = text.encode("utf-8", "replace")
    if len(b) <= cap:
        return b
    return b[:cap - 40].decode("utf-8", "ignore").encode() + b"\n... [%d bytes cut]" % (len(b) - cap + 40)


# ------------------------------------------------------------ output capture

class Capture:
    """fd 1 and 2 become pipes; a thread forwards what arrives as frames."""

    def __init__(self):
        self.pipes = {}
        for fd, kind in ((1, "o"), (2, "e")):
            r, w = os.pipe()
            os.dup2(w, fd)
            os.close(w)
            os.set_blocking(r, False)
            self.pipes[r] = kind
        self.busy = threading.Lock()
        threading.Thread(target=self.pump, daemon=True).start()

    def pump(self):
        import select
        while True:
            ready, _, _ = select.select(list(self.pipes), [], [])
            with self.busy:
                for r in ready:
                    try:
                        data = os.read(r, MAX_TEXT)
                    except BlockingIOError:
                        continue
                    if data:
                        send(self.pipes[r], data)

    def pending(self):
        buf = bytearray(4)
        n = 0
        for r in self.pipes:
            fcntl.ioctl(r, termios.FIONREAD, buf)
            n += struct.unpack("i", buf)[0]
        return n

    def drain(self):
        """Everything the cell wrote is forwarded before the end frame."""
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        deadline = time.monotonic() + 2     # a thread that keeps printing can't hold the cell
        while time.monotonic() < deadline:
            with self.busy:
                if self.pending() == 0:
                    return
            time.sleep(0.0002)


# ------------------------------------------------------------ rich output

# The representations a notebook asks an object for, in the order it asks.
REPRS = (("_repr_html_", "text/html"), ("_repr_markdown_", "text/markdown"),
         ("_repr_svg_", "image/svg+xml"), ("_repr_png_", "image/png"),
         ("_repr_jpeg_", "image/jpeg"), ("_repr_latex_", "text/latex"),
         ("_repr_json_", "application/json"))
BINARY = ("image/png", "image/jpeg")
figure_formats = ["png"]


def set_matplotlib_formats(*formats):
    """As IPython's: which forms a matplotlib figure is shown in ('png', 'svg')."""
    bad = [f for f in formats if f not in ("png", "svg")]
    if bad or not formats:
        raise ValueError("set_matplotlib_formats takes 'png' and/or 'svg', not %r" % (bad or formats,))
    figure_formats[:] = list(dict.fromkeys(formats))


def _encode(mime, value):
    """A representation as the text a bundle carries, or None."""
    if value is None:
        return None
    if mime in BINARY:
        if isinstance(value, str):
            return value            # already base64, as IPython allows
        return base64.b64encode(bytes(value)).decode("ascii")
    if mime == "application/json":
        return json.dumps(value, allow_nan=False, default=str)
    return value if isinstance(value, str) else str(value)


def _figure_data(fig, data, path=None):
    import io
    if "png" in figure_formats:
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        png = buf.getvalue()
        data["image/png"] = base64.b64encode(png).decode("ascii")
        if path:
            with open("/out/" + path, "wb") as f:
                f.write(png)
    if "svg" in figure_formats:
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        data["image/svg+xml"] = buf.getvalue()


def _is_figure(obj):
    figure = getattr(sys.modules.get("matplotlib.figure"), "Figure", None)
    return figure is not None and isinstance(obj, figure)


def mime_bundle(obj):
    """{mime: text} for obj as a notebook would show it; text/plain always."""
    data = {}
    if not isinstance(obj, type):       # a class's _repr_html_ is unbound
        rich = getattr(obj, "_repr_mimebundle_", None)
        if callable(rich):
            try:
                got = rich(include=None, exclude=None)
                got = got[0] if isinstance(got, tuple) else got
                for mime, value in (got or {}).items():
                    data[mime] = _encode(mime, value)
            except Exception:
                pass
        for attr, mime in REPRS:
            method = getattr(obj, attr, None)
            if mime in data or not callable(method):
                continue
            try:
                value = method()
                if isinstance(value, tuple) and len(value) == 2:
                    value = value[0]
                data[mime] = _encode(mime, value)
            except Exception:
                continue
        if _is_figure(obj):
            try:
                _figure_data(obj, data)
            except Exception as e:
                sys.stderr.write("folio: can't draw the figure: %s\n" % e)
    data = {m: v for m, v in data.items() if v is not None}
    try:
        data["text/plain"] = repr(obj)
    except Exception as e:
        data["text/plain"] = "<%s object: repr failed: %s>" % (type(obj).__name__, e)
    return data


def send_bundle(kind, data, path=None):
    """The bundle as frames: 'b', an 'm' per piece of each representation
    (text/plain first and clipped, so that it survives any cap), 'B'."""
    head = kind + ("\0" + path if path else "")
    send("b", head)
    room = BUNDLE_CAP
    order = ["text/plain"] + sorted(m for m in data if m != "text/plain")
    for mime in order:
        text = data[mime].encode("utf-8", "replace") if mime != "text/plain" else clip(data[mime])
        if len(text) > room:             # past the cap: the host drops it and says so
            text = text[:room + 1]
        room -= min(len(text), room)
        for off in range(0, max(len(text), 1), PIECE):
            send("m", mime.encode("ascii", "replace") + b"\0" + text[off:off + PIECE])
    send("B")


def _output_first():
    """What the cell printed so far goes out before what it shows next."""
    if _capture is not None:
        _capture.drain()


def display(*objs, raw=False, **_ignored):
    """Shows each object as a notebook does (IPython.display.display)."""
    for obj in objs:
        if raw and isinstance(obj, dict):
            data = {m: _encode(m, v) for m, v in obj.items()}
            data = {m: v for m, v in data.items() if v is not None}
            data.setdefault("text/plain", "")
        else:
            data = mime_bundle(obj)
        _output_first()
        send_bundle("d", data)


class _IPythonDisplayHook:
    """When the cell imports IPython.display, its display() becomes ours
    (without a running IPython shell it would only print reprs)."""

    def find_spec(self, name, path=None, target=None):
        if name not in ("IPython.display", "IPython.core.display_functions"):
            return None
        import importlib.machinery
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                inner = spec.loader.exec_module

                def exec_module(module, inner=inner):
                    inner(module)
                    module.display = display
                spec.loader.exec_module = exec_module
                return spec
        return None


# ----------------------------------------------------------------- cells

def _on_sigint(signum, frame):
    if _in_cell:
        raise KeyboardInterrupt
    # between cells: nothing to interrupt


def user_traceback(exc):
    """The traceback as a notebook shows it: the kernel's own frames dropped."""
    only = traceback.format_exception_only(type(exc), exc)
    if isinstance(exc, SyntaxError):
        return "".join(only)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != "<folio-kernel>"]
    return "".join(["Traceback (most recent call last):\n"] + traceback.format_list(frames) + only)


def show_figures(cell):
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    nums = plt.get_fignums()
    if nums:
        os.makedirs("/out/displays", exist_ok=True)
    for k, num in enumerate(nums, 1):
        rel = "displays/cell-%d-%d.png" % (cell, k)
        try:
            fig = plt.figure(num)
            data = {}
            _figure_data(fig, data, rel if "png" in figure_formats else None)
            data["text/plain"] = repr(fig)
            send_bundle("d", data, rel if "png" in figure_formats else None)
        except Exception as e:  # a broken figure must not lose the cell
            sys.stderr.write("folio: can't save figure %d: %s\n" % (num, e))
    plt.close("all")


# ------------------------------------------------------ the environment

VENV = "/work/.venv"              # where pip installs (the jail's /run/bin/pip)
_venv_seen = None                 # (site folder, mtime) last taken into sys.path


def use_venv():
    """Packages pip installed since the last cell become importable: the
    virtual environment's site folder goes into sys.path before the
    system's (an upgrade there wins), its .pth files are read, and the
    import system's folder caches are dropped when the folder changed."""
    global _venv_seen
    import site
    site_dir = "%s/lib/python%d.%d/site-packages" % (VENV, sys.version_info[0], sys.version_info[1])
    try:
        mtime = os.stat(site_dir).st_mtime_ns
    except OSError:
        return False
    if _venv_seen == (site_dir, mtime):
        return False
    before = list(sys.path)
    site.addsitedir(site_dir)
    added = [p for p in sys.path if p not in before]
    if added:
        rest = [p for p in sys.path if p not in added]
        at = next((k for k, p in enumerate(rest) if p.startswith(("/usr/lib/python3", "/usr/local/lib/python3"))
                   and "-packages" in p), len(rest))
        sys.path[:] = rest[:at] + added + rest[at:]
    import importlib
    importlib.invalidate_caches()
    _venv_seen = (site_dir, mtime)
    return True


class VenvFinder:
    """Last on sys.meta_path: a top-level import that nothing found looks
    again once pip installed something in this same cell."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is not None or not use_venv():
            return None
        import importlib.machinery
        return importlib.machinery.PathFinder.find_spec(name)


def repair_venv():
    """A hibernated /work comes back without links: the virtual
    environment's interpreter links are made again."""
    if not os.path.exists(VENV + "/pyvenv.cfg"):
        return
    ver = "python%d.%d" % sys.version_info[:2]
    for link, target in (("bin/python3", "/usr/bin/python3"), ("bin/python", "python3"),
                         ("bin/" + ver, "python3"), ("lib64", "lib")):
        path = os.path.join(VENV, link)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.lexists(path):
                os.symlink(target, path)
        except OSError:
            pass


# modules whose package on the index is named otherwise
_INDEX_NAMES = {"sklearn": "scikit-learn", "PIL": "pillow", "cv2": "opencv-python-headless",
                "yaml": "pyyaml", "docx": "python-docx", "pptx": "python-pptx",
                "bs4": "beautifulsoup4", "dateutil": "python-dateutil", "Crypto": "pycryptodome"}


def missing_module_hint(exc):
    """What a model needs after `import x` failed: where the list of the
    environment is and which policy would let the cell install x."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    dist = _INDEX_NAMES.get(top, top)
    net = os.environ.get("FOLIO_NET", "none")
    if net == "none":
        how = ("this sandbox has no network (--net none): start the session with --net packages "
               "to pip install %s from the package index, or upload a wheel and pip install "
               "/work/FILE.whl" % dist)
    else:
        how = ("install it into the session with pip install %s (shell) or "
               "subprocess.run([sys.executable, '-m', 'pip', 'install', '%s']); "
               "it needs --net packages (or an allow list naming the index)" % (dist, dist))
    return "no module %s in this sandbox; `folio env` (GET /v1/environment) lists what it has; %s" % (top, how)


def run_cell(ns, cell, code, capture):
    global _in_cell
    name = "<cell-%d>" % cell
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    status = "ok"
    try:
        tree = ast.parse(code, name, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, name, "exec")
        tail = compile(last, name, "eval") if last is not None else None
        signal.signal(signal.SIGINT, _on_sigint)
        _in_cell = True
        try:
            exec(body, ns)
            value = eval(tail, ns) if tail is not None else None
        finally:
            _in_cell = False
        if value is not None:
            ns["_"] = value
            data = mime_bundle(value)
            _output_first()
            send("x", clip(data["text/plain"]))
            send_bundle("x", data)
    except BaseException as exc:  # noqa: B902 — the cell's error, whatever it is
        _in_cell = False
        status = "error"
        if isinstance(exc, SystemExit) and exc.code in (None, 0):
            status = "ok"
        else:
            send("n", clip(type(exc).__name__, 256))
            send("v", clip(str(exc)))
            send("t", clip(user_traceback(exc)))
            hint = missing_module_hint(exc)
            if hint:
                send("h", clip(hint + "\n"))
    try:
        show_figures(cell)
    except BaseException:
        pass
    capture.drain()
    return status


# ------------------------------------------------------------ hibernation

def _defined_here(value):
    mod = getattr(value, "__module__", None)
    return isinstance(value, (types.FunctionType, type)) and mod == "__main__"


def _file_ceiling():
    """The largest file this process may write (RLIMIT_FSIZE: folio's --max-bytes)."""
    import resource
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return soft - 1 if soft != resource.RLIM_INFINITY else VALUE_CAP   # folio sets it 1 over


def hibernate(ns):
    """Each variable pickled into its own files beside STATE, in pieces no
    larger than the file ceiling (one file of them all would be cut there),
    then STATE: the index of names, modules and what could not be saved."""
    try:
        import dill as pickler
    except ImportError:
        pickler = pickle
    folder = os.path.dirname(STATE)
    os.makedirs(folder, exist_ok=True)
    piece = max(1 << 20, _file_ceiling())
    values, modules, lost, total = {}, {}, [], 0
    for name, value in list(ns.items()):
        if name.startswith("__") or name == "_":
            continue
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
            continue
        if isinstance(value, io.IOBase):
            # dill would pickle it, and its unpickling reopens the path with
            # the same mode: "w" truncates the file just restored
            lost.append((name, "%s file object: not saved (the file itself is; open it "
                               "again)" % ("a closed" if value.closed else "an open")))
            continue
        if pickler is pickle and _defined_here(value):
            lost.append((name, "%s defined in a cell: run that cell again" % type(value).__name__))
            continue
        try:
            data = pickler.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:
            lost.append((name, "%s can't be saved (%s)" % (type(value).__name__, str(e)[:200])))
            continue
        if len(data) > VALUE_CAP or total + len(data) > TOTAL_CAP:
            lost.append((name, "%s too big to save (%d bytes; at most %d a variable, %d in all)"
                         % (type(value).__name__, len(data), VALUE_CAP, TOTAL_CAP)))
            continue
        files = []
        try:
            for off in range(0, max(len(data), 1), piece):
                files.append("v%d.%d.pkl" % (len(values), len(files)))
                with open(os.path.join(folder, files[-1]), "wb") as f:
                    f.write(data[off:off + piece])
        except OSError as e:
            lost.append((name, "%s can't be saved (%s)" % (type(value).__name__, e.strerror)))
            for file in files:
                try:
                    os.unlink(os.path.join(folder, file))
                except OSError:
                    pass
            continue
        values[name] = files
        total += len(data)
        del data
    with open(STATE, "wb") as f:
        pickle.dump({"modules": modules, "values": values, "lost": lost,
                     "pickler": pickler.__name__}, f, protocol=pickle.HIGHEST_PROTOCOL)
    for name, why in lost:
        send("u", "%s\t%s" % (name, why))


def restore(ns):
    try:
        with open(STATE, "rb") as f:
            state = pickle.load(f)
        os.unlink(STATE)
    except FileNotFoundError:
        return
    pickler = pickle
    if state.get("pickler") == "dill":
        try:
            import dill as pickler
        except ImportError:
            pass
    import importlib
    for name, module in state["modules"].items():
        try:
            ns[name] = importlib.import_module(module)
        except Exception as e:
            send("u", "%s\tmodule %s not importable (%s)" % (name, module, str(e)[:200]))
    folder = os.path.dirname(STATE)
    for name, files in state["values"].items():
        paths = [os.path.join(folder, os.path.basename(f)) for f in files]
        try:
            data = b"".join(open(p, "rb").read() for p in paths)
            ns[name] = pickler.loads(data)
            del data
        except Exception as e:
            send("u", "%s\tcan't be restored (%s)" % (name, str(e)[:200]))
        for p in paths:
            try:
                os.unlink(p)
            except OSError:
                pass
    for name, why in state["lost"]:
        send("u", "%s\t%s" % (name, why))


# ------------------------------------------------------------------ main

def main():
    global _rep, _capture
    os.set_inheritable(_ERR, False)
    cmd = os.dup(0)
    _rep = os.dup(1)
    for fd in (cmd, _rep):
        os.set_inheritable(fd, False)
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)

    capture = _capture = Capture()
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace",
                      closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace",
                      closefd=False)
    sys.stdin = open(0, "r", closefd=False)
    signal.signal(signal.SIGINT, _on_sigint)
    main_mod = types.ModuleType("__main__")
    main_mod.__builtins__ = __builtins__
    sys.modules["__main__"] = main_mod
    ns = main_mod.__dict__
    import builtins
    builtins.display = display
    builtins.set_matplotlib_formats = set_matplotlib_formats
    sys.meta_path.insert(0, _IPythonDisplayHook())
    if "/work" not in sys.path:
        sys.path.insert(0, "/work")
    sys.meta_path.append(VenvFinder)
    if os.path.exists("/run/bin/python3"):
        sys.executable = "/run/bin/python3"   # sys.executable -m pip installs into /work/.venv
    send("k", sys.version.split()[0])
    while True:
        try:
            head = _read_exact(cmd, 5)
            kind, length = head[:1], struct.unpack("<I", head[1:])[0]
            payload = _read_exact(cmd, length)
        except EOFError:
            os._exit(0)
        if kind == b"c":
            use_venv()
            cell = struct.unpack("<I", payload[:4])[0]
            status = run_cell(ns, cell, payload[4:].decode("utf-8", "replace"), capture)
        elif kind == b"h":
            hibernate(ns)
            status = "ok"
        elif kind == b"r":
            repair_venv()
            use_venv()
            restore(ns)
            status = "ok"
        else:
            status = "error"
        send("E", status)


_ERR = os.dup(2)        # the jail's stderr pipe: where the kernel's own failure goes
try:
    main()
except BaseException:
    os.write(_ERR, traceback.format_exc().encode("utf-8", "replace"))
    os._exit(70)
