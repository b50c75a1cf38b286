// pptxgenjs_report.js — the peer of `folio render report.json -o x.pptx` for bench-pptx.sh:
// reads the same result spec + CSVs and builds the deck with pptxgenjs (native charts,
// auto-paged tables with the header repeated), written compressed.
// usage: node pptxgenjs_report.js SPEC.json OUT.pptx
'use strict';
const fs = require('fs');
const path = require('path');
const PptxGenJS = require('pptxgenjs');

const [specPath, outPath] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
const base = path.dirname(specPath);

function readCsv(file) {
  const lines = fs.readFileSync(path.join(base, file), 'utf8').trim().split(/\r?\n/);
  const cols = lines[0].split(',');
  const rows = lines.slice(1).map((l) => l.split(','));
  return { cols, rows };
}
const data = {};
for (const [name, ds] of Object.entries(spec.data || {})) data[name] = ds.csv ? readCsv(ds.csv) : ds;
const plain = (s) => s.replace(/\*\*|\*|`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');

const pptx = new PptxGenJS();
pptx.layout = 'LAYOUT_WIDE';
pptx.title = spec.title || '';
pptx.author = spec.author || '';

if (spec.title) {
  const s = pptx.addSlide();
  s.addText(spec.title, { x: 0.5, y: 2.5, w: 12.3, h: 1.2, fontSize: 40, bold: true, align: 'center' });
  s.addText([spec.subtitle, spec.author, spec.date].filter(Boolean).join(' · '),
            { x: 0.5, y: 3.8, w: 12.3, h: 0.8, fontSize: 20, align: 'center' });
}
let slide = null, title = '', bullets = [];
const flush = () => {
  if (slide && bullets.length)
    slide.addText(bullets, { x: 0.5, y: 1.4, w: 12.3, h: 5.6, fontSize: 18, valign: 'top', fit: 'shrink' });
  bullets = [];
};
const newSlide = (t) => { flush(); slide = pptx.addSlide(); slide.addText(t, { x: 0.5, y: 0.3, w: 12.3, h: 1, fontSize: 28, bold: true }); };

for (const b of spec.blocks) {
  if (b.type === 'heading' && b.level === 1) { title = b.text; newSlide(title); }
  else if (b.type === 'paragraph') {
    if (!slide) newSlide(title);
    bullets.push({ text: plain(b.text), options: { bullet: true, breakLine: true } });
  } else if (b.type === 'table') {
    newSlide(title + ' (table)');
    const ds = data[b.data];
    const fields = b.columns.map((c) => (typeof c === 'string' ? c : c.field));
    const head = b.columns.map((c) => ({ text: typeof c === 'string' ? c : c.title,
                                         options: { bold: true, fill: { color: '2F5597' }, color: 'FFFFFF' } }));
    const idx = fields.map((f) => ds.cols.indexOf(f));
    const rows = ds.rows.map((r) => idx.map((i) => r[i]));
    slide.addTable([head, ...rows], { x: 0.5, y: 1.4, w: 12.3, fontSize: 12, autoPage: true,
                                      autoPageRepeatHeader: true, autoPageHeaderRows: 1 });
  } else if (b.type === 'chart') {
    newSlide(b.title || title);
    const ds = data[b.data];
    const xi = ds.cols.indexOf(b.x);
    const labels = ds.rows.map((r) => r[xi]);
    const series = b.y.map((f) => ({ name: f, labels,
                                     values: ds.rows.map((r) => Number(r[ds.cols.indexOf(f)])) }));
    slide.addChart(pptx.ChartType.bar, series, { x: 0.5, y: 1.4, w: 12.3, h: 5.6, barDir: 'col',
                                                 showLegend: true, legendPos: 'b', showTitle: !!b.title, title: b.title });
  }
}
flush();
pptx.writeFile({ fileName: outPath, compression: true }).then(() => {});
