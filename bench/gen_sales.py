#!/usr/bin/python3
# gen_sales.py — writes the xlsx benchmark's input: ROWS sales rows x 8 columns
# (id, ISO date, region, product, units, price, revenue, free-text note with
# quotes, commas and UTF-8), deterministic (fixed seed).
# usage: gen_sales.py ROWS OUT.csv
import csv
import random
import sys

REGIONS = ["North", "South", "East", "West", "Île-de-France", "東京"]
PRODUCTS = ["Widget", "Gadget", "Sprocket", "Gizmo \"XL\"", "Doohickey, large", "Thingamajig"]
WORDS = ["late", "delivery", "customer", "asked", "for", "discount", "reorder", "naïve",
         "café", "quote:", "\"rush\"", "see, also", "ünïcödé", "日本", "ok"]


def main():
    rows = int(sys.argv[1])
    rnd = random.Random(42)
    with open(sys.argv[2], "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "date", "region", "product", "units", "price", "revenue", "note"])
        for i in range(1, rows + 1):
            units = rnd.randint(1, 500)
            price = round(rnd.uniform(1, 200), 2)
            day = 1 + (i % 28)
            month = 1 + (i // 28) % 12
            note = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 8)))
            w.writerow([i, f"2024-{month:02d}-{day:02d}", rnd.choice(REGIONS), rnd.choice(PRODUCTS),
                        units, f"{price:.2f}", f"{units * price:.2f}", note])


if __name__ == "__main__":
    main()
