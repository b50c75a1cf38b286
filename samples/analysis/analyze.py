#!/usr/bin/python3
# analyze.py — example analysis for `folio run`: reads a CSV given with --in
# (it lands in /work, the current directory), computes with the stdlib only,
# and writes /out/result.json, a folio spec with inline data.
#
#   folio run --in sales.csv --out out/sandbox --render xlsx -- \
#       /usr/bin/python3 /work/analyze.py sales.csv
import csv
import json
import statistics
import sys
from collections import OrderedDict

src = sys.argv[1] if len(sys.argv) > 1 else "sales.csv"
with open(src, newline="") as f:
    rows = list(csv.DictReader(f))
if not rows:
    sys.exit("analyze.py: %s has no rows" % src)

by_month = OrderedDict()
by_region = OrderedDict()
for r in rows:
    rev, cost = float(r["revenue"]), float(r["cost"])
    m = by_month.setdefault(r["month"], [0.0, 0.0])
    m[0] += rev
    m[1] += cost
    g = by_region.setdefault(r["region"], [])
    g.append(rev)

revenue = sum(m[0] for m in by_month.values())
cost = sum(m[1] for m in by_month.values())
monthly = [m[0] for m in by_month.values()]
growth = (monthly[-1] - monthly[0]) / monthly[0] if len(monthly) > 1 else 0.0

spec = {
    "folio": 1,
    "title": "Sales review",
    "author": "folio sandbox example",
    "date": "2024-07-01",
    "data": {
        "monthly": {
            "columns": ["month", "revenue", "cost", "margin"],
            "rows": [[k, round(v[0], 2), round(v[1], 2), round((v[0] - v[1]) / v[0], 4)]
                     for k, v in by_month.items()],
        },
    },
    "blocks": [
        {"type": "heading", "text": "Summary", "level": 1},
        {"type": "paragraph",
         "text": "Revenue over %d months was **%s**; the last month was %.1f%% %s the first."
                 % (len(by_month), format(round(revenue, 2), ",.2f"), abs(growth) * 100,
                    "above" if growth >= 0 else "below")},
        {"type": "metrics", "items": [
            {"label": "Revenue", "value": round(revenue, 2), "format": "#,##0"},
            {"label": "Cost", "value": round(cost, 2), "format": "#,##0"},
            {"label": "Margin", "value": round((revenue - cost) / revenue, 4), "format": "0.0%"},
            {"label": "Median month", "value": round(statistics.median(monthly), 2),
             "format": "#,##0"},
        ]},
        {"type": "heading", "text": "By month", "level": 2},
        {"type": "table", "data": "monthly", "caption": "Revenue and cost per month",
         "columns": ["month",
                     {"field": "revenue", "title": "Revenue", "format": "#,##0.00"},
                     {"field": "cost", "title": "Cost", "format": "#,##0.00"},
                     {"field": "margin", "title": "Margin", "format": "0.0%"}],
         "totals": {"revenue": "sum", "cost": "sum"}},
        {"type": "heading", "text": "By region", "level": 2},
        {"type": "table", "data": {
            "columns": ["region", "months", "mean revenue", "stdev"],
            "rows": [[k, len(v), round(statistics.mean(v), 2),
                      round(statistics.stdev(v), 2) if len(v) > 1 else 0]
                     for k, v in by_region.items()]},
         "columns": [{"field": "region", "title": "Region"},
                     {"field": "months", "title": "Months"},
                     {"field": "mean revenue", "title": "Mean revenue", "format": "#,##0.00"},
                     {"field": "stdev", "title": "Std. deviation", "format": "#,##0.00"}]},
    ],
}

with open("/out/result.json", "w") as f:
    json.dump(spec, f, indent=1)
print("analyze.py: %d rows, %d months, revenue %.2f -> /out/result.json"
      % (len(rows), len(by_month), revenue))
