# egress_bench.py — the client and server of bench/bench-egress.sh.
#   serve FILE           an HTTP/1.0 server on 127.0.0.1 (port printed) that
#                        answers every GET with FILE by sendfile(): the server
#                        never limits what is measured
#   bulk URL PROXY       MB/s of one download of URL (PROXY "-" for direct)
#   latency URL PROXY N  mean ms of N sequential new connections fetching URL
# Proxied requests are plain HTTP in absolute form, one connection each, as
# urllib and curl send them through HTTP_PROXY.
import os
import socket
import sys
import threading
import time
from urllib.parse import urlsplit


def serve(path):
    size = os.path.getsize(path)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(256)
    print(s.getsockname()[1], flush=True)

    def one(c):
        with c, open(path, "rb") as f:
            buf = b""
            while b"\r\n\r\n" not in buf:
                d = c.recv(4096)
                if not d:
                    return
                buf += d
            small = b" /small " in buf.split(b"\r\n")[0]
            body = size if not small else 2
            c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % body)
            if small:
                c.sendall(b"ok")
            else:
                c.sendfile(f)

    while True:
        c, _ = s.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


def fetch(url, proxy, sink=True):
    u = urlsplit(url)
    if proxy == "-":
        addr, target = (u.hostname, u.port or 80), u.path
    else:
        p = urlsplit(proxy)
        addr, target = (p.hostname, p.port), url
    c = socket.create_connection(addr)
    c.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
               % (target, u.netloc)).encode())
    n = 0
    buf = bytearray(1 << 20)
    while True:
        k = c.recv_into(buf)
        if not k:
            break
        n += k
    c.close()
    return n


def main():
    cmd = sys.argv[1]
    if cmd == "serve":
        serve(sys.argv[2])
    elif cmd == "bulk":
        t0 = time.perf_counter()
        n = fetch(sys.argv[2], sys.argv[3])
        print("%.0f" % (n / (time.perf_counter() - t0) / 1e6))
    elif cmd == "latency":
        n = int(sys.argv[4])
        fetch(sys.argv[2], sys.argv[3])               # warm up
        t0 = time.perf_counter()
        for _ in range(n):
            fetch(sys.argv[2], sys.argv[3])
        print("%.3f" % ((time.perf_counter() - t0) / n * 1000))


if __name__ == "__main__":
    main()
