#include "report/html_assets.h"

namespace tileperf {

const char* report_html_style() {
  return R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; max-width: 80em; }
h1 { font-size: 1.4em; margin-bottom: .3em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; margin: 0 0 .4em; }
a { color: #0550ae; text-decoration: none; }
a:hover { text-decoration: underline; }
.count, .badge { display: inline-block; padding: .15em .6em; margin: 0 .4em .4em 0; border-radius: .3em; background: #eee; color: #222; }
.state-regressed, .state-signature-changed, .state-toolchain-failure, .state-bad-input, .state-error, .state-not-run, .state-stale { background: #f8d0d0; }
.state-improved { background: #d0f0d8; }
.state-new, .state-toolchain-changed, .state-updated { background: #fdf0c4; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; vertical-align: top; }
th { background: #f4f4f4; text-align: left; }
table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.verdict-regressed td { background: #fbe4e4; }
tr.verdict-improved td { background: #e6f6ea; }
.regressed { color: #a00; font-weight: bold; }
.improved { color: #070; }
.message { font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; }
.test-detail { border-left: 4px solid #ccc; padding-left: 1em; margin: 1em 0 2em; }
.test-detail.state-regressed, .test-detail.state-signature-changed { border-left-color: #d9534f; background: none; }
.test-detail:target { outline: 2px solid #0550ae; outline-offset: 4px; }
.pct { display: inline-block; height: .7em; margin-right: .3em; vertical-align: middle; }
.pct.up { background: #d9534f; } .pct.down { background: #5cb85c; }
svg text { font: 11px sans-serif; }
.bar.up { fill: #d9534f; } .bar.down { fill: #5cb85c; }
.arch-sm_120 { fill: #4e79a7; } .arch-sm_100 { fill: #f28e2b; } .arch-sm_90 { fill: #59a14f; }
.arch-other { fill: #999; }
.launch { font-family: ui-monospace, monospace; font-size: 12px; }
svg.gantt text { font: 10px ui-monospace, monospace; }
svg.gantt .grid { stroke: #ddd; }
svg.gantt .wait { fill: #f3c4c4; }
svg.gantt .flight { fill: #b9d3ee; } svg.gantt .flight.mark-M { fill: #c9b7e8; }
svg.gantt .issue { fill: #444; } svg.gantt .issue.mark-M { fill: #6a3fb5; } svg.gantt .issue.mark-L { fill: #1f5fa8; }
svg.gantt .issue.mark-S { fill: #2a7d3c; } svg.gantt .issue.mark-B { fill: #b02020; }
#filter { width: 24em; padding: .2em; }
tr[hidden] { display: none; }
)css";
}

// Sorting: a click on a header of a .sortable table sorts by that column
// (numbers by data-value), a second click reverses. Filtering: every
// whitespace-separated word in #filter must occur in a row of #tests. The
// page's address may carry both (?filter=softmax%20sm_90&sort=regs-desc),
// so that a link shows the same view.
const char* report_html_script() {
  return R"js(
(function () {
  function cellKey(row, i) {
    const c = row.cells[i];
    if (!c) return '';
    const v = c.getAttribute('data-value');
    return v !== null ? parseFloat(v) : c.textContent.trim();
  }
  function sortTable(table, i, descending) {
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort(function (a, b) {
      const x = cellKey(a, i), y = cellKey(b, i);
      const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      return descending ? -order : order;
    });
    for (const r of rows) body.appendChild(r);
    for (const th of table.tHead.rows[0].cells) th.removeAttribute('aria-sort');
    table.tHead.rows[0].cells[i].setAttribute('aria-sort', descending ? 'descending' : 'ascending');
  }
  for (const table of document.querySelectorAll('table.sortable')) {
    Array.from(table.tHead.rows[0].cells).forEach(function (th, i) {
      th.addEventListener('click', function () {
        sortTable(table, i, th.getAttribute('aria-sort') === 'ascending');
      });
    });
  }
  const filter = document.getElementById('filter');
  const all = document.getElementById('tests');
  function applyFilter() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of all.tBodies[0].rows) {
      const text = row.textContent.toLowerCase() + ' ' + (row.getAttribute('data-state') || '');
      const keep = words.every(function (w) { return text.includes(w); });
      row.hidden = !keep;
      if (keep) shown++;
    }
    document.getElementById('shown').textContent = shown + ' of ' + all.tBodies[0].rows.length + ' shown';
  }
  filter.addEventListener('input', applyFilter);
  const params = new URLSearchParams(location.search);
  if (params.has('filter')) filter.value = params.get('filter');
  if (params.has('sort')) {
    const m = /^(.*?)(-desc)?$/.exec(params.get('sort'));
    const i = Array.from(all.tHead.rows[0].cells).findIndex(function (th) { return th.textContent === m[1]; });
    if (i >= 0) sortTable(all, i, !!m[2]);
  }
  applyFilter();
  document.body.setAttribute('data-rendered', 'yes');
})();
)js";
}

}  // namespace tileperf
