#!/usr/bin/env bash
# bench-live.sh — live cells beside Jupyter (jupyter_client + ipykernel) on
# loopback: exec round trip, interrupt -> answer, first streamed byte, and
# /healthz and another session's 1+1 while 16 sessions run busy cells over 20
# keep-alive connections. ROUNDS=N (default 20), BUSY=N (default 16).
set -euo pipefail
folio=${1:-build/folio}
here=$(cd "$(dirname "$0")" && pwd)
echo "machine: $(nproc) cores; fork+exit floor: $(python3 -c 'import os,time
t=time.perf_counter()
for _ in range(200):
    p=os.fork()
    if p==0: os._exit(0)
    os.waitpid(p,0)
print("%.2f ms" % ((time.perf_counter()-t)/200*1e3))')"
/usr/bin/python3 "$here/live_bench.py" "$folio" "${ROUNDS:-20}"
