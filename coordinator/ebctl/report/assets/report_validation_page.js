// A validation's report page: summary, the sortable and filterable node
// table, bad paths, rounds (a timeline, then each round's tests); the matrices
// are in report_matrices.js.
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

  // The state as the exit code reads it: "done" is green only with exit 0;
  // done with bad verdicts (7) or with something left unjudged (3) says so.
  function stateChip(r) {
    var state = str(r.state), code = r.exit_code;
    if (state !== 'done' || code === undefined || code === null || num(code) === 0) return chip(state);
    var word = num(code) === 7 ? 'failed' : 'untestable';
    var text = num(code) === 7 ? 'done: bad (exit 7)' : 'done: not all judged (exit ' + num(code) + ')';
    return el('span', { class: 'chip v-' + word, text: text });
  }

  // Where the figures came from; a file the coordinator could not read is
  // named as not read, never as used (the verdicts then rest on the fleet
  // median).
  function baselinesText(r) {
    var error = str(r.baselines_error), origin = str(r.baselines_origin);
    var count = arr(r.baselines).length;
    if (error) return 'none used: ' + error + ' (judged against the fleet median)';
    if (!origin) return 'none (judged against the fleet median)';
    return (origin === 'request' ? 'the request\'s --baselines' : origin) +
      (count ? ' (' + R.counted(count, 'figure') + ')' : ' (no figure in it)');
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
      ['State', el('span', {}, [stateChip(r), document.createTextNode(' ' + str(r.summary))])],
      ['Validation', str(r.validation_id)],
      ['Nodes', String(nodes.length)],
      ['By verdict', byVerdict],
      ['Rounds', rounds.length + ' (' + R.counted(tests.length, 'test') + ')'],
      ['Suites', arr(spec.suites).map(str).join(', ') + (str(spec.strategy) ? ', strategy ' + str(spec.strategy) : '')],
      ['Tolerance', has(num(spec.tolerance)) ? pct(num(spec.tolerance)) : ''],
      ['Started', isoTime(start) + (str(r.started_by) ? ' by ' + str(r.started_by) : '')],
      ['Wall time', start > 0 && end > 0 ? seconds(end - start) : (start > 0 ? 'running' : '')],
      ['Baselines', baselinesText(r)],
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
    if (baselines.length && !str(r.baselines_error)) {
      var d = el('details', {}, [el('summary', { text: 'Baselines used (' + baselines.length + ')' })]);
      d.appendChild(table(['suite', 'GPU model', 'GPUs', 'HCA rate (Gb/s)', 'HCAs', 'link (Mb/s)', 'busbw (GB/s)', 'holds at', 'source'],
        baselines.map(function (b) {
          var at = str(b.collective) + (num(b.size_bytes) > 0 ? ' from ' + num(b.size_bytes) + ' B' : '');
          // A site's Gloo figure ([[gloo_pairs]]) is keyed by the bootstrap
          // interface's speed (any link without one), not by GPUs or HCAs.
          if (b.gloo === true) {
            return ['pairs (Gloo)', '', '', '', '', num(b.link_mbps) > 0 ? str(b.link_mbps) : 'any',
              num(b.busbw_gbps), at, str(b.source)];
          }
          return [str(b.suite), str(b.gpu_model), str(b.gpu_count), str(b.hca_rate_gbps), str(b.hca_count), '',
            num(b.busbw_gbps), at, str(b.source)];
        }), [2, 3, 4, 5, 6]));
      s.appendChild(d);
    }

    renderNodeTable(main, nodes, offenders, testIndex);
    R.renderPairMatrix(main, r, nodes, tests, obj(page.leaf_of));
    R.renderRailMatrix(main, r, nodes);
    renderPaths(main, r);
    renderLinks(main, r);
    if (page.fabric) R.renderFabric(main, r, obj(page.fabric));
    renderRounds(main, r, rounds);
    otherFields(main, r, ['schema', 'schema_version', 'validation_id', 'spec', 'state', 'nodes', 'paths', 'rails', 'links',
      'findings', 'rounds', 'baselines', 'baselines_origin', 'baselines_error', 'summary', 'any_bad', 'start_time_unix_ms',
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
      shown.textContent = list.length + ' of ' + R.counted(rows.length, 'node');
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

  function renderPaths(main, r) {
    var paths = arr(r.paths).map(obj);
    if (!paths.length) return;
    var s = section(main, 'Bad paths', 'paths');
    s.appendChild(table(['node a', 'node b', 'verdict', 'confidence', 'rails', 'reason'], paths.map(function (p) {
      return [str(p.node_a), str(p.node_b), chip(p.verdict), str(p.confidence), arr(p.rails).map(str).join(',') || 'all', str(p.reason)];
    })));
  }

  // "leaf-r3-00 (0x7cfe...) port 5" or "node0007 mlx5_3".
  function linkEnd(e) {
    e = obj(e);
    if (!str(e.switch_name)) return str(e.node_name) + ' ' + str(e.hca);
    return str(e.switch_name) + (str(e.switch_guid) ? ' (' + str(e.switch_guid) + ')' : '') +
      (arr(e.ports).length ? ' port ' + arr(e.ports).map(str).join(',') : '');
  }

  // The blamed fabric links (issue 31): both ends, how much slower, the tests.
  function renderLinks(main, r) {
    var links = arr(r.links).map(obj);
    if (!links.length) return;
    var s = section(main, 'Bad links', 'links');
    note(s, 'Fabric links that the pair tests crossing them blame; "or" names links no pair test can tell apart.');
    s.appendChild(table(['end a', 'end b', 'rail', 'verdict', 'confidence', 'busbw', 'tests', 'reason'], links.map(function (l) {
      var others = arr(l.inseparable_from).map(str);
      return [linkEnd(l.end_a), linkEnd(l.end_b), str(l.rail), chip(l.verdict), str(l.confidence), pct(l.busbw_ratio),
        arr(l.evidence).map(function (e) { return str(obj(e).test_id); }).join(', '),
        str(l.reason) + (others.length ? '; or: ' + others.join('; ') : '')];
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
        text: 'Round ' + str(x.number) + ' \u00b7 ' + (x.soak === true ? 'soak repeat' : str(x.kind)) + ' ' + str(x.suite_round) + ' \u00b7 ' + R.counted(ts.length, 'test') + ' (' +
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


  R.renderValidation = renderValidation;
  R.openTest = openTest;
  R.reference = reference;
  R.linkEnd = linkEnd;
})(window.EbReport);
