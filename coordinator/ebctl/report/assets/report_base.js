// The first script of ebctl's HTML reports (coordinator/ebctl/report): the
// status the page reports, the error traps, and the helpers the page files
// share (reading data defensively, formatting, building elements, charts),
// as window.EbReport. Files, in order: report_base.js, report_test_page.js,
// report_validation_page.js, report_matrices.js, report_fabric.js,
// report_fabric_draw.js, report_node_page.js, report_main.js (joined at build time into one script element).
//
// Together they read the report JSON embedded in the page (#eb-data, the
// documents `ebctl ... --json` prints) and draw it with Chart.js. It only draws: every verdict and figure
// comes from the JSON. Fields are read defensively (a report from an older or
// newer coordinator may lack a field or carry new ones), and text from the
// data only ever reaches the page through textContent, never as markup.
//
// When it is done it writes what it drew on #eb-status (data-state "ok" or
// "error", data-charts, data-series, data-points, data-heatmap-cells,
// data-rail-cells, data-errors, data-render-ms, data-js-heap-kib where the
// browser tells, data-selftest with #eb-selftest): the headless-browser test
// (tests/integration/html_report_test.cc) reads them.
(function () {
  'use strict';
  var started = performance.now();
  var EB = { errors: [], charts: [], heatmapCells: 0, railCells: 0 };

  function recordError(text) {
    EB.errors.push(String(text).slice(0, 500));
    writeStatus();
  }
  window.onerror = function (message, source, line, column) {
    recordError(message + ' (line ' + line + ':' + column + ')');
    return false;
  };
  var consoleError = console.error;
  console.error = function () {
    recordError('console.error: ' + Array.prototype.join.call(arguments, ' '));
    return consoleError.apply(console, arguments);
  };

  function writeStatus() {
    var status = document.getElementById('eb-status');
    if (!status) return;
    var series = 0, points = 0;
    EB.charts.forEach(function (c) { series += c.series; points += c.points; });
    status.setAttribute('data-state', EB.errors.length ? 'error' : 'ok');
    status.setAttribute('data-errors', String(EB.errors.length));
    status.setAttribute('data-charts', String(EB.charts.length));
    status.setAttribute('data-series', String(series));
    status.setAttribute('data-points', String(points));
    status.setAttribute('data-heatmap-cells', String(EB.heatmapCells));
    status.setAttribute('data-rail-cells', String(EB.railCells));
    status.setAttribute('data-render-ms', String(Math.round(performance.now() - started)));
    if (EB.selftest) status.setAttribute('data-selftest', EB.selftest);
    // Chromium only: the JavaScript heap once drawn (BENCHMARKS.md, "Reports").
    if (performance.memory && performance.memory.usedJSHeapSize) {
      status.setAttribute('data-js-heap-kib', String(Math.round(performance.memory.usedJSHeapSize / 1024)));
    }
    status.textContent = JSON.stringify({ errors: EB.errors, charts: EB.charts });
  }

  // ---- Reading the data defensively ----
  function arr(v) { return Array.isArray(v) ? v : []; }
  function obj(v) { return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}; }
  function str(v) { return v === null || v === undefined ? '' : String(v); }
  function num(v) {
    var n = typeof v === 'number' ? v : (typeof v === 'string' && v !== '' ? Number(v) : NaN);
    return isFinite(n) ? n : NaN;
  }
  function has(v) { return !isNaN(v); }
  // "1 node", "2 nodes": a count and its noun, plural by the count (issue 33:
  // "1 pairs tested of 6"); as common/spec/counted.h does for ebctl's text.
  function counted(n, singular, plural) {
    return n + ' ' + (n === 1 || n === -1 ? singular : (plural || singular + 's'));
  }

  // ---- Formatting ----
  function fmt(v, digits) {
    if (!has(v)) return '';
    if (digits === undefined) {
      // Three significant digits below 1 (Gloo on loopback measures mGB/s).
      if (v !== 0 && Math.abs(v) < 1) return String(Number(v.toPrecision(3)));
      digits = Math.abs(v) >= 100 ? 1 : 2;
    }
    return v.toFixed(digits);
  }
  function bytes(n) {
    if (!has(n)) return '';
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    var i = 0;
    while (n >= 1024 && i < units.length - 1 && n % 1024 === 0) { n /= 1024; i++; }
    return n + ' ' + units[i];
  }
  function shortBytes(n) { return bytes(n).replace(' ', '').replace('iB', '').replace(/^(\d+)B$/, '$1'); }
  function seconds(ms) {
    if (!has(ms) || ms < 0) return '';
    if (ms < 1000) return Math.round(ms) + ' ms';
    var s = ms / 1000;
    if (s < 120) return s.toFixed(1) + ' s';
    var m = Math.floor(s / 60);
    if (m < 120) return m + ' min ' + Math.round(s - 60 * m) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
  }
  function isoTime(v) {
    if (typeof v === 'string') return v;
    var ms = num(v);
    return has(ms) && ms > 0 ? new Date(ms).toISOString().replace('.000Z', 'Z') : '';
  }
  function timeMs(v) {
    if (typeof v === 'string' && v) { var t = Date.parse(v); return isNaN(t) ? NaN : t; }
    var ms = num(v);
    return has(ms) && ms > 0 ? ms : NaN;
  }
  function pct(ratio) { return has(ratio) ? Math.round(ratio * 100) + '%' : ''; }

  // ---- Building the page (text through textContent only) ----
  // The one way data reaches the page: text as textContent or a text node,
  // attribute values through setAttribute, HTML and SVG alike (issue 31's
  // fabric picture is SVG built here too, never markup).
  function build(node, attrs, children) {
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = str(attrs[k]);
      else node.setAttribute(k, str(attrs[k]));
    });
    arr(children).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(str(c)));
    });
    return node;
  }
  function el(tag, attrs, children) { return build(document.createElement(tag), attrs, children); }
  function svg(tag, attrs, children) {
    return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
  }
  function chip(word) {
    var w = str(word) || 'unknown';
    return el('span', { class: 'chip v-' + w.replace(/[^a-z_]/g, ''), text: w });
  }
  function section(parent, title, id) {
    var s = el('section', { id: id || '' }, [el('h2', { text: title })]);
    parent.appendChild(s);
    return s;
  }
  function note(parent, text) { parent.appendChild(el('p', { class: 'note', text: text })); }
  function kvTable(rows) {
    var t = el('table', { class: 'kv' });
    rows.forEach(function (r) {
      if (r[1] === null || r[1] === undefined || r[1] === '') return;
      var value = typeof r[1] === 'object' ? r[1] : document.createTextNode(str(r[1]));
      t.appendChild(el('tr', {}, [el('th', { text: r[0] }), el('td', {}, [value])]));
    });
    return t;
  }
  // A table of `rows` (arrays of cells: text, numbers or nodes); `numeric`
  // lists the right-aligned columns.
  function table(headers, rows, numeric, cls) {
    numeric = numeric || [];
    var t = el('table', { class: cls || '' });
    var head = el('tr');
    headers.forEach(function (h, i) {
      head.appendChild(el('th', { text: h, class: numeric.indexOf(i) >= 0 ? 'num' : '' }));
    });
    t.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    rows.forEach(function (r) { body.appendChild(row(r, numeric)); });
    t.appendChild(body);
    return t;
  }
  function row(cells, numeric) {
    var tr = el('tr');
    cells.forEach(function (c, i) {
      var td = el('td', { class: numeric && numeric.indexOf(i) >= 0 ? 'num' : '' });
      if (c !== null && typeof c === 'object') td.appendChild(c);
      else td.textContent = typeof c === 'number' ? fmt(c) : str(c);
      tr.appendChild(td);
    });
    return tr;
  }
  // Fields this page does not know (a newer coordinator): shown as they are.
  function otherFields(parent, value, known, title) {
    var extra = {};
    Object.keys(obj(value)).forEach(function (k) { if (known.indexOf(k) < 0) extra[k] = value[k]; });
    if (!Object.keys(extra).length) return;
    var d = el('details', {}, [el('summary', { text: title || 'Other fields' })]);
    d.appendChild(el('pre', { text: JSON.stringify(extra, null, 2) }));
    parent.appendChild(d);
  }

  // ---- Charts ----
  var COLORS = ['#1f6fd1', '#e8710a', '#2e8540', '#c62828', '#7b1fa2', '#00838f', '#6d4c41',
                '#ad1457', '#558b2f', '#3949ab', '#f9a825', '#546e7a'];
  function color(i) { return COLORS[i % COLORS.length]; }

  function makeChart(parent, id, config, height) {
    var box = el('div', { class: 'chart-box' });
    box.style.height = (height || 320) + 'px';
    var canvas = el('canvas', { id: 'chart-' + id, role: 'img' });
    box.appendChild(canvas);
    parent.appendChild(box);
    var options = config.options = config.options || {};
    options.animation = false;          // drawn at once: the counts below are final
    options.responsive = true;
    options.maintainAspectRatio = false;
    options.normalized = true;
    var chart = new Chart(canvas.getContext('2d'), config);
    var series = chart.data.datasets.length, points = 0;
    for (var i = 0; i < series; i++) points += chart.getDatasetMeta(i).data.length;
    // What the legend shows, to check it names every series (issue 33
    // item 16: 8 lines once hid under 2 entries).
    var items = chart.legend && chart.legend.legendItems ? chart.legend.legendItems : [];
    canvas.setAttribute('data-series', String(series));
    canvas.setAttribute('data-points', String(points));
    EB.charts.push({ id: id, series: series, points: points, legend: items.map(function (it) { return it.text; }) });
    return chart;
  }
  // x = log2(size): a size axis in powers of two, labelled in bytes.
  function sizeAxis() {
    return {
      type: 'linear',
      title: { display: true, text: 'message size (log2)' },
      ticks: {
        stepSize: 1,
        callback: function (v) { return Number.isInteger(v) ? shortBytes(Math.pow(2, v)) : ''; },
      },
    };
  }
  function sizeTooltip(unit) {
    return {
      callbacks: {
        title: function (items) { return items.length ? bytes(Math.round(Math.pow(2, items[0].parsed.x))) : ''; },
        label: function (item) { return item.dataset.label + ': ' + fmt(item.parsed.y) + ' ' + unit; },
      },
    };
  }
  function line(label, points, i, dashed) {
    return {
      label: label, data: points, borderColor: color(i), backgroundColor: color(i),
      borderDash: dashed ? [6, 4] : [], pointRadius: 2.5, borderWidth: 2, tension: 0, spanGaps: true,
    };
  }
  function sizePoints(results, variant, field) {
    var out = [];
    arr(results).forEach(function (r) {
      var size = num(obj(r).size), v = num(obj(obj(r)[variant])[field]);
      if (has(size) && size > 0 && has(v)) out.push({ x: Math.log2(size), y: v });
    });
    return out;
  }


  var VERDICT_ORDER = ['failed', 'degraded', 'unfit', 'untestable', 'healthy'];
  function severity(v) { var i = VERDICT_ORDER.indexOf(str(v)); return i < 0 ? VERDICT_ORDER.length : i; }

  // Colour of a busbw ratio to the reference: red at 50% or less, amber at
  // 75%, green at 100% and above.
  function ratioColor(ratio) {
    if (!has(ratio)) return '#9e9e9e';
    var t = Math.max(0, Math.min(1, (ratio - 0.5) / 0.5));
    return 'hsl(' + Math.round(t * 120) + ', 70%, ' + Math.round(45 + 5 * t) + '%)';
  }
  function median(values) {
    var v = values.filter(has).slice().sort(function (a, b) { return a - b; });
    if (!v.length) return NaN;
    var m = Math.floor(v.length / 2);
    return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
  }


  var tooltip = null;
  function showTip(ev, text) {
    if (!tooltip) { tooltip = el('div', { class: 'tooltip' }); document.body.appendChild(tooltip); }
    if (!text) { tooltip.style.display = 'none'; return; }
    tooltip.textContent = text;
    tooltip.style.display = 'block';
    tooltip.style.left = (ev.clientX + 14) + 'px';
    tooltip.style.top = (ev.clientY + 14) + 'px';
  }
  function legend(parent, items, refText) {
    var l = el('div', { class: 'legend' });
    var ramp = el('span', { class: 'ramp' });
    ramp.style.background = 'linear-gradient(to right, ' + ratioColor(0.5) + ', ' + ratioColor(0.75) + ', ' + ratioColor(1) + ')';
    l.appendChild(el('span', {}, [document.createTextNode('50% '), ramp, document.createTextNode(' 100% ' + refText)]));
    items.forEach(function (it) {
      var sw = el('span', { class: 'swatch' });
      sw.style.background = it[0];
      l.appendChild(el('span', {}, [sw, document.createTextNode(it[1])]));
    });
    parent.appendChild(l);
  }

  function timeAxis() {
    return { type: 'linear', title: { display: true, text: 'time (UTC)' },
             ticks: { maxTicksLimit: 8, callback: function (v) {
               // Seconds when the history spans less than a day.
               var iso = new Date(v).toISOString().replace('T', ' ');
               return this.max - this.min < 86400000 ? iso.slice(5, 19) : iso.slice(0, 16);
             } } };
  }

  window.EbReport = {
    status: EB, recordError: recordError, writeStatus: writeStatus, arr: arr, obj: obj, str: str,
    num: num, has: has, counted: counted, fmt: fmt, bytes: bytes, shortBytes: shortBytes, seconds: seconds,
    isoTime: isoTime, timeMs: timeMs, pct: pct, el: el, svg: svg, chip: chip, section: section, note: note,
    kvTable: kvTable, table: table, row: row, otherFields: otherFields, COLORS: COLORS,
    color: color, makeChart: makeChart, sizeAxis: sizeAxis, sizeTooltip: sizeTooltip, line: line,
    sizePoints: sizePoints, VERDICT_ORDER: VERDICT_ORDER, severity: severity,
    ratioColor: ratioColor, median: median, timeAxis: timeAxis, showTip: showTip, legend: legend
  };
})();
