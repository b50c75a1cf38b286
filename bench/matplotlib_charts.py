#!/usr/bin/python3
"""matplotlib_charts.py — the PNG peer: grouped bar charts drawn with
matplotlib's Agg backend.

Usage: matplotlib_charts.py N OUTDIR
  bench-png.sh: N charts (12 categories x 3 series, 800x500 px), the same
  data, title, axis title and legend as the folio spec bench-png.sh writes.
Usage: matplotlib_charts.py --spec SPEC.json OUTDIR
  bench-text.sh: every column chart of a gen_report.py spec (English or
  mixed-script), its size, title, y title, categories and bottom legend,
  with a font fallback list covering the report's scripts (matplotlib
  neither shapes nor reorders: Arabic comes out unjoined, left to right)."""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def series(k):
    """The three series of chart k (the same formula bench-png.sh uses)."""
    return [[round(40 + 10 * s + 30 * math.sin(i * 0.6 + s + k), 2) for i in range(12)]
            for s in range(3)]


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    names = ["revenue", "cost", "profit"]
    x = list(range(12))
    w = 0.25
    for k in range(n):
        fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
        for s, ys in enumerate(series(k)):
            ax.bar([i + (s - 1) * w for i in x], ys, w, label=names[s])
        ax.set_xticks(x)
        ax.set_xticklabels(MONTHS)
        ax.set_title(f"Chart {k + 1}")
        ax.set_ylabel("EUR")
        ax.legend(loc="center left", bbox_to_anchor=(1, 0.5))
        ax.grid(axis="y", color="#e0e0e0")
        fig.tight_layout()
        fig.savefig(f"{out}/chart-{k + 1}.png")
        plt.close(fig)


# Families tried in order for each character (matplotlib >= 3.6 falls back
# glyph by glyph): Latin, Greek, Cyrillic, Arabic and Hebrew first, then the
# scripts DejaVu lacks, CJK, Hangul.
FALLBACK = ["DejaVu Sans", "Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Tamil",
            "Noto Sans Thai", "Noto Sans Arabic", "Noto Sans Hebrew", "Droid Sans Fallback",
            "NanumGothic"]
# Their Debian files, registered at start: matplotlib's font list cache may
# predate fonts-noto-core (it is built once, at first use).
FILES = ["noto/NotoSans%s-Regular.ttf" % s for s in
         ("Devanagari", "Bengali", "Tamil", "Thai", "Arabic", "Hebrew")] + ["nanum/NanumGothic.ttf"]


def spec_chart(block, rows, path):
    """One column chart of the report, drawn as folio draws it: bars per
    series, title, y title, legend below."""
    cats = [r[block["x"]] for r in rows]
    names = block["y"]
    w = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(block.get("width", 800) / 100,
                                    block.get("height", 400) / 100), dpi=100)
    for s, name in enumerate(names):
        ax.bar([i + (s - (len(names) - 1) / 2) * w for i in range(len(cats))],
               [float(r[name]) for r in rows], w, label=name)
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels(cats)
    ax.set_title(block.get("title", ""))
    ax.set_ylabel(block.get("y_title", ""))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=len(names))
    ax.grid(axis="y", color="#e0e0e0")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def spec_main(spec_path, out):
    for name in FILES:
        path = "/usr/share/fonts/truetype/" + name
        if os.path.exists(path):
            font_manager.fontManager.addfont(path)
    plt.rcParams["font.family"] = FALLBACK
    spec = json.load(open(spec_path))
    base = os.path.dirname(os.path.abspath(spec_path))
    n = 0
    for block in spec["blocks"]:
        if block["type"] != "chart":
            continue
        with open(os.path.join(base, spec["data"][block["data"]]["csv"]), newline="") as f:
            rows = list(csv.DictReader(f))
        n += 1
        spec_chart(block, rows, f"{out}-{n}.png")


if __name__ == "__main__":
    if sys.argv[1] == "--spec":
        spec_main(sys.argv[2], sys.argv[3])
    else:
        main()
