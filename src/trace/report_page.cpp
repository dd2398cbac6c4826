#include "trace/report_page.hpp"

namespace slab::detail {

// One self-contained page: no fonts, scripts or styles from the network, so it opens offline and from an
// e-mail attachment. Errors while drawing are kept in #slab-errors and counted in <body data-errors>, and
// <body data-rendered data-lanes> say what was drawn (the headless-browser test reads them).
std::string_view report_page() {
  static constexpr std::string_view page = R"SLAB(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>slab report</title>
<script>
(function () {
  var errors = [];
  function keep(msg) {
    errors.push(String(msg));
    var box = document.getElementById('slab-errors');
    if (box) box.textContent = errors.join('\n');
    if (document.body) document.body.setAttribute('data-errors', String(errors.length));
  }
  window.slabErrors = errors;
  window.addEventListener('error', function (e) { keep('error: ' + (e.message || e.type)); });
  window.addEventListener('unhandledrejection', function (e) { keep('unhandled rejection: ' + e.reason); });
  var original = console.error;
  console.error = function () {
    keep('console.error: ' + Array.prototype.join.call(arguments, ' '));
    if (original) original.apply(console, arguments);
  };
})();
</script>
<style>
:root { --fg:#1f2328; --muted:#656d76; --line:#d0d7de; --bg:#f6f8fa; --card:#ffffff; }
* { box-sizing: border-box; }
body { margin:0; font:13px/1.4 -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif;
       color:var(--fg); background:var(--bg); }
header { padding:14px 24px 10px; background:#24292f; color:#fff; }
header h1 { margin:0; font-size:20px; font-weight:600; }
header .sub { color:#c9d1d9; margin-top:2px; }
main { padding:12px 24px 24px; }
section { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:10px 14px 12px;
          margin-bottom:12px; }
section h2 { font-size:14px; margin:0 0 6px; font-weight:600; }
.hint { color:var(--muted); font-weight:400; font-size:12px; margin-left:8px; }
.cards { display:flex; flex-wrap:wrap; gap:8px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:6px 12px; min-width:120px; }
.card .v { font-size:18px; font-weight:600; }
.card .k { color:var(--muted); font-size:11px; text-transform:uppercase; letter-spacing:.04em; }
.legend { display:flex; flex-wrap:wrap; gap:14px; margin:2px 0 6px; }
.legend span { display:inline-flex; align-items:center; gap:5px; }
.legend i { display:inline-block; width:12px; height:12px; border-radius:2px; }
.row { display:flex; gap:12px; }
.row > section { flex:1; min-width:0; }
svg { display:block; }
svg text { font-size:11px; fill:#444c56; }
svg .lane-label { font-size:12px; fill:var(--fg); }
svg .axis line, svg .grid line { stroke:#d8dee4; }
table { border-collapse:collapse; width:100%; font-variant-numeric:tabular-nums; }
th, td { padding:3px 8px; border-bottom:1px solid #eaeef2; text-align:right; white-space:nowrap; }
th:first-child, td:first-child { text-align:left; }
th { font-weight:600; color:var(--muted); font-size:12px; }
#tip { position:fixed; pointer-events:none; background:rgba(31,35,40,.94); color:#fff; padding:6px 9px;
       border-radius:4px; font-size:12px; white-space:pre; display:none; z-index:10; max-width:520px; }
select { font:inherit; }
#slab-errors { color:#b00020; }
</style>
</head>
<body data-rendered="0" data-lanes="0" data-errors="0">
<header><h1 id="title">slab report</h1><div class="sub" id="subtitle"></div></header>
<main>
<div class="cards" id="cards" style="margin-bottom:12px"></div>
<section><h2>Task stream <span class="hint">one lane per rank; drag to zoom, double-click to reset</span></h2>
<div class="legend" id="legend"></div><div id="stream"></div></section>
<div class="row">
<section><h2>Time per kind of task <span class="hint">summed over ranks, nested time counted once</span></h2><div id="kinds"></div></section>
<section><h2>Top tasks <span class="hint">self time summed over ranks</span></h2><div id="profile"></div></section>
</div>
<section><h2>Memory per tier <span class="hint">bytes over time</span>
<select id="memsel" aria-label="ranks shown"></select></h2><div id="memory"></div></section>
<section><h2>Per rank</h2><div id="table"></div></section>
<section><h2>Reservations by purpose <span class="hint">the most one rank held at once</span></h2>
<div id="reservations"></div></section>
<pre id="slab-errors" hidden></pre>
</main>
<div id="tip"></div>
<script type="application/json" id="slab-data">/*SLAB_REPORT_DATA*/</script>
<script>
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('slab-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = { compute:'#4c78a8', comm:'#e45756', io:'#54a24b', spill:'#8e5cc4', unspill:'#d4b3f0',
                 generate:'#72b7b2', other:'#9d9d9d', idle:'#e6e9ed' };
  var TIERS = [['device', '#4c78a8'], ['host', '#f58518'], ['disk', '#8e5cc4']];
  var LABELS = { compute:'compute', comm:'communication', io:'I/O', spill:'spill', unspill:'unspill (reload)',
                 generate:'generate', other:'other', idle:'untraced / idle' };
  var view = [0, Math.max(D.wall, 1e-9)];

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, text, parent) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmtTime(s) {
    var a = Math.abs(s);
    if (a === 0) return '0 s';
    if (a < 1e-3) return +(s * 1e6).toPrecision(3) + ' \u00b5s';
    if (a < 1) return +(s * 1e3).toPrecision(3) + ' ms';
    if (a < 120) return +s.toPrecision(3) + ' s';
    return (s / 60).toFixed(1) + ' min';
  }
  function fmtBytes(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? String(+b.toFixed(b < 10 ? 2 : b < 100 ? 1 : 0)) : String(Math.round(b))) + ' ' + u[i];
  }
  function ticks(a, b, n) {
    var span = b - a, step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var out = [];
    for (var t = Math.ceil(a / step) * step; t <= b + step * 1e-9; t += step) out.push(t);
    return out;
  }
  function byteTicks(max, n) {  // ticks at round numbers of the unit the axis is labelled in
    var u = 1;
    while (max / u >= 1024) u *= 1024;
    return ticks(0, max / u, n).map(function (t) { return t * u; });
  }
  var tip = document.getElementById('tip');
  function showTip(ev, text) {
    tip.textContent = text;
    tip.style.display = 'block';
    var x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 4) x = ev.clientX - tip.offsetWidth - 14;
    if (y + tip.offsetHeight > window.innerHeight - 4) y = ev.clientY - tip.offsetHeight - 14;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }
  function width(id) { return Math.max(560, document.getElementById(id).clientWidth || 1200); }
  function sum(a) { return a.reduce(function (x, y) { return x + y; }, 0); }

  // ---- header, cards, legend --------------------------------------------------------------------------
  var app = D.app || 'slab run';
  document.title = 'slab report: ' + app;
  document.getElementById('title').textContent = 'slab report: ' + app;
  document.getElementById('subtitle').textContent = D.lanes.length + (D.lanes.length === 1 ? ' rank' : ' ranks') +
      ' \u00b7 ' + fmtTime(D.wall) + ' wall time \u00b7 ' + D.events + ' events \u00b7 trace ' + D.source;
  var cards = document.getElementById('cards');
  [['app', app], ['ranks', String(D.lanes.length)], ['wall time', fmtTime(D.wall)],
   ['peak device', fmtBytes(D.peak[0])], ['peak host', fmtBytes(D.peak[1])], ['peak disk', fmtBytes(D.peak[2])],
   ['spilled', fmtBytes(D.spilled)], ['unspilled', fmtBytes(D.unspilled)]].forEach(function (c) {
    var d = html('div', undefined, cards);
    d.className = 'card';
    html('div', c[1], d).className = 'v';
    html('div', c[0], d).className = 'k';
  });
  var legend = document.getElementById('legend');
  D.kinds.forEach(function (k) {
    var s = html('span', undefined, legend), i = html('i', undefined, s);
    i.style.background = COLORS[k];
    html('b', LABELS[k], s).style.fontWeight = '400';
  });

  // ---- task stream ------------------------------------------------------------------------------------
  var LANE = 30, GAP = 8, LEFT = 150, RIGHT = 12, TOP = 6, AXIS = 24;
  var DEPTH_H = [1, 0.62, 0.36];
  function itemTip(lane, it) {
    var kind = D.kinds[it[2]], name = D.names[it[4]];
    var lines = [(it[5] > 1 ? it[5] + ' events: ' : '') + name, LABELS[kind] + ' on ' + lane.label,
                 'start ' + fmtTime(it[0]) + ', ' + (it[5] > 1 ? 'span ' : 'duration ') + fmtTime(it[1])];
    if (it[5] > 1) lines.push('busy ' + fmtTime(it[7]) + ' of it (' + (100 * it[7] / (it[1] || 1e-12)).toFixed(0) + '%)');
    if (it[6]) lines.push(fmtBytes(it[6]) + (it[1] > 0 ? ' (' + fmtBytes(it[6] / it[1]) + '/s)' : ''));
    return lines.join('\n');
  }
  function drawStream() {
    var box = document.getElementById('stream');
    box.textContent = '';
    var W = width('stream'), H = TOP + D.lanes.length * (LANE + GAP) + AXIS;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, id: 'stream-svg' }, box);
    var plot = W - LEFT - RIGHT, t0 = view[0], t1 = view[1];
    var x = function (t) { return LEFT + (t - t0) / (t1 - t0) * plot; };
    var grid = el('g', { 'class': 'grid' }, svg), axis = el('g', { 'class': 'axis' }, svg);
    var yAxis = TOP + D.lanes.length * (LANE + GAP);
    ticks(t0, t1, Math.max(2, Math.floor(plot / 110))).forEach(function (t) {
      el('line', { x1: x(t), x2: x(t), y1: TOP, y2: yAxis }, grid);
      el('text', { x: x(t), y: yAxis + 14, 'text-anchor': 'middle' }, axis).textContent = fmtTime(t);
    });
    var clip = el('clipPath', { id: 'stream-clip' }, el('defs', {}, svg));
    el('rect', { x: LEFT, y: 0, width: plot, height: H }, clip);
    D.lanes.forEach(function (lane, li) {
      var y = TOP + li * (LANE + GAP);
      var g = el('g', { 'class': 'lane', 'data-rank': lane.rank, 'clip-path': 'url(#stream-clip)' }, svg);
      el('rect', { x: LEFT, y: y, width: plot, height: LANE, fill: '#f3f5f7' }, g);
      var label = el('text', { x: LEFT - 8, y: y + LANE / 2 + 4, 'text-anchor': 'end', 'class': 'lane-label' }, svg);
      label.textContent = lane.label;
      lane.items.forEach(function (it, ii) {
        if (it[0] + it[1] < t0 || it[0] > t1) return;
        var h = LANE * DEPTH_H[it[3]];
        var r = el('rect', { x: x(it[0]), y: y + LANE - h, width: Math.max(1, x(it[0] + it[1]) - x(it[0])),
                             height: h, fill: COLORS[D.kinds[it[2]]] }, g);
        // Merged short events: the more of the span they fill, the more solid the bar.
        if (it[5] > 1) r.setAttribute('fill-opacity', Math.max(0.3, Math.min(1, it[7] / (it[1] || 1e-12))).toFixed(2));
        r.setAttribute('data-l', li);
        r.setAttribute('data-i', ii);
      });
    });
    svg.addEventListener('mousemove', function (ev) {
      var t = ev.target;
      if (t.hasAttribute && t.hasAttribute('data-i')) {
        var lane = D.lanes[+t.getAttribute('data-l')];
        showTip(ev, itemTip(lane, lane.items[+t.getAttribute('data-i')]));
      } else {
        hideTip();
      }
    });
    svg.addEventListener('mouseleave', hideTip);
    // Zoom: drag over a time range; double-click shows the whole run again.
    var sel = null, from = 0;
    function tAt(ev) {
      var r = svg.getBoundingClientRect();
      var px = Math.min(Math.max((ev.clientX - r.left) * W / r.width, LEFT), LEFT + plot);
      return { px: px, t: t0 + (px - LEFT) / plot * (t1 - t0) };
    }
    svg.addEventListener('mousedown', function (ev) {
      from = tAt(ev).px;
      sel = el('rect', { x: from, y: 0, width: 0, height: yAxis, fill: 'rgba(9,105,218,.15)' }, svg);
      ev.preventDefault();
    });
    svg.addEventListener('mousemove', function (ev) {
      if (!sel) return;
      var p = tAt(ev).px;
      sel.setAttribute('x', Math.min(p, from));
      sel.setAttribute('width', Math.abs(p - from));
    });
    svg.addEventListener('mouseup', function (ev) {
      if (!sel) return;
      var p = tAt(ev), a = Math.min(p.px, from), b = Math.max(p.px, from);
      sel = null;
      if (b - a > 4) {
        view = [t0 + (a - LEFT) / plot * (t1 - t0), t0 + (b - LEFT) / plot * (t1 - t0)];
        drawAll();
      } else {
        drawStream();
      }
    });
    svg.addEventListener('dblclick', function () { view = [0, Math.max(D.wall, 1e-9)]; drawAll(); });
  }

  // ---- horizontal bar charts ----------------------------------------------------------------------------
  function bars(id, rows) {  // rows: [label, seconds, color, tooltip]
    var box = document.getElementById(id);
    box.textContent = '';
    var W = width(id), BAR = 16, LEFTB = 170, H = rows.length * (BAR + 4) + 4;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H }, box);
    var max = Math.max.apply(null, rows.map(function (r) { return r[1]; }).concat([1e-12]));
    var plot = W - LEFTB - 80;
    rows.forEach(function (r, i) {
      var y = 2 + i * (BAR + 4);
      var label = el('text', { x: LEFTB - 8, y: y + BAR / 2 + 4, 'text-anchor': 'end', 'class': 'lane-label' }, svg);
      label.textContent = r[0].length > 28 ? r[0].slice(0, 27) + '\u2026' : r[0];
      var b = el('rect', { x: LEFTB, y: y, width: Math.max(1, r[1] / max * plot), height: BAR, fill: r[2], rx: 2 },
                 svg);
      el('text', { x: LEFTB + Math.max(1, r[1] / max * plot) + 6, y: y + BAR / 2 + 4 }, svg).textContent =
          fmtTime(r[1]);
      b.addEventListener('mousemove', function (ev) { showTip(ev, r[3]); });
      b.addEventListener('mouseleave', hideTip);
    });
  }
  function drawKinds() {
    var total = sum(D.lanes.map(function (l) { return D.wall; }));
    var rows = D.kinds.map(function (k, ki) {
      var s = sum(D.lanes.map(function (l) { return l.self[ki]; }));
      var n = sum(D.lanes.map(function (l) { return l.events[ki]; }));
      var b = sum(D.lanes.map(function (l) { return l.bytes[ki]; }));
      return [LABELS[k], s, COLORS[k], LABELS[k] + ': ' + fmtTime(s) + ' (' + (100 * s / (total || 1)).toFixed(1) +
              '% of rank time)\n' + n + ' events' + (b ? ', ' + fmtBytes(b) : '')];
    });
    var idle = Math.max(0, total - sum(D.lanes.map(function (l) { return l.busy; })));
    rows.push([LABELS.idle, idle, '#c4cbd3', 'time inside no event: ' + fmtTime(idle) + ' (' +
               (100 * idle / (total || 1)).toFixed(1) + '% of rank time)']);
    bars('kinds', rows);
  }
  function drawProfile() {
    bars('profile', D.profile.map(function (p) {
      var kind = p.kind >= 0 ? D.kinds[p.kind] : 'other';
      return [p.name, p.seconds, COLORS[kind], p.name + ' (' + (p.kind >= 0 ? LABELS[kind] : 'mixed') + ')\n' +
              fmtTime(p.seconds) + ' in ' + p.count + ' events' + (p.bytes ? ', ' + fmtBytes(p.bytes) : '')];
    }));
  }

  // ---- memory per tier --------------------------------------------------------------------------------
  var memsel = document.getElementById('memsel');
  html('option', 'all ranks (sum)', memsel).value = 'all';
  D.lanes.forEach(function (l, i) { html('option', l.label, memsel).value = String(i); });
  memsel.addEventListener('change', function () { drawMemory(); });
  function memorySeries() {  // [[t, device, host, disk], ...] as steps
    var lanes = memsel.value === 'all' ? D.lanes : [D.lanes[+memsel.value]];
    var times = [];
    lanes.forEach(function (l) { l.memory.forEach(function (m) { times.push(m[0]); }); });
    times.sort(function (a, b) { return a - b; });
    var idx = lanes.map(function () { return -1; }), out = [];
    times.forEach(function (t, ti) {
      if (ti > 0 && t === times[ti - 1]) return;
      var v = [t, 0, 0, 0];
      lanes.forEach(function (l, li) {
        while (idx[li] + 1 < l.memory.length && l.memory[idx[li] + 1][0] <= t) idx[li]++;
        if (idx[li] >= 0) for (var k = 1; k < 4; k++) v[k] += l.memory[idx[li]][k];
      });
      out.push(v);
    });
    return out;
  }
  function drawMemory() {
    var box = document.getElementById('memory');
    box.textContent = '';
    var series = memorySeries();
    var W = width('memory'), H = 170, L = LEFT, B = 24, T = 24;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H }, box);
    var plot = W - L - RIGHT, t0 = view[0], t1 = view[1];
    var max = 1;
    series.forEach(function (v) { max = Math.max(max, v[1], v[2], v[3]); });
    max *= 1.05;
    var x = function (t) { return L + (Math.min(Math.max(t, t0), t1) - t0) / (t1 - t0) * plot; };
    var y = function (b) { return T + (1 - b / max) * (H - T - B); };
    var grid = el('g', { 'class': 'grid' }, svg);
    byteTicks(max, 4).forEach(function (b) {
      el('line', { x1: L, x2: L + plot, y1: y(b), y2: y(b) }, grid);
      el('text', { x: L - 8, y: y(b) + 4, 'text-anchor': 'end' }, svg).textContent = fmtBytes(b);
    });
    ticks(t0, t1, Math.max(2, Math.floor(plot / 110))).forEach(function (t) {
      el('text', { x: x(t), y: H - 6, 'text-anchor': 'middle' }, svg).textContent = fmtTime(t);
    });
    var lg = 0;
    TIERS.forEach(function (tier, k) {
      var d = '', last = null;
      series.forEach(function (v) {
        if (last === null) d += 'M' + x(v[0]) + ',' + y(v[k + 1]);
        else d += 'H' + x(v[0]) + 'V' + y(v[k + 1]);
        last = v;
      });
      if (last) d += 'H' + x(t1);
      if (d) el('path', { d: d, fill: 'none', stroke: tier[1], 'stroke-width': 2, 'data-tier': tier[0] }, svg);
      el('rect', { x: L + lg, y: 4, width: 12, height: 12, fill: tier[1], rx: 2 }, svg);
      el('text', { x: L + lg + 17, y: 14 }, svg).textContent = tier[0];
      lg += 80;
    });
    if (!series.length)
      el('text', { x: L + plot / 2, y: H / 2, 'text-anchor': 'middle' }, svg).textContent =
          'no memory samples in this trace';
    var cursor = el('line', { x1: 0, x2: 0, y1: T, y2: H - B, stroke: '#57606a', 'stroke-dasharray': '3,3',
                              visibility: 'hidden' }, svg);
    svg.addEventListener('mousemove', function (ev) {
      var r = svg.getBoundingClientRect(), px = (ev.clientX - r.left) * W / r.width;
      if (px < L || px > L + plot || !series.length) { hideTip(); cursor.setAttribute('visibility', 'hidden'); return; }
      var t = t0 + (px - L) / plot * (t1 - t0), v = null;
      for (var i = 0; i < series.length && series[i][0] <= t; i++) v = series[i];
      cursor.setAttribute('x1', px);
      cursor.setAttribute('x2', px);
      cursor.setAttribute('visibility', 'visible');
      showTip(ev, 'at ' + fmtTime(t) + '\n' + TIERS.map(function (tier, k) {
        return tier[0] + ': ' + fmtBytes(v ? v[k + 1] : 0);
      }).join('\n'));
    });
    svg.addEventListener('mouseleave', function () { hideTip(); cursor.setAttribute('visibility', 'hidden'); });
  }

  // ---- per-rank table ---------------------------------------------------------------------------------
  function drawTable() {
    var box = document.getElementById('table');
    box.textContent = '';
    // Kinds no rank has are left out, to keep the table narrow.
    var shown = D.kinds.map(function (k, ki) { return ki; }).filter(function (ki) {
      return D.lanes.some(function (l) { return l.events[ki] > 0; });
    });
    var t = html('table', undefined, box), head = html('tr', undefined, html('thead', undefined, t));
    ['rank'].concat(shown.map(function (ki) { return LABELS[D.kinds[ki]]; }),
                    ['untraced', 'spilled', 'peak device', 'peak host', 'peak disk']).forEach(function (h) {
      html('th', h, head);
    });
    var body = html('tbody', undefined, t);
    D.lanes.forEach(function (l) {
      var tr = html('tr', undefined, body);
      html('td', l.label, tr);
      shown.forEach(function (ki) { html('td', fmtTime(l.self[ki]), tr); });
      html('td', fmtTime(Math.max(0, D.wall - l.busy)), tr);
      html('td', fmtBytes(l.bytes[3]), tr);
      l.peak.forEach(function (b) { html('td', fmtBytes(b), tr); });
    });
  }

  // ---- reservations by purpose ----------------------------------------------------------------------
  function drawReservations() {
    var box = document.getElementById('reservations');
    box.textContent = '';
    if (!D.reservations || !D.reservations.length) { html('p', 'No memory was reserved.', box); return; }
    var t = html('table', undefined, box), head = html('tr', undefined, html('thead', undefined, t));
    ['purpose', 'peak', 'rank'].forEach(function (h) { html('th', h, head); });
    var body = html('tbody', undefined, t);
    D.reservations.forEach(function (r) {
      var tr = html('tr', undefined, body);
      html('td', r.purpose, tr);
      html('td', fmtBytes(r.peak), tr);
      html('td', String(r.rank), tr);
    });
  }

  function drawAll() { drawStream(); drawMemory(); }
  drawAll();
  drawKinds();
  drawProfile();
  drawTable();
  drawReservations();
  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { drawAll(); drawKinds(); drawProfile(); }, 150);
  });
  document.body.setAttribute('data-lanes', String(document.querySelectorAll('#stream-svg g.lane').length));
  document.body.setAttribute('data-ranks', String(D.lanes.length));
  document.body.setAttribute('data-rendered', '1');
})();
</script>
</body>
</html>
)SLAB";
  return page;
}

}  // namespace slab::detail
