// The validation page's fabric picture (issue 31): for each rail of the
// coordinator's topology (page.fabric, fabric_data.h) its spines on top and
// its leaves below, a box each (a leaf's box counts its nodes; its tooltip
// names them), and over them every link the report has a verdict on: a
// leaf-spine link named bad in red, each link of a set that no pair test can
// tell apart in orange (dashed: suspect), a node's own cable (its rail
// verdict, or a cable of such a set) from the node, named under its leaf, and
// a routing collision's pair in purple, said in words. Bounded for 1,024
// nodes on 16 spines: a leaf is one box whatever its node count, only the
// nodes of a verdict are named, a rail's healthy leaf-spine links are drawn
// only up to MAX_HEALTHY_UPLINKS, and a rail with no verdict is drawn only
// when opened. It draws what the report says and places it on the topology;
// it judges nothing. Names are data: they reach the SVG through R.svg (text
// content, attribute values), never as markup.
(function (R) {
  'use strict';
  var arr = R.arr, obj = R.obj, str = R.str, num = R.num, el = R.el, svg = R.svg, note = R.note,
      pct = R.pct, counted = R.counted;

  var BAD = '#c62828', CANDIDATE = '#e8710a', COLLISION = '#7b1fa2', HEALTHY = '#b0bec5';
  var MAX_HEALTHY_UPLINKS = 400;  // more is a grey mesh that nobody reads
  var MAX_TOOLTIP_NAMES = 40;
  var MAX_TAGS_PER_LEAF = 6;

  function map() { return Object.create(null); }  // names are keys: no prototype
  function cut(text, n) { return text.length > n ? text.slice(0, n - 1) + '\u2026' : text; }

  // Each rail of the topology, with where its switches and nodes are and,
  // filled by placeVerdicts, what is drawn on it.
  function indexRails(fabric) {
    return arr(fabric.rails).map(function (rail) {
      rail = obj(rail);
      var x = { rail: num(rail.rail), leaves: arr(rail.leaves).map(obj), spines: arr(rail.spines).map(obj),
                uplinks: arr(rail.uplinks), leafAt: map(), spineAt: map(), leafOfNode: map(),
                links: [], tags: [], words: [], nodes: 0 };
      x.leaves.forEach(function (l, i) {
        x.leafAt[str(l.name)] = i;
        arr(l.nodes).forEach(function (n) { x.leafOfNode[str(n)] = i; x.nodes++; });
      });
      x.spines.forEach(function (s, i) { x.spineAt[str(s.name)] = i; });
      return x;
    });
  }

  // The rail `preferred` if it `fits`, else the first rail that does.
  function pick(rails, preferred, fits) {
    var exact = rails.filter(function (x) { return x.rail === preferred && fits(x); });
    return exact.length ? exact[0] : rails.filter(fits)[0] || null;
  }

  function linkWords(l, candidate) {
    var others = arr(l.inseparable_from).map(str), ratio = num(l.busbw_ratio);
    var what = candidate ? 'one of ' + (others.length + 1) + ' links that no pair test of this fleet can tell apart, ' +
      'one of them bad (or: ' + others.join('; ') + ')' : 'named bad';
    return R.linkEnd(l.end_a) + ' \u2014 ' + R.linkEnd(l.end_b) + ': ' + what + ', ' + str(l.confidence) +
      (ratio > 0 ? ', ' + pct(ratio) + ' of expected' : '') + ' (rail ' + str(l.rail) + ')';
  }

  // Puts each verdict of the report on the rail it belongs to; returns the
  // words of those that no rail of the topology holds.
  function placeVerdicts(rails, r) {
    var undrawn = [], tagged = map();
    function tag(x, node, mark) {
      if (tagged[x.rail + ' ' + node]) return;
      tagged[x.rail + ' ' + node] = true;
      x.tags.push({ node: node, leaf: x.leafOfNode[node], mark: mark });
    }
    arr(r.links).map(obj).forEach(function (l) {
      var a = obj(l.end_a), b = obj(l.end_b), candidate = arr(l.inseparable_from).length > 0;
      var mark = { colour: candidate ? CANDIDATE : BAD, dashed: str(l.confidence) !== 'confirmed',
                   candidate: candidate, words: linkWords(l, candidate), title: str(l.reason) };
      var leaf = str(a.switch_name) ? str(a.switch_name) : str(b.switch_name), node = str(a.node_name);
      var spine = str(a.switch_name) ? str(b.switch_name) : '';
      var x = pick(rails, num(l.rail), function (y) {
        return node ? y.leafOfNode[node] === y.leafAt[leaf] && y.leafAt[leaf] !== undefined
                    : (y.leafAt[leaf] !== undefined && y.spineAt[spine] !== undefined) ||
                      (y.leafAt[spine] !== undefined && y.spineAt[leaf] !== undefined);
      });
      if (!x) { undrawn.push(mark.words); return; }
      if (node) { mark.label = node + ' ' + str(a.hca); tag(x, node, mark); x.words.push(mark); return; }
      if (x.leafAt[leaf] === undefined) { var t = leaf; leaf = spine; spine = t; }
      x.links.push({ leaf: x.leafAt[leaf], spine: x.spineAt[spine], mark: mark });
      x.words.push(mark);
    });
    arr(r.rails).map(obj).forEach(function (v) {
      var node = str(v.node_name), words = node + ', rail ' + str(v.rail) + ': ' + str(v.verdict) + ', ' +
        str(v.confidence) + ' (its cable, HCA port or NIC): ' + str(v.reason);
      var x = pick(rails, num(v.rail), function (y) { return y.rail === num(v.rail) && y.leafOfNode[node] !== undefined; });
      if (!x) { undrawn.push(words); return; }
      var mark = { colour: BAD, dashed: str(v.confidence) !== 'confirmed', words: words, title: str(v.reason),
                   label: node + ' rail ' + str(v.rail) };
      tag(x, node, mark);
      x.words.push(mark);
    });
    placeCollisions(rails, r, tag);
    return undrawn;
  }

  // A routing collision blames no link: its pair is named under their
  // leaves, and the words say what it is.
  function placeCollisions(rails, r, tag) {
    arr(r.paths).map(obj).filter(function (p) { return p.routing_collision === true; }).forEach(function (p) {
      var a = str(p.node_a), b = str(p.node_b), onRails = arr(p.rails).map(num);
      rails.forEach(function (x) {
        if (onRails.length && onRails.indexOf(x.rail) < 0) return;
        if (x.leafOfNode[a] === undefined || x.leafOfNode[b] === undefined) return;
        var leafA = str(x.leaves[x.leafOfNode[a]].name), leafB = str(x.leaves[x.leafOfNode[b]].name);
        var mark = { colour: COLLISION, dashed: true, collision: true, title: str(p.reason),
          words: 'Routing collision on rail ' + x.rail + ': ' + a + ' (on ' + leafA + ') and ' + b + ' (on ' + leafB +
            ') were slow only together (' + str(p.confidence) + '), while every link of their path did well in ' +
            'other pairs: their two flows met on one link, as the fabric routed them. Not a bad link: no link and ' +
            'no node is blamed for it.' };
        tag(x, a, { colour: COLLISION, dashed: true, title: mark.words, label: a });
        tag(x, b, { colour: COLLISION, dashed: true, title: mark.words, label: b });
        x.words.push(mark);
      });
    });
  }

  R.fabricParts = { BAD: BAD, CANDIDATE: CANDIDATE, COLLISION: COLLISION, HEALTHY: HEALTHY,
                    MAX_HEALTHY_UPLINKS: MAX_HEALTHY_UPLINKS, MAX_TOOLTIP_NAMES: MAX_TOOLTIP_NAMES,
                    MAX_TAGS_PER_LEAF: MAX_TAGS_PER_LEAF, map: map, cut: cut, indexRails: indexRails,
                    placeVerdicts: placeVerdicts };
})(window.EbReport);
