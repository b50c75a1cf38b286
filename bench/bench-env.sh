#!/usr/bin/env bash
# bench-env.sh — the environment (docs/environment.md): the import of pandas +
# matplotlib + scikit-learn in a fresh session and the idle memory after it,
# beside a plain ipykernel (jupyter_client, unsandboxed) doing the same; and
# `folio env` cold (a jail) and cached. Usage: bench/bench-env.sh FOLIO_BIN [RUNS]
set -uo pipefail
folio=$(readlink -f "${1:-build/folio}")
runs=${2:-5}
rt=$(mktemp -d /tmp/folio-bench-env.XXXXXX)
chmod 700 "$rt"
trap 'for i in $(XDG_RUNTIME_DIR=$rt "$folio" session ls | cut -d" " -f1) $(ls "$rt/folio/spares" 2>/dev/null); do
        XDG_RUNTIME_DIR=$rt "$folio" session close "$i"; done; rm -rf "$rt"' EXIT
export XDG_RUNTIME_DIR=$rt

PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/python3 -Xfrozen_modules=off - "$folio" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time

FOLIO, RUNS = sys.argv[1], int(sys.argv[2])
IMPORT = "import pandas, matplotlib.pyplot, sklearn.linear_model"


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
                    if b"_supervise\0" + sid.encode() in f.read():
                        return int(d)
            except OSError:
                pass
    raise SystemExit("no supervisor for " + sid)


def session(*args):
    p = subprocess.run([FOLIO, "session", *args], capture_output=True, text=True)
    if p.returncode not in (0, 4):
        raise SystemExit("folio session %s: %s" % (args[0], p.stderr))
    return p.stdout


fimp, fuss = [], []
for _ in range(RUNS):
    sid = session("new", "--cold", "--memory", "2048").strip()
    session("exec", sid, "-c", "1")
    t = time.perf_counter()
    r = json.loads(session("exec", sid, "--json", "-c", IMPORT))
    fimp.append((time.perf_counter() - t) * 1000)
    assert r["status"] == "ok", r
    time.sleep(1)
    fuss.append(uss(tree(supervisor(sid))))
    session("close", sid)

jimp, juss = [], []
try:
    from jupyter_client.manager import start_new_kernel

    def jrun(kc, code):
        t = time.perf_counter()
        msg = kc.execute(code)
        while True:
            m = kc.get_iopub_msg(timeout=120)
            if m["parent_header"].get("msg_id") == msg and m["msg_type"] == "status" and \
                    m["content"]["execution_state"] == "idle":
                return (time.perf_counter() - t) * 1000

    for _ in range(RUNS):
        km, kc = start_new_kernel(kernel_name="python3")
        jrun(kc, "1")
        jimp.append(jrun(kc, IMPORT))
        time.sleep(1)
        juss.append(uss([km.provisioner.process.pid]))
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        del kc, km                      # before exit: jupyter_client's __del__ logs
except Exception as e:  # the anchor is optional
    print("jupyter anchor unavailable: %s (apt-get install python3-jupyter-client python3-ipykernel)" % e)

env_rt = os.path.join(os.environ["XDG_RUNTIME_DIR"], "folio")
cold, warm = [], []
for _ in range(RUNS):
    t = time.perf_counter()
    subprocess.run([FOLIO, "env", "--json", "--refresh"], capture_output=True, check=True)
    cold.append((time.perf_counter() - t) * 1000)
    t = time.perf_counter()
    subprocess.run([FOLIO, "env", "--json"], capture_output=True, check=True)
    warm.append((time.perf_counter() - t) * 1000)

med = statistics.median
print("%-46s | %-16s | %-16s | %s" % ("what (median of %d)" % RUNS, "folio session", "ipykernel", "ratio"))
print("%-46s | %-16s | %-16s | %s" % ("import pandas+matplotlib+sklearn, fresh", "%.0f ms" % med(fimp),
      "%.0f ms" % med(jimp) if jimp else "-", "%.2f" % (med(fimp) / med(jimp)) if jimp else "-"))
print("%-46s | %-16s | %-16s | %s" % ("idle USS after it (supervisor+init+kernel)", "%.1f MB" % med(fuss),
      "%.1f MB" % med(juss) if juss else "-", "%.2f" % (med(fuss) / med(juss)) if juss else "-"))
print("%-46s | %-16s | %-16s | %s" % ("folio env --json: cold (a jail) / cached", "%.0f / %.1f ms" % (med(cold), med(warm)),
      "", "%.0fx" % (med(cold) / med(warm))))
PY
