# egress_dns.py — a tiny authoritative DNS responder for tests/sandbox/test_egress.py.
# Runs in the test's own network namespace on 127.0.0.1:53 (UDP), answers A and
# AAAA from a JSON map and logs every query it sees ("name TYPE" per line), so a
# test can prove that a refused name caused no query at all.
#
#   python3 egress_dns.py ANSWERS.json LOG
# ANSWERS: {"name": {"A": [[addr, ...], [addr, ...]], "AAAA": [[...]]}}: the n-th
# query for a name and type gets the n-th list (the last one repeats), which is
# how a test stages DNS rebinding. Unknown names: NXDOMAIN. {"name": "drop"}: no
# answer at all (a lookup that hangs until the resolver gives up).
import json
import socket
import struct
import sys

TYPES = {1: "A", 28: "AAAA"}


def qname(msg, off):
    labels = []
    while msg[off]:
        n = msg[off]
        labels.append(msg[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n
    return ".".join(labels).lower(), off + 1


def main():
    answers = json.load(open(sys.argv[1]))
    log = open(sys.argv[2], "a", buffering=1)
    seen = {}
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 53))
    print("ready", flush=True)
    while True:
        msg, peer = s.recvfrom(1500)
        if len(msg) < 17:
            continue
        name, off = qname(msg, 12)
        qtype = struct.unpack("!H", msg[off:off + 2])[0]
        tname = TYPES.get(qtype, str(qtype))
        log.write("%s %s\n" % (name, tname))
        question = msg[12:off + 4]
        entry = answers.get(name)
        if entry == "drop":
            continue
        rcode, rrs = 0, []
        if entry is None:
            rcode = 3
        else:
            lists = entry.get(tname, [[]])
            k = seen.get((name, tname), 0)
            seen[(name, tname)] = k + 1
            for a in lists[min(k, len(lists) - 1)]:
                fam = socket.AF_INET if qtype == 1 else socket.AF_INET6
                data = socket.inet_pton(fam, a)
                rrs.append(b"\xc0\x0c" + struct.pack("!HHIH", qtype, 1, 0, len(data)) + data)
        head = msg[:2] + struct.pack("!BBHHHH", 0x81, 0x80 | rcode, 1, len(rrs), 0, 0)
        s.sendto(head + question + b"".join(rrs), peer)


if __name__ == "__main__":
    main()
