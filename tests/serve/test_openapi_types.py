# test_openapi_types.py — docs/openapi.json gives every answer of `folio serve`
# a real type (PRODUCT.md §8). Three readers check it, none of them folio:
# (1) the document itself: its OpenAPI 3.1 structure (@redocly/openapi-core,
#     offline), every $ref resolves, every schema is a Draft 2020-12 schema,
#     every JSON answer has one;
# (2) python3-jsonschema validates every real answer of a server on loopback
#     (sessions, cells in every status, the event stream, a detached cell,
#     interrupt, a run, the environment, refusals, a resume) against the
#     schema of its path, method, status and content type: a field the server
#     adds without documenting it, or a typo in the document, fails;
# (3) openapi-typescript (pinned in tests/openapi/package-lock.json, installed
#     with `npm ci`) generates a TypeScript client and tsc compiles a program
#     against it that reads result.error?.name, result.failure?.code,
#     result.displays[0].data["text/html"]... with exact types, plus lines
#     marked @ts-expect-error that must not compile: a loose type fails.
import copy
import json
import pathlib
import shutil
import signal
import subprocess
import urllib.request

import pytest
from jsonschema import Draft202012Validator

from test_serve import ROOT, Server, multipart, request

DOC = json.loads((ROOT / "docs" / "openapi.json").read_text())
NPM_DIR = ROOT / "tests" / "openapi"
NODE = shutil.which("node")


def resolve(ref, doc=DOC):
    assert ref.startswith("#/"), ref
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        assert part in node, f"{ref} does not resolve"
        node = node[part]
    return node


def walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from walk(v, f"{path}/{k}")


def responses(doc=DOC):
    for p, ops in doc["paths"].items():
        for m, op in ops.items():
            for st, r in op.get("responses", {}).items():
                yield p, m, st, resolve(r["$ref"], doc) if "$ref" in r else r


# ------------------------------------------------------------ (1) the document

def test_every_ref_resolves_and_every_schema_is_draft_2020_12():
    refs = [n["$ref"] for _, n in walk(DOC) if isinstance(n.get("$ref"), str)]
    assert len(refs) > 50
    for ref in refs:
        resolve(ref)
    for name, schema in DOC["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
    for p, m, st, r in responses():
        for ctype, media in r.get("content", {}).items():
            Draft202012Validator.check_schema(media["schema"])


def test_every_json_answer_has_a_schema_and_objects_are_closed():
    for p, m, st, r in responses():
        if st == "204":
            assert "content" not in r, (p, m, st)
            continue
        assert r.get("content"), f"{m} {p} {st} has no content"
        for ctype, media in r["content"].items():
            assert "schema" in media, (p, m, st, ctype)
            s = media["schema"]
            if ctype == "application/json" and p != "/v1/openapi.json":
                assert s != {"type": "object"}, f"{m} {p} {st}: a loose object"
    # every object the server answers is closed: an undocumented field fails (2)
    for name, schema in DOC["components"]["schemas"].items():
        for where, n in walk(schema):
            if n.get("type") == "object" and "properties" in n and name != "MimeData":
                assert "additionalProperties" in n, f"{name}{where} is open"


# ------------------------------------------------------------ (2) real answers

def schema_for(path, method, status, ctype="application/json"):
    op = DOC["paths"][path][method.lower()]
    assert str(status) in op["responses"], f"{method} {path} answered {status}, not documented"
    r = op["responses"][str(status)]
    r = resolve(r["$ref"]) if "$ref" in r else r
    assert ctype in r["content"], f"{method} {path} {status}: {ctype} not documented"
    # the refs are "#/components/...": a root that carries the components
    return {"allOf": [r["content"][ctype]["schema"]], "components": DOC["components"]}


class Checker:
    def __init__(self, srv):
        self.srv, self.seen = srv, []

    def check(self, template, obj, method, status, ctype="application/json"):
        schema = schema_for(template, method, status, ctype)
        errors = sorted(Draft202012Validator(schema).iter_errors(obj), key=str)
        assert not errors, (f"{method} {template} {status}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:5]))
        self.seen.append((method, template, status))
        return obj

    def call(self, method, template, status, obj=None, body=None, ctype="application/json",
             query="", **ids):
        path = template.format(**ids) + query
        data = json.dumps(obj).encode() if obj is not None else body
        st, h, out = request(self.srv.url + path, method, data, ctype if data is not None else None,
                             timeout=180)
        assert st == status, (method, path, st, out[:500])
        if st == 204:
            return None
        assert h["Content-Type"].startswith("application/json"), h["Content-Type"]
        return self.check(template, json.loads(out), method, st)

    def events(self, template, obj, **ids):
        req = urllib.request.Request(self.srv.url + template.format(**ids), json.dumps(obj).encode(),
                                     {"Content-Type": "application/json",
                                      "Accept": "text/event-stream"})
        with urllib.request.urlopen(req, timeout=180) as r:
            assert r.headers["Content-Type"] == "text/event-stream"
            text = r.read().decode()
        schema_for(template, "POST", 200, "text/event-stream")       # documented
        out = []
        for block in text.split("\n\n"):
            lines = [l for l in block.splitlines() if not l.startswith(":")]
            if lines:
                assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
                out.append((lines[0][7:], json.loads("".join(l[6:] for l in lines[1:]))))
        return out


EXEC = "/v1/sessions/{id}/exec"
# a form that is not what its type says (left out, the metadata says why), a
# JSON form, and a link in /out (refused)
ODD = ("import os\nclass B:\n    def _repr_mimebundle_(self, include=None, exclude=None):\n"
       "        return {'image/png': 'not base64 at all!', 'application/json': {'k': [1, 2]}}\n"
       "display(B())\nos.symlink('/etc/hostname', '/out/link')")
RUN_SPEC = ("import json\njson.dump({'folio': 1, 'blocks': [{'type': 'heading', 'text': 'Hi'}]}, "
            "open('/out/result.json', 'w'))")
FIGURE = ("import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
          "plt.plot([1, 3, 2])\nopen('/out/t.csv', 'w').write('a\\n1\\n')\n"
          "display({'a': 1})\nclass H:\n    def _repr_html_(self): return '<b>h</b>'\n"
          "display(H())\nprint('hi')")


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    """Every kind of answer, each validated as it comes; what was seen."""
    tmp = tmp_path_factory.mktemp("openapi")
    (tmp / "scratch").mkdir()
    args = ("--instance", "oa", "--session-dir", tmp / "sessions", "--max-sessions", 4)
    srv = Server(*args, scratch=tmp / "scratch")
    ck = Checker(srv)
    got = {}
    try:
        ck.check("/healthz", json.loads(request(srv.url + "/healthz")[2]), "GET", 200)
        s = ck.call("POST", "/v1/sessions", 201, {"timeout": 30})
        sid = s["id"]
        r = ck.call("POST", EXEC, 200, {"code": "import pandas as pd\npd.DataFrame({'a': [1, 2]})"}, id=sid)
        got["frame"] = r
        got["figure"] = ck.call("POST", EXEC, 200, {"code": FIGURE}, id=sid)
        got["module"] = ck.call("POST", EXEC, 200, {"code": "import no_such_module_x"}, id=sid)
        got["timeout"] = ck.call("POST", EXEC, 200, {"code": "import time\ntime.sleep(30)", "timeout": 0.5}, id=sid)
        got["big"] = ck.call("POST", EXEC, 200, {"code": "print('x' * (2 << 20))"}, id=sid)
        got["odd"] = ck.call("POST", EXEC, 200, {"code": ODD}, id=sid)
        got["many"] = ck.call("POST", EXEC, 200, {"code": "for i in range(40): display(i)"}, id=sid)
        # detached, running, interrupted, then its result
        d = ck.call("POST", EXEC, 202, {"code": "import time\ntime.sleep(30)", "detach": True}, id=sid)
        cell = d["cell"]
        got["running"] = ck.call("GET", "/v1/sessions/{id}/cells/{n}", 200, id=sid, n=cell)
        got["interrupt"] = ck.call("POST", "/v1/sessions/{id}/interrupt", 200, {}, id=sid)
        for _ in range(100):
            r = ck.call("GET", "/v1/sessions/{id}/cells/{n}", 200, id=sid, n=cell)
            if r["status"] != "running":
                break
            __import__("time").sleep(0.1)
        got["interrupted"] = r
        got["no_interrupt"] = ck.call("POST", "/v1/sessions/{id}/interrupt", 200, {}, id=sid)
        got["restarted"] = ck.call("POST", EXEC, 200, {"code": "import os\nos._exit(3)"}, id=sid)
        got["events"] = ck.events(EXEC, {"code": "print(1)\ndisplay(2)\n3"}, id=sid)
        # refusals
        got["bad_exec"] = ck.call("POST", EXEC, 400, {"code": 1}, id=sid)
        got["ceiling"] = ck.call("POST", "/v1/sessions", 400, {"timeout": 1e9})
        ck.call("POST", EXEC, 404, {"code": "1"}, id="oa-" + "0" * 32)
        ck.call("POST", "/v1/sessions", 403, {"net": "all"})
        got["bad_type"] = ck.call("POST", "/v1/convert", 415, body=b"x", ctype="image/gif",
                                  query="?to=pdf")
        ck.call("GET", "/v1/sessions/{id}/cells/{n}", 404, id=sid, n=999)
        ck.call("GET", "/v1/sessions/{id}/files/{path}", 404, id=sid, path="nothing.txt")
        ck.call("PUT", "/v1/sessions/{id}/files/{path}", 201, body=b"a,b\n", ctype="text/csv",
                id=sid, path="in.csv")
        ck.call("POST", "/v1/sessions/{id}/render", 400, body=b"", id=sid)
        body, ct = multipart([("spec", b'{"folio": 1, "blocks": [{"type": "nope"}]}', "spec.json")])
        st, _, out = request(srv.url + "/v1/render?format=pdf", "POST", body, ct)
        got["spec_error"] = ck.check("/v1/render", json.loads(out), "POST", st)
        # a run, the environment, the session list
        body, ct = multipart([("cmd", json.dumps(["python3", "-c", "open('/out/a.txt', 'w').write('x')"]).encode(), None)])
        got["run"] = ck.call("POST", "/v1/run", 200, body=body, ctype=ct)
        body, ct = multipart([("cmd", json.dumps(["python3", "-c", RUN_SPEC]).encode(), None),
                              ("render", b"pdf", None)])
        got["rendered"] = ck.call("POST", "/v1/run", 200, body=body, ctype=ct)
        body, ct = multipart([("cmd", b'["false"]', None), ("render", b"pdf", None)])
        got["skipped"] = ck.call("POST", "/v1/run", 200, body=body, ctype=ct)
        body, ct = multipart([("cmd", b'["sleep", "30"]', None), ("timeout", b"0.5", None)])
        got["run_timeout"] = ck.call("POST", "/v1/run", 200, body=body, ctype=ct)
        got["env"] = ck.call("GET", "/v1/environment", 200)
        st, _, out = request(srv.url + "/v1/sessions")
        got["list_status"] = st
        if st == 200:
            got["list"] = ck.check("/v1/sessions", json.loads(out), "GET", 200)
        # a second session, hibernated by SIGTERM and resumed by the next instance
        s2 = ck.call("POST", "/v1/sessions", 201, {})["id"]
        ck.call("POST", EXEC, 200, {"code": "x = 41\nimport os\nos.mkfifo('/tmp/f')"}, id=s2)
        assert srv.stop() == 0
        srv = ck.srv = Server(*args, scratch=tmp / "scratch")
        got["resumed"] = ck.call("POST", EXEC, 200, {"code": "x + 1"}, id=s2)
        ck.call("DELETE", "/v1/sessions/{id}", 204, id=s2)
        ck.call("DELETE", "/v1/sessions/{id}", 204, id=sid)   # hibernated by the drain
    finally:
        srv.stop()
    got["seen"] = ck.seen
    return got


def test_exec_results_in_every_status_match_the_schema(answers):
    a = answers
    assert a["frame"]["result_data"]["data"]["text/html"].startswith("<div")
    fig = [d for d in a["figure"]["displays"] if "path" in d]
    assert len(fig) == 1 and fig[0]["mime"] == "image/png" and fig[0]["data"]["image/png"]
    assert any(d["data"].get("text/html") == "<b>h</b>" for d in a["figure"]["displays"])
    assert "/out/t.csv" in [f["path"] for f in a["figure"]["files"]]
    assert a["module"]["error"]["name"] == "ModuleNotFoundError" and a["module"]["error"]["hint"]
    assert a["timeout"]["status"] == "timeout" and a["timeout"]["failure"]["code"] == "cell_timeout"
    assert a["big"]["truncated"]["stdout_bytes"] > a["big"]["truncated"]["kept"]
    odd = a["odd"]["displays"][0]
    assert odd["metadata"]["truncated"]["dropped"][0]["reason"] == "not base64"
    assert odd["data"]["application/json"] == {"k": [1, 2]}
    assert a["odd"]["refused"][0]["path"] == "/out/link"
    assert len(a["many"]["displays"]) == 32 and a["many"]["displays_dropped"]
    assert a["restarted"]["status"] == "restarted"
    assert a["resumed"]["resumed"] is True and a["resumed"]["result"] == "42"
    assert a["resumed"]["not_restored"], a["resumed"]


def test_detached_cell_and_interrupt_match_the_schema(answers):
    assert answers["running"]["status"] == "running"
    assert answers["interrupt"] == {"interrupted": True}
    # interrupted; restarted when the interpreter did not stop within 1 s (a
    # loaded machine): both say code interrupted (docs/sessions.md)
    assert answers["interrupted"]["status"] in ("interrupted", "restarted"), answers["interrupted"]
    assert answers["interrupted"]["failure"]["code"] == "interrupted"
    assert answers["no_interrupt"] == {"interrupted": False}


def test_event_stream_events_match_their_schemas(answers):
    ev = answers["events"]
    names = [n for n, _ in ev]
    assert names[0] == "cell" and names[-1] == "result" and "stream" in names and "display" in names
    s = DOC["components"]["schemas"]
    each = {"cell": {"type": "object", "required": ["cell"], "additionalProperties": False,
                     "properties": {"cell": {"type": "integer"}}},
            "stream": s["StreamChunk"], "display": s["Display"], "result": s["ExecResult"]}
    desc = DOC["paths"][EXEC]["post"]["responses"]["200"]["content"]["text/event-stream"]["schema"]["description"]
    for name, data in ev:
        assert f"`{name}`" in desc
        v = Draft202012Validator({"allOf": [each[name]], "components": DOC["components"]})
        assert not list(v.iter_errors(data)), (name, data)


def test_refusals_and_other_answers_match(answers):
    assert answers["ceiling"]["errors"][0]["code"] == "over_ceiling"
    assert answers["spec_error"]["errors"][0]["pointer"] == "/blocks/0/type"
    assert answers["run"]["files"][0]["url"].startswith("/v1/runs/")
    assert answers["rendered"]["render"]["files"][0]["name"] == "result.pdf"
    assert "skipped" in answers["skipped"]["render"]
    assert answers["run_timeout"]["limit"] == "timeout" and answers["run_timeout"]["signal"]
    assert answers["env"]["packages"]
    if answers["list_status"] != 200:
        pytest.skip(f"GET /v1/sessions answered {answers['list_status']}: not in this build yet")
    assert {x["state"] for x in answers["list"]["sessions"]} <= {"live", "hibernated"}


def test_schema_catches_an_undocumented_field(answers):
    # the same check as above, on an answer with one field more: it must fail
    extra = dict(answers["frame"], surprise=1)
    schema = schema_for(EXEC, "POST", 200)
    assert list(Draft202012Validator(schema).iter_errors(extra))
    bad = copy.deepcopy(answers["frame"])
    bad["status"] = "finished"
    assert list(Draft202012Validator(schema).iter_errors(bad))


# ------------------------------------------------------------ (3) TypeScript

PROGRAM = r"""
import type { components, paths } from "./schema";

type Exec = paths["/v1/sessions/{id}/exec"]["post"];
type ExecResult = Exec["responses"][200]["content"]["application/json"];
declare const result: ExecResult;

// exact types, not merely assignable ones (a never or an any would pass an assignment)
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const exactName: Equals<NonNullable<ExecResult["error"]>["name"], string> = true;
const exactHint: Equals<NonNullable<ExecResult["error"]>["hint"], string | undefined> = true;
const exactStatus: Equals<ExecResult["status"], "ok" | "error" | "timeout" | "interrupted" | "restarted"> = true;
const exactCode: Equals<NonNullable<ExecResult["failure"]>["code"],
  "cell_timeout" | "interrupted" | "oom_killed" | "disk_full" | "kernel_restarted"> = true;
const exactHtml: Equals<ExecResult["displays"][number]["data"]["text/html"], string | undefined> = true;

const name: string | undefined = result.error?.name;
const tb: string | undefined = result.error?.traceback;
const code: "cell_timeout" | "interrupted" | "oom_killed" | "disk_full" | "kernel_restarted" | undefined =
  result.failure?.code;
const html: string | undefined = result.displays[0].data["text/html"];
const png: string | undefined = result.displays[0].data["image/png"];
const plain: string = result.displays[0].data["text/plain"];
const figure: string | undefined = result.displays[0].sha256;
const dropped: string | undefined = result.displays[0].metadata.truncated?.dropped[0].reason;
const stopped: boolean = result.status === "interrupted" || result.status === "restarted";
const frame: string | undefined = result.result_data?.data["text/html"];
const kept: number | undefined = result.truncated?.kept;
const file: string = result.files[0].path;
const ms: number = result.ms;

const detached: string = ({} as Exec["responses"][202]["content"]["application/json"]).url;
type Cell = paths["/v1/sessions/{id}/cells/{n}"]["get"]["responses"][200]["content"]["application/json"];
declare const cell: Cell;
const running: boolean = "status" in cell && cell.status === "running";
type Interrupt = paths["/v1/sessions/{id}/interrupt"]["post"]["responses"][200];
declare const interrupt: Interrupt["content"]["application/json"];
const interrupted: boolean = interrupt.interrupted;

type Session = paths["/v1/sessions"]["post"]["responses"][201]["content"]["application/json"];
declare const session: Session;
const id: string = session.id;
const timeout: number = session.limits.timeout_s;
declare const list: paths["/v1/sessions"]["get"]["responses"][200]["content"]["application/json"];
const asleep: boolean = list.sessions[0].state === "hibernated";

declare const errors: components["schemas"]["Errors"];
const ecode: string | null | undefined = errors.errors[0].code;
const emsg: string = errors.errors[0].message;

declare const run: paths["/v1/run"]["post"]["responses"][200]["content"]["application/json"];
const url: string = run.files[0].url;
const expires: number = run.expires_in;
declare const env: paths["/v1/environment"]["get"]["responses"][200]["content"]["application/json"];
const imports: string[] = env.packages[0].imports;

// a loose type would let these compile: they must not
// @ts-expect-error: "finished" is not a status
const never: boolean = result.status === "finished";
// @ts-expect-error: an error's name is a string
const notNumber: number = result.error?.name;
// @ts-expect-error: an error has no such field
const noField = result.error?.nosuch;
// @ts-expect-error: a session has no such field
const nothing = session.secret;

export const used = [exactName, exactHint, exactStatus, exactCode, exactHtml, noField, name, tb, code, html, png, plain, figure, dropped, stopped, frame, kept, file, ms,
  detached, running, interrupted, id, timeout, asleep, ecode, emsg, url, expires, imports, never,
  notNumber, nothing];
"""


@pytest.fixture(scope="module")
def tools():
    if NODE is None:
        pytest.skip("node is not installed (make deps-test)")
    mods = NPM_DIR / "node_modules"
    if not all(p.exists() for p in (mods / ".bin" / "tsc", mods / ".bin" / "openapi-typescript",
                                    mods / "@redocly" / "openapi-core")):
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NPM_DIR,
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr
    return NPM_DIR / "node_modules" / ".bin"


def compile_against(tools, doc, tmp):
    (tmp / "openapi.json").write_text(json.dumps(doc))
    gen = subprocess.run([str(tools / "openapi-typescript"), str(tmp / "openapi.json"), "-o",
                          str(tmp / "schema.ts")], capture_output=True, text=True, timeout=300)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    (tmp / "program.ts").write_text(PROGRAM)
    return subprocess.run([str(tools / "tsc"), "--noEmit", "--strict", "--target", "es2020",
                           "--module", "esnext", "--moduleResolution", "bundler",
                           str(tmp / "program.ts")], capture_output=True, text=True, timeout=300)


def test_document_has_the_openapi_3_1_structure(tools, tmp_path):
    p = subprocess.run([NODE, str(NPM_DIR / "lint.mjs"), str(ROOT / "docs" / "openapi.json")],
                       capture_output=True, text=True, timeout=300, cwd=NPM_DIR)
    assert p.returncode == 0 and p.stdout.strip().endswith("problems 0"), p.stdout + p.stderr
    # and the check sees a misplaced field (a Media Type has no description)
    bad = copy.deepcopy(DOC)
    bad["paths"][EXEC]["post"]["responses"]["200"]["content"]["application/json"]["description"] = "x"
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    p = subprocess.run([NODE, str(NPM_DIR / "lint.mjs"), str(tmp_path / "bad.json")],
                       capture_output=True, text=True, timeout=300, cwd=NPM_DIR)
    assert p.returncode == 1 and "struct" in p.stdout and "description" in p.stdout, p.stdout


def test_typescript_client_compiles_with_exact_types(tools, tmp_path):
    p = compile_against(tools, DOC, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def test_typescript_client_of_a_loose_document_does_not_compile(tools, tmp_path):
    # the same program against the types this document replaced (error a
    # bare object, status any string): tsc refuses it
    loose = copy.deepcopy(DOC)
    props = loose["components"]["schemas"]["ExecResult"]["properties"]
    props["error"] = {"type": ["object", "null"]}
    props["status"] = {"type": "string"}
    p = compile_against(tools, loose, tmp_path)
    assert p.returncode != 0
    errors = [l for l in p.stdout.splitlines() if "error TS" in l]
    # the exact types differ (true is not false); "finished" and .nosuch compile
    # now, so their @ts-expect-error lines are unused
    assert sum("TS2322" in l for l in errors) >= 2, p.stdout
    assert sum("TS2578" in l for l in errors) >= 2, p.stdout
    assert not any("TS1" in l.split("error ")[1][:4] for l in errors), p.stdout   # no syntax error
