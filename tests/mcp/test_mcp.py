# test_mcp.py — folio as an MCP server (PRODUCT.md §10, docs/mcp.md), driven
# by the protocol's official TypeScript SDK client (tests/mcp/drive.mjs,
# @modelcontextprotocol/sdk pinned in package-lock.json, installed here with
# `npm ci` into tests/mcp/node_modules) over stdio (`folio mcp`) and over
# streamable HTTP (`folio serve`'s /mcp), and with raw JSON-RPC lines for the
# protocol's error cases. What comes back is checked through independent
# readers: openpyxl opens the rendered workbook, python3-jsonschema checks
# every tool's inputSchema against the Draft 2020-12 meta-schema.
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FOLIO = os.environ.get("FOLIO", str(ROOT / "build" / "folio"))
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (make deps-test)")

TOOLS = {"run_python", "put_file", "get_file", "list_files", "render", "validate_spec",
         "restart_session", "environment"}


@pytest.fixture(scope="session")
def sdk():
    """The SDK client, installed from the lock file once."""
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr
    return HERE / "drive.mjs"


def runtime(tmp):
    rt = tmp / "rt"
    rt.mkdir(mode=0o700, exist_ok=True)
    return dict(os.environ, XDG_RUNTIME_DIR=str(rt), TMPDIR=str(tmp))


def close_spares(env):
    """Ends the sessions a test left (spares started ahead, and any other)."""
    store = pathlib.Path(env["XDG_RUNTIME_DIR"]) / "folio"
    for d in store.glob("*"):
        if len(d.name) == 32:
            subprocess.run([FOLIO, "session", "close", d.name], env=env, capture_output=True,
                           timeout=60)


def live_sessions(env):
    p = subprocess.run([FOLIO, "session", "ls", "--json"], env=env, capture_output=True,
                       text=True, timeout=60)
    return [s for s in json.loads(p.stdout or "[]") if s.get("state") == "live"]


def drive(sdk, *args, env, timeout=300):
    p = subprocess.run([NODE, str(sdk), *map(str, args)], capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=HERE)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def stdio(sdk, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcp-stdio")
    env = runtime(tmp)
    # the policy: a 5 s cell timeout and a 200 kB ceiling, which no call may widen
    seen = drive(sdk, "stdio", FOLIO, tmp, "--timeout", 5, "--max-bytes", 200000, env=env)
    seen["_tmp"], seen["_live_after"] = tmp, live_sessions(env)
    store = pathlib.Path(env["XDG_RUNTIME_DIR"]) / "folio"
    seen["_spares"] = sorted(p.name for p in (store / "spares").glob("*"))
    seen["_stores"] = sorted(p.name for p in store.glob("*") if len(p.name) == 32)
    yield seen
    close_spares(env)


def check_conversation(seen, cell_timeout_5s=True):
    """What every transport must answer the same way."""
    assert seen["errors_at_end"] == [], seen["errors_at_end"]
    assert seen["server"]["name"] == "folio"
    names = {t["name"] for t in seen["tools"]}
    assert names == TOOLS
    for t in seen["tools"]:
        assert len(t["description"]) > 60, t["name"]
        assert t["inputSchema"]["type"] == "object"
    # three calls, each using the previous one's variable
    assert not seen["put"]["isError"] and seen["put"]["links"] == ["folio://work/sales.csv"]
    assert "North" in seen["a1"]["text"] and "| region | revenue |" in seen["a1"]["text"]
    assert seen["a2"]["text"].startswith("total 300")
    assert seen["a3"]["text"].splitlines()[0] == "600"
    assert seen["error"]["isError"] and "ZeroDivisionError" in seen["error"]["text"]
    assert seen["figure"] == {"isError": False, "mime": "image/png", "png": "PNG"}
    # validation: the located error and its hint as the result
    assert not seen["valid"]["isError"] and seen["valid"]["structured"]["valid"] is True
    bad = seen["invalid"]
    assert bad["isError"] and bad["structured"]["valid"] is False
    err = bad["structured"]["errors"][0]
    assert err["pointer"] == "/blocks/0/type" and "table" in err["hint"] and err["line"] > 0
    # the render: links, readable as resources; or embedded
    assert sorted(seen["render"]["links"]) == ["folio://render/result.pdf",
                                               "folio://render/result.xlsx"]
    assert seen["render_mime"].endswith("spreadsheetml.sheet")
    assert seen["embedded"]["types"] == ["text", "resource"]
    assert "folio://work/sales.csv" in seen["list"]["links"]
    assert "folio://out/result.json" in seen["resources"]
    assert seen["get_text_body"] == "region,revenue\nNorth,120\nSouth,80\nEast,100\n"
    # hostile arguments are tool errors with a hint, and change nothing outside
    for k in ("escape_put", "escape_get", "oversize", "bad_b64"):
        assert seen[k]["isError"] and "hint:" in seen[k]["text"], (k, seen[k])
    assert "ceiling" in seen["oversize"]["text"]
    assert "-32002" in seen["escape_uri"]
    assert "-32602" in seen["unknown_tool"]
    if cell_timeout_5s:
        # a call cannot lengthen the server's cell timeout (5 s)
        lt = seen["longer_timeout"]
        assert lt["isError"] and "cell_timeout" in lt["text"] and "slept" not in lt["text"]
    # progress: the cell's output lines and the heartbeat, strictly increasing
    prog = seen["progress"]
    assert [p["progress"] for p in prog] == sorted({p["progress"] for p in prog})
    assert {"stdout: step 0", "stdout: step 3"} <= {p.get("message") for p in prog}
    # cancellation: the SDK's call ends at the abort, the server sends no answer
    # for it (an answer would show in errors_at_end), and the session goes on
    assert seen["cancel"].startswith("rejected") and "changed their mind" in seen["cancel"]
    assert seen["cancel_progress"] >= 1
    assert not seen["after_cancel"]["isError"]
    # and the cancelled cell was interrupted (KeyboardInterrupt), not left to
    # run to its end: x is still what it was before the sleep
    assert "'before'" in seen["after_cancel"]["text"] and "'after'" not in seen["after_cancel"]["text"]
    # restart: variables gone, files kept
    assert "NameError" in seen["after_restart"]["text"]
    assert "['sales.csv']" in seen["files_kept"]["text"]
    assert seen["env"]["text"].startswith("Python 3") and "pandas==" in seen["env"]["text"]


def test_stdio_sdk_client_drives_a_conversation(stdio):
    check_conversation(stdio)


def test_stdio_render_opens_in_openpyxl(stdio):
    import openpyxl
    ws = openpyxl.load_workbook(stdio["_tmp"] / "result.xlsx").active
    rows = [[c.value for c in r] for r in ws.iter_rows()]
    assert rows[0] == ["region", "revenue"]
    assert rows[-1] == ["Total", 300]          # the variable of the analysis' second call


def test_stdio_session_ends_with_the_client(stdio):
    # the client closed stdin: the session it used is gone (a spare made
    # ahead for the next client may wait, unclaimed)
    assert stdio["_live_after"] == []
    assert stdio["_stores"] == stdio["_spares"]


def test_tool_input_schemas_are_draft_2020_12(stdio):
    from jsonschema import Draft202012Validator
    for t in stdio["tools"]:
        Draft202012Validator.check_schema(t["inputSchema"])
        assert t["inputSchema"].get("additionalProperties") is False, t["name"]
        assert set(t["inputSchema"].get("required", [])) <= set(t["inputSchema"]["properties"])
        ann = t["annotations"]
        assert isinstance(ann["readOnlyHint"], bool) and ann["openWorldHint"] is False


# ------------------------------------------------ raw protocol, no SDK

def raw(lines, tmp_path, answers, *opts):
    """Writes the lines to folio mcp, reads `answers` lines back, then closes
    stdin and reads to the end. Its input stays open until the answers are in:
    at the end of input folio cancels the calls in flight, and a cancelled
    call is never answered."""
    env = runtime(tmp_path)
    text = "".join(json.dumps(x) + "\n" if not isinstance(x, str) else x + "\n" for x in lines)
    p = subprocess.Popen([FOLIO, "mcp", *opts], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    guard = threading.Timer(120, p.kill)
    guard.start()
    try:
        p.stdin.write(text)
        p.stdin.flush()
        got = [p.stdout.readline() for _ in range(answers)]
        p.stdin.close()
        got += p.stdout.readlines()
        err = p.stderr.read()
        p.wait()
    finally:
        guard.cancel()
    close_spares(env)
    assert p.returncode == 0, err
    return [json.loads(line) for line in got if line], p


def test_protocol_errors_are_json_rpc_errors(tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "0"}}}
    out, _ = raw([init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  "{not json",
                  [{"jsonrpc": "2.0", "id": 2, "method": "ping"}],
                  {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"},
                  {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "run_python",
                                                                             "arguments": [1]}},
                  {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                   "params": {"name": "run_python", "arguments": {}}}], tmp_path, 6)
    by_id = {}
    for m in out:
        by_id.setdefault(json.dumps(m.get("id")), []).append(m)
    # an older client gets its own revision back
    assert by_id["1"][0]["result"]["protocolVersion"] == "2025-06-18"
    codes = sorted(m["error"]["code"] for m in by_id["null"])
    assert codes == [-32700, -32600]           # unparseable line; a batch
    assert by_id["3"][0]["error"]["code"] == -32601
    assert by_id["4"][0]["error"]["code"] == -32602
    r5 = by_id["5"][0]["result"]                # a tool error is a result, with the hint
    assert r5["isError"] is True and "hint:" in r5["content"][0]["text"]
    assert len(out) == 6                        # the notification got no answer


def test_unknown_option_is_a_usage_error(tmp_path):
    p = subprocess.run([FOLIO, "mcp", "--net-all"], capture_output=True, text=True, timeout=60,
                       env=runtime(tmp_path))
    assert p.returncode == 1 and "unknown option --net-all" in p.stderr


# ------------------------------------------------------ streamable HTTP

sys.path.insert(0, str(ROOT / "tests" / "serve"))
from test_serve import Server  # noqa: E402

TOKEN = "mcp-test-token-0123456789abcdef"


@pytest.fixture(scope="module")
def http(sdk, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mcp-http")
    (tmp / "tokens").write_text(TOKEN + "\nanother-token-0123456789abcdef\n")
    (tmp / "tokens").chmod(0o600)
    srv = Server("--token-file", tmp / "tokens", "--max-bytes", 200000,
                 "--session-dir", tmp / "sessions", scratch=tmp)
    env = dict(os.environ, FOLIO_SESSION_DIR=str(tmp / "sessions"))
    try:
        seen = drive(sdk, "http", srv.url + "/mcp", TOKEN, tmp, env=env)
        seen["_tmp"], seen["_srv"], seen["_env"] = tmp, srv, env
        yield seen
    finally:
        assert srv.stop() == 0
        close_spares(dict(env, XDG_RUNTIME_DIR=str(tmp)))


def post(url, body, token=TOKEN, **headers):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        h["Authorization"] = "Bearer " + token
    h.update(headers)
    data = json.dumps(body).encode() if body is not None else None
    method = headers.pop("method", None)
    req = urllib.request.Request(url, data=data, headers=h, method=method or ("POST" if data else "GET"))
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


def test_http_sdk_client_drives_a_conversation(http):
    check_conversation(http, cell_timeout_5s=False)


def test_http_render_opens_in_openpyxl(http):
    import openpyxl
    rows = [[c.value for c in r] for r in
            openpyxl.load_workbook(http["_tmp"] / "result.xlsx").active.iter_rows()]
    assert rows[-1] == ["Total", 300]


def test_http_session_ends_with_delete(http):
    # the SDK client ended its MCP session (DELETE /mcp): its folio session is closed
    p = subprocess.run([FOLIO, "session", "ls", "--json"], env=http["_env"], capture_output=True,
                       text=True, timeout=60)
    assert [s for s in json.loads(p.stdout or "[]") if s.get("state") == "live"] == []


def test_http_transport_rules(http):
    url = http["_srv"].url + "/mcp"
    st, h, body = post(url, INIT)
    assert st == 200 and h["Content-Type"] == "application/json"
    sid = h["Mcp-Session-Id"]
    assert len(sid) == 32 and json.loads(body)["result"]["protocolVersion"] == "2025-11-25"
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert post(url, ping, **{"Mcp-Session-Id": sid})[0] == 200
    # a notification is accepted with no body
    st, _, body = post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                       **{"Mcp-Session-Id": sid})
    assert (st, body) == (202, "")
    assert post(url, ping)[0] == 400                                   # no session id
    assert post(url, ping, **{"Mcp-Session-Id": "0" * 32})[0] == 404   # unknown
    assert post(url, ping, token="another-token-0123456789abcdef",
                **{"Mcp-Session-Id": sid})[0] == 404                     # another token's
    assert post(url, ping, token=None, **{"Mcp-Session-Id": sid})[0] == 401
    assert post(url, ping, Origin="http://evil.example", **{"Mcp-Session-Id": sid})[0] == 403
    assert post(url, ping, **{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "1999-01-01"})[0] == 400
    assert post(url, None)[0] == 405                                     # no standalone stream
    # progress asked for: an event stream of notifications, then the answer
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "run_python", "_meta": {"progressToken": "p1"},
                       "arguments": {"code": "import time\nfor i in range(3):\n"
                                             "    print(i, flush=True); time.sleep(0.5)"}}}
    st, h, body = post(url, call, **{"Mcp-Session-Id": sid})
    assert st == 200 and h["Content-Type"] == "text/event-stream"
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
    assert [e["method"] for e in events[:-1]] == ["notifications/progress"] * (len(events) - 1)
    assert len(events) >= 3 and events[-1]["id"] == 3
    assert events[-1]["result"]["content"][0]["text"] == "0\n1\n2\n"
    st, _, _ = post(url, None, method="DELETE", **{"Mcp-Session-Id": sid})
    assert st == 204
    assert post(url, ping, **{"Mcp-Session-Id": sid})[0] == 404
