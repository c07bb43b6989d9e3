#include "report_html_template.h"

namespace tileperf {

const char* report_html_template() {
  return R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TILEPERF_TITLE@</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; }
.count { display: inline-block; padding: .2em .6em; margin: 0 .4em .4em 0; border-radius: .3em; background: #eee; }
.state-regressed, .state-toolchain-failure, .state-bad-input, .state-error { background: #f8d0d0; }
.state-improved { background: #d0f0d8; }
.state-new, .state-toolchain-changed { background: #fdf0c4; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.regressed { color: #a00; font-weight: bold; }
.improved { color: #070; }
svg text { font: 11px sans-serif; }
.bar.up { fill: #d9534f; } .bar.down { fill: #5cb85c; }
.arch-sm_120 { fill: #4e79a7; } .arch-sm_100 { fill: #f28e2b; } .arch-sm_90 { fill: #59a14f; }
.arch-other { fill: #999; }
.test-detail { border-left: 4px solid #ccc; padding-left: 1em; margin-bottom: 2em; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div id="summary"></div>
<section id="by-arch">
<h2>Metric by architecture</h2>
<label>metric <select id="metric"></select></label>
<div><svg id="arch-chart"></svg></div>
</section>
<section id="changes"><h2>Tests that need a look</h2></section>
<section><h2>All tests</h2><table id="tests"><thead><tr><th>test</th><th>state</th>
<th>sass.instructions</th><th>sass.mufu</th><th>regs</th><th>local.bytes</th><th>cubin.bytes</th>
</tr></thead><tbody></tbody></table></section>
<script type="application/json" id="tileperf-data">@TILEPERF_DATA@</script>
<script>
(function () {
  const data = JSON.parse(document.getElementById('tileperf-data').textContent);
  const SVG = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, text) => {
    const e = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const cls = s => 'state-' + s.replace(/ /g, '-');
  const quiet = ['pass', 'unchanged', 'created', 'skipped'];

  const total = data.tests.length;
  document.getElementById('title').textContent = 'tileperf: ' + total + ' tests';
  const summary = document.getElementById('summary');
  for (const [state, n] of Object.entries(data.counts)) {
    summary.appendChild(el('span', {class: 'count ' + cls(state), 'data-state': state}, n + ' ' + state));
  }

  // All tests.
  const body = document.querySelector('#tests tbody');
  const keys = ['sass.instructions', 'sass.mufu', 'regs', 'local.bytes', 'cubin.bytes'];
  for (const t of data.tests) {
    const row = el('tr', {'data-test': t.test});
    row.appendChild(el('td', {}, t.test));
    row.appendChild(el('td', {class: cls(t.state)}, t.state));
    for (const k of keys) row.appendChild(el('td', {class: 'num'}, t.key_metrics[k] ?? ''));
    body.appendChild(row);
  }

  // Per-opcode delta bars for one test.
  function opcodeChart(t) {
    const moved = t.diff.filter(d => d.metric.startsWith('sass.opcode.') && d.delta !== 0)
      .sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta)).slice(0, 20);
    const rowH = 16, labelW = 220, barW = 300, mid = labelW + barW / 2;
    const svg = el('svg:svg', {class: 'opcode-chart', width: labelW + barW + 60, height: rowH * moved.length + 4});
    const max = Math.max(1, ...moved.map(d => Math.abs(d.delta)));
    moved.forEach((d, i) => {
      const w = Math.max(1, Math.abs(d.delta) / max * barW / 2), y = i * rowH + 2;
      svg.appendChild(el('svg:text', {x: 0, y: y + 11}, d.metric.slice('sass.opcode.'.length)));
      svg.appendChild(el('svg:rect', {class: 'bar ' + (d.delta > 0 ? 'up' : 'down'), 'data-opcode': d.metric,
        x: d.delta > 0 ? mid : mid - w, y: y, width: w, height: rowH - 4}));
      svg.appendChild(el('svg:text', {x: labelW + barW + 4, y: y + 11}, (d.delta > 0 ? '+' : '') + d.delta));
    });
    return svg;
  }

  // Tests that need a look: state, message, broken checks, gated metrics that moved, opcode bars.
  const changes = document.getElementById('changes');
  for (const t of data.tests.filter(t => !quiet.includes(t.state))) {
    const box = el('div', {class: 'test-detail', 'data-test': t.test});
    box.appendChild(el('h3', {}, t.test + ': ' + t.state));
    if (t.message) box.appendChild(el('p', {}, t.message));
    for (const b of t.broken) box.appendChild(el('p', {class: 'regressed broken'},
      'check broken: ' + b.require + (b.why ? ' (' + b.why + ')' : '') + '; found ' + b.found));
    const gated = t.diff.filter(d => d.direction !== 'info' || d.verdict === 'regressed');
    if (gated.length) {
      const table = el('table', {class: 'diff'});
      const head = el('tr');
      for (const h of ['metric', 'baseline', 'current', 'delta', 'limit', 'verdict']) head.appendChild(el('th', {}, h));
      table.appendChild(head);
      for (const d of gated) {
        const r = el('tr');
        r.appendChild(el('td', {}, d.metric));
        for (const v of [d.baseline, d.current, (d.delta > 0 ? '+' : '') + d.delta, +d.limit.toFixed(2)]) r.appendChild(el('td', {class: 'num'}, v));
        r.appendChild(el('td', {class: d.verdict}, d.verdict));
        table.appendChild(r);
      }
      box.appendChild(table);
    }
    for (const n of t.notes) box.appendChild(el('p', {class: 'note'}, 'note: ' + n));
    if (t.diff.some(d => d.metric.startsWith('sass.opcode.') && d.delta !== 0)) box.appendChild(opcodeChart(t));
    changes.appendChild(box);
  }
  if (!changes.querySelector('.test-detail')) changes.appendChild(el('p', {}, 'Nothing: every test passed.'));

  // One metric across architectures: a group of bars per kernel configuration.
  const select = document.getElementById('metric');
  for (const k of keys) select.appendChild(el('option', {value: k}, k));
  function drawArch() {
    const metric = select.value, svg = document.getElementById('arch-chart');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const groups = new Map(), archs = new Set();
    for (const t of data.tests) {
      if (!(metric in t.key_metrics)) continue;
      const g = t.kernel + '.' + t.config;
      if (!groups.has(g)) groups.set(g, {});
      groups.get(g)[t.arch] = t.key_metrics[metric];
      archs.add(t.arch);
    }
    const archList = [...archs].sort(), rowH = 12, gap = 6, labelW = 260, barW = 420;
    const max = Math.max(1, ...[...groups.values()].flatMap(g => Object.values(g)));
    let y = 0;
    for (const [g, values] of groups) {
      svg.appendChild(el('svg:text', {x: 0, y: y + rowH * archList.length / 2 + 4}, g));
      archList.forEach((a, i) => {
        const v = values[a];
        if (v === undefined) return;
        const known = ['sm_120', 'sm_100', 'sm_90'].includes(a) ? 'arch-' + a : 'arch-other';
        svg.appendChild(el('svg:rect', {class: 'bar ' + known, 'data-arch': a, 'data-group': g,
          x: labelW, y: y + i * rowH, width: Math.max(1, v / max * barW), height: rowH - 2}));
        svg.appendChild(el('svg:text', {x: labelW + v / max * barW + 4, y: y + i * rowH + 9}, a + ' ' + v));
      });
      y += rowH * archList.length + gap;
    }
    svg.setAttribute('width', labelW + barW + 120);
    svg.setAttribute('height', y);
  }
  select.addEventListener('change', drawArch);
  drawArch();
  document.body.setAttribute('data-rendered', 'yes');
})();
</script>
</body>
</html>
)html";
}

}  // namespace tileperf
