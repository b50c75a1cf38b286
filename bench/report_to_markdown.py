#!/usr/bin/python3
"""report_to_markdown.py — the pandoc peer's input for bench-docx.sh: the
gen_report.py spec as Markdown with pipe tables (no charts: pandoc draws
none), written once before timing so only `pandoc -o report.docx` is measured.

usage: report_to_markdown.py SPEC.json OUT.md"""
import csv
import json
import os
import sys


def fmt(value, code):
    v = float(value)
    return {"#,##0": f"{v:,.0f}", "#,##0.00": f"{v:,.2f}", "0.0%": f"{v * 100:.1f}%"}.get(code, value)


def main():
    spec_path, out = sys.argv[1], sys.argv[2]
    base = os.path.dirname(os.path.abspath(spec_path))
    with open(spec_path) as f:
        spec = json.load(f)
    lines = ["---", f"title: \"{spec.get('title', '')}\"", f"subtitle: \"{spec.get('subtitle', '')}\"",
             f"author: \"{spec.get('author', '')}\"", f"date: \"{spec.get('date', '')}\"", "---", ""]
    for b in spec["blocks"]:
        t = b["type"]
        if t == "heading":
            lines += ["#" * b.get("level", 1) + " " + b["text"], ""]
        elif t == "paragraph":
            lines += [b["text"], ""]
        elif t == "table":
            with open(os.path.join(base, spec["data"][b["data"]]["csv"]), newline="") as f:
                rows = list(csv.reader(f))
            header, body = rows[0], rows[1:]
            cols = [c if isinstance(c, dict) else {"field": c, "title": c} for c in b["columns"]]
            idx = [header.index(c["field"]) for c in cols]
            lines.append("| " + " | ".join(c.get("title", c["field"]) for c in cols) + " |")
            lines.append("|" + "|".join("---:" if "format" in c else "---" for c in cols) + "|")
            for r in body:
                lines.append("| " + " | ".join(fmt(r[i], c["format"]) if "format" in c else r[i]
                                                for i, c in zip(idx, cols)) + " |")
            lines += ["", f"Table: {b.get('caption', '')}", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
