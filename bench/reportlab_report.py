#!/usr/bin/python3
# reportlab_report.py — the benchmark report spec rendered by ReportLab (peer).
#
# Does what folio's PDF does for bench/gen_report.py's spec, the way a Python
# report pipeline would: platypus flow (title, headings, paragraphs with
# inline markup, tables with a repeated header, banding and a totals row,
# number formats), charts with ReportLab's own graphics, Liberation Sans
# embedded (subset), "Page N of M" footers, bookmarks from headings.
#
# usage: reportlab_report.py SPEC.json OUT.pdf
import csv
import json
import os
import re
import sys

from reportlab.graphics.charts.barcharts import VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas
from reportlab.platypus import (Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle)

LIB = "/usr/share/fonts/truetype/liberation/"
pdfmetrics.registerFont(TTFont("LS", LIB + "LiberationSans-Regular.ttf"))
pdfmetrics.registerFont(TTFont("LS-B", LIB + "LiberationSans-Bold.ttf"))
pdfmetrics.registerFont(TTFont("LS-I", LIB + "LiberationSans-Italic.ttf"))
pdfmetrics.registerFont(TTFont("LS-BI", LIB + "LiberationSans-BoldItalic.ttf"))
pdfmetrics.registerFontFamily("LS", normal="LS", bold="LS-B", italic="LS-I", boldItalic="LS-BI")

BODY = ParagraphStyle("body", fontName="LS", fontSize=10.5, leading=14.7, spaceAfter=7)
H1 = ParagraphStyle("h1", fontName="LS-B", fontSize=20, leading=25, spaceBefore=16, spaceAfter=7,
                    textColor=colors.HexColor("#1F3864"))
TITLE = ParagraphStyle("title", fontName="LS-B", fontSize=28, leading=34,
                       textColor=colors.HexColor("#1F3864"))
CAPTION = ParagraphStyle("cap", fontName="LS-I", fontSize=10, leading=13.5,
                         textColor=colors.HexColor("#666666"))
PALETTE = ["#2F5597", "#ED7D31", "#70AD47"]


def markup(s):
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)
    s = re.sub(r"\*(.+?)\*", r"<i>\1</i>", s)
    return re.sub(r"\[(.+?)\]\((.+?)\)", r'<a href="\2" color="blue">\1</a>', s)


def fmt(v, code):
    if code == "#,##0":
        return "{:,.0f}".format(v)
    if code == "#,##0.00":
        return "{:,.2f}".format(v)
    if code == "0.0%":
        return "{:.1f}%".format(v * 100)
    return str(v)


class Heading(Paragraph):
    pass


class NumberedCanvas(canvas.Canvas):
    """Two-pass 'Page N of M': keep each page's state, write at save."""

    def __init__(self, *a, **k):
        canvas.Canvas.__init__(self, *a, **k)
        self._saved = []

    def showPage(self):
        self._saved.append(dict(self.__dict__))
        self._startPage()

    def save(self):
        n = len(self._saved)
        for state in self._saved:
            self.__dict__.update(state)
            self.setFont("LS", 8.4)
            self.setFillColor(colors.HexColor("#666666"))
            self.drawCentredString(A4[0] / 2, 1.2 * cm, "Page %d of %d" % (self._pageNumber, n))
            canvas.Canvas.showPage(self)
        canvas.Canvas.save(self)


class Doc(SimpleDocTemplate):
    def afterFlowable(self, f):
        if isinstance(f, Heading):
            key = "h%d" % id(f)
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(f.getPlainText(), key, level=0)


def chart(rows, cols, title):
    d = Drawing(481, 240)
    bc = VerticalBarChart()
    bc.x, bc.y, bc.width, bc.height = 50, 45, 420, 160
    bc.data = [[float(r[c]) for r in rows] for c in cols]
    bc.categoryAxis.categoryNames = [r["month"] for r in rows]
    bc.categoryAxis.labels.fontName = "LS"
    bc.valueAxis.labels.fontName = "LS"
    bc.valueAxis.valueMin = 0
    for i, c in enumerate(PALETTE):
        bc.bars[i].fillColor = colors.HexColor(c)
    d.add(bc)
    d.add(String(240, 222, title, fontName="LS-B", fontSize=11, textAnchor="middle"))
    lg = Legend()
    lg.x, lg.y, lg.fontName = 150, 15, "LS"
    lg.alignment, lg.columnMaximum = "right", 1
    lg.colorNamePairs = [(colors.HexColor(PALETTE[i]), c) for i, c in enumerate(cols)]
    d.add(lg)
    return d


def main():
    spec_path, out = sys.argv[1], sys.argv[2]
    spec = json.load(open(spec_path))
    base = os.path.dirname(os.path.abspath(spec_path))
    story = [Paragraph(spec["title"], TITLE), Spacer(1, 12)]
    for b in spec["blocks"]:
        t = b["type"]
        if t == "heading":
            story.append(Heading(b["text"], H1))
        elif t == "paragraph":
            story.append(Paragraph(markup(b["text"]), BODY))
        elif t in ("table", "chart"):
            with open(os.path.join(base, spec["data"][b["data"]]["csv"])) as f:
                rows = list(csv.DictReader(f))
            if t == "chart":
                story.append(chart(rows, b["y"], b.get("title", "")))
                continue
            cols = [c if isinstance(c, dict) else {"field": c, "title": c} for c in b["columns"]]
            data = [[c.get("title", c["field"]) for c in cols]]
            totals = {k: 0.0 for k in b.get("totals", {})}
            for r in rows:
                line = []
                for c in cols:
                    v = r[c["field"]]
                    if "format" in c:
                        v = float(v)
                        if c["field"] in totals:
                            totals[c["field"]] += v
                        v = fmt(v, c["format"])
                    line.append(v)
                data.append(line)
            data.append(["Total"] + [fmt(totals[c["field"]], c["format"]) if c["field"] in totals
                                     else "" for c in cols[1:]])
            story.append(Paragraph(b.get("caption", ""), CAPTION))
            tbl = Table(data, repeatRows=1)
            tbl.setStyle(TableStyle([
                ("FONT", (0, 0), (-1, -1), "LS", 9.45),
                ("FONT", (0, 0), (-1, 0), "LS-B", 9.45),
                ("FONT", (0, -1), (-1, -1), "LS-B", 9.45),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#2F5597")),
                ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
                ("ROWBACKGROUNDS", (0, 1), (-1, -2), [colors.white, colors.HexColor("#EEF3FA")]),
                ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
                ("LINEABOVE", (0, -1), (-1, -1), 0.9, colors.HexColor("#BFBFBF")),
                ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ]))
            story += [tbl, Spacer(1, 10)]
    doc = Doc(out, pagesize=A4, leftMargin=2 * cm, rightMargin=2 * cm, topMargin=2 * cm,
              bottomMargin=2 * cm, title=spec["title"], author=spec.get("author", ""))
    doc.build(story, canvasmaker=NumberedCanvas)


if __name__ == "__main__":
    main()
