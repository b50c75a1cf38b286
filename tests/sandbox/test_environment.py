# test_environment.py — what a cell can import and install (PRODUCT.md §11,
# docs/environment.md): the stack of sandbox/stack.txt imports in a jail;
# `folio env` lists it from inside a jail; pip and npm install into /work
# under --net packages, through the egress proxy and its log, from a package
# index this test serves on loopback (a wheel and an npm tarball it builds),
# named with --net-resolve; under --net none the same install fails with a
# clear message and an uploaded wheel installs; a session keeps its installs,
# functions and classes across hibernation; a missing module's result hints.
import base64
import hashlib
import io
import json
import os
import subprocess
import tarfile
import zipfile

import pytest

from test_egress import FOLIO, Server, pin, run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STACK = os.path.join(ROOT, "sandbox", "stack.txt")
WHEEL = "folio_demo_pkg-1.2.3-py3-none-any.whl"
NPM = "folio-demo-js"
INDEX_HOSTS = ("pypi.org", "files.pythonhosted.org", "registry.npmjs.org")
PIP_ARGS = "--index-url http://pypi.org/simple/ --trusted-host pypi.org --trusted-host files.pythonhosted.org"


def stack():
    """(debian package, import name or None) of each line of sandbox/stack.txt."""
    rows = []
    with open(STACK) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                deb, mod = line.split()[:2]
                rows.append((deb, None if mod == "-" else mod))
    return rows


def make_wheel():
    """A pure-Python wheel, by hand: a zip with METADATA, WHEEL and RECORD."""
    name, ver = "folio_demo_pkg", "1.2.3"
    info = "%s-%s.dist-info" % (name, ver)
    files = {
        name + "/__init__.py": b"VALUE = 42\n",
        info + "/METADATA": ("Metadata-Version: 2.1\nName: folio-demo-pkg\nVersion: %s\n" % ver).encode(),
        info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: folio-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        info + "/top_level.txt": (name + "\n").encode(),
    }
    record = []
    for n, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (n, digest, len(data)))
    record.append(info + "/RECORD,,")
    files[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for n, data in files.items():
            z.writestr(n, data)
    return buf.getvalue()


def make_npm_tarball():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for n, data in (("package/package.json",
                         json.dumps({"name": NPM, "version": "1.0.0", "main": "index.js"}).encode()),
                        ("package/index.js", b"module.exports = { answer: 41 + 1 };\n")):
            ti = tarfile.TarInfo(n)
            ti.size = len(data)
            ti.mode = 0o644
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture(scope="module")
def index():
    """PEP 503 simple index, its file host and an npm registry, all plain
    HTTP on one loopback port: the proxy forwards port 80 to the pin."""
    wheel, tgz = make_wheel(), make_npm_tarball()
    sha = hashlib.sha256(wheel).hexdigest()
    tarball = "http://registry.npmjs.org/%s/-/%s-1.0.0.tgz" % (NPM, NPM)
    packument = {"name": NPM, "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {
        "name": NPM, "version": "1.0.0", "main": "index.js",
        "dist": {"tarball": tarball, "shasum": hashlib.sha1(tgz).hexdigest(),
                 "integrity": "sha512-" + base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
    s = Server({
        "/simple/folio-demo-pkg/": ('<html><body><a href="http://files.pythonhosted.org/packages/%s#sha256=%s">'
                                    '%s</a></body></html>' % (WHEEL, sha, WHEEL)).encode(),
        "/packages/" + WHEEL: wheel,
        "/" + NPM: json.dumps(packument).encode(),
        "/%s/-/%s-1.0.0.tgz" % (NPM, NPM): tgz,
    })
    s.wheel = wheel
    yield s
    s.close()


def pins(index):
    return [a for h in INDEX_HOSTS for a in pin(h, index.port)]


def egress_hosts(manifest):
    return {(e["host"], e["decision"]) for e in manifest["egress"]}


# ------------------------------------------------------------ the stack

def test_every_package_of_the_stack_imports_in_a_jail(tmp_path):
    mods = [m for _, m in stack() if m]
    assert {"pandas", "sklearn", "dill", "pypdf", "seaborn", "statsmodels"} <= set(mods)
    code = ("import importlib\nbad = []\nfor m in %r:\n    try:\n        importlib.import_module(m)\n"
            "    except Exception as e:\n        bad.append('%%s: %%s' %% (m, e))\nprint('bad:', bad)\n" % mods)
    p = subprocess.run([FOLIO, "run", "--memory", "2048", "--timeout", "120", "--",
                        "python3", "-c", code], capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert "bad: []" in p.stdout, p.stdout + p.stderr


def test_the_docs_list_the_stack():
    with open(os.path.join(ROOT, "docs", "environment.md")) as f:
        doc = f.read()
    missing = [deb for deb, _ in stack() if deb not in doc]
    assert missing == [], "docs/environment.md does not name %s" % missing


# ------------------------------------------------------------ installs

def test_pip_and_npm_install_into_work_through_the_proxy(index, tmp_path):
    before = len(index.requests)
    script = ("set -e; pip install %s folio-demo-pkg; python3 -c 'import folio_demo_pkg, sys; "
              "print(\"value\", folio_demo_pkg.VALUE, folio_demo_pkg.__file__)'; "
              "npm install --registry http://registry.npmjs.org/ %s >/dev/null 2>&1; "
              "node -e 'console.log(\"answer\", require(\"%s\").answer)'" % (PIP_ARGS, NPM, NPM))
    p, m = run(["--net", "packages", *pins(index), "--timeout", "120", "--", "sh", "-c", script],
               tmp_path, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "value 42 /work/.venv/lib/" in p.stdout
    assert "answer 42" in p.stdout
    got = [path for _, path, _ in index.requests[before:]]
    assert "/simple/folio-demo-pkg/" in got and "/packages/" + WHEEL in got
    assert "/" + NPM in got and "/%s/-/%s-1.0.0.tgz" % (NPM, NPM) in got
    assert {(h, "allowed") for h in INDEX_HOSTS} <= egress_hosts(m), m["egress"]
    assert not os.path.exists("/usr/local/lib/python3.11/dist-packages/folio_demo_pkg")


def test_pip_install_without_network_fails_clearly_and_a_wheel_installs(index, tmp_path):
    before = len(index.requests)
    whl = tmp_path / WHEEL
    whl.write_bytes(index.wheel)
    p = subprocess.run([FOLIO, "run", "--in", str(whl), "--", "sh", "-c",
                        "pip install %s folio-demo-pkg; echo rc=$?; pip install /work/%s >/dev/null && "
                        "python3 -c 'import folio_demo_pkg; print(\"value\", folio_demo_pkg.VALUE)'"
                        % (PIP_ARGS, WHEEL)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "rc=1" in p.stdout
    assert "no network (--net none)" in p.stderr and "pip install /work/" in p.stderr
    assert "--net packages" in p.stderr
    assert "value 42" in p.stdout
    assert len(index.requests) == before


def test_pip_installs_into_a_venv_that_honours_pep_668(tmp_path):
    """Debian marks its Python externally managed: the install goes into the
    virtual environment (which the marker allows), never --break-system-packages."""
    p = subprocess.run([FOLIO, "run", "--", "sh", "-c",
                        "python3 -m pip --version; echo $PATH; cat /work/.venv/pyvenv.cfg"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "include-system-site-packages = true" in p.stdout
    assert p.stdout.split("\n")[1].startswith("/work/.venv/bin:")


# ------------------------------------------------------------ sessions

@pytest.fixture
def s(tmp_path):
    from test_session import Sessions
    sess = Sessions(tmp_path)
    yield sess
    sess.close_all()


def test_a_session_installs_from_the_index_and_keeps_it_and_its_functions_across_hibernation(s, index):
    sid = s.new("--net", "packages", *pins(index))
    r = s.exec(sid, "import subprocess, sys\n"
                    "p = subprocess.run([sys.executable, '-m', 'pip', 'install', *%r.split(), "
                    "'folio-demo-pkg'], capture_output=True, text=True)\n"
                    "print(p.returncode, p.stderr[-500:])\n"
                    "import folio_demo_pkg\n"
                    "def scaled(x): return x * folio_demo_pkg.VALUE\n"
                    "class Box:\n    def __init__(self, v): self.v = v\n"
                    "    def get(self): return scaled(self.v)\n"
                    "box = Box(2)\nsquare = lambda y: y * y\ngen = (i for i in range(3))\n"
                    "folio_demo_pkg.__file__" % PIP_ARGS, expect="ok")
    assert r["stdout"].startswith("0 "), r
    assert r["result"].startswith("'/work/.venv/lib/python3"), r
    s.run("hibernate", sid, code=0)
    r = s.exec(sid, "import folio_demo_pkg as again\n"
                    "scaled(1), box.get(), Box(3).get(), square(5), again.VALUE", expect="ok")
    assert r["result"] == "(42, 84, 126, 25, 42)", r
    assert r["resumed"] is True
    assert [x["name"] for x in r["not_restored"]] == ["gen"], r["not_restored"]
    r = s.exec(sid, "import subprocess\nsubprocess.run(['python3', '-c', "
                    "'import folio_demo_pkg; print(folio_demo_pkg.VALUE)'], capture_output=True, "
                    "text=True).stdout", expect="ok")
    assert r["result"] == "'42\\n'", "a program started after the resume sees the install too"


def test_a_missing_module_hints_at_folio_env_and_the_policy(s):
    r = s.exec(s.new(), "import sklearn\nimport folio_no_such_module", expect="error")
    assert r["error"]["name"] == "ModuleNotFoundError"
    hint = r["error"]["hint"]
    assert "folio env" in hint and "--net packages" in hint and "pip install folio_no_such_module" in hint
    assert "/work/FILE.whl" in hint
    r = s.exec(s.new(), "1 / 0", expect="error")
    assert "hint" not in r["error"]


# ------------------------------------------------------------ folio env

def env(rt, *args):
    p = subprocess.run([FOLIO, "env", *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, XDG_RUNTIME_DIR=str(rt)))
    assert p.returncode == 0, p.stderr
    return p.stdout


def in_jail(code):
    p = subprocess.run([FOLIO, "run", "--", "python3", "-c", code], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_folio_env_lists_what_the_jail_imports_with_versions_and_the_install_policy(tmp_path):
    doc = json.loads(env(tmp_path, "--json"))
    by_import = {i: p for p in doc["packages"] for i in p["imports"]}
    assert [m for _, m in stack() if m and m not in by_import] == []
    truth = in_jail("import sys, pandas, numpy, sklearn, PIL\nprint(sys.version.split()[0], "
                    "pandas.__version__, numpy.__version__, sklearn.__version__, PIL.__version__)").split()
    assert [doc["python"]["version"], by_import["pandas"]["version"], by_import["numpy"]["version"],
            by_import["sklearn"]["version"], by_import["PIL"]["version"]] == truth
    assert by_import["sklearn"]["name"] == "scikit-learn"
    hosts = subprocess.run([FOLIO, "run", "--net-list", "packages"], capture_output=True,
                           text=True).stdout.split()
    assert doc["install"]["hosts"] == hosts and "pypi.org" in hosts
    assert "/work/FILE.whl" in doc["install"]["without_network"]
    text = env(tmp_path)
    assert "Python %s" % truth[0] in text
    line = [l for l in text.splitlines() if l.startswith("scikit-learn ")]
    assert line and line[0].split()[1:] == [truth[3], "sklearn"]


def test_folio_env_answers_from_its_cache_until_refreshed(tmp_path):
    first = env(tmp_path, "--json")
    cache = tmp_path / "folio" / "env.cache"
    key, body = cache.read_text().split("\n", 1)
    assert len(key) == 64 and body.startswith(first.rstrip("\n"))
    cache.write_text(key + "\n" + '{"cached": true}\n\n\x1e\ncached text\n')
    assert json.loads(env(tmp_path, "--json")) == {"cached": True}
    assert env(tmp_path) == "cached text\n"
    assert json.loads(env(tmp_path, "--json", "--refresh")) == json.loads(first)
    cache.write_text("0" * 64 + "\n" + '{"stale": true}\n\n\x1e\nstale\n')
    assert json.loads(env(tmp_path, "--json")) == json.loads(first), "another key is not ours"


def test_get_v1_environment_is_folio_env(tmp_path):
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests", "serve"))
    from test_serve import Server as Serve, request
    srv = Serve(scratch=tmp_path)
    try:
        status, headers, body = request(srv.url + "/v1/environment")
    finally:
        assert srv.stop() == 0
    assert status == 200 and headers["Content-Type"] == "application/json", (status, body, srv.lines)
    doc = json.loads(body)
    assert {p["name"] for p in doc["packages"]} >= {"pandas", "numpy", "scikit-learn"}
    assert doc["install"]["hosts"][0] == "pypi.org"
