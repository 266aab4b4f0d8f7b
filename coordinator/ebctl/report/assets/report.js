// The script of ebctl's HTML reports (coordinator/ebctl/report): reads the
// report JSON embedded in the page (#eb-data, the documents `ebctl ... --json`
// prints) and draws it with Chart.js. It only draws: every verdict and figure
// comes from the JSON. Fields are read defensively (a report from an older or
// newer coordinator may lack a field or carry new ones), and text from the
// data only ever reaches the page through textContent, never as markup.
//
// When it is done it writes what it drew on #eb-status (data-state "ok" or
// "error", data-charts, data-series, data-points, data-heatmap-cells,
// data-rail-cells, data-errors, data-render-ms, data-js-heap-kib where the
// browser tells): the headless-browser test
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
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') node.textContent = str(attrs[k]);
      else if (k === 'class') node.className = attrs[k];
      else node.setAttribute(k, str(attrs[k]));
    });
    arr(children).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(str(c)));
    });
    return node;
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
    canvas.setAttribute('data-series', String(series));
    canvas.setAttribute('data-points', String(points));
    EB.charts.push({ id: id, series: series, points: points });
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

  // ================= One test =================
  function renderTest(main, page) {
    var r = obj(page.report), config = obj(r.config), results = arr(r.results);
    var inventories = arr(page.inventories);

    var head = section(main, 'Summary', 'summary');
    var verdict = el('span', {}, [chip(r.state), document.createTextNode(' ' + str(r.summary))]);
    var start = timeMs(r.start_time), end = timeMs(r.end_time);
    var gpus = [], hcas = [], nccl = [], drivers = [];
    inventories.forEach(function (inv) {
      inv = obj(inv);
      var models = {};
      arr(inv.gpus).forEach(function (g) { var n = str(obj(g).name) || 'GPU'; models[n] = (models[n] || 0) + 1; });
      var text = Object.keys(models).map(function (m) { return models[m] + ' x ' + m; }).join(', ');
      gpus.push(str(inv.hostname) + ': ' + (text || 'none (CPU)'));
      var names = arr(inv.hcas).map(function (h) {
        h = obj(h);
        var rate = num(h.rate_gbps);
        return str(h.name) + (has(rate) && rate > 0 ? ' ' + rate + 'G' : '') + (str(h.error) ? ' (' + str(h.error) + ')' : '');
      });
      hcas.push(str(inv.hostname) + ': ' + (names.join(', ') || 'none'));
      if (str(inv.nccl_version) && nccl.indexOf(str(inv.nccl_version)) < 0) nccl.push(str(inv.nccl_version));
      if (str(inv.driver_version) && drivers.indexOf(str(inv.driver_version)) < 0) drivers.push(str(inv.driver_version));
    });
    var step = has(num(config.step_factor)) ? '-f ' + config.step_factor : '-i ' + str(config.step_bytes);
    var spec = ['-b ' + shortBytes(num(config.minimum_bytes)), '-e ' + shortBytes(num(config.maximum_bytes)), step,
                '-n ' + str(config.iterations), '-w ' + str(config.warmup_iters), '-c ' + str(config.validation),
                '-d ' + str(config.datatype), '-o ' + str(config.redop)];
    if (num(config.root) >= 0) spec.push('-r ' + config.root);
    if (num(config.graph) > 0) spec.push('-G ' + config.graph);
    if (config.split_rails === true) spec.push('--split-rails');
    var avg = obj(r.average_bus_bandwidth);
    head.appendChild(kvTable([
      ['Verdict', verdict],
      ['Test', str(r.test_id)],
      ['Collective', str(r.collective) + ' over ' + str(r.transport)],
      ['Nodes', arr(config.nodes).map(str).join(', ')],
      ['Ranks', str(config.nranks) + (num(config.workers_per_node) > 0 ? ' (' + config.workers_per_node + ' per node)' : '')],
      ['GPUs', gpus.join('; ')],
      ['HCAs', hcas.join('; ')],
      ['NCCL version', nccl.join(', ') || (str(r.transport) === 'nccl' ? 'unknown' : 'not used (' + str(r.transport) + ')')],
      ['Driver', drivers.join(', ')],
      ['Spec', spec.join(' ')],
      ['Min busbw', num(config.min_busbw_gbps) > 0 ? config.min_busbw_gbps + ' GB/s' : ''],
      ['Average busbw', fmt(num(avg.bandwidth)) + ' GB/s' + (avg.okay === false ? ' (below the minimum)' : '')],
      ['Wrong elements', str(obj(r.out_of_bounds).count)],
      ['Started', isoTime(r.start_time) + (str(r.started_by) ? ' by ' + str(r.started_by) : '')],
      ['Duration', has(start) && has(end) ? seconds(end - start) : (has(start) ? 'running' : '')],
      ['Exit code', str(r.exit_code)],
    ]));

    var bw = section(main, 'Bandwidth', 'bandwidth');
    if (!results.length) {
      note(bw, 'No results: the test recorded no size.');
    } else {
      var sets = [
        line('busbw out-of-place', sizePoints(results, 'out_of_place', 'bus_bw'), 0),
        line('busbw in-place', sizePoints(results, 'in_place', 'bus_bw'), 1),
        line('algbw out-of-place', sizePoints(results, 'out_of_place', 'alg_bw'), 0, true),
        line('algbw in-place', sizePoints(results, 'in_place', 'alg_bw'), 1, true),
      ];
      var threshold = num(config.min_busbw_gbps);
      if (threshold > 0) {
        var xs = sets[0].data.map(function (p) { return p.x; });
        var base = line('min busbw (threshold)', [{ x: Math.min.apply(null, xs), y: threshold },
                                                  { x: Math.max.apply(null, xs), y: threshold }], 3, true);
        base.pointRadius = 0;
        sets.push(base);
      }
      makeChart(bw, 'bandwidth', {
        type: 'line', data: { datasets: sets },
        options: { scales: { x: sizeAxis(), y: { title: { display: true, text: 'GB/s' }, beginAtZero: true } },
                   plugins: { tooltip: sizeTooltip('GB/s') } },
      });
      makeChart(bw, 'time', {
        type: 'line',
        data: { datasets: [line('time out-of-place', sizePoints(results, 'out_of_place', 'time').filter(function (p) { return p.y > 0; }), 0),
                           line('time in-place', sizePoints(results, 'in_place', 'time').filter(function (p) { return p.y > 0; }), 1)] },
        options: { scales: { x: sizeAxis(), y: { type: 'logarithmic', title: { display: true, text: 'time (us, log)' } } },
                   plugins: { tooltip: sizeTooltip('us') } },
      }, 260);
    }

    renderRankTimes(main, r, results);
    renderStraggler(main, r);
    renderRails(main, r);
    renderFailures(main, r);
    renderRawTable(main, r, results);
    otherFields(main, r, ['schema', 'schema_version', 'version', 'test_id', 'state', 'transport', 'collective',
      'start_time', 'end_time', 'config', 'devices', 'results', 'out_of_bounds', 'average_bus_bandwidth',
      'slowest_rank', 'arrivals', 'rails', 'failures', 'errors', 'summary', 'started_by', 'exit_code'],
      'Other fields of the report (newer than this page)');
  }

  // Per-rank time at the largest sizes: a straggler's bar stands out.
  function renderRankTimes(main, r, results) {
    var s = section(main, 'Per-rank time at the largest sizes', 'ranks');
    var devices = arr(r.devices);
    var largest = results.slice(-2).filter(function (row) { return arr(obj(obj(row).out_of_place).rank_times).length; });
    if (!largest.length) { note(s, 'No per-rank times recorded.'); return; }
    var nranks = 0;
    largest.forEach(function (row) { nranks = Math.max(nranks, arr(row.out_of_place.rank_times).length); });
    var labels = [];
    for (var i = 0; i < nranks; i++) {
      var d = obj(devices[i]);
      labels.push('r' + i + (str(d.node) ? ' ' + str(d.node) : ''));
    }
    var slowest = num(obj(r.slowest_rank).rank);
    var sets = [];
    largest.forEach(function (row, k) {
      ['out_of_place', 'in_place'].forEach(function (variant, v) {
        var times = arr(obj(row[variant]).rank_times).map(num);
        if (!times.length) return;
        var c = [COLORS[0], COLORS[1], COLORS[5], COLORS[4]][(2 * k + v) % 4];  // red marks the straggler
        sets.push({
          label: bytes(num(row.size)) + ' ' + variant.replace(/_/g, '-'),
          data: times.map(function (t) { return has(t) ? t : null; }),
          backgroundColor: times.map(function (t, rank) { return rank === slowest ? '#c62828' : c; }),
        });
      });
    });
    makeChart(s, 'rank-times', {
      type: 'bar', data: { labels: labels, datasets: sets },
      options: { scales: { y: { title: { display: true, text: 'time (us)' }, beginAtZero: true } } },
    }, Math.min(420, 220 + 4 * nranks));
    if (has(slowest)) note(s, 'Red: rank ' + slowest + ', the straggler named below.');
  }

  function renderStraggler(main, r) {
    var s = section(main, 'Stragglers and arrivals', 'straggler');
    var slow = r.slowest_rank, arrivals = r.arrivals;
    if (slow && typeof slow === 'object') {
      var basis = str(slow.basis) || 'time';
      var text = 'Rank ' + str(slow.rank) + (str(slow.node) ? ' on ' + str(slow.node) + ' (slot ' + str(slow.local_rank) + ')' : '') +
        (basis === 'arrival' ? ' arrived last' : ' was slowest') + ' in ' + str(slow.slowest_count) + ' of ' +
        str(slow.measurements) + ' measurements, ' + fmt(num(slow.mean_excess_pct), 1) + '% of the call time' +
        (has(num(slow.mean_lag_us)) && num(slow.mean_lag_us) > 0 ? ' (' + fmt(num(slow.mean_lag_us), 0) + ' us late per call)' : '') +
        ' (basis: ' + basis + ').';
      s.appendChild(el('p', { text: text }));
    } else {
      note(s, 'No rank stood out.');
    }
    if (arrivals && typeof arrivals === 'object') {
      s.appendChild(el('p', {
        text: 'Arrivals: ' + str(arrivals.late_measurements) + ' of ' + str(arrivals.measurements) +
          ' measurements had a late rank; the largest lag was ' + fmt(num(arrivals.max_lag_us), 0) + ' us. ' +
          (arrivals.flat === true ? 'Flat: no rank held the others up, so a slow result is the path (network, NICs, links), not a rank.' : ''),
      }));
    }
  }

  function renderRails(main, r) {
    var rails = arr(r.rails);
    if (!rails.length) return;
    var s = section(main, 'Rails', 'rails');
    note(s, 'Each rail is one GPU slot of every node, all rails at once (--split-rails).');
    var rows = rails.map(function (rail) {
      rail = obj(rail);
      var members = arr(rail.members).map(function (m) {
        m = obj(m);
        return str(m.node) + (m.device !== null && m.device !== undefined ? ' gpu' + m.device : '') + (str(m.hca) ? ' ' + str(m.hca) : '');
      }).join(', ');
      var st = obj(rail.straggler);
      return [str(rail.rail), members, num(rail.avg_busbw), pct(num(rail.busbw_ratio)),
              rail.slow === true ? el('span', { class: 'bad', text: 'slow' }) : 'no',
              rail.straggler ? 'rank ' + str(st.rank) + ' on ' + str(st.node) + ' (' + str(st.late_count) + '/' + str(st.measurements) + ')' : ''];
    });
    s.appendChild(table(['rail', 'members', 'avg busbw (GB/s)', 'vs median rail', 'slow', 'straggler'], rows, [2, 3]));
    makeChart(s, 'rails', {
      type: 'line',
      data: { datasets: rails.map(function (rail, i) { return line('rail ' + str(obj(rail).rail), sizePoints(obj(rail).results, 'out_of_place', 'bus_bw'), i); }) },
      options: { scales: { x: sizeAxis(), y: { title: { display: true, text: 'busbw out-of-place (GB/s)' }, beginAtZero: true } },
                 plugins: { tooltip: sizeTooltip('GB/s') } },
    }, 280);
  }

  function renderFailures(main, r) {
    var failures = arr(r.failures);
    var s = section(main, 'Failures', 'failures');
    if (!failures.length) { note(s, 'None.'); return; }
    var list = el('ul', { class: 'failures' });
    failures.forEach(function (f, i) {
      f = obj(f);
      var where = [];
      if (num(f.rank) >= 0) where.push('rank ' + f.rank);
      if (str(f.node)) where.push('node ' + str(f.node));
      if (num(f.local_rank) >= 0) where.push('slot ' + f.local_rank);
      if (num(f.device) >= 0) where.push('gpu ' + f.device);
      if (num(f.exit_code)) where.push('exit code ' + f.exit_code);
      if (num(f.signal)) where.push('signal ' + f.signal);
      var item = el('li', {}, [el('strong', { text: (i === 0 ? 'primary: ' : '') + str(f.kind) }),
                               document.createTextNode(where.length ? ' (' + where.join(', ') + ')' : ''),
                               el('div', { text: str(f.message) })]);
      otherFields(item, f, ['kind', 'rank', 'node', 'local_rank', 'device', 'message', 'exit_code', 'signal'], 'Evidence');
      list.appendChild(item);
    });
    s.appendChild(list);
  }

  function renderRawTable(main, r, results) {
    var s = section(main, 'Results', 'results');
    if (!results.length) { note(s, 'No rows.'); return; }
    var rows = results.map(function (x) {
      x = obj(x);
      var o = obj(x.out_of_place), p = obj(x.in_place);
      function wrong(v) { return v.nwrong === null || v.nwrong === undefined ? 'N/A' : str(v.nwrong); }
      return [num(x.size), num(x.count), str(x.type), str(x.redop), str(x.root),
              num(o.time), num(o.alg_bw), num(o.bus_bw), wrong(o), num(p.time), num(p.alg_bw), num(p.bus_bw), wrong(p)]
        .map(function (v, i) { return i < 2 && has(v) ? String(v) : v; });
    });
    var wrap = el('div', { class: 'scroll' });
    wrap.appendChild(table(['size (B)', 'count', 'type', 'redop', 'root', 'time (us)', 'algbw (GB/s)', 'busbw (GB/s)',
                            '#wrong', 'time (us)', 'algbw (GB/s)', 'busbw (GB/s)', '#wrong'],
                           rows, [0, 1, 5, 6, 7, 8, 9, 10, 11, 12], 'wide'));
    s.appendChild(el('p', { class: 'note', text: 'Columns 6-9: out-of-place; 10-13: in-place (nccl-tests).' }));
    s.appendChild(wrap);
  }

  // ================= One validation =================
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

  // The evidence a node's row shows: its last pair observation (whole
  // node), else its last intra one.
  function headlineEvidence(node) {
    var best = null;
    arr(node.evidence).forEach(function (e) {
      e = obj(e);
      if (num(e.rail) >= 0 || !(num(e.measured_busbw_gbps) > 0)) return;
      var rank = (str(e.kind) === 'pair' ? 2 : 1) * 100000 + (num(e.round) || 0);
      if (!best || rank > best.rank) best = { rank: rank, e: e };
    });
    return best ? best.e : null;
  }
  function reference(e) {
    if (!e) return NaN;
    if (num(e.expected_busbw_gbps) > 0) return num(e.expected_busbw_gbps);
    if (num(e.fleet_median_busbw_gbps) > 0) return num(e.fleet_median_busbw_gbps);
    return NaN;
  }

  function renderValidation(main, page) {
    var r = obj(page.report), spec = obj(r.spec), nodes = arr(r.nodes).map(obj), rounds = arr(r.rounds).map(obj);
    var offenders = {};
    arr(obj(page.node_list).nodes).forEach(function (n) {
      n = obj(n);
      if (n.last_validation) offenders[str(n.name)] = obj(n.last_validation);
    });
    var tests = [];
    rounds.forEach(function (round) { arr(round.tests).forEach(function (t) { tests.push({ round: round, t: obj(t) }); }); });
    var testIndex = {};
    tests.forEach(function (x) { if (str(x.t.test_id)) testIndex[str(x.t.test_id)] = x; });

    // Summary.
    var s = section(main, 'Summary', 'summary');
    var counts = {};
    nodes.forEach(function (n) { var v = str(n.verdict) || 'unknown'; counts[v] = (counts[v] || 0) + 1; });
    var byVerdict = el('span');
    Object.keys(counts).sort(function (a, b) { return severity(a) - severity(b); }).forEach(function (v) {
      byVerdict.appendChild(chip(v + ' ' + counts[v]));
    });
    var start = num(r.start_time_unix_ms), end = num(r.end_time_unix_ms);
    s.appendChild(kvTable([
      ['State', el('span', {}, [chip(r.state), document.createTextNode(' ' + str(r.summary))])],
      ['Validation', str(r.validation_id)],
      ['Nodes', String(nodes.length)],
      ['By verdict', byVerdict],
      ['Rounds', rounds.length + ' (' + tests.length + ' tests)'],
      ['Suites', arr(spec.suites).map(str).join(', ') + (str(spec.strategy) ? ', strategy ' + str(spec.strategy) : '')],
      ['Tolerance', has(num(spec.tolerance)) ? pct(num(spec.tolerance)) : ''],
      ['Started', isoTime(start) + (str(r.started_by) ? ' by ' + str(r.started_by) : '')],
      ['Wall time', start > 0 && end > 0 ? seconds(end - start) : (start > 0 ? 'running' : '')],
      ['Baselines', str(r.baselines_origin)],
      ['Exit code', str(r.exit_code)],
    ]));
    var findings = arr(r.findings).map(obj);
    if (findings.length) {
      s.appendChild(el('h3', { text: 'Findings' }));
      s.appendChild(table(['kind', 'bad', 'text'], findings.map(function (f) {
        return [str(f.kind), f.bad === true ? el('span', { class: 'bad', text: 'yes' }) : 'no', str(f.text)];
      })));
    }
    var baselines = arr(r.baselines).map(obj);
    if (baselines.length) {
      var d = el('details', {}, [el('summary', { text: 'Baselines used (' + baselines.length + ')' })]);
      d.appendChild(table(['suite', 'GPU model', 'GPUs', 'HCA rate (Gb/s)', 'HCAs', 'busbw (GB/s)', 'source'],
        baselines.map(function (b) {
          return [str(b.suite), str(b.gpu_model), str(b.gpu_count), str(b.hca_rate_gbps), str(b.hca_count), num(b.busbw_gbps), str(b.source)];
        }), [2, 3, 4, 5]));
      s.appendChild(d);
    }

    renderNodeTable(main, nodes, offenders, testIndex);
    renderPairMatrix(main, r, nodes, tests);
    renderRailMatrix(main, r, nodes);
    renderPaths(main, r);
    renderRounds(main, r, rounds);
    otherFields(main, r, ['schema', 'schema_version', 'validation_id', 'spec', 'state', 'nodes', 'paths', 'rails',
      'findings', 'rounds', 'baselines', 'baselines_origin', 'summary', 'any_bad', 'start_time_unix_ms',
      'end_time_unix_ms', 'started_by', 'exit_code'], 'Other fields of the report (newer than this page)');
  }

  function testLink(id) {
    if (!str(id)) return document.createTextNode('');
    var a = el('a', { href: '#test-' + str(id), text: str(id) });
    a.addEventListener('click', function (ev) { ev.preventDefault(); openTest(str(id)); });
    return a;
  }

  function renderNodeTable(main, nodes, offenders, testIndex) {
    var s = section(main, 'Nodes', 'nodes');
    note(s, 'Click a column to sort, a row to see the evidence behind the verdict.');
    var rows = nodes.map(function (n, i) {
      var e = headlineEvidence(n), ref = reference(e);
      var off = offenders[str(n.node_name)];
      var measured = e ? num(e.measured_busbw_gbps) : NaN;
      return {
        order: i, node: n, name: str(n.node_name), verdict: str(n.verdict), confidence: str(n.confidence),
        busbw: measured, ratio: has(ref) ? measured / ref : NaN, kind: e ? str(e.kind) : '',
        rails: arr(n.bad_rails).map(str).join(','), offender: off ? (off.repeat_offender === true ? 1 : 0) : -1,
        badCount: off ? num(off.bad_count) : NaN, reason: str(n.reason),
      };
    });
    var controls = el('div', { class: 'controls' });
    var search = el('input', { type: 'search', placeholder: 'filter: node or reason' });
    var verdictSel = el('select', {}, [el('option', { value: '', text: 'every verdict' })]);
    VERDICT_ORDER.forEach(function (v) { verdictSel.appendChild(el('option', { value: v, text: v })); });
    var offenderBox = el('input', { type: 'checkbox' });
    var shown = el('span', { class: 'note' });
    controls.appendChild(search);
    controls.appendChild(verdictSel);
    controls.appendChild(el('label', {}, [offenderBox, document.createTextNode(' repeat offenders only')]));
    controls.appendChild(shown);
    s.appendChild(controls);
    var columns = [['node', 'name'], ['verdict', 'verdict'], ['confidence', 'confidence'], ['busbw (GB/s)', 'busbw'],
                   ['vs expected', 'ratio'], ['from', 'kind'], ['bad rails', 'rails'], ['repeat offender', 'offender'],
                   ['reason', 'reason']];
    var t = el('table', { class: 'sortable wide', id: 'node-table' });
    var head = el('tr');
    var sortKey = 'order', sortDir = 1;
    columns.forEach(function (c) {
      var th = el('th', { text: c[0], class: c[1] === 'busbw' || c[1] === 'ratio' ? 'num' : '' });
      th.addEventListener('click', function () {
        sortDir = sortKey === c[1] ? -sortDir : 1;
        sortKey = c[1];
        Array.prototype.forEach.call(head.children, function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
        th.classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
        draw();
      });
      head.appendChild(th);
    });
    t.appendChild(el('thead', {}, [head]));
    var body = el('tbody');
    t.appendChild(body);
    var wrap = el('div', { class: 'scroll' }, [t]);
    s.appendChild(wrap);

    function value(x, key) {
      if (key === 'verdict') return severity(x.verdict);
      var v = x[key];
      return typeof v === 'number' && isNaN(v) ? -Infinity : v;
    }
    function draw() {
      var q = search.value.toLowerCase(), want = verdictSel.value, only = offenderBox.checked;
      var list = rows.filter(function (x) {
        if (want && x.verdict !== want) return false;
        if (only && x.offender !== 1) return false;
        return !q || x.name.toLowerCase().indexOf(q) >= 0 || x.reason.toLowerCase().indexOf(q) >= 0;
      });
      list.sort(function (a, b) {
        var va = value(a, sortKey), vb = value(b, sortKey);
        if (va < vb) return -sortDir;
        if (va > vb) return sortDir;
        return a.order - b.order;
      });
      body.textContent = '';
      list.forEach(function (x) {
        var tr = row([x.name, chip(x.verdict), x.confidence, x.busbw, pct(x.ratio), x.kind, x.rails,
                      x.offender < 0 ? '' : (x.offender === 1 ? 'yes (' + x.badCount + ')' : 'no'), x.reason], [3, 4]);
        tr.className = 'clickable';
        tr.addEventListener('click', function () { toggleEvidence(tr, x.node); });
        body.appendChild(tr);
      });
      shown.textContent = list.length + ' of ' + rows.length + ' nodes';
    }
    function toggleEvidence(tr, node) {
      var next = tr.nextSibling;
      if (next && next.className === 'detail') { next.parentNode.removeChild(next); return; }
      var cell = el('td', { colspan: String(columns.length) });
      var ev = arr(node.evidence).map(obj);
      if (!ev.length) cell.appendChild(el('span', { class: 'note', text: 'No evidence recorded.' }));
      else cell.appendChild(table(['round', 'kind', 'test', 'partners', 'rail', 'outcome', 'measured', 'threshold', 'expected', 'fleet median', 'grade', 'text'],
        ev.map(function (e) {
          return [str(e.round), str(e.kind), testLink(e.test_id), arr(e.partners).map(str).join(', '),
                  num(e.rail) >= 0 ? str(e.rail) : '', str(e.outcome), num(e.measured_busbw_gbps),
                  num(e.threshold_busbw_gbps) || '', num(e.expected_busbw_gbps) || '', num(e.fleet_median_busbw_gbps) || '',
                  str(e.grade), str(e.text)];
        }), [6, 7, 8, 9]));
      tr.parentNode.insertBefore(el('tr', { class: 'detail' }, [cell]), tr.nextSibling);
    }
    search.addEventListener('input', draw);
    verdictSel.addEventListener('change', draw);
    offenderBox.addEventListener('change', draw);
    draw();
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

  // The pair matrix: nodes x nodes, one cell per pair tested (its worst
  // result), coloured by busbw over the reference; untested cells blank.
  // One canvas, so that 1,000 nodes (a million cells) stay light.
  function renderPairMatrix(main, r, nodes, tests) {
    var s = section(main, 'Pair matrix', 'pairs');
    var names = nodes.map(function (n) { return str(n.node_name); });
    var index = {};
    names.forEach(function (n, i) { index[n] = i; });
    var cells = {};  // "i,j" (i < j) -> {bw, failed, test}
    tests.forEach(function (x) {
      var t = x.t, nn = arr(t.node_names).map(str);
      if (nn.length !== 2 || str(t.kind) === 'intra') return;
      var a = index[nn[0]], b = index[nn[1]];
      if (a === undefined || b === undefined || a === b) return;
      var key = Math.min(a, b) + ',' + Math.max(a, b);
      var outcome = str(t.outcome), bw = num(t.busbw_gbps);
      if (!outcome) return;  // still running
      var failed = outcome !== 'completed';
      var prev = cells[key];
      if (!prev || (failed && !prev.failed) || (!failed && !prev.failed && bw < prev.bw)) {
        cells[key] = { bw: bw, failed: failed, test: str(t.test_id), outcome: outcome };
      }
    });
    var keys = Object.keys(cells);
    if (!keys.length) { note(s, 'No pair test finished.'); return; }
    // The reference: the baselines' expected figure where the evidence
    // carries one, else the median of the pair tests (the fleet's yardstick).
    var expected = [];
    nodes.forEach(function (n) {
      arr(n.evidence).forEach(function (e) {
        e = obj(e);
        if (str(e.kind) === 'pair' && num(e.rail) < 0 && num(e.expected_busbw_gbps) > 0) expected.push(num(e.expected_busbw_gbps));
      });
    });
    var ref = median(expected), refText = 'of the expected ' + fmt(ref) + ' GB/s (baselines)';
    if (!has(ref)) {
      ref = median(keys.filter(function (k) { return !cells[k].failed; }).map(function (k) { return cells[k].bw; }));
      refText = 'of the median pair, ' + fmt(ref) + ' GB/s';
    }
    var controls = el('div', { class: 'controls' });
    var order = el('select', {}, [el('option', { value: 'spec', text: 'order: as validated' }),
                                  el('option', { value: 'bad', text: 'order: worst verdicts first' })]);
    if (names.length > 64) order.value = 'bad';  // a large fleet: its bad nodes top left
    var zoom = el('select', {});
    [0, 1, 2, 4, 8, 16, 24].forEach(function (z) { zoom.appendChild(el('option', { value: String(z), text: z ? z + ' px per node' : 'fit' })); });
    var filter = el('input', { type: 'search', placeholder: 'only nodes matching' });
    controls.appendChild(order);
    controls.appendChild(zoom);
    controls.appendChild(filter);
    s.appendChild(controls);
    legend(s, [['#ffffff', 'untested'], ['#37474f', 'test failed'], ['#cfd8dc', 'same node']], refText);
    var wrap = el('div', { class: 'matrix-wrap' });
    var canvas = el('canvas', { id: 'pair-matrix' });
    wrap.appendChild(canvas);
    s.appendChild(wrap);
    var shownNodes = [], cell = 1, margin = 0;

    function draw() {
      var q = filter.value.toLowerCase();
      shownNodes = names.map(function (n, i) { return i; }).filter(function (i) { return !q || names[i].toLowerCase().indexOf(q) >= 0; });
      if (order.value === 'bad') {
        shownNodes.sort(function (a, b) { return severity(nodes[a].verdict) - severity(nodes[b].verdict) || a - b; });
      }
      var n = shownNodes.length, z = Number(zoom.value);
      cell = z || Math.max(1, Math.min(24, Math.floor(900 / Math.max(1, n))));
      margin = cell >= 10 ? 110 : 0;
      canvas.width = margin + n * cell;
      canvas.height = margin + n * cell;
      var ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      var pos = {};
      shownNodes.forEach(function (node, p) { pos[node] = p; });
      var drawn = 0;
      ctx.fillStyle = '#cfd8dc';
      for (var p = 0; p < n; p++) ctx.fillRect(margin + p * cell, margin + p * cell, cell, cell);
      keys.forEach(function (k) {
        var ij = k.split(','), a = pos[ij[0]], b = pos[ij[1]];
        if (a === undefined || b === undefined) return;
        var c = cells[k];
        ctx.fillStyle = c.failed ? '#37474f' : ratioColor(c.bw / ref);
        ctx.fillRect(margin + a * cell, margin + b * cell, cell, cell);
        ctx.fillRect(margin + b * cell, margin + a * cell, cell, cell);
        drawn++;
      });
      if (margin) {
        ctx.fillStyle = '#1d2330';
        ctx.font = Math.min(12, cell) + 'px sans-serif';
        ctx.textBaseline = 'middle';
        shownNodes.forEach(function (node, p) {
          var label = names[node].length > 14 ? names[node].slice(0, 13) + '\u2026' : names[node];
          ctx.textAlign = 'right';
          ctx.fillText(label, margin - 4, margin + p * cell + cell / 2);
          ctx.save();
          ctx.translate(margin + p * cell + cell / 2, margin - 4);
          ctx.rotate(-Math.PI / 2);
          ctx.textAlign = 'left';
          ctx.fillText(label, 0, 0);
          ctx.restore();
        });
      }
      canvas.setAttribute('data-cells', String(drawn));
      return drawn;
    }
    canvas.addEventListener('mousemove', function (ev) {
      var rect = canvas.getBoundingClientRect();
      var x = Math.floor((ev.clientX - rect.left - margin) / cell), y = Math.floor((ev.clientY - rect.top - margin) / cell);
      if (x < 0 || y < 0 || x >= shownNodes.length || y >= shownNodes.length) { showTip(ev, ''); return; }
      var a = shownNodes[x], b = shownNodes[y];
      var c = cells[Math.min(a, b) + ',' + Math.max(a, b)];
      var text = names[a] + ' \u00d7 ' + names[b] + '\n';
      if (a === b) text += 'same node (' + str(nodes[a].verdict) + ')';
      else if (!c) text += 'not tested';
      else if (c.failed) text += c.outcome + ' (' + c.test + ')';
      else text += fmt(c.bw) + ' GB/s, ' + pct(c.bw / ref) + ' (' + c.test + ')';
      showTip(ev, text);
    });
    canvas.addEventListener('mouseleave', function (ev) { showTip(ev, ''); });
    canvas.addEventListener('click', function (ev) {
      var rect = canvas.getBoundingClientRect();
      var x = Math.floor((ev.clientX - rect.left - margin) / cell), y = Math.floor((ev.clientY - rect.top - margin) / cell);
      if (x < 0 || y < 0 || x >= shownNodes.length || y >= shownNodes.length) return;
      var a = shownNodes[x], b = shownNodes[y], c = cells[Math.min(a, b) + ',' + Math.max(a, b)];
      if (c && c.test) openTest(c.test);
    });
    [order, zoom].forEach(function (c) { c.addEventListener('change', draw); });
    filter.addEventListener('input', draw);
    EB.heatmapCells = draw();
    note(s, keys.length + ' pairs tested of ' + (names.length * (names.length - 1) / 2) +
      '. Each cell is the worst result of its pair; hover for the figure, click to open the test.');
  }

  // Node x rail: a rail's verdict where one was reached, else its measured
  // busbw over the reference where a per-rail observation exists, else
  // "not blamed" for nodes whose network a pair test judged.
  function renderRailMatrix(main, r, nodes) {
    var s = section(main, 'Rail matrix', 'rail-matrix');
    var verdicts = {}, nrails = 0;
    arr(r.rails).forEach(function (x) {
      x = obj(x);
      verdicts[str(x.node_name) + '#' + num(x.rail)] = x;
      nrails = Math.max(nrails, num(x.rail) + 1);
    });
    var measured = {};
    nodes.forEach(function (n) {
      arr(n.bad_rails).forEach(function (b) { nrails = Math.max(nrails, num(b) + 1); });
      arr(n.evidence).forEach(function (e) {
        e = obj(e);
        var rail = num(e.rail);
        if (!(rail >= 0) || !(num(e.measured_busbw_gbps) > 0)) return;
        nrails = Math.max(nrails, rail + 1);
        var ref = reference(e), key = str(n.node_name) + '#' + rail;
        var ratio = has(ref) ? num(e.measured_busbw_gbps) / ref : NaN;
        if (!measured[key] || ratio < measured[key].ratio) measured[key] = { ratio: ratio, e: e };
      });
    });
    if (!(nrails > 0)) { note(s, 'No per-rail result in this validation (rails are measured by pair tests over NCCL).'); return; }
    nrails = Math.min(nrails, 64);
    legend(s, [['#ffffff', 'no per-rail result'], ['#c8e6c9', 'not blamed'], ['#d98b00', 'degraded'], ['#c62828', 'failed']], '(measured per rail)');
    var n = nodes.length, w = Math.max(2, Math.min(28, Math.floor(1100 / Math.max(1, n)))), h = 16, margin = 60, top = w >= 10 ? 90 : 4;
    var wrap = el('div', { class: 'matrix-wrap' });
    var canvas = el('canvas', { id: 'rail-matrix' });
    canvas.width = margin + n * w;
    canvas.height = top + nrails * h;
    wrap.appendChild(canvas);
    s.appendChild(wrap);
    var ctx = canvas.getContext('2d');
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    var drawn = 0, info = {};
    ctx.font = '11px sans-serif';
    ctx.textBaseline = 'middle';
    for (var rail = 0; rail < nrails; rail++) {
      ctx.fillStyle = '#1d2330';
      ctx.textAlign = 'right';
      ctx.fillText('rail ' + rail, margin - 6, top + rail * h + h / 2);
    }
    nodes.forEach(function (node, i) {
      var name = str(node.node_name);
      var bad = arr(node.bad_rails).map(num);
      for (var rl = 0; rl < nrails; rl++) {
        var key = name + '#' + rl, v = verdicts[key], m = measured[key], fill = null, text = '';
        if (v) { fill = str(v.verdict) === 'failed' ? '#c62828' : '#d98b00'; text = str(v.verdict) + ' (' + str(v.confidence) + '): ' + str(v.reason); }
        else if (m) { fill = ratioColor(m.ratio); text = fmt(num(m.e.measured_busbw_gbps)) + ' GB/s, ' + pct(m.ratio) + ': ' + str(m.e.text); }
        else if (bad.indexOf(rl) >= 0) { fill = '#d98b00'; text = 'bad rail of a ' + str(node.verdict) + ' node'; }
        else if (node.network_judged === true && str(node.verdict) === 'healthy') { fill = '#c8e6c9'; text = 'not blamed (node healthy)'; }
        if (!fill) continue;
        ctx.fillStyle = fill;
        ctx.fillRect(margin + i * w, top + rl * h, Math.max(1, w - (w > 3 ? 1 : 0)), h - 1);
        info[i + ',' + rl] = name + ' rail ' + rl + '\n' + text;
        drawn++;
      }
      if (top > 4) {
        ctx.save();
        ctx.translate(margin + i * w + w / 2, top - 4);
        ctx.rotate(-Math.PI / 2);
        ctx.textAlign = 'left';
        ctx.fillStyle = '#1d2330';
        ctx.fillText(name.length > 12 ? name.slice(0, 11) + '\u2026' : name, 0, 0);
        ctx.restore();
      }
    });
    canvas.setAttribute('data-cells', String(drawn));
    EB.railCells = drawn;
    canvas.addEventListener('mousemove', function (ev) {
      var rect = canvas.getBoundingClientRect();
      var i = Math.floor((ev.clientX - rect.left - margin) / w), rl = Math.floor((ev.clientY - rect.top - top) / h);
      var text = info[i + ',' + rl];
      if (!text && i >= 0 && i < n && rl >= 0 && rl < nrails) text = str(nodes[i].node_name) + ' rail ' + rl + '\nno per-rail result';
      showTip(ev, text || '');
    });
    canvas.addEventListener('mouseleave', function (ev) { showTip(ev, ''); });
  }

  function renderPaths(main, r) {
    var paths = arr(r.paths).map(obj);
    if (!paths.length) return;
    var s = section(main, 'Bad paths', 'paths');
    s.appendChild(table(['node a', 'node b', 'verdict', 'confidence', 'rails', 'reason'], paths.map(function (p) {
      return [str(p.node_a), str(p.node_b), chip(p.verdict), str(p.confidence), arr(p.rails).map(str).join(',') || 'all', str(p.reason)];
    })));
  }

  var roundDetails = {};  // test id -> function that opens its round
  function openTest(id) {
    var open = roundDetails[id];
    if (open) open();
    var target = document.getElementById('test-' + id);
    if (target) { target.scrollIntoView({ block: 'center' }); target.style.background = '#fff3c4'; }
  }

  function renderRounds(main, r, rounds) {
    var s = section(main, 'Rounds', 'rounds');
    if (!rounds.length) { note(s, 'No round ran (preflight only, or it stopped before the first).'); return; }
    var t0 = num(r.start_time_unix_ms);
    var kinds = [];
    rounds.forEach(function (x) { if (kinds.indexOf(str(x.kind)) < 0) kinds.push(str(x.kind)); });
    if (!(t0 > 0)) t0 = num(rounds[0].start_time_unix_ms);
    var labels = rounds.map(function (x) { return 'round ' + str(x.number) + ' ' + str(x.kind); });
    var bars = rounds.map(function (x) {
      var a = num(x.start_time_unix_ms), b = num(x.end_time_unix_ms);
      if (!(b > 0)) b = num(r.end_time_unix_ms) > 0 ? num(r.end_time_unix_ms) : a;
      return [(a - t0) / 1000, (b - t0) / 1000];
    });
    makeChart(s, 'rounds', {
      type: 'bar',
      data: { labels: labels, datasets: [{ label: 'round', data: bars,
        backgroundColor: rounds.map(function (x) { return color(kinds.indexOf(str(x.kind))); }) }] },
      options: { indexAxis: 'y', plugins: { legend: { display: false },
                   tooltip: { callbacks: { label: function (item) {
                     var b = item.raw; return fmt(b[0], 1) + ' s .. ' + fmt(b[1], 1) + ' s (' + fmt(b[1] - b[0], 1) + ' s)'; } } } },
                 scales: { x: { title: { display: true, text: 'seconds since the validation started' }, beginAtZero: true } } },
    }, Math.min(600, 80 + 22 * rounds.length));
    note(s, 'Each round runs its tests at once on disjoint nodes. Open a round for its tests.');
    rounds.forEach(function (x) {
      var ts = arr(x.tests).map(obj);
      var counts = {};
      ts.forEach(function (t) { var o = str(t.outcome) || 'running'; counts[o] = (counts[o] || 0) + 1; });
      var d = el('details', { id: 'round-' + str(x.number) }, [el('summary', {
        text: 'Round ' + str(x.number) + ' \u00b7 ' + str(x.kind) + ' ' + str(x.suite_round) + ' \u00b7 ' + ts.length + ' tests (' +
          Object.keys(counts).map(function (k) { return counts[k] + ' ' + k; }).join(', ') + ') \u00b7 ' +
          seconds(num(x.end_time_unix_ms) - num(x.start_time_unix_ms)) })]);
      var filled = false;
      // Filled when first opened: 1,000 nodes make thousands of rows.
      function fill() {
        if (filled) return;
        filled = true;
        var body = ts.map(function (t) {
          var tr = row([str(t.test_id) || '(not started)', arr(t.node_names).map(str).join(', '), str(t.kind), str(t.purpose),
                        chip(str(t.outcome) || 'running'), num(t.busbw_gbps), seconds(num(t.end_time_unix_ms) - num(t.start_time_unix_ms)),
                        str(t.message)], [5, 6]);
          if (str(t.test_id)) tr.id = 'test-' + str(t.test_id);
          return tr;
        });
        var tbl = table(['test', 'nodes', 'kind', 'purpose', 'outcome', 'busbw (GB/s)', 'time', 'message'], [], [5, 6], 'wide');
        body.forEach(function (tr) { tbl.tBodies[0].appendChild(tr); });
        d.appendChild(el('div', { class: 'scroll' }, [tbl]));
      }
      d.addEventListener('toggle', fill);
      ts.forEach(function (t) { if (str(t.test_id)) roundDetails[str(t.test_id)] = function () { fill(); d.open = true; }; });
      s.appendChild(d);
    });
  }

  // ================= One node's history =================
  function renderNode(main, page) {
    var name = str(page.node), tests = arr(obj(page.tests).tests).map(obj);
    var validations = arr(obj(page.validations).validations).map(obj), history = obj(page.history);
    var s = section(main, 'Summary', 'summary');
    var verdicts = validations.map(function (v) {
      var mine = null;
      arr(v.nodes).forEach(function (n) { if (str(obj(n).node_name) === name) mine = obj(n); });
      return { v: v, n: mine, t: num(v.end_time_unix_ms) > 0 ? num(v.end_time_unix_ms) : num(v.start_time_unix_ms) };
    });
    var last = verdicts.length ? verdicts[0] : null;
    s.appendChild(kvTable([
      ['Node', name],
      ['Last verdict', last && last.n ? el('span', {}, [chip(last.n.verdict), document.createTextNode(' ' + str(last.n.reason) + ' (' + str(last.v.validation_id) + ')')]) : 'none'],
      ['Tests', tests.length + ' (of the ' + str(history.tests_listed) + ' newest of the fleet)'],
      ['Validations', validations.length + ' (of the ' + str(history.validations_listed) + ' newest)'],
    ]));
    note(s, 'The coordinator lists tests and validations for the whole fleet; ebctl kept those that include this node ' +
      '(filtered ' + (str(history.filtered_by) || 'client') + '-side). Older history needs a larger --limit.');

    var v = section(main, 'Verdicts over time', 'verdicts');
    var judged = verdicts.filter(function (x) { return x.n && has(x.t); });
    if (!judged.length) note(v, 'No validation judged this node.');
    else {
      var levels = VERDICT_ORDER.slice().reverse();  // healthy at the bottom
      makeChart(v, 'verdicts', {
        type: 'scatter',
        data: { datasets: [{ label: 'verdict', pointRadius: 6,
          data: judged.map(function (x) { return { x: x.t, y: levels.indexOf(str(x.n.verdict)) }; }),
          backgroundColor: judged.map(function (x) {
            var w = str(x.n.verdict);
            return w === 'healthy' ? '#2e8540' : (w === 'degraded' ? '#d98b00' : (w === 'failed' ? '#c62828' : '#607d8b'));
          }) }] },
        options: { plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (item) {
                     var x = judged[item.dataIndex]; return str(x.v.validation_id) + ': ' + str(x.n.verdict) + ' ' + str(x.n.reason); } } } },
                   scales: { x: timeAxis(), y: { min: -0.5, max: levels.length - 0.5,
                     afterBuildTicks: function (axis) { axis.ticks = levels.map(function (w, i) { return { value: i }; }); },
                     ticks: { callback: function (i) { return levels[i] || ''; } } } } },
      }, 220);
      v.appendChild(table(['ended', 'validation', 'verdict', 'confidence', 'reason'], judged.map(function (x) {
        return [isoTime(x.t), str(x.v.validation_id), chip(x.n.verdict), str(x.n.confidence), str(x.n.reason)];
      })));
    }

    var b = section(main, 'Busbw over time', 'trend');
    var series = {};
    tests.forEach(function (t) {
      var bw = num(obj(t.average_bus_bandwidth).bandwidth), when = timeMs(t.start_time);
      if (!(bw > 0) || !has(when)) return;
      var cfg = obj(t.config);
      var key = str(t.collective) + ' \u00b7 ' + arr(cfg.nodes).length + ' node' + (arr(cfg.nodes).length === 1 ? '' : 's') + ' \u00b7 ' + str(t.transport);
      (series[key] = series[key] || []).push({ x: when, y: bw, id: str(t.test_id), state: str(t.state) });
    });
    var keys = Object.keys(series).sort();
    if (!keys.length) note(b, 'No test with a bandwidth.');
    else {
      makeChart(b, 'trend', {
        type: 'line',
        data: { datasets: keys.map(function (k, i) {
          var pts = series[k].sort(function (p, q) { return p.x - q.x; });
          var d = line(k, pts, i);
          d.pointBackgroundColor = pts.map(function (p) { return p.state === 'passed' ? color(i) : '#c62828'; });
          return d;
        }) },
        options: { parsing: false, plugins: { tooltip: { callbacks: { label: function (item) {
                     return item.raw.id + ' (' + item.raw.state + '): ' + fmt(item.raw.y) + ' GB/s'; } } } },
                   scales: { x: timeAxis(), y: { title: { display: true, text: 'average busbw (GB/s)' }, beginAtZero: true } } },
      });
      note(b, 'One line per test kind (collective, node count, transport); red points: tests that did not pass. ' +
        'A line that slopes down is a link degrading before it fails.');
    }

    var l = section(main, 'Tests', 'tests');
    if (!tests.length) { note(l, 'None.'); return; }
    var wrap = el('div', { class: 'scroll' });
    wrap.appendChild(table(['started', 'test', 'collective', 'nodes', 'state', 'avg busbw (GB/s)', 'started by', 'summary'],
      tests.map(function (t) {
        return [str(t.start_time), str(t.test_id), str(t.collective) + '/' + str(t.transport), arr(obj(t.config).nodes).map(str).join(', '),
                chip(t.state), num(obj(t.average_bus_bandwidth).bandwidth), str(t.started_by), str(t.summary)];
      }), [5], 'wide'));
    l.appendChild(wrap);
  }
  function timeAxis() {
    return { type: 'linear', title: { display: true, text: 'time (UTC)' },
             ticks: { maxTicksLimit: 8, callback: function (v) {
               // Seconds when the history spans less than a day.
               var iso = new Date(v).toISOString().replace('T', ' ');
               return this.max - this.min < 86400000 ? iso.slice(5, 19) : iso.slice(0, 16);
             } } };
  }

  // ================= The page =================
  function render() {
    var noscript = document.getElementById('eb-noscript');
    if (noscript) noscript.parentNode.removeChild(noscript);
    var main = document.getElementById('eb-main');
    var page = obj(JSON.parse(document.getElementById('eb-data').textContent));
    if (typeof Chart === 'undefined') throw new Error('Chart.js is missing from the page');
    if (page.kind === 'test') renderTest(main, page);
    else if (page.kind === 'validation') renderValidation(main, page);
    else if (page.kind === 'node') renderNode(main, page);
    else note(main, 'Unknown report kind "' + str(page.kind) + '": this page is older than the report.');
    var raw = el('details', {}, [el('summary', { text: 'The report JSON (what ebctl ... --json prints)' })]);
    raw.addEventListener('toggle', function () {
      if (raw.children.length < 2) raw.appendChild(el('pre', { text: JSON.stringify(page.report || page, null, 2) }));
    });
    main.appendChild(raw);
    main.appendChild(el('footer', { text: 'Written by ebctl ' + str(page.version) + (str(page.generated_at) ? ' at ' + str(page.generated_at) : '') +
      '. One file, no network: the data, Chart.js and this script are all inside it.' }));
  }

  try {
    render();
  } catch (e) {
    recordError((e && e.stack) ? e.stack : e);
  }
  writeStatus();
})();
