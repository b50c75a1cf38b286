#!/usr/bin/env python3
"""serve_peer.py — the peer of `folio serve` in bench-serve.sh: the usual
Python stack (standard library http.server, threaded; openpyxl for xlsx with
a native bar chart, matplotlib for png and pdf) answering the same
POST /render?format=F with a multipart "spec" part. Usage: serve_peer.py PORT"""
import email.parser
import email.policy
import io
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import openpyxl  # noqa: E402
from openpyxl.chart import BarChart, Reference  # noqa: E402


def spec_of(handler):
    n = int(handler.headers["Content-Length"])
    raw = b"Content-Type: " + handler.headers["Content-Type"].encode() + b"\r\n\r\n" + handler.rfile.read(n)
    msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
    for part in msg.iter_parts():
        if part.get_param("name", header="content-disposition") == "spec":
            return json.loads(part.get_payload(decode=True))
    raise ValueError("no spec part")


def table_chart(spec):
    blocks = spec["blocks"]
    ds = spec["data"][blocks[1]["data"]]
    cols = [c["name"] for c in ds["columns"]]
    return spec.get("title", ""), cols, ds["rows"], blocks[2]


def xlsx(spec):
    title, cols, rows, chart = table_chart(spec)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(cols)
    for r in rows:
        ws.append(r)
    c = BarChart()
    c.title = title
    c.add_data(Reference(ws, min_col=2, min_row=1, max_row=len(rows) + 1), titles_from_data=True)
    c.set_categories(Reference(ws, min_col=1, min_row=2, max_row=len(rows) + 1))
    ws.add_chart(c, "D2")
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def figure(spec, fmt):
    title, cols, rows, chart = table_chart(spec)
    fig, (ax, tx) = plt.subplots(2, 1, figsize=(6.4, 8 if fmt == "pdf" else 4.8),
                                 gridspec_kw={"height_ratios": [1, 1.4 if fmt == "pdf" else 0.01]})
    ax.bar([r[0] for r in rows], [r[1] for r in rows])
    ax.set_title(title)
    tx.axis("off")
    if fmt == "pdf":
        tx.table(cellText=[[str(v) for v in r] for r in rows], colLabels=cols, loc="center")
    out = io.BytesIO()
    fig.savefig(out, format=fmt)
    plt.close(fig)
    return out.getvalue(), "application/pdf" if fmt == "pdf" else "image/png"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body go out in two writes. With Nagle's algorithm on,
    # the body then waits for the client's delayed ACK (40 ms on Linux) on
    # every keep-alive request: the peer would measure a TCP stall, not its
    # work. Every production Python server sets TCP_NODELAY; so does this.
    disable_nagle_algorithm = True

    def do_POST(self):
        fmt = parse_qs(urlparse(self.path).query).get("format", ["pdf"])[0]
        body, ctype = xlsx(spec_of(self)) if fmt == "xlsx" else figure(spec_of(self), fmt)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
