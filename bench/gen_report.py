#!/usr/bin/python3
# gen_report.py — writes the benchmark report spec (50 sections) and its CSVs.
#
# Per section: a level-1 heading, three ~100-word paragraphs with inline
# markup, a 30 x 5 table from a CSV (with totals) and a 12-category x 3-series
# column chart from a second CSV. Deterministic: the same files every run.
# Shared by bench-pdf.sh and the docx/pptx benchmarks.
#
# usage: gen_report.py [OUT_DIR]   (default: bench/work/report)
import csv
import json
import os
import random
import sys

SECTIONS = 50
WORDS = ("revenue margin growth region quarter forecast customer order volume price "
         "cost freight supplier market share product channel retail online partner "
         "contract renewal pipeline target plan variance budget inventory demand season "
         "the of and in to a for with on by from at as is was were this that which").split()
REGIONS = ["North", "South", "East", "West", "Central"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def paragraph(rng, n=100):
    words = [rng.choice(WORDS) for _ in range(n)]
    words[0] = words[0].capitalize()
    i = rng.randrange(5, n - 10)
    words[i] = "**" + words[i] + "**"
    j = rng.randrange(i + 2, n - 5)
    words[j] = "*" + words[j] + "*"
    out, k = [], 0
    for w in words:
        k += 1
        out.append(w)
        if k > 8 and rng.random() < 0.12:
            out[-1] += "."
            k = 0
    text = " ".join(out)
    return text.rstrip(".") + "."


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "work", "report")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20260930)
    blocks = [{"type": "toc"}]
    data = {}
    for s in range(1, SECTIONS + 1):
        tname, cname = "table_%02d" % s, "chart_%02d" % s
        with open(os.path.join(out, tname + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["item", "region", "units", "revenue", "share"])
            for r in range(30):
                w.writerow(["Item %d-%02d" % (s, r + 1), REGIONS[r % 5], rng.randrange(10, 5000),
                            "%.2f" % rng.uniform(100, 250000), "%.4f" % rng.uniform(0, 1)])
        with open(os.path.join(out, cname + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["month", "revenue", "cost", "profit"])
            for m in MONTHS:
                rev = rng.uniform(50000, 250000)
                cost = rev * rng.uniform(0.4, 0.8)
                w.writerow([m, "%.0f" % rev, "%.0f" % cost, "%.0f" % (rev - cost)])
        data[tname] = {"csv": tname + ".csv"}
        data[cname] = {"csv": cname + ".csv"}
        blocks += [
            {"type": "heading", "text": "Section %d: %s results" % (s, REGIONS[s % 5]), "level": 1},
            {"type": "paragraph", "text": paragraph(rng)},
            {"type": "paragraph", "text": paragraph(rng)},
            {"type": "paragraph", "text": paragraph(rng)},
            {"type": "table", "data": tname, "caption": "Items of section %d" % s,
             "columns": ["item", "region",
                         {"field": "units", "title": "Units", "format": "#,##0"},
                         {"field": "revenue", "title": "Revenue", "format": "#,##0.00"},
                         {"field": "share", "title": "Share", "format": "0.0%"}],
             "totals": {"units": "sum", "revenue": "sum"}},
            {"type": "chart", "kind": "column", "data": cname, "x": "month",
             "y": ["revenue", "cost", "profit"], "title": "Monthly results, section %d" % s,
             "y_title": "EUR", "legend": "bottom", "width": 800, "height": 400},
        ]
    spec = {"folio": 1, "title": "Benchmark report", "subtitle": "50 sections",
            "author": "folio bench", "date": "2026-09-30", "data": data, "blocks": blocks}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
