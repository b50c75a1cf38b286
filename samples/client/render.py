#!/usr/bin/env python3
"""render.py — render a spec through `folio serve`, as a chat backend would
(Python standard library only).

    render.py [--url http://127.0.0.1:8080] [--token TOKEN] SPEC.json FORMAT [FORMAT...] [-o OUT]

Sends the spec and every file it references (data CSVs, images, a theme),
each as a part named by its path relative to the spec, to POST /v1/render.
One format writes the file; several write a zip. On a 4xx it prints the
server's errors, located as `folio validate` locates them, and exits 2."""
import argparse
import json
import os
import sys
import urllib.error
import urllib.request
import uuid


def referenced_files(spec):
    """Relative paths a spec references: dataset CSVs, images, a theme file."""
    paths = [d["csv"] for d in spec.get("data", {}).values() if isinstance(d, dict) and "csv" in d]
    paths += [b["path"] for b in spec.get("blocks", []) if b.get("type") == "image" and "path" in b]
    theme = spec.get("theme")
    if isinstance(theme, str) and theme.endswith(".json"):
        paths.append(theme)
    return paths


def multipart(fields):
    """fields: [(name, bytes)] -> (body, content type)."""
    boundary = "folio-" + uuid.uuid4().hex
    out = []
    for name, data in fields:
        out.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                   f'filename="{os.path.basename(name)}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode())
        out.append(data)
        out.append(b"\r\n")
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out), f"multipart/form-data; boundary={boundary}"


def render(url, token, spec_path, formats):
    """Returns (status, content type, body)."""
    with open(spec_path, "rb") as f:
        raw = f.read()
    base = os.path.dirname(os.path.abspath(spec_path))
    fields = [("spec", raw)]
    for rel in referenced_files(json.loads(raw)):
        with open(os.path.join(base, rel), "rb") as f:
            fields.append((rel, f.read()))
    body, ctype = multipart(fields)
    query = "&".join("format=" + f for f in formats)
    req = urllib.request.Request(f"{url}/v1/render?{query}", data=body, method="POST",
                                 headers={"Content-Type": ctype})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default=os.environ.get("FOLIO_URL", "http://127.0.0.1:8080"))
    ap.add_argument("--token", default=os.environ.get("FOLIO_TOKEN"))
    ap.add_argument("-o", "--output")
    ap.add_argument("spec")
    ap.add_argument("formats", nargs="+")
    a = ap.parse_args()
    status, ctype, body = render(a.url, a.token, a.spec, a.formats)
    if status != 200:
        try:
            for e in json.loads(body)["errors"]:
                where = ":".join(str(x) for x in (e.get("file"), e.get("line"), e.get("column")) if x)
                hint = f" ({e['hint']})" if e.get("hint") else ""
                print(f"folio serve: {status}: {where + ': ' if where else ''}"
                      f"{(e.get('pointer') or '') + ': ' if e.get('pointer') else ''}{e['message']}{hint}",
                      file=sys.stderr)
        except (ValueError, KeyError):
            print(f"folio serve: {status}: {body[:300]!r}", file=sys.stderr)
        return 2
    out = a.output or ("result.zip" if len(a.formats) > 1 else "result." + a.formats[0])
    with open(out, "wb") as f:
        f.write(body)
    print(f"wrote {out} ({len(body)} bytes, {ctype})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
