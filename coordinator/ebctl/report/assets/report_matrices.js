// The validation page's two canvases: the pair matrix (nodes x nodes) and
// the rail matrix (node x rail).
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
  var reference = R.reference;  // report_validation_page.js

  // The pair matrix: nodes x nodes, one cell per pair tested (its worst
  // result), coloured by busbw over the reference; untested cells blank.
  // One canvas, so that 1,000 nodes (a million cells) stay light. With the
  // fabric's leaves (page.leaf_of: node -> leaf, issue 31) the nodes can be
  // grouped by leaf, a line between leaves: same-leaf pairs in the blocks on
  // the diagonal, pairs crossing the spines off it.
  function renderPairMatrix(main, r, nodes, tests, leafOf) {
    var s = section(main, 'Pair matrix', 'pairs');
    var names = nodes.map(function (n) { return str(n.node_name); });
    var leaves = names.map(function (n) { return Object.prototype.hasOwnProperty.call(leafOf || {}, n) ? str(leafOf[n]) : ''; });
    var byLeaf = leaves.some(function (l) { return l !== ''; });
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
    if (byLeaf) order.appendChild(el('option', { value: 'leaf', text: 'order: by leaf' }));
    if (names.length > 64) order.value = 'bad';  // a large fleet: its bad nodes top left
    if (byLeaf) order.value = 'leaf';
    var zoom = el('select', {});
    [0, 1, 2, 4, 8, 16, 24].forEach(function (z) { zoom.appendChild(el('option', { value: String(z), text: z ? z + ' px per node' : 'fit' })); });
    var filter = el('input', { type: 'search', placeholder: 'only nodes matching' });
    controls.appendChild(order);
    controls.appendChild(zoom);
    controls.appendChild(filter);
    s.appendChild(controls);
    legend(s, [['#ffffff', 'untested'], ['#c62828', 'failed'], ['#37474f', 'not judged (could not run)'], ['#cfd8dc', 'same node']], refText);
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
      } else if (order.value === 'leaf') {
        // Nodes the topology lacks last; leaves by name.
        shownNodes.sort(function (a, b) {
          var la = leaves[a], lb = leaves[b];
          if ((la === '') !== (lb === '')) return la === '' ? 1 : -1;
          return la < lb ? -1 : (la > lb ? 1 : a - b);
        });
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
        // A failure that blames hardware is red; a test that could not run
        // is unjudged: dark grey, never a colour of the bandwidth scale.
        ctx.fillStyle = !c.failed ? ratioColor(c.bw / ref) : (c.outcome === 'hardware_failure' ? '#c62828' : '#37474f');
        ctx.fillRect(margin + a * cell, margin + b * cell, cell, cell);
        ctx.fillRect(margin + b * cell, margin + a * cell, cell, cell);
        drawn++;
      });
      var boundaries = 0;
      if (order.value === 'leaf') {
        ctx.fillStyle = '#1d2330';
        for (var q2 = 1; q2 < n; q2++) {
          if (leaves[shownNodes[q2]] === leaves[shownNodes[q2 - 1]]) continue;
          ctx.fillRect(margin + q2 * cell, margin, 1, n * cell);
          ctx.fillRect(margin, margin + q2 * cell, n * cell, 1);
          boundaries++;
        }
      }
      canvas.setAttribute('data-leaf-boundaries', String(boundaries));
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
      var text = names[a] + (leaves[a] ? ' (' + leaves[a] + ')' : '') + ' \u00d7 ' + names[b] +
        (leaves[b] ? ' (' + leaves[b] + ')' : '') + '\n';
      if (a === b) text += 'same node (' + str(nodes[a].verdict) + ')';
      else if (!c) text += 'not tested';
      else if (c.failed) text += (c.outcome === 'hardware_failure' ? 'failed' : 'not judged: ' + c.outcome) + ' (' + c.test + ')';
      else text += fmt(c.bw) + ' GB/s, ' + pct(c.bw / ref) + ' (' + c.test + ')';
      showTip(ev, text);
    });
    canvas.addEventListener('mouseleave', function (ev) { showTip(ev, ''); });
    canvas.addEventListener('click', function (ev) {
      var rect = canvas.getBoundingClientRect();
      var x = Math.floor((ev.clientX - rect.left - margin) / cell), y = Math.floor((ev.clientY - rect.top - margin) / cell);
      if (x < 0 || y < 0 || x >= shownNodes.length || y >= shownNodes.length) return;
      var a = shownNodes[x], b = shownNodes[y], c = cells[Math.min(a, b) + ',' + Math.max(a, b)];
      if (c && c.test) R.openTest(c.test);
    });
    [order, zoom].forEach(function (c) { c.addEventListener('change', draw); });
    filter.addEventListener('input', draw);
    EB.heatmapCells = draw();
    note(s, R.counted(keys.length, 'pair') + ' tested of ' + (names.length * (names.length - 1) / 2) +
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


  R.renderPairMatrix = renderPairMatrix;
  R.renderRailMatrix = renderRailMatrix;
})(window.EbReport);
