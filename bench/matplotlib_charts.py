#!/usr/bin/python3
"""matplotlib_charts.py — the peer for bench-png.sh: N grouped bar charts
(12 categories x 3 series, 800x500 px) drawn with matplotlib's Agg backend.

Usage: matplotlib_charts.py N OUTDIR
Same data, title, axis title and legend as the folio spec bench-png.sh writes."""
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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


if __name__ == "__main__":
    main()
