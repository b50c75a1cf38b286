#!/usr/bin/env bash
# bench-session.sh — `folio session` beside Jupyter's own stack (jupyter_client +
# ipykernel from Debian, unsandboxed), with the targets of issue 10 printed
# alongside. Usage: bench/bench-session.sh FOLIO_BIN [RUNS]
# Each figure is a median (p50) and, where it matters, p95 over RUNS tries.
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
runs=${2:-30}
rt=$(mktemp -d /tmp/folio-bench-session.XXXXXX)
chmod 700 "$rt"
trap 'for i in $(XDG_RUNTIME_DIR=$rt "$folio" session ls | cut -d" " -f1) $(ls "$rt/folio/spares" 2>/dev/null); do
        XDG_RUNTIME_DIR=$rt "$folio" session close "$i"; done; rm -rf "$rt"' EXIT
export XDG_RUNTIME_DIR=$rt

PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -Xfrozen_modules=off - "$folio" "$runs" <<'EOF'
import json, os, socket, statistics, struct, subprocess, sys, time

FOLIO, RUNS = sys.argv[1], int(sys.argv[2])
RT = os.path.join(os.environ["XDG_RUNTIME_DIR"], "folio")


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def ms(xs):
    return "%.1f ms p50, %.1f p95" % (pct(xs, 50), pct(xs, 95))


def folio(*args, check=True):
    p = subprocess.run([FOLIO, "session", *args], capture_output=True, text=True)
    if check and p.returncode not in (0, 4):
        raise SystemExit("folio session %s: %s" % (args[0], p.stderr))
    return p


def timed(*args):
    t = time.perf_counter()
    p = folio(*args)
    return (time.perf_counter() - t) * 1000, p


def exec_json(sid, code, *opts):
    t, p = timed("exec", sid, "--json", *opts, "-c", code)
    return t, json.loads(p.stdout)


def sock_exec(sid, code):
    """The socket alone, as folio serve uses it: one request frame, answers to 'R'."""
    s = socket.socket(socket.AF_UNIX)
    s.connect("/proc/self/fd/%d/sock" % os.open(os.path.join(RT, sid), os.O_RDONLY))
    body = struct.pack("<IB", 0, 0) + code.encode()
    s.sendall(b"x" + struct.pack("<I", len(body)) + body)
    buf = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    return buf


def uss(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                for line in f:
                    if line.startswith(("Private_Clean:", "Private_Dirty:")):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def tree(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def supervisor(sid):
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if ("_supervise\0%s" % sid).encode() in f.read():
                        return int(d)
            except OSError:
                pass
    return None


rows = []
# ---- folio: new -> first result of 1+1: cold (a fresh jail and python per
# session) and with the spare the previous new started (docs/sessions.md)
def first_result(*opts):
    t = time.perf_counter()
    sid = folio("new", *opts).stdout.strip()
    folio("exec", sid, "-c", "1+1")
    took = (time.perf_counter() - t) * 1000
    folio("close", sid)
    return took

colds = [first_result("--cold") for _ in range(max(5, RUNS // 3))]
first_result()                                    # leaves the first spare
firsts = []
for _ in range(max(5, RUNS // 3)):
    time.sleep(0.5)                               # a backend's pace: the next spare is ready
    firsts.append(first_result())
sid = folio("new", "--memory", "1024").stdout.strip()
exec_json(sid, "1+1")
base = [timed("--help")[0] for _ in range(RUNS)]
cli = [exec_json(sid, "1+1")[0] for _ in range(RUNS)]
socket_ms = []
for _ in range(RUNS * 5):
    t = time.perf_counter()
    sock_exec(sid, "1+1")
    socket_ms.append((time.perf_counter() - t) * 1000)
inner = [exec_json(sid, "1+1")[1]["ms"] for _ in range(RUNS)]
bare_uss = uss(tree(supervisor(sid)))
exec_json(sid, "import pandas as pd, numpy as np, matplotlib.pyplot as plt")
plot = []
for _ in range(max(5, RUNS // 3)):
    t, r = exec_json(sid, "plt.plot(range(100))\nNone")
    assert r["displays"], r
    plot.append(t)
intr = []
for _ in range(5):
    t, r = exec_json(sid, "while True: pass", "--timeout", "0.2")
    assert r["status"] == "timeout", r
    intr.append(t - 200)
hard = []
for _ in range(3):
    t, r = exec_json(sid, "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                          "while True: pass", "--timeout", "0.2")
    assert r["status"] == "restarted", r
    hard.append(t - 200)
exec_json(sid, "import pandas as pd, numpy as np, matplotlib.pyplot as plt")
time.sleep(1)
loaded_uss = uss(tree(supervisor(sid)))
t, r = exec_json(sid, "import sys\nfor _ in range(160): sys.stdout.write('x' * 65536)")
big = (t, len(json.dumps(r)), r["truncated"])
exec_json(sid, "df = pd.DataFrame({'a': np.arange(1_000_000), 'b': np.random.default_rng(1)"
               ".random(1_000_000), 'c': ['k%d' % (i % 100) for i in range(1_000_000)]})")
t0 = time.perf_counter()
folio("hibernate", sid)
hib = (time.perf_counter() - t0) * 1000
store = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(RT, sid))
            for f in fs)
t, r = exec_json(sid, "len(df), round(float(df.b.sum()), 3)")
assert r["resumed"] and r["result"].startswith("(1000000"), r
resume = t
folio("close", sid)

# ---- Jupyter: jupyter_client + ipykernel, unsandboxed
jup = None
try:
    import queue
    from jupyter_client.manager import start_new_kernel

    def jrun(kc, code, timeout=60):
        t = time.perf_counter()
        msg = kc.execute(code)
        while True:
            m = kc.get_iopub_msg(timeout=timeout)
            if m["parent_header"].get("msg_id") == msg and m["msg_type"] == "status" and \
                    m["content"]["execution_state"] == "idle":
                return (time.perf_counter() - t) * 1000

    jcold = []
    for _ in range(3):
        t = time.perf_counter()
        km, kc = start_new_kernel(kernel_name="python3")
        jrun(kc, "1+1")
        jcold.append((time.perf_counter() - t) * 1000)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    km, kc = start_new_kernel(kernel_name="python3")
    jrun(kc, "1+1")
    jexec = [jrun(kc, "1+1") for _ in range(RUNS * 3)]
    jrun(kc, "import pandas as pd, numpy as np, matplotlib\nmatplotlib.use('agg')\n"
             "import matplotlib.pyplot as plt\n%matplotlib inline")
    jplot = [jrun(kc, "plt.plot(range(100));") for _ in range(max(5, RUNS // 3))]
    jint = []
    for _ in range(3):
        t = time.perf_counter()
        msg = kc.execute("while True: pass")
        time.sleep(0.2)
        km.interrupt_kernel()
        while True:
            m = kc.get_iopub_msg(timeout=30)
            if m["parent_header"].get("msg_id") == msg and m["msg_type"] == "error":
                break
        jint.append((time.perf_counter() - t) * 1000 - 200)
        jrun(kc, "1")
    time.sleep(1)
    juss = uss([km.provisioner.process.pid])
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    del kc, km
    jup = dict(cold=jcold, exec=jexec, plot=jplot, intr=jint, uss=juss)
except Exception as e:  # the anchor is optional: say why it is missing
    print("jupyter anchor unavailable: %s (apt-get install python3-jupyter-client "
          "python3-ipykernel)" % e)

def j(key, f):
    return f(jup[key]) if jup else "—"

print("%-44s | %-26s | %-26s | %s" % ("what", "folio session (jailed)", "jupyter (no jail)",
                                       "target"))
print("-" * 130)
line = lambda a, b, c, d: print("%-44s | %-26s | %-26s | %s" % (a, b, c, d))
line("new -> first result of 1+1 (a spare)", ms(firsts), j("cold", ms), "p50 <= 50 ms, p95 <= 150")
line("new -> first result of 1+1 (--cold)", ms(colds), "", "")
line("exec 1+1 through the CLI", ms(cli), j("exec", ms), "p50 <= 5 ms, p95 <= 10")
line("  the CLI's own start (folio session --help)", ms(base), "", "")
line("exec 1+1 through the socket alone", ms(socket_ms), "", "<= 1 ms")
line("  of which in the supervisor and kernel", ms(inner), "", "")
line("100-point matplotlib line -> PNG display", ms(plot), j("plot", ms), "p50 <= 100 ms")
line("interrupt -> timeout result", ms(intr), j("intr", ms), "<= 100 ms")
line("hard restart (SIGINT ignored), after grace", ms(hard), "", "<= 2 s")
line("idle session USS, nothing imported", "%.1f MB" % bare_uss, "", "<= 60 MB")
line("idle session USS, pandas+matplotlib", "%.1f MB" % loaded_uss, j("uss", lambda u: "%.1f MB" % u), "")
line("10 MB printed by a cell", "%.0f ms, result %d KB, %s" % (big[0], big[1] // 1024,
     "truncated" if big[2] else "NOT truncated"), "", "capped, with a record")
line("hibernate 1,000,000-row DataFrame", "%.0f ms, store %.1f MB" % (hib, store / 1e6), "", "")
line("resume + first cell", "%.0f ms" % resume, "", "")
EOF
