// The last script of the page: draws the page its data names, then writes
// the status.
(function (R) {
  'use strict';
  var recordError = R.recordError, writeStatus = R.writeStatus;
  var EB = R.status, arr = R.arr, obj = R.obj, str = R.str, num = R.num, has = R.has, fmt = R.fmt,
      bytes = R.bytes, shortBytes = R.shortBytes, seconds = R.seconds, isoTime = R.isoTime,
      timeMs = R.timeMs, pct = R.pct, el = R.el, chip = R.chip, section = R.section, note = R.note,
      kvTable = R.kvTable, table = R.table, row = R.row, otherFields = R.otherFields,
      COLORS = R.COLORS, color = R.color, makeChart = R.makeChart, sizeAxis = R.sizeAxis,
      sizeTooltip = R.sizeTooltip, line = R.line, sizePoints = R.sizePoints,
      VERDICT_ORDER = R.VERDICT_ORDER, severity = R.severity, ratioColor = R.ratioColor,
      median = R.median, timeAxis = R.timeAxis, showTip = R.showTip, legend = R.legend;

  // ================= The page =================
  function render() {
    var noscript = document.getElementById('eb-noscript');
    if (noscript) noscript.parentNode.removeChild(noscript);
    var main = document.getElementById('eb-main');
    var page = obj(JSON.parse(document.getElementById('eb-data').textContent));
    if (typeof Chart === 'undefined') throw new Error('Chart.js is missing from the page');
    if (page.kind === 'test') R.renderTest(main, page);
    else if (page.kind === 'validation') R.renderValidation(main, page);
    else if (page.kind === 'node') R.renderNode(main, page);
    else note(main, 'Unknown report kind "' + str(page.kind) + '": this page is older than the report.');
    var raw = el('details', {}, [el('summary', { text: 'The report JSON (what ebctl ... --json prints)' })]);
    raw.addEventListener('toggle', function () {
      if (raw.children.length < 2) raw.appendChild(el('pre', { text: JSON.stringify(page.report || page, null, 2) }));
    });
    main.appendChild(raw);
    main.appendChild(el('footer', { text: 'Written by ebctl ' + str(page.version) + (str(page.generated_at) ? ' at ' + str(page.generated_at) : '') +
      '. One file, no network: the data, Chart.js and this script are all inside it.' }));
    return page;
  }

  // With #eb-selftest in the address (html_report_test), a validation page
  // also works its own controls once drawn, as a user would: sort, filter,
  // open a node's evidence, jump to a test, zoom the pair matrix. What did
  // not behave is written on #eb-status (data-selftest).
  function selfTest(page) {
    var failures = [];
    function check(ok, what) { if (!ok) failures.push(what); }
    function fire(node, type) { node.dispatchEvent(new Event(type, { bubbles: true })); }
    var table = document.getElementById('node-table');
    if (page.kind !== 'validation' || !table) return 'ok';
    function rows() { return table.tBodies[0].rows; }
    var n = rows().length, heads = table.tHead.rows[0].cells;
    heads[1].click();  // verdict: worst first
    for (var i = 1; i < rows().length; i++) {
      check(severity(rows()[i - 1].cells[1].textContent) <= severity(rows()[i].cells[1].textContent), 'sort by verdict');
    }
    heads[0].click();
    heads[0].click();  // node, descending
    check(n < 2 || rows()[0].cells[0].textContent >= rows()[n - 1].cells[0].textContent, 'sort by node, descending');
    var search = table.parentNode.previousSibling.querySelector('input[type=search]');
    var name = n ? rows()[0].cells[0].textContent : '';
    search.value = name;
    fire(search, 'input');
    check(rows().length >= 1 && rows()[0].cells[0].textContent === name, 'filter by node');
    if (rows().length) rows()[0].click();
    check(rows().length >= 2 && rows()[1].className === 'detail', 'evidence opens');
    search.value = '';
    fire(search, 'input');
    check(rows().length === n, 'filter cleared');
    var rounds = arr(obj(page.report).rounds), last = rounds.length ? arr(obj(rounds[rounds.length - 1]).tests) : [];
    var id = last.length ? str(obj(last[0]).test_id) : '';
    if (id) {
      R.openTest(id);
      check(!!document.getElementById('test-' + id), 'jump to test ' + id);
    }
    var canvas = document.getElementById('pair-matrix');
    if (canvas) {
      var cells = canvas.getAttribute('data-cells');
      var zoom = canvas.parentNode.previousSibling.previousSibling.querySelectorAll('select')[1];
      zoom.value = '4';
      fire(zoom, 'change');
      check(canvas.width >= 4 * arr(obj(page.report).nodes).length, 'zoom');
      check(canvas.getAttribute('data-cells') === cells, 'zoom keeps the cells');
    }
    return failures.length ? 'failed: ' + failures.join('; ') : 'ok';
  }

  try {
    var page = render();
    if (window.location.hash === '#eb-selftest') EB.selftest = selfTest(page);
    // #eb-section-<id> (html_report_test's screenshot of one section):
    // only that section shown, as headless Chromium captures the top of a
    // page only, never a scrolled one.
    var only = /^#eb-section-([a-z]+)$/.exec(window.location.hash);
    if (only) {
      Array.prototype.forEach.call(document.getElementById('eb-main').children, function (c) { c.hidden = c.id !== only[1]; });
    }
  } catch (e) {
    recordError((e && e.stack) ? e.stack : e);
  }
  writeStatus();
})(window.EbReport);
