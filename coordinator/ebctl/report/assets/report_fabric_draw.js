// The fabric section of a validation page (issue 31): one SVG per rail of
// what report_fabric.js placed on it, the words of each verdict under it,
// and what the picture could not place. Counts for the headless-browser
// test on the section (data-bad-links, data-candidate-links,
// data-named-nodes, data-collisions, data-undrawn) and on each rail's SVG
// (data-rail, data-boxes, data-healthy-links, data-healthy-links-left-out).
(function (R) {
  'use strict';
  var arr = R.arr, obj = R.obj, str = R.str, el = R.el, svg = R.svg, note = R.note, counted = R.counted;
  var F = R.fabricParts;

  var SPINE_Y = 24, BOX_H = 34, LEAF_Y = 180, TAG_Y = 262, TAG_H = 22;

  // A line, dashed when the verdict is not confirmed.
  function line(x1, y1, x2, y2, colour, width, dashed, attrs) {
    var a = attrs || {};
    a.x1 = x1; a.y1 = y1; a.x2 = x2; a.y2 = y2; a.stroke = colour; a['stroke-width'] = width;
    if (dashed) a['stroke-dasharray'] = '7 4';
    return svg('line', a);
  }
  function label(x, y, text, anchor, colour) {
    return svg('text', { x: x, y: y, 'text-anchor': anchor || 'middle', 'font-size': 12, fill: colour || '#1d2330',
                         'paint-order': 'stroke', stroke: '#ffffff', 'stroke-width': 3, text: text });
  }
  function leafTooltip(leaf) {
    var nodes = arr(leaf.nodes).map(str), shown = nodes.slice(0, F.MAX_TOOLTIP_NAMES);
    return str(leaf.name) + (str(leaf.guid) ? ' (' + str(leaf.guid) + ')' : '') + '\n' + counted(nodes.length, 'node') +
      ': ' + shown.join(', ') + (nodes.length > shown.length ? ', \u2026 and ' + (nodes.length - shown.length) + ' more' : '');
  }

  // A switch's box: its name in it when there is room, above (a spine) or
  // below (a leaf) when it touches a verdict (`touched`: the colour to
  // outline it in); the tooltip names it whole.
  function box(pic, cx, y, w, sw, text, compact, touched, tooltip, role) {
    var g = svg('g', { class: 'fabric-switch', 'data-role': role, 'data-name': str(sw.name) }, [svg('title', { text: tooltip })]);
    g.appendChild(svg('rect', { x: cx - w / 2, y: y, width: w, height: BOX_H, rx: 4, fill: role === 'spine' ? '#e3eaf5' : '#eef5e9',
                                stroke: touched || '#5d6675', 'stroke-width': touched ? 2.5 : 1 }));
    if (!compact) g.appendChild(label(cx, y + (text ? 15 : 21), F.cut(str(sw.name), Math.floor(w / 7))));
    if (text) g.appendChild(label(cx, compact ? y + 22 : y + 29, text));
    if (compact && touched) g.appendChild(label(cx, role === 'spine' ? y - 6 : y + BOX_H + 14, str(sw.name)));
    pic.appendChild(g);
  }

  function drawRail(x) {
    var nLeaves = x.leaves.length, nSpines = x.spines.length, cols = Math.max(nLeaves, nSpines, 1);
    var compact = cols > 10, pitch = compact ? 36 : 124, w = pitch - (compact ? 8 : 18);
    var width = Math.max(520, cols * pitch + 40);
    var byLeaf = F.map(), stack = 0;
    x.tags.forEach(function (t) { (byLeaf[t.leaf] = byLeaf[t.leaf] || []).push(t); stack = Math.max(stack, byLeaf[t.leaf].length); });
    stack = Math.min(stack, F.MAX_TAGS_PER_LEAF + 1);
    var height = (stack ? TAG_Y + stack * TAG_H : LEAF_Y + BOX_H + 30) + 10;
    function col(i, count) { return 20 + (width - 40 - count * pitch) / 2 + i * pitch + pitch / 2; }
    var pic = svg('svg', { class: 'fabric', width: width, height: height, viewBox: '0 0 ' + width + ' ' + height,
                           role: 'img', 'data-rail': x.rail, 'aria-label': 'rail ' + x.rail + ' of the fabric' });
    // A switch at the end of a verdict's link: outlined in its colour, red
    // over orange.
    var bad = F.map(), touchedLeaf = F.map(), touchedSpine = F.map();
    function touch(at, i, colour) { if (at[i] !== F.BAD) at[i] = colour; }
    x.links.forEach(function (b) {
      bad[b.leaf + ',' + b.spine] = true;
      touch(touchedLeaf, b.leaf, b.mark.colour);
      touch(touchedSpine, b.spine, b.mark.colour);
    });
    x.tags.forEach(function (t) { if (t.mark.colour !== F.COLLISION) touch(touchedLeaf, t.leaf, t.mark.colour); });
    var healthy = 0, healthyAll = x.uplinks.length <= F.MAX_HEALTHY_UPLINKS;
    x.uplinks.forEach(function (u) {
      u = arr(u);
      if (!healthyAll || bad[u[0] + ',' + u[1]]) return;
      pic.appendChild(line(col(u[1], nSpines), SPINE_Y + BOX_H, col(u[0], nLeaves), LEAF_Y, F.HEALTHY, 1, false));
      healthy++;
    });
    x.links.forEach(function (b) {
      var m = b.mark, l = line(col(b.spine, nSpines), SPINE_Y + BOX_H, col(b.leaf, nLeaves), LEAF_Y, m.colour, 4, m.dashed, {
        class: 'fabric-link', 'data-verdict': m.candidate ? 'candidate' : 'bad',
        'data-a': str(x.leaves[b.leaf].name), 'data-b': str(x.spines[b.spine].name) });
      l.appendChild(svg('title', { text: m.words }));
      pic.appendChild(l);
    });
    // The nodes' cables under the boxes, so that a leaf's name stays legible.
    Object.keys(byLeaf).forEach(function (leaf) { drawTags(pic, byLeaf[leaf], col(Number(leaf), nLeaves), w); });
    x.spines.forEach(function (s, i) {
      box(pic, col(i, nSpines), SPINE_Y, w, s, '', compact, touchedSpine[i], str(s.name) + (str(s.guid) ? ' (' + str(s.guid) + ')' : ''), 'spine');
    });
    x.leaves.forEach(function (l, i) {
      box(pic, col(i, nLeaves), LEAF_Y, w, l, compact ? String(arr(l.nodes).length) : counted(arr(l.nodes).length, 'node'),
          compact, touchedLeaf[i], leafTooltip(l), 'leaf');
    });
    pic.setAttribute('data-boxes', String(nLeaves + nSpines));
    pic.setAttribute('data-healthy-links', String(healthy));
    pic.setAttribute('data-healthy-links-left-out', String(healthyAll ? 0 : x.uplinks.length - x.links.length));
    return pic;
  }

  // The nodes of a verdict under their leaf, each with its cable.
  function drawTags(pic, tags, cx, w) {
    tags.slice(0, F.MAX_TAGS_PER_LEAF).forEach(function (t, k) {
      var dx = (k - (Math.min(tags.length, F.MAX_TAGS_PER_LEAF) - 1) / 2) * Math.min(8, w / 8);
      var y = TAG_Y + k * TAG_H, m = t.mark;
      var g = svg('g', { class: 'fabric-node', 'data-node': t.node, 'data-colour': m.colour }, [svg('title', { text: m.title || m.words })]);
      g.appendChild(line(cx + dx, LEAF_Y + BOX_H, cx + dx, y - 4, m.colour, 3, m.dashed));
      g.appendChild(svg('circle', { cx: cx + dx, cy: y - 4, r: 4, fill: m.colour }));
      g.appendChild(label(cx + dx + 8, y, F.cut(str(m.label), 40), 'start', m.colour));
      pic.appendChild(g);
    });
    if (tags.length > F.MAX_TAGS_PER_LEAF) {
      pic.appendChild(label(cx, TAG_Y + F.MAX_TAGS_PER_LEAF * TAG_H, '+ ' + (tags.length - F.MAX_TAGS_PER_LEAF) + ' more'));
    }
  }

  function legendItem(colour, dashed, text) {
    var key = svg('svg', { width: 28, height: 10 }, [line(1, 5, 27, 5, colour, 4, dashed)]);
    return el('span', {}, [key, document.createTextNode(' ' + text)]);
  }

  function railSummary(x) {
    var bad = x.links.filter(function (b) { return !b.mark.candidate; }).length;
    return 'Rail ' + x.rail + ': ' + counted(x.spines.length, 'spine') + ', ' + counted(x.leaves.length, 'leaf', 'leaves') + ', ' +
      counted(x.nodes, 'node') + (x.words.length ? ' \u00b7 ' + counted(bad, 'bad link') + ', ' +
      counted(x.links.length - bad, 'candidate link') + ', ' + counted(x.tags.length, 'node') + ' named' : ' \u00b7 no verdict');
  }

  function renderFabric(main, r, fabric) {
    var rails = F.indexRails(fabric);
    if (!rails.length) return;
    var s = R.section(main, 'Fabric', 'fabric');
    var undrawn = F.placeVerdicts(rails, r);
    note(s, 'Each rail of the coordinator\'s topology: spines on top, leaves below (a box each, with its node count; ' +
      'point at a box for its names). Only the nodes of a verdict are named, under their leaf.');
    s.appendChild(el('div', { class: 'legend' }, [legendItem(F.BAD, false, 'named bad (dashed: suspect)'),
      legendItem(F.CANDIDATE, true, 'one of links no pair test can tell apart'), legendItem(F.COLLISION, true, 'routing collision (no link blamed)'),
      legendItem(F.HEALTHY, false, 'no verdict')]));
    var counts = { bad: 0, candidate: 0, nodes: 0, collisions: 0 };
    rails.forEach(function (x) {
      x.links.forEach(function (b) { counts[b.mark.candidate ? 'candidate' : 'bad']++; });
      counts.nodes += x.tags.length;
      counts.collisions += x.words.filter(function (m) { return m.collision; }).length;
      var open = x.words.length > 0 || rails.length <= 2, drawn = false;
      var d = el('details', { class: 'fabric-rail', 'data-rail': x.rail }, [el('summary', { text: railSummary(x) })]);
      function draw() {
        if (drawn) return;
        drawn = true;
        d.appendChild(el('div', { class: 'fabric-wrap' }, [drawRail(x)]));
        if (!healthyDrawn(x)) note(d, counted(x.uplinks.length, 'leaf-spine link') + ' on this rail: only those with a verdict are drawn.');
        var list = el('ul', { class: 'fabric-words' });
        x.words.forEach(function (m) { list.appendChild(el('li', { style: 'color: ' + m.colour, text: m.words })); });
        if (x.words.length) d.appendChild(list);
      }
      d.addEventListener('toggle', draw);
      if (open) { d.open = true; draw(); }
      s.appendChild(d);
    });
    if (!counts.bad && !counts.candidate && !counts.nodes) note(s, 'No link, cable or collision of this fabric has a verdict.');
    if (undrawn.length) {
      note(s, 'Not on this topology (see the tables above): ' + undrawn.join(' \u00b7 '));
    }
    s.setAttribute('data-bad-links', String(counts.bad));
    s.setAttribute('data-candidate-links', String(counts.candidate));
    s.setAttribute('data-named-nodes', String(counts.nodes));
    s.setAttribute('data-collisions', String(counts.collisions));
    s.setAttribute('data-undrawn', String(undrawn.length));
  }
  function healthyDrawn(x) { return x.uplinks.length <= F.MAX_HEALTHY_UPLINKS; }

  R.renderFabric = renderFabric;
})(window.EbReport);
