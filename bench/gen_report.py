#!/usr/bin/python3
# gen_report.py — writes the benchmark report spec (50 sections) and its CSVs.
#
# Per section: a level-1 heading, three ~100-word paragraphs with inline
# markup, a 30 x 5 table from a CSV (with totals) and a 12-category x 3-series
# column chart from a second CSV. Deterministic: the same files every run.
# Shared by bench-pdf.sh and the docx/pptx benchmarks.
#
# With --mixed, the same report in the world's scripts: section after section
# in Chinese, Arabic, Hindi, Hebrew, Japanese, Russian, Thai, Korean, Greek,
# Bengali, Tamil, Persian and English, for paragraphs, headings, table items,
# chart titles and categories (bench-text.sh: the cost of shaping).
#
# usage: gen_report.py [--mixed] [OUT_DIR]   (default: bench/work/report, or report-mixed)
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


# One sentence per script, cut into words (CJK: characters, joined without spaces).
SCRIPTS = [
    ("zh", "营收 利润 增长 地区 季度 预测 客户 订单 数量 价格 成本 运费 供应商 市场 份额 产品 渠道", ""),
    ("ar", "الإيرادات الهامش النمو المنطقة الربع التوقعات العميل الطلب الحجم السعر التكلفة الشحن المورد السوق", " "),
    ("hi", "राजस्व मार्जिन वृद्धि क्षेत्र तिमाही पूर्वानुमान ग्राहक आदेश मात्रा मूल्य लागत माल आपूर्तिकर्ता बाज़ार", " "),
    ("he", "הכנסות רווח צמיחה אזור רבעון תחזית לקוח הזמנה כמות מחיר עלות משלוח ספק שוק", " "),
    ("ja", "売上 利益 成長 地域 四半期 予測 顧客 注文 数量 価格 費用 運賃 仕入先 市場 製品", ""),
    ("ru", "выручка маржа рост регион квартал прогноз клиент заказ объём цена затраты поставщик рынок", " "),
    ("th", "รายได้ กำไร การเติบโต ภูมิภาค ไตรมาส การคาดการณ์ ลูกค้า คำสั่งซื้อ ปริมาณ ราคา ต้นทุน", " "),
    ("ko", "매출 이익 성장 지역 분기 예측 고객 주문 수량 가격 비용 운임 공급업체 시장", " "),
    ("el", "έσοδα περιθώριο ανάπτυξη περιοχή τρίμηνο πρόβλεψη πελάτης παραγγελία όγκος τιμή κόστος", " "),
    ("bn", "রাজস্ব মুনাফা প্রবৃদ্ধি অঞ্চল ত্রৈমাসিক পূর্বাভাস গ্রাহক আদেশ পরিমাণ মূল্য খরচ বাজার", " "),
    ("ta", "வருவாய் லாபம் வளர்ச்சி பகுதி காலாண்டு முன்னறிவிப்பு வாடிக்கையாளர் விலை செலவு சந்தை", " "),
    ("fa", "درآمد حاشیه رشد منطقه فصل پیش‌بینی مشتری سفارش حجم قیمت هزینه بازار", " "),
    ("en", " ".join(WORDS[:30]), " "),
]


def script_words(s):
    code, text, sep = SCRIPTS[s % len(SCRIPTS)]
    return text.split(), sep


def paragraph(rng, n=100, mixed=None):
    if mixed is not None:
        words, sep = script_words(mixed)
        return sep.join(rng.choice(words) for _ in range(n // (1 if sep else 2))) + (
            "。" if not sep else ".")
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
    args = [a for a in sys.argv[1:] if a != "--mixed"]
    mixed = "--mixed" in sys.argv[1:]
    default = "report-mixed" if mixed else "report"
    out = args[0] if args else os.path.join(os.path.dirname(__file__), "work", default)
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
                item = "Item %d-%02d" % (s, r + 1)
                if mixed:
                    words, sep = script_words(s)
                    item = "%s %d-%02d" % (words[r % len(words)], s, r + 1)
                w.writerow([item, REGIONS[r % 5], rng.randrange(10, 5000),
                            "%.2f" % rng.uniform(100, 250000), "%.4f" % rng.uniform(0, 1)])
        with open(os.path.join(out, cname + ".csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["month", "revenue", "cost", "profit"])
            for k, m in enumerate(MONTHS):
                rev = rng.uniform(50000, 250000)
                cost = rev * rng.uniform(0.4, 0.8)
                if mixed:
                    words, _ = script_words(s)
                    m = words[k % len(words)]
                w.writerow([m, "%.0f" % rev, "%.0f" % cost, "%.0f" % (rev - cost)])
        data[tname] = {"csv": tname + ".csv"}
        data[cname] = {"csv": cname + ".csv"}
        ms = s if mixed else None
        title = "Section %d: %s results" % (s, REGIONS[s % 5])
        if mixed:
            words, sep = script_words(s)
            title = "%d. %s" % (s, sep.join(words[:3]))
        blocks += [
            {"type": "heading", "text": title, "level": 1},
            {"type": "paragraph", "text": paragraph(rng, mixed=ms)},
            {"type": "paragraph", "text": paragraph(rng, mixed=ms)},
            {"type": "paragraph", "text": paragraph(rng, mixed=ms)},
            {"type": "table", "data": tname, "caption": "Items of section %d" % s,
             "columns": ["item", "region",
                         {"field": "units", "title": "Units", "format": "#,##0"},
                         {"field": "revenue", "title": "Revenue", "format": "#,##0.00"},
                         {"field": "share", "title": "Share", "format": "0.0%"}],
             "totals": {"units": "sum", "revenue": "sum"}},
            {"type": "chart", "kind": "column", "data": cname, "x": "month",
             "y": ["revenue", "cost", "profit"],
             "title": (title if mixed else "Monthly results, section %d" % s),
             "y_title": "EUR", "legend": "bottom", "width": 800, "height": 400},
        ]
    spec = {"folio": 1, "title": "Benchmark report", "subtitle": "50 sections",
            "author": "folio bench", "date": "2026-09-30", "data": data, "blocks": blocks}
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
