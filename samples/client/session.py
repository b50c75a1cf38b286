#!/usr/bin/env python3
"""session.py — drive a folio session over HTTP through three cells, as a
chat backend does when a user asks follow-up questions (standard library only).

    session.py [--url http://127.0.0.1:8080] [--token TOKEN] DATA.csv

Creates a session, uploads the CSV, runs three cells (load, summarize, write
a result spec), renders it to PDF, downloads it and deletes the session.
The session routes are in docs/serve.md; an error answer is reported with
its message and ends the client (exit 1)."""
import argparse
import json
import os
import sys
import urllib.error
import urllib.request

CELLS = [
    "import csv\nrows = list(csv.DictReader(open('/work/data.csv')))\nprint(len(rows), 'rows')",
    "cols = list(rows[0])\nprint('columns:', ', '.join(cols))",
    "import json\nspec = {'folio': 1, 'title': 'Summary', 'data': {'d': {'csv': 'data.csv'}},\n"
    "        'blocks': [{'type': 'heading', 'text': 'Summary'}, {'type': 'table', 'data': 'd'}]}\n"
    "import shutil; shutil.copy('/work/data.csv', '/out/data.csv')\n"
    "json.dump(spec, open('/out/result.json', 'w'))\nprint('spec written')",
]


class Client:
    def __init__(self, url, token):
        self.url, self.token = url.rstrip("/"), token

    def call(self, method, path, body=None, ctype="application/json"):
        req = urllib.request.Request(self.url + path, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", ctype)
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=300) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def json(self, method, path, obj=None):
        status, body = self.call(method, path, None if obj is None else json.dumps(obj).encode())
        if status >= 300:
            try:
                msg = "; ".join(e["message"] for e in json.loads(body)["errors"])
            except (ValueError, KeyError):
                msg = body[:300].decode(errors="replace")
            raise SystemExit(f"folio serve: {method} {path}: {status}: {msg}")
        return json.loads(body) if body else {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=os.environ.get("FOLIO_URL", "http://127.0.0.1:8080"))
    ap.add_argument("--token", default=os.environ.get("FOLIO_TOKEN"))
    ap.add_argument("csv")
    a = ap.parse_args()
    c = Client(a.url, a.token)
    sid = c.json("POST", "/v1/sessions", {})["id"]
    print("session", sid)
    try:
        with open(a.csv, "rb") as f:
            st, body = c.call("PUT", f"/v1/sessions/{sid}/files/data.csv", f.read(), "text/csv")
        if st >= 300:
            raise SystemExit(f"folio serve: upload: {st}: {body[:200]!r}")
        for i, code in enumerate(CELLS, 1):
            r = c.json("POST", f"/v1/sessions/{sid}/exec", {"code": code, "timeout": 60})
            print(f"cell {i}: {r.get('status', '?')}: {r.get('stdout', '').strip()}")
        st, pdf = c.call("POST", f"/v1/sessions/{sid}/render?format=pdf", b"")
        if st != 200:
            raise SystemExit(f"folio serve: render: {st}: {pdf[:200]!r}")
        with open("summary.pdf", "wb") as f:
            f.write(pdf)
        print(f"wrote summary.pdf ({len(pdf)} bytes)")
    finally:
        c.call("DELETE", f"/v1/sessions/{sid}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
