#!/usr/bin/python3
"""rusage.py — runs one command and prints "wall_s cpu_s rss_kb" for it, to
the millisecond.

/usr/bin/time reads the same wait4() rusage but prints CPU in hundredths of
a second, too coarse for a 0.07 s render. The kernel accounts a process's
user + system time from its scheduler runtime (nanoseconds), so the sum read
here is exact; only the user/system split is sampled. cpu_s is that sum,
rss_kb the peak resident set (ru_maxrss), wall_s from spawn to reap.

usage: rusage.py OUT_FILE ERR_FILE CMD [ARG...]
  writes the line to OUT_FILE, CMD's stderr to ERR_FILE (its stdout is
  discarded); exits with CMD's status (128 + N when killed by signal N)."""
import os
import subprocess
import sys
import time


def main():
    out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(err, "wb") as errf:
        start = time.monotonic()
        child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=errf)
        _, status, use = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    with open(out, "w") as f:
        f.write("%.3f %.3f %d\n" % (wall, use.ru_utime + use.ru_stime, use.ru_maxrss))
    code = child.returncode
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
