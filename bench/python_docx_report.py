#!/usr/bin/python3
"""python_docx_report.py — the python-docx peer for bench-docx.sh: the same
50-section report (spec from gen_report.py) built with python-docx, each chart
drawn by matplotlib (Agg) into a PNG in memory and placed as a picture, all in
one process.

Charts: 8 x 4 in at 200 dpi = 1600 x 800 px, the pixel size of folio's charts
(800 x 400 at scale 2), so the two files carry comparable pictures.

usage: python_docx_report.py SPEC.json OUT.docx"""
import csv
import io
import json
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from docx import Document  # noqa: E402
from docx.enum.text import WD_ALIGN_PARAGRAPH  # noqa: E402
from docx.shared import Inches  # noqa: E402

MARK = re.compile(r"(\*\*[^*]+\*\*|\*[^*]+\*)")


def load(base, ds):
    with open(os.path.join(base, ds["csv"]), newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def add_markup(p, text):
    for part in MARK.split(text):
        if part.startswith("**"):
            p.add_run(part[2:-2]).bold = True
        elif part.startswith("*"):
            p.add_run(part[1:-1]).italic = True
        elif part:
            p.add_run(part)


def fmt(value, code):
    v = float(value)
    if code == "#,##0":
        return f"{v:,.0f}"
    if code == "#,##0.00":
        return f"{v:,.2f}"
    if code == "0.0%":
        return f"{v * 100:.1f}%"
    return value


def chart_png(header, rows, block):
    months = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4), dpi=200)
    ys = block["y"]
    w = 0.8 / len(ys)
    for k, name in enumerate(ys):
        col = header.index(name)
        ax.bar([i + (k - 1) * w for i in range(len(months))], [float(r[col]) for r in rows], w, label=name)
    ax.set_xticks(range(len(months)))
    ax.set_xticklabels(months)
    ax.set_title(block.get("title", ""))
    ax.set_ylabel(block.get("y_title", ""))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=len(ys), frameon=False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    buf.seek(0)
    return buf


def main():
    spec_path, out = sys.argv[1], sys.argv[2]
    base = os.path.dirname(os.path.abspath(spec_path))
    with open(spec_path) as f:
        spec = json.load(f)
    doc = Document()
    doc.core_properties.title = spec.get("title", "")
    doc.core_properties.author = spec.get("author", "")
    doc.add_heading(spec.get("title", ""), 0)
    if spec.get("subtitle"):
        doc.add_paragraph(spec["subtitle"], style="Subtitle")
    ntables = 0
    for b in spec["blocks"]:
        t = b["type"]
        if t == "heading":
            doc.add_heading(b["text"], b.get("level", 1))
        elif t == "paragraph":
            add_markup(doc.add_paragraph(), b["text"])
        elif t == "table":
            header, rows = load(base, spec["data"][b["data"]])
            cols = [c if isinstance(c, dict) else {"field": c, "title": c} for c in b["columns"]]
            idx = [header.index(c["field"]) for c in cols]
            ntables += 1
            doc.add_paragraph(f"Table {ntables}: {b.get('caption', '')}", style="Caption")
            table = doc.add_table(rows=1, cols=len(cols))
            table.style = "Light Grid Accent 1"
            for j, c in enumerate(cols):
                table.rows[0].cells[j].text = c.get("title", c["field"])
            totals = b.get("totals", {})
            sums = [0.0] * len(cols)
            for r in rows:
                cells = table.add_row().cells
                for j, c in enumerate(cols):
                    v = r[idx[j]]
                    if "format" in c:
                        sums[j] += float(v)
                        cells[j].text = fmt(v, c["format"])
                        cells[j].paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
                    else:
                        cells[j].text = v
            cells = table.add_row().cells
            cells[0].text = "Total"
            for j, c in enumerate(cols):
                if c["field"] in totals:
                    cells[j].text = fmt(sums[j], c["format"])
                    cells[j].paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
                    cells[j].paragraphs[0].runs[0].bold = True
        elif t == "chart":
            header, rows = load(base, spec["data"][b["data"]])
            doc.add_picture(chart_png(header, rows, b), width=Inches(6.3))
    doc.save(out)


if __name__ == "__main__":
    main()
