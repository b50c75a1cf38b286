# test_egress.py — `folio run --net allow=LIST / packages` (PRODUCT.md §5.1,
# docs/egress.md): what the program in the jail can reach through the egress
# proxy and what it cannot, checked from inside the jail, from the servers'
# side and from the manifest's egress log. No internet: servers on loopback,
# named with --net-resolve; the DNS tests run folio in a network namespace of
# their own with a test DNS server (skipped where netns can't be created).
import hashlib
import json
import os
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FOLIO = os.environ.get("FOLIO", os.path.join(ROOT, "build", "folio"))
PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))


def _probe():
    if not os.path.exists(FOLIO):
        return "no folio binary at %s (set FOLIO)" % FOLIO
    p = subprocess.run([FOLIO, "run", "--quiet", "--net", "allow=a.test", "--", "/bin/true"],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return "folio run --net allow= does not work here (%d): %s" % (p.returncode, p.stderr[:300])
    return None


_SKIP = _probe()
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


# ------------------------------------------------------------------ servers

class Backlogged(ThreadingHTTPServer):
    """socketserver listens with a backlog of 5: 200 connections at once
    through the proxy then lose SYNs, which the kernel resends after 1 s,
    then 3 s (a test of the proxy took 5-8 s on it now and then)."""
    request_queue_size = 512


class Server:
    """An HTTP(S) server on 127.0.0.1 in a thread; records each request."""

    def __init__(self, files=None, cert=None):
        self.requests = []
        self.files = files or {}
        owner = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *a):
                pass

            def _reply(self, body):
                owner.requests.append((self.command, self.path, dict(self.headers)))
                if body is None:
                    self.send_response(404)
                    body = b"missing\n"
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                if self.path.endswith("/"):
                    self.send_header("Content-Type", "text/html")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_GET(self):
                self._reply(owner.files.get(self.path))

            do_HEAD = do_GET

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                data = self.rfile.read(n)
                self._reply(b"got %d bytes: %s" % (n, hashlib.sha256(data).hexdigest().encode()))

        self.httpd = Backlogged(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        if cert:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert[1], cert[0])
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.t = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.t.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def web():
    s = Server({"/hello.txt": b"hello from a.example.test\n", "/big": os.urandom(300000)})
    yield s
    s.close()


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    key, crt = str(d / "key.pem"), str(d / "cert.pem")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", crt, "-days", "2", "-subj", "/CN=tls.example.test", "-addext",
                        "subjectAltName=DNS:tls.example.test,DNS:other.example.test"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("openssl can't make a certificate: " + p.stderr[:200])
    return key, crt


@pytest.fixture
def tls(cert):
    s = Server({"/secret.txt": b"over TLS through CONNECT\n"}, cert=cert)
    yield s
    s.close()


def run(args, out, timeout=90, env=None, prefix=()):
    cmd = list(prefix) + [FOLIO, "run", "--out", str(out)] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    with open(os.path.join(str(out), "manifest.json")) as f:
        return p, json.load(f)


def pin(name, port):
    return ["--net-resolve", "%s=127.0.0.1:%d" % (name, port)]


# -------------------------------------------------------------- allowed paths

def test_allowed_name_over_plain_http_curl_and_urllib(tmp_path, web):
    src = """
import urllib.request
print(urllib.request.urlopen("http://a.example.test/hello.txt", timeout=10).read().decode(), end="")
"""
    p, m = run(["--net", "allow=*.example.test"] + pin("a.example.test", web.port) +
               ["--", "sh", "-c", "curl -sS http://a.example.test/hello.txt && %s -c '%s'"
                % (PY, src.replace("'", "'\\''"))], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "hello from a.example.test\n" * 2
    assert m["limits"]["net"] == "allow"
    assert [(e["host"], e["port"], e["method"], e["decision"]) for e in m["egress"]] == \
        [("a.example.test", 80, "GET", "allowed")] * 2
    # the server got origin-form requests with Host set by the proxy
    assert [(r[0], r[1], r[2]["Host"], r[2]["Connection"]) for r in web.requests] == \
        [("GET", "/hello.txt", "a.example.test", "close")] * 2


def test_allowed_name_over_connect_curl_and_urllib(tmp_path, tls, cert):
    src = ("import ssl, urllib.request\n"
           "c = ssl.create_default_context(cafile='cert.pem')\n"
           "print(urllib.request.urlopen('https://tls.example.test/secret.txt', context=c,"
           " timeout=10).read().decode(), end='')\n")
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    out = tmp_path / "out"
    p, m = run(["--in", cert[1], "--in", str(tmp_path / "t.py"), "--net", "allow=tls.example.test"]
               + pin("tls.example.test", tls.port) +
               ["--", "sh", "-c", "curl -sS --cacert cert.pem https://tls.example.test/secret.txt"
                " && %s t.py" % PY], out)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "over TLS through CONNECT\n" * 2
    assert [(e["host"], e["port"], e["method"], e["decision"], e["address"]) for e in m["egress"]] \
        == [("tls.example.test", 443, "CONNECT", "allowed", "127.0.0.1")] * 2
    assert all(e["bytes_up"] > 200 and e["bytes_down"] > 500 for e in m["egress"])
    assert len(tls.requests) == 2


def _wheel(path):
    """A minimal pure-Python wheel, built by hand (no build tools needed)."""
    name = "tinypkg-1.0-py3-none-any.whl"
    files = {
        "tinypkg/__init__.py": "VALUE = 42\n",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                       "Tag: py3-none-any\n",
    }
    record = "".join("%s,,\n" % n for n in files) + "tinypkg-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(path, name), "w") as z:
        for n, t in files.items():
            z.writestr(n, t)
        z.writestr("tinypkg-1.0.dist-info/RECORD", record)
    with open(os.path.join(path, name), "rb") as f:
        return name, f.read()


def test_pip_download_from_a_local_index_named_as_an_allowed_host(tmp_path):
    whl, data = _wheel(str(tmp_path))
    sha = hashlib.sha256(data).hexdigest()
    index = ('<html><body><a href="/files/%s#sha256=%s">%s</a></body></html>' % (whl, sha, whl))
    s = Server({"/simple/tinypkg/": index.encode(), "/files/" + whl: data})
    try:
        p, m = run(["--net", "allow=pkgs.example.test"] + pin("pkgs.example.test", s.port) +
                   ["--", PY, "-m", "pip", "download", "--no-cache-dir", "--disable-pip-version-check",
                    "--no-deps", "--index-url", "http://pkgs.example.test/simple/",
                    "--trusted-host", "pkgs.example.test", "-d", "/out", "tinypkg"], tmp_path / "o",
                   timeout=120)
    finally:
        s.close()
    assert p.returncode == 0, p.stdout + p.stderr
    got = [f for f in m["files"] if f["name"] == whl]
    assert got and got[0]["sha256"] == sha
    assert {(e["host"], e["decision"]) for e in m["egress"]} == {("pkgs.example.test", "allowed")}
    assert [r[1] for r in s.requests] == ["/simple/tinypkg/", "/files/" + whl]


# ------------------------------------------------------------------ refusals

PROBE = r"""
import socket, sys
def ask(line):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(line.encode() + b"\r\nHost: x\r\n\r\n")
    head = b""
    while b"\r\n" not in head:
        d = s.recv(4096)
        if not d: break
        head += d
    s.close()
    return head.split(b"\r\n")[0].decode()
for line in sys.argv[1:]:
    print(line.split()[1], "->", ask(line))
"""


def probe_raw(tmp_path, policy, lines, extra=(), runner=run):
    """Sends each raw request line to the proxy from inside the jail; (process, manifest)."""
    with open(tmp_path / "probe.py", "w") as f:
        f.write(PROBE)
    p, m = runner(["--in", str(tmp_path / "probe.py"), "--net", policy] + list(extra) +
                  ["--", PY, "probe.py"] + lines, tmp_path / "out")
    assert p.returncode == 0, p.stderr
    return p, m


def probe(tmp_path, policy, lines, extra=()):
    """As probe_raw; the first status line for each target."""
    p, m = probe_raw(tmp_path, policy, lines, extra)
    return dict(l.split(" -> ", 1) for l in p.stdout.splitlines()), m


def test_name_not_on_the_list_gets_403_with_a_reason_curl_prints(tmp_path, web):
    p, m = run(["--net", "allow=a.example.test"] + pin("a.example.test", web.port) +
               ["--", "sh", "-c", "curl -sS http://b.example.test/hello.txt; echo; "
                "curl -sS https://b.example.test/ 2>&1; echo rc=$?"], tmp_path)
    assert "folio egress: b.example.test is not in the allow list" in p.stdout
    assert "CONNECT tunnel failed, response 403" in p.stdout and "rc=56" in p.stdout
    assert [(e["host"], e["port"], e["decision"], e["reason"]) for e in m["egress"]] == [
        ("b.example.test", 80, "refused", "b.example.test is not in the allow list"),
        ("b.example.test", 443, "refused", "b.example.test is not in the allow list")]
    assert web.requests == []


def test_suffix_rule_matches_subdomains_only(tmp_path, web):
    got, m = probe(tmp_path, "allow=*.example.test", [
        "GET http://a.example.test/hello.txt HTTP/1.1", "GET http://example.test/ HTTP/1.1",
        "GET http://example.test.evil/ HTTP/1.1", "GET http://evilexample.test/ HTTP/1.1",
        "GET http://a.example.test.evil/ HTTP/1.1"], pin("a.example.test", web.port))
    assert got["http://a.example.test/hello.txt"].startswith("HTTP/1.0 200")
    for h in ("example.test", "example.test.evil", "evilexample.test", "a.example.test.evil"):
        assert got["http://%s/" % h] == "HTTP/1.1 403 folio egress: %s is not in the allow list" % h


def test_ip_literals_are_refused_in_every_spelling(tmp_path, web):
    lits = ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1",
            "169.254.169.254", "0xa9fea9fe", "2852039166", "0251.0376.0251.0376", "100.64.0.1",
            "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::ffff:169.254.169.254]"]
    lines = ["GET http://%s/ HTTP/1.1" % h for h in lits] + \
            ["CONNECT %s:443 HTTP/1.1" % h for h in lits]
    got, m = probe(tmp_path, "allow=a.example.test", lines, pin("a.example.test", web.port))
    for h in lits:
        for target in ("http://%s/" % h, "%s:443" % h):
            assert got[target].startswith("HTTP/1.1 403 folio egress: ") and \
                "is an IP address" in got[target], (target, got[target])
    assert len(m["egress"]) == 2 * len(lits)
    assert all(e["decision"] == "refused" and e["address"] is None for e in m["egress"])
    assert web.requests == []


def test_other_ports_are_refused(tmp_path, web):
    got, m = probe(tmp_path, "allow=a.example.test", [
        "CONNECT a.example.test:22 HTTP/1.1", "CONNECT a.example.test:80 HTTP/1.1",
        "GET http://a.example.test:8080/ HTTP/1.1", "GET http://a.example.test:443/ HTTP/1.1",
        "GET https://a.example.test/ HTTP/1.1", "GET /relative HTTP/1.1"],
        pin("a.example.test", web.port))
    assert got["a.example.test:22"] == \
        "HTTP/1.1 403 folio egress: port 22 refused (CONNECT to 443 for https, port 80 for http)"
    assert got["a.example.test:80"].startswith("HTTP/1.1 403 folio egress: port 80 refused")
    assert got["http://a.example.test:8080/"].startswith("HTTP/1.1 403 folio egress: port 8080")
    assert got["http://a.example.test:443/"].startswith("HTTP/1.1 403 folio egress: port 443")
    assert got["https://a.example.test/"].startswith("HTTP/1.1 400 ")
    assert got["/relative"].startswith("HTTP/1.1 400 ")
    assert web.requests == []


def test_sni_differing_from_the_connect_host_is_refused(tmp_path, tls, cert):
    src = r"""
import socket, ssl, sys
def tunnel(host, sni):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(("CONNECT %s:443 HTTP/1.1\r\nHost: %s\r\n\r\n" % (host, host)).encode())
    assert s.recv(4096).startswith(b"HTTP/1.1 200")
    c = ssl.create_default_context(cafile="cert.pem")
    try:
        t = c.wrap_socket(s, server_hostname=sni)
        t.sendall(b"GET /secret.txt HTTP/1.0\r\nHost: x\r\n\r\n")
        got = b""
        while True:
            try:
                d = t.recv(4096)
            except ssl.SSLEOFError:
                break
            if not d:
                break
            got += d
        return got.split(b"\r\n\r\n")[-1].decode().strip()
    except (ssl.SSLError, OSError) as e:
        return "failed"
print("same:", tunnel("tls.example.test", "tls.example.test"))
print("fronted:", tunnel("tls.example.test", "other.example.test"))
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = run(["--in", str(tmp_path / "t.py"), "--in", cert[1], "--net",
                "allow=tls.example.test,other.example.test"] + pin("tls.example.test", tls.port) +
               ["--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "same: over TLS through CONNECT\nfronted: failed\n"
    assert [(e["decision"], e["reason"]) for e in m["egress"]] == [
        ("allowed", ""),
        ("refused", 'TLS server name "other.example.test" differs from the CONNECT host '
                    'tls.example.test')]
    assert m["egress"][1]["bytes_up"] == 0 and len(tls.requests) == 1


def test_direct_connections_and_dns_fail_from_the_jail(tmp_path, web):
    src = r"""
import socket
def attempt(name, f):
    try:
        f(); print(name, "ESCAPED")
    except OSError as e:
        print(name, "blocked", type(e).__name__)
attempt("tcp-host-loopback", lambda: socket.create_connection(("127.0.0.1", %d), timeout=3))
attempt("tcp-public", lambda: socket.create_connection(("93.184.216.34", 80), timeout=3))
attempt("udp-dns", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x" * 30, ("8.8.8.8", 53)))
attempt("udp-443", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("1.1.1.1", 443)))
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("resolve", lambda: socket.getaddrinfo("a.example.test", 80))
attempt("take-proxy-port", lambda: socket.socket().bind(("127.0.0.1", 3128)))
""" % web.port
    p, m = run(["--net", "allow=a.example.test"] + pin("a.example.test", web.port) +
               ["--", "sh", "-c", "%s -c '%s'; curl -sS --noproxy '*' http://a.example.test/hello.txt;"
                " echo curl-rc=$?" % (PY, src.replace("'", "'\\''"))], tmp_path)
    lines = p.stdout.splitlines()
    assert not [l for l in lines if "ESCAPED" in l], p.stdout
    assert len([l for l in lines if " blocked " in l]) == 7
    assert "curl-rc=6" in p.stdout                     # could not resolve: no DNS in the jail
    assert m["egress"] == [] and web.requests == []


def test_egress_log_counts_the_bytes_of_an_upload_and_a_download(tmp_path, web):
    body = os.urandom(123456)
    with open(tmp_path / "up.bin", "wb") as f:
        f.write(body)
    p, m = run(["--in", str(tmp_path / "up.bin"), "--net", "allow=a.example.test"] +
               pin("a.example.test", web.port) +
               ["--", "sh", "-c", "curl -sS -o /dev/null http://a.example.test/big && "
                "curl -sS --data-binary @up.bin http://a.example.test/post"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "got 123456 bytes: %s" % hashlib.sha256(body).hexdigest()
    get, post = m["egress"]
    assert (get["method"], post["method"]) == ("GET", "POST")
    assert 300000 < get["bytes_down"] < 300000 + 400 and get["bytes_up"] < 400
    assert 123456 < post["bytes_up"] < 123456 + 400 and post["bytes_down"] < 400
    assert all(e["ms"] >= 0 and e["decision"] == "allowed" for e in m["egress"])


def test_downloads_and_uploads_past_the_bulk_size_arrive_whole(tmp_path):
    # past 4 MiB one way the proxy grows that direction's pipe mid-transfer
    # (sandbox/egress/proxy.c, grow): nothing in flight may be lost or reordered
    big = os.urandom(13 << 20)
    s = Server({"/huge": big})
    try:
        with open(tmp_path / "up.bin", "wb") as f:
            f.write(big[::-1])
        p, m = run(["--in", str(tmp_path / "up.bin"), "--net", "allow=a.example.test"] +
                   pin("a.example.test", s.port) +
                   ["--", "sh", "-c", "curl -sS http://a.example.test/huge | sha256sum && "
                    "curl -sS --data-binary @up.bin http://a.example.test/post"], tmp_path / "o",
                   timeout=180)
    finally:
        s.close()
    assert p.returncode == 0, p.stderr
    down, up = p.stdout.split("\n", 1)
    assert down.split()[0] == hashlib.sha256(big).hexdigest()
    assert up == "got %d bytes: %s" % (len(big), hashlib.sha256(big[::-1]).hexdigest())
    get, post = m["egress"]
    assert len(big) < get["bytes_down"] < len(big) + 400
    assert len(big) < post["bytes_up"] < len(big) + 400


def _proxy_pipes(run_pid):
    """The pipe fds held by the folio-egress process of the run run_pid."""
    (proxy,) = [d for d in os.listdir("/proc") if d.isdigit() and _comm(d) == "folio-egress"
                and _ppid(d) == run_pid]
    fd = "/proc/%s/fd" % proxy
    return sum(os.readlink("%s/%s" % (fd, n)).startswith("pipe:") for n in os.listdir(fd))


PIPE_SOFT = "/proc/sys/fs/pipe-user-pages-soft"

# The program says where it is and waits for the test: folio run gives it
# no stdin, so the test wakes it with SIGUSR1 (_release), blocked beforehand.
WAIT = r"""
import signal
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
def wait(where):
    print(where, flush=True)
    signal.sigwait([signal.SIGUSR1])
"""


def _release(run_pid):
    """Wakes the program (WAIT) of the run run_pid: the child of its jail's init."""
    (init,) = [d for d in os.listdir("/proc") if d.isdigit() and _ppid(d) == run_pid
               and _comm(d) == "init"]
    (prog,) = [d for d in os.listdir("/proc") if d.isdigit() and _ppid(d) == int(init)]
    os.kill(int(prog), 10)              # SIGUSR1


def _relay_pipes(tmp_path, big, soft=None):
    """Downloads big through the proxy (fs.pipe-user-pages-soft set to soft
    meanwhile, if given); returns the proxy's pipes before the connection
    and while it relays, the program's output and the egress log."""
    s = Server({"/huge": big})
    src = WAIT + r"""
import hashlib, socket
wait("idle")                        # the test counts the proxy's pipes
c = socket.create_connection(("127.0.0.1", 3128))
c.sendall(b"GET http://a.example.test/huge HTTP/1.1\r\nHost: a.example.test\r\n\r\n")
got = b""
while len(got) < 1 << 20:
    got += c.recv(1 << 16)
wait("holding")                     # and again, mid-download
while True:
    d = c.recv(1 << 20)
    if not d:
        break
    got += d
print(hashlib.sha256(got[got.index(b"\r\n\r\n") + 4:]).hexdigest(), flush=True)
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    with open(PIPE_SOFT) as f:
        old = f.read().strip()
    counts = []
    try:
        if soft is not None:
            with open(PIPE_SOFT, "w") as f:
                f.write(str(soft))
        cmd = [FOLIO, "run", "--out", str(tmp_path / "o"), "--in", str(tmp_path / "t.py"),
               "--net", "allow=a.example.test"] + pin("a.example.test", s.port) + ["--", PY, "t.py"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for want in ("idle\n", "holding\n"):
            line = p.stdout.readline()
            assert line == want, (line, p.communicate(timeout=60))
            counts.append(_proxy_pipes(p.pid))
            _release(p.pid)
        out, err = p.communicate(timeout=120)
    finally:
        with open(PIPE_SOFT, "w") as f:
            f.write(old)
        s.close()
    assert p.returncode == 0, err
    with open(tmp_path / "o" / "manifest.json") as f:
        return counts, out, json.load(f)["egress"]


@pytest.mark.skipif(os.geteuid() != 0, reason="sets fs.pipe-user-pages-soft (root)")
def test_past_the_pipe_quota_the_proxy_copies_and_the_bytes_arrive_whole(tmp_path):
    # every proxy runs as one uid and shares its pipe quota; past it the kernel
    # makes 8 KiB pipes, and the proxy relays through its copy buffer instead
    big = os.urandom(13 << 20)
    for soft, added in ((None, 4), (1, 0)):    # a pipe each way; past the quota none
        (tmp_path / str(soft)).mkdir()
        (idle, holding), out, log = _relay_pipes(tmp_path / str(soft), big, soft)
        assert holding - idle == added, (soft, idle, holding)
        assert out.strip() == hashlib.sha256(big).hexdigest()
        (get,) = log
        assert len(big) < get["bytes_down"] < len(big) + 400


def test_concurrent_connections_and_slowloris_do_not_stall_others(tmp_path, web):
    # 200 concurrent fetches, timed twice in the same jail: alone, then beside
    # 50 connections whose headers never end. A proxy that waited on them
    # (10 s each, HEAD_MS) would be many times slower the second time; the
    # ratio to the first round is checked, not a number of seconds.
    src = r"""
import socket, threading, time, urllib.request
def round_():
    ok, t0 = [], time.monotonic()
    def get():
        if urllib.request.urlopen("http://a.example.test/hello.txt", timeout=20).read():
            ok.append(1)
    ts = [threading.Thread(target=get) for _ in range(200)]
    [t.start() for t in ts]; [t.join() for t in ts]
    return len(ok), time.monotonic() - t0
alone = round_()
slow = []
for i in range(50):                     # slowloris: headers that never end
    s = socket.create_connection(("127.0.0.1", 3128)); s.sendall(b"GET http://a.example.test/ HT")
    slow.append(s)
beside = round_()
print("ok", alone[0], beside[0], "in", alone[1], beside[1])
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = run(["--in", str(tmp_path / "t.py"), "--net", "allow=a.example.test"] +
               pin("a.example.test", web.port) + ["--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    words = p.stdout.split()
    n_alone, n_beside, alone, beside = int(words[1]), int(words[2]), float(words[4]), float(words[5])
    assert n_alone == n_beside == 200, p.stdout
    assert beside < 4 * alone + 2, p.stdout
    allowed = [e for e in m["egress"] if e["decision"] == "allowed"]
    assert len(allowed) == 400 and len(web.requests) == 400


def test_proxy_runs_unprivileged_and_a_crash_fails_closed(tmp_path, web):
    src2 = r"""
import socket, time, urllib.request
print(urllib.request.urlopen("http://a.example.test/hello.txt", timeout=5).read().decode(), end="", flush=True)
time.sleep(3)
for target in [("127.0.0.1", 3128), ("127.0.0.1", %d)]:
    try:
        socket.create_connection(target, timeout=3); print("CONNECTED", target)
    except OSError as e:
        print("refused", target[1])
""" % web.port
    with open(tmp_path / "t.py", "w") as f:
        f.write(src2)
    cmd = [FOLIO, "run", "--out", str(tmp_path / "o"), "--in", str(tmp_path / "t.py"), "--net",
           "allow=a.example.test"] + pin("a.example.test", web.port) + ["--", PY, "t.py"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    assert first == "hello from a.example.test\n"
    proxies = [d for d in os.listdir("/proc") if d.isdigit() and _comm(d) == "folio-egress"
               and _ppid(d) == proc.pid]
    assert len(proxies) == 1
    with open("/proc/%s/status" % proxies[0]) as f:
        status = dict(l.split(":", 1) for l in f.read().splitlines())
    assert status["NoNewPrivs"].strip() == "1"
    if os.geteuid() == 0:                               # root's proxy runs as nobody
        assert status["Uid"].split() == ["65534"] * 4 and status["Gid"].split() == ["65534"] * 4
        assert status["CapEff"].strip() == "0000000000000000"
    os.kill(int(proxies[0]), 9)
    rest, err = proc.communicate(timeout=30)
    assert rest.splitlines() == ["refused 3128", "refused %d" % web.port]
    assert "the egress proxy ended during the run" in err
    assert len(web.requests) == 1


def test_the_proxy_holds_none_of_folios_descriptors_and_no_environment(tmp_path):
    # folio holds the jail's control socket, /work /out /tmp, the --in files
    # (and a supervisor the runtime folder of every session); the proxy, a
    # fork of it, must keep none of them, nor folio's environment
    with open(tmp_path / "t.py", "w") as f:
        f.write(WAIT + "wait('idle')\n")
    with open(tmp_path / "data.csv", "w") as f:
        f.write("a,b\n1,2\n")
    env = dict(os.environ, FOLIO_TEST_SECRET="egress-secret-4711")
    cmd = [FOLIO, "run", "--out", str(tmp_path / "o"), "--in", str(tmp_path / "t.py"),
           "--in", str(tmp_path / "data.csv"), "--net", "allow=a.example.test", "--", PY, "t.py"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline()
        assert line == "idle\n", (line, p.communicate(timeout=60))
        folio_fds = len(os.listdir("/proc/%d/fd" % p.pid))
        for _ in range(200):                # named, then serving: its stop pipe is made
            proxy = [d for d in os.listdir("/proc") if d.isdigit() and
                     _comm(d) == "folio-egress" and _ppid(d) == p.pid]
            fd = "/proc/%s/fd" % proxy[0] if proxy else None
            if fd and len(os.listdir(fd)) >= 7:
                break
            time.sleep(0.05)
        fds = {int(n): os.readlink("%s/%s" % (fd, n)) for n in os.listdir(fd)}
        with open("/proc/%s/environ" % proxy[0], "rb") as f:
            environ = f.read()
    finally:
        _release(p.pid)
        out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert folio_fds > 8                               # what there was to inherit
    # stdio on /dev/null; the listener; the audit log; serve()'s stop pipe
    assert [fds[k] for k in (0, 1, 2)] == ["/dev/null"] * 3, fds
    assert fds[3].startswith("socket:") and fds[4].startswith("/memfd:folio-egress-log"), fds
    assert sorted(fds) == [0, 1, 2, 3, 4, 5, 6], fds
    assert fds[5].startswith("pipe:") and fds[5] == fds[6], fds
    assert environ == b"", environ[:200]


def _comm(pid):
    try:
        with open("/proc/%s/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def _ppid(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def test_usage_errors():
    for args, msg in [
        (["--net", "allow=127.0.0.1"], "an IP address"),
        (["--net", "allow=*.com"], "*.suffix needs a suffix with a dot"),
        (["--net", "allow="], "empty list"),
        (["--net", "sometimes"], "expected none, all, packages or allow=LIST"),
        (["--net-resolve", "a.test=127.0.0.1"], "--net-resolve needs --net packages"),
        (["--net", "allow=a.test", "--net-resolve", "a.test=nowhere"], "ADDR must be"),
        (["--net-list", "everything"], "the only preset is"),
    ]:
        p = subprocess.run([FOLIO, "run"] + args + ["--", "/bin/true"], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 1 and msg in p.stderr, (args, p.stderr)


def test_net_list_packages_prints_the_preset():
    p = subprocess.run([FOLIO, "run", "--net-list", "packages"], capture_output=True, text=True)
    assert p.returncode == 0
    names = p.stdout.split()
    assert {"pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "cloud.r-project.org",
            "conda.anaconda.org"} <= set(names)
    with open(os.path.join(ROOT, "docs", "egress.md")) as f:
        doc = f.read()
    assert all("`%s`" % n in doc for n in names)        # documented, name by name


# --------------------------------------------------- DNS: own network namespace

NS_SERVER = r"""
import socket, sys, threading
log = open(sys.argv[2], "a", buffering=1)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 443))
threading.Thread(target=lambda: [log.write("udp %r\n" % (u.recvfrom(100),)) for _ in iter(int, 1)],
                 daemon=True).start()
print("ready", flush=True)
while True:
    c, a = s.accept(); log.write("tcp connection\n")
    c.recv(4096); c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nprivate\n"); c.close()
"""


class Netns:
    """A network namespace with lo up, a test DNS server and a TCP+UDP
    listener on its 127.0.0.1; folio runs inside it, so the proxy's lookups go
    to that DNS server and nothing can leave the machine."""

    def __init__(self, tmp, answers):
        self.name = "folio-egress-%d-%d" % (os.getpid(), int(time.time() * 1000) % 100000)
        self.tmp = tmp
        self.procs = []
        r = subprocess.run(["ip", "netns", "add", self.name], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip("can't create a network namespace: " + r.stderr.strip())
        self.ns(["ip", "link", "set", "lo", "up"])
        with open(tmp / "answers.json", "w") as f:
            json.dump(answers, f)
        self.dns_log, self.srv_log = tmp / "dns.log", tmp / "srv.log"
        self.dns_log.write_text("")
        self.srv_log.write_text("")
        self.start([PY, os.path.join(HERE, "egress_dns.py"), str(tmp / "answers.json"),
                    str(self.dns_log)])
        with open(tmp / "srv.py", "w") as f:
            f.write(NS_SERVER)
        self.start([PY, str(tmp / "srv.py"), "80", str(self.srv_log)])
        (tmp / "resolv.conf").write_text("nameserver 127.0.0.1\n")

    # nsenter switches the network namespace only; `ip netns exec` would also
    # remount /sys, hiding the cgroup folio uses for its limits
    def enter(self):
        return ["nsenter", "--net=/run/netns/" + self.name]

    def ns(self, cmd, **kw):
        return subprocess.run(self.enter() + cmd, check=True, capture_output=True, text=True, **kw)

    def start(self, cmd):
        p = subprocess.Popen(self.enter() + cmd, stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "ready"
        self.procs.append(p)

    def folio(self, args, out):
        env = dict(os.environ, FOLIO_EGRESS_RESOLV=str(self.tmp / "resolv.conf"))
        return run(args, out, env=env, prefix=self.enter())

    def queries(self):
        return self.dns_log.read_text().splitlines()

    def close(self):
        for p in self.procs:
            p.kill()
            p.wait()
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)


@pytest.fixture
def netns(tmp_path, request):
    n = Netns(tmp_path, request.param)
    yield n
    n.close()


ANSWERS = {
    "good.example.test": {"A": [["127.0.0.1"]]},            # allowed only through a pin
    "loop.example.test": {"A": [["127.0.0.1"]]},
    "meta.example.test": {"A": [["169.254.169.254"]]},
    "cgnat.example.test": {"A": [["100.64.0.1"]]},
    "mapped.example.test": {"AAAA": [["::ffff:127.0.0.1"]]},
    "nat64.example.test": {"AAAA": [["64:ff9b::a9fe:a9fe"]]},
    "mixed.example.test": {"A": [["93.184.216.34", "10.0.0.1"]]},
    "rebind.example.test": {"A": [["93.184.216.34"], ["127.0.0.1"]]},
    "evil.test": {"A": [["93.184.216.34"]]},
}


@pytest.mark.parametrize("netns", [ANSWERS], indirect=True)
def test_names_resolving_to_private_addresses_are_refused(tmp_path, netns):
    hosts = ["loop", "meta", "cgnat", "mapped", "nat64", "mixed"]
    p, m = probe_raw(tmp_path, "allow=*.example.test",
                     ["GET http://%s.example.test/ HTTP/1.1" % h for h in hosts], runner=netns.folio)
    why = {"loop": "127.0.0.1, loopback", "meta": "169.254.169.254, link-local / cloud metadata",
           "cgnat": "100.64.0.1, shared CGNAT", "mapped": "::ffff:127.0.0.1, loopback",
           "nat64": "64:ff9b::a9fe:a9fe, link-local", "mixed": "10.0.0.1, private"}
    for h in hosts:
        line = p.stdout.splitlines()[hosts.index(h)]
        assert line.startswith("http://%s.example.test/ -> HTTP/1.1 403 folio egress: "
                               "%s.example.test resolves to %s" % (h, h, why[h])), line
    assert netns.srv_log.read_text() == ""                   # nothing reached 127.0.0.1:80
    # one lookup per name: one A and one AAAA query
    for h in hosts:
        assert sorted(q for q in netns.queries() if q.startswith(h + ".")) == \
            ["%s.example.test A" % h, "%s.example.test AAAA" % h]


@pytest.mark.parametrize("netns", [ANSWERS], indirect=True)
def test_dns_rebinding_cannot_reach_the_private_address(tmp_path, netns):
    p, m = probe_raw(tmp_path, "allow=rebind.example.test",
                     ["GET http://rebind.example.test/ HTTP/1.1",
                      "HEAD http://rebind.example.test/ HTTP/1.1"], runner=netns.folio)
    first, second = p.stdout.splitlines()
    # first lookup: a public address, dialled (unreachable here: this netns has only lo)
    assert first.startswith("http://rebind.example.test/ -> HTTP/1.1 502 folio egress: can't "
                            "connect to 93.184.216.34"), first
    # second lookup: rebound to loopback, refused before any dial
    assert second.startswith("http://rebind.example.test/ -> HTTP/1.1 403 folio egress: "
                             "rebind.example.test resolves to 127.0.0.1, loopback"), second
    assert [e["address"] for e in m["egress"]] == ["93.184.216.34", "127.0.0.1"]
    assert netns.srv_log.read_text() == ""


@pytest.mark.parametrize("netns", [ANSWERS], indirect=True)
def test_refused_names_and_direct_attempts_leave_no_trace(tmp_path, netns):
    src = r"""
import socket, subprocess
for name, f in [
    ("udp-443", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 443))),
    ("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)),
    ("dns", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"\0" * 30, ("127.0.0.1", 53)))]:
    try:
        f()
    except OSError:
        pass
for cmd in ["curl -s --noproxy '*' http://evil.test/", "curl -s http://evil.test/",
            "curl -s https://evil.test/", "curl -s -o /dev/null -w '%{http_code}' http://good.example.test/"]:
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    print(r.returncode, r.stdout.strip()[-60:])
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = netns.folio(["--in", str(tmp_path / "t.py"), "--net", "allow=good.example.test",
                        "--net-resolve", "good.example.test=127.0.0.1:80", "--", PY, "t.py"],
                       tmp_path / "o")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("6 ")                         # --noproxy: no DNS in the jail
    assert lines[1] == "0 folio egress: evil.test is not in the allow list"[-60:]
    assert lines[2].startswith("56 ")
    assert lines[3] == "0 200"                               # the pinned name works
    # the jail's UDP and raw attempts stayed in the jail; the refused name was
    # never looked up; the pinned name needed no lookup either
    assert netns.queries() == []
    assert netns.srv_log.read_text() == "tcp connection\n"


@pytest.mark.parametrize("netns", [{"pub.example.test": {"A": [["93.184.216.34"]]}}], indirect=True)
def test_an_allowed_name_is_looked_up_exactly_once(tmp_path, netns):
    p, m = probe_raw(tmp_path, "allow=pub.example.test",
                     ["CONNECT pub.example.test:443 HTTP/1.1",
                      "CONNECT nope.example.test:443 HTTP/1.1"], runner=netns.folio)
    assert sorted(netns.queries()) == ["pub.example.test A", "pub.example.test AAAA"]
    assert [e["decision"] for e in m["egress"]] == ["failed", "refused"]


@pytest.mark.parametrize("netns", [{"slow.example.test": "drop"}], indirect=True)
def test_a_connection_still_resolving_when_the_run_ends_is_recorded(tmp_path, netns):
    # the program asks for an allowed name whose lookup hangs and exits: the
    # proxy stops while that connection waits on DNS, and records it anyway
    with open(tmp_path / "t.py", "w") as f:
        f.write("import socket, time\n"
                "s = socket.create_connection(('127.0.0.1', 3128))\n"
                "s.sendall(b'CONNECT slow.example.test:443 HTTP/1.1\\r\\n\\r\\n')\n"
                "time.sleep(0.5)\n")
    p, m = netns.folio(["--in", str(tmp_path / "t.py"), "--net", "allow=slow.example.test",
                        "--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert "slow.example.test A" in netns.queries()
    assert [(e["n"], e["host"], e["port"], e["method"], e["decision"], e["reason"])
            for e in m["egress"]] == [
        (1, "slow.example.test", 443, "CONNECT", "failed",
         "unfinished when the run ended (the proxy stopped)")]


def test_malformed_heads_get_a_status_and_reach_nobody(tmp_path, web):
    src = r"""
import socket, time
def ask(raw, wait=0):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=30)
    s.sendall(raw)
    return s.recv(4096).split(b"\r\n")[0].decode()
ok = b"GET http://a.example.test/hello.txt HTTP/1.1\r\n"
print(ask(ok + b"X: 1\nHost: other.example.test\r\n\r\n"))     # bare LF
print(ask(ok + b"X: 1\r\n Host: other\r\n\r\n"))               # folded line
print(ask(ok + b"X: " + b"a" * 9000 + b"\r\n\r\n"))            # over 8 KiB
print(ask(b"GET http://a.example.test/ HTTP/1.1\r\nX: 1\r\n"))   # never ends: deadline
print(ask(ok + b"\r\n"))                                      # and the proxy still serves
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = run(["--in", str(tmp_path / "t.py"), "--net", "allow=a.example.test"] +
               pin("a.example.test", web.port) + ["--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("HTTP/1.1 400 ") and lines[1].startswith("HTTP/1.1 400 ")
    assert lines[2] == "HTTP/1.1 431 folio egress: request header over 8192 bytes"
    assert lines[3] == "HTTP/1.1 408 folio egress: no complete request header within 10000 ms"
    assert lines[4] == "HTTP/1.0 200 OK"
    assert [r[1] for r in web.requests] == ["/hello.txt"]
    assert [e["decision"] for e in m["egress"]] == ["refused"] * 4 + ["allowed"]


def test_header_lines_a_lenient_server_might_read_otherwise_get_400(tmp_path, web):
    # `Host : other` is no Host header to a filter that looks for "host:", and
    # one to a lenient server: the proxy refuses every such line (RFC 9112 5.1)
    src = r"""
import socket, sys
def ask(raw):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=30)
    s.sendall(raw)
    return s.recv(4096).split(b"\r\n")[0].decode()
ok = b"GET http://a.example.test/hello.txt HTTP/1.1\r\n"
for extra in [b"Host : other.example.test", b"Connection : keep-alive",
              b"Host\t: other.example.test", b"X: 1\r\n\tHost: other.example.test",
              b": empty", b"Host: a.example.test\r\nHost: other.example.test",
              b"Content-Length: 1\r\nContent-Length: 2",
              b"Content-Length: 4\r\nTransfer-Encoding: chunked"]:
    print(ask(ok + extra + b"\r\n\r\n"))
print(ask(b"CONNECT a.example.test:443 HTTP/1.1\r\nHost : x\r\n\r\n"))
print(ask(ok + b"Host: a.example.test\r\n\r\n"))     # and a clean one goes through
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = run(["--in", str(tmp_path / "t.py"), "--net", "allow=a.example.test"] +
               pin("a.example.test", web.port) + ["--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 10 and lines[-1] == "HTTP/1.0 200 OK", lines
    assert all(l.startswith("HTTP/1.1 400 folio egress: ") for l in lines[:9]), lines
    assert "whitespace in or after the field name" in lines[0]
    assert "more than one Host header" in lines[5]
    assert [r[1] for r in web.requests] == ["/hello.txt"]
    assert web.requests[0][2]["Host"] == "a.example.test"
    assert [e["decision"] for e in m["egress"]] == ["refused"] * 9 + ["allowed"]
    assert m["egress"][0]["reason"].startswith("header line 2: whitespace")


def test_abandoned_attempts_are_recorded_with_what_they_said(tmp_path, web):
    # a connection that sends nothing, half a request line, or a whole request
    # line naming a refused host and hangs up before the end of its header:
    # each is an attempt, and each gets its record
    src = r"""
import socket, struct, time, urllib.request
def hang_up(raw, reset=False):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    if raw:
        s.sendall(raw)
        time.sleep(0.2)                  # the proxy has read it
    if reset:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    time.sleep(0.2)
hang_up(b"")
hang_up(b"CONNECT evil.exa")
hang_up(b"CONNECT evil.example.test:443 HTTP/1.1\r\nHost: evil.exa")
hang_up(b"GET http://a.example.test/hello.txt HTTP/1.1\r\n")
hang_up(b"GET http://a.exa", reset=True)
print(urllib.request.urlopen("http://a.example.test/hello.txt", timeout=10).read().decode(), end="")
"""
    with open(tmp_path / "t.py", "w") as f:
        f.write(src)
    p, m = run(["--in", str(tmp_path / "t.py"), "--net", "allow=a.example.test"] +
               pin("a.example.test", web.port) + ["--", PY, "t.py"], tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "hello from a.example.test\n"
    log = m["egress"]
    assert [e["n"] for e in log] == [1, 2, 3, 4, 5, 6], log
    got = [(e["host"], e["port"], e["method"], e["decision"], e["reason"]) for e in log[:5]]
    assert got == [
        ("", 0, "?", "refused", "incomplete request: the client closed without sending anything"),
        ("", 0, "?", "refused", "incomplete request: the client closed after 16 bytes, "
                                "before the end of the header"),
        ("evil.example.test", 443, "CONNECT", "refused",
         "incomplete request: the client closed after 54 bytes, before the end of the header; "
         "evil.example.test is not in the allow list"),
        ("a.example.test", 80, "GET", "refused", "incomplete request: the client closed after "
                                                 "46 bytes, before the end of the header"),
        ("", 0, "?", "refused", "incomplete request: the client reset the connection after "
                                "16 bytes, before the end of the header"),
    ], log
    assert all(e["bytes_up"] == 0 and e["bytes_down"] == 0 and e["address"] is None
               for e in log[:5])
    assert log[5]["decision"] == "allowed"
    assert [r[1] for r in web.requests] == ["/hello.txt"]


# ------------------------------------------------------------------ sessions

def test_a_session_takes_the_same_policy_for_all_its_cells(tmp_path, web):
    """folio session new --net allow=...: the session's proxy lives as long as
    the session; every cell reaches the allowed host and nothing else."""
    from test_session import Sessions
    s = Sessions(tmp_path)
    try:
        sid = s.new("--net", "allow=a.example.test", *pin("a.example.test", web.port))
        get = ("import urllib.request\n"
               "def get(u):\n"
               "    try: return urllib.request.urlopen(u, timeout=10).read().decode()\n"
               "    except Exception as e: return 'refused: %s' % e\n")
        r = s.exec(sid, get + "print(get('http://a.example.test/hello.txt'), end='')", expect="ok")
        assert r["stdout"] == "hello from a.example.test\n"
        r = s.exec(sid, "print(get('http://b.example.test/hello.txt'))", expect="ok")
        assert r["stdout"].startswith("refused: HTTP Error 403"), r
        r = s.exec(sid, "import socket\ntry:\n    socket.create_connection(('127.0.0.1', %d), 2)\n"
                        "    print('reached')\nexcept OSError as e:\n    print('no:', e)" % web.port,
                   expect="ok")
        assert r["stdout"].startswith("no:"), "the host's loopback stays out of reach"
        r = s.exec(sid, "print(get('http://a.example.test/hello.txt'), end='')", expect="ok")
        assert r["stdout"] == "hello from a.example.test\n", "the proxy serves later cells too"
        assert [r[1] for r in web.requests] == ["/hello.txt", "/hello.txt"]
    finally:
        s.close_all()
