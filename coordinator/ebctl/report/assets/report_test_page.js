// A test's report page: header, bandwidth and time vs size (one series per
// collective and placement), per-rank bars, -I 1's per-iteration times,
// stragglers, rails, failures, the raw table (report_base.js has the helpers).
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
    // Every collective of the test (config.collectives), not only the first
    // (r.collective, nccl-tests' one).
    var names = arr(config.collectives).map(str).filter(function (n) { return n; });
    if (!names.length && str(r.collective)) names = [str(r.collective)];
    if (config.per_iter_timing === true) spec.push('-I 1');
    head.appendChild(kvTable([
      ['Verdict', verdict],
      ['Test', str(r.test_id)],
      [names.length > 1 ? 'Collectives' : 'Collective', names.join(', ') + ' over ' + str(r.transport)],
      ['Nodes', arr(config.nodes).map(str).join(', ')],
      ['Ranks', str(config.nranks) + (num(config.workers_per_node) > 0 ? ' (' + config.workers_per_node + ' per node)' : '')],
      ['GPUs', gpus.join('; ')],
      ['HCAs', hcas.join('; ')],
      ['NCCL version', nccl.join(', ') || (str(r.transport) === 'nccl' ? 'unknown' : 'not used (' + str(r.transport) + ')')],
      ['Driver', drivers.join(', ')],
      ['Spec', spec.join(' ')],
      ['NCCL env', arr(r.env).map(str).join(' ')],
      ['Min busbw', num(config.min_busbw_gbps) > 0 ? config.min_busbw_gbps + ' GB/s' : ''],
      ['Average busbw', fmt(num(avg.bandwidth)) + ' GB/s' + (avg.okay === false ? ' (below the minimum)' : '')],
      ['Wrong elements', str(obj(r.out_of_bounds).count)],
      ['Started', isoTime(r.start_time) + (str(r.started_by) ? ' by ' + str(r.started_by) : '')],
      ['Duration', has(start) && has(end) ? seconds(end - start) : (has(start) ? 'running' : '')],
      ['Exit code', str(r.exit_code)],
    ]));
    renderCollectiveFooters(head, r);

    var bw = section(main, 'Bandwidth', 'bandwidth');
    if (!results.length) {
      note(bw, 'No results: the test recorded no size.');
    } else {
      var groups = byCollective(results);
      var sets = groups.length > 1
        // Several collectives: one busbw line per collective and placement.
        ? perCollective(groups, 'busbw', function (rows, variant) { return sizePoints(rows, variant, 'bus_bw'); })
        : [
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
      // Only positive times (a log axis); one line per collective and
      // placement, so that no line runs from one collective's sizes back to
      // the next one's.
      var times = perCollective(groups, 'time', function (rows, variant) {
        return sizePoints(rows, variant, 'time').filter(function (p) { return p.y > 0; });
      }, groups.length === 1);
      makeChart(bw, 'time', {
        type: 'line',
        data: { datasets: times },
        options: { scales: { x: sizeAxis(), y: { type: 'logarithmic', title: { display: true, text: 'time (us, log)' } } },
                   plugins: { tooltip: sizeTooltip('us') } },
      }, 260);
    }

    renderRankTimes(main, r, results);
    renderPerIteration(main, results);
    renderStraggler(main, r);
    renderRails(main, r);
    renderFailures(main, r);
    renderRawTable(main, r, results);
    otherFields(main, r, ['schema', 'schema_version', 'version', 'ebnccl_version', 'args', 'env', 'nccl_version', 'collectives', 'test_id', 'state', 'transport', 'collective',
      'start_time', 'end_time', 'config', 'devices', 'results', 'out_of_bounds', 'average_bus_bandwidth',
      'slowest_rank', 'arrivals', 'rails', 'failures', 'errors', 'summary', 'started_by', 'exit_code'],
      'Other fields of the report (newer than this page)');
  }

  // Per-rank time at the largest sizes: a straggler's bar stands out.
  function renderRankTimes(main, r, results) {
    var s = section(main, 'Per-rank time at the largest sizes', 'ranks');
    var devices = arr(r.devices);
    var groups = byCollective(results);
    // The two largest sizes; with several collectives, each one's largest.
    var largest = (groups.length > 1 ? groups.map(function (g) { return g.rows[g.rows.length - 1]; }) : results.slice(-2))
      .filter(function (row) { return arr(obj(obj(row).out_of_place).rank_times).length; });
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
        var c = groups.length > 1 ? (v ? COLORS[(k + 4) % COLORS.length] : color(k))
                                  : [COLORS[0], COLORS[1], COLORS[5], COLORS[4]][(2 * k + v) % 4];  // red marks the straggler
        if (c === COLORS[3]) c = COLORS[8];
        sets.push({
          label: (groups.length > 1 ? str(row.collective) + ' ' : '') + bytes(num(row.size)) + ' ' + variant.replace(/_/g, '-'),
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

  // One line per collective and placement: out-of-place solid, in-place
  // dashed, one colour per collective (`what` prefixes the label, e.g.
  // "busbw"). One collective: its two lines in two colours, unnamed.
  function perCollective(groups, what, points, single) {
    var sets = [];
    groups.forEach(function (g, i) {
      var name = (single ? '' : g.name + ' ') + (what ? what + ' ' : '');
      sets.push(line(name + 'out-of-place', points(g.rows, 'out_of_place'), single ? 0 : i));
      sets.push(line(name + 'in-place', points(g.rows, 'in_place'), single ? 1 : i, !single));
    });
    return sets;
  }

  // Each collective's own nccl-tests footer (r.collectives), when several.
  function renderCollectiveFooters(s, r) {
    var footers = arr(r.collectives).map(obj);
    if (footers.length < 2) return;
    s.appendChild(table(['collective', 'sizes', 'avg busbw (GB/s)', 'busbw check', 'wrong elements'],
      footers.map(function (f) {
        var bw = obj(f.average_bus_bandwidth), oob = obj(f.out_of_bounds);
        var okay = bw.okay === true ? 'ok' : (bw.okay === false ? el('span', { class: 'bad', text: 'below' }) : str(bw.okay));
        return [str(f.collective), str(f.sizes), num(bw.bandwidth), okay, str(oob.count)];
      }), [1, 2, 4]));
  }

  // -I 1: each row's per-iteration statistics (nccl-tests' i_min, i_max,
  // i_p99, i_cv% and the rest of its *_per_iter object), of each
  // iteration's slowest rank. No section without them.
  function renderPerIteration(main, results) {
    var keys = [['out_of_place_per_iter', 'out-of-place'], ['in_place_per_iter', 'in-place']];
    var withStats = results.filter(function (x) {
      return keys.some(function (k) { return Object.keys(obj(obj(x)[k[0]])).length; });
    });
    if (!withStats.length) return;
    var s = section(main, 'Per-iteration times (-I 1)', 'per-iter');
    note(s, 'Each timed iteration\'s time on its slowest rank (nccl-tests: max over process rows); ' +
      'the p99 by size, one line per collective and placement.');
    var groups = byCollective(results);
    makeChart(s, 'per-iter', {
      type: 'line',
      data: { datasets: perCollective(groups, 'i_p99', function (rows, variant) {
        var out = [];
        rows.forEach(function (x) {
          var st = obj(obj(x)[variant + '_per_iter']), size = num(obj(x).size), p99 = num(st.p99_us);
          if (has(size) && size > 0 && has(p99) && p99 > 0) out.push({ x: Math.log2(size), y: p99 });
        });
        return out;
      }, groups.length === 1) },
      options: { scales: { x: sizeAxis(), y: { type: 'logarithmic', title: { display: true, text: 'i_p99 (us, log)' } } },
                 plugins: { tooltip: sizeTooltip('us') } },
    }, 260);
    var rows = [];
    withStats.forEach(function (x) {
      keys.forEach(function (k) {
        var st = obj(x[k[0]]);
        if (!Object.keys(st).length) return;
        rows.push([str(x.collective), num(x.size), k[1], num(st.min_us), num(st.avg_us), num(st.p50_us), num(st.p95_us),
                   num(st.p99_us), num(st.max_us), num(st.stdev_us), num(st.cv_pct), arr(st.times_us).length]
          .map(function (v, i) { return i === 1 && has(v) ? String(v) : v; }));
      });
    });
    var wrap = el('div', { class: 'scroll' });
    wrap.appendChild(table(['collective', 'size (B)', 'placement', 'i_min (us)', 'avg (us)', 'p50 (us)', 'p95 (us)',
                            'i_p99 (us)', 'i_max (us)', 'stdev (us)', 'i_cv%', 'iterations'],
                           rows, [1, 3, 4, 5, 6, 7, 8, 9, 10, 11], 'wide'));
    s.appendChild(wrap);
  }

  // The rows grouped by collective, in run order ([{name, rows}]; one group
  // for a test of one collective).
  function byCollective(results) {
    var groups = [];
    results.forEach(function (x) {
      var name = str(obj(x).collective);
      if (!groups.length || groups[groups.length - 1].name !== name) groups.push({ name: name, rows: [] });
      groups[groups.length - 1].rows.push(x);
    });
    return groups;
  }

  function renderRawTable(main, r, results) {
    var s = section(main, 'Results', 'results');
    if (!results.length) { note(s, 'No rows.'); return; }
    var groups = byCollective(results);
    groups.forEach(function (g) {
      if (groups.length > 1) s.appendChild(el('h3', { text: g.name }));
      renderRowsTable(s, g.rows);
    });
  }

  function renderRowsTable(s, results) {
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


  R.renderTest = renderTest;
})(window.EbReport);
