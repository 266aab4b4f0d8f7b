// A node's history page: verdicts over time, busbw over time per test kind,
// the tests.
(function (R) {
  'use strict';
  var EB = R.status, arr = R.arr, obj = R.obj, str = R.str, num = R.num, has = R.has, fmt = R.fmt,
      bytes = R.bytes, shortBytes = R.shortBytes, seconds = R.seconds, isoTime = R.isoTime,
      timeMs = R.timeMs, pct = R.pct, el = R.el, chip = R.chip, section = R.section, note = R.note,
      kvTable = R.kvTable, table = R.table, row = R.row, otherFields = R.otherFields,
      COLORS = R.COLORS, color = R.color, makeChart = R.makeChart, sizeAxis = R.sizeAxis,
      sizeTooltip = R.sizeTooltip, line = R.line, sizePoints = R.sizePoints,
      VERDICT_ORDER = R.VERDICT_ORDER, severity = R.severity, ratioColor = R.ratioColor,
      median = R.median, timeAxis = R.timeAxis, showTip = R.showTip, legend = R.legend;

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
      var when = timeMs(t.start_time);
      if (!has(when)) return;
      var cfg = obj(t.config);
      collectiveBandwidths(t).forEach(function (c) {
        if (!(c.bw > 0)) return;
        var key = c.name + ' \u00b7 ' + R.counted(arr(cfg.nodes).length, 'node') + ' \u00b7 ' + str(t.transport);
        (series[key] = series[key] || []).push({ x: when, y: c.bw, id: str(t.test_id), state: str(t.state) });
      });
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
      note(b, 'One line per test kind (collective, node count, transport); a test of several collectives puts each ' +
        'collective\'s own average on that collective\'s line; red points: tests that did not pass. ' +
        'A line that slopes down is a link degrading before it fails.');
    }

    var l = section(main, 'Tests', 'tests');
    if (!tests.length) { note(l, 'None.'); return; }
    var wrap = el('div', { class: 'scroll' });
    wrap.appendChild(table(['started', 'test', 'collective', 'nodes', 'state', 'avg busbw (GB/s)', 'started by', 'summary'],
      tests.map(function (t) {
        return [str(t.start_time), str(t.test_id), collectiveNames(t).join(', ') + '/' + str(t.transport), arr(obj(t.config).nodes).map(str).join(', '),
                chip(t.state), num(obj(t.average_bus_bandwidth).bandwidth), str(t.started_by), str(t.summary)];
      }), [5], 'wide'));
    l.appendChild(wrap);
  }

  // Every collective of a test (config.collectives), not only the first
  // (t.collective, nccl-tests' one).
  function collectiveNames(t) {
    var names = arr(obj(t.config).collectives).map(str).filter(function (n) { return n; });
    return names.length ? names : [str(t.collective)];
  }

  // [{name, bw}]: with several collectives each one's own average busbw (its
  // footer, t.collectives), never their mixed average; else the test's.
  function collectiveBandwidths(t) {
    var footers = arr(t.collectives).map(obj);
    if (footers.length > 1) {
      return footers.map(function (f) { return { name: str(f.collective), bw: num(obj(f.average_bus_bandwidth).bandwidth) }; });
    }
    return [{ name: collectiveNames(t)[0], bw: num(obj(t.average_bus_bandwidth).bandwidth) }];
  }

  R.renderNode = renderNode;
})(window.EbReport);
