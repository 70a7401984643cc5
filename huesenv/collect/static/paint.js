// Tessellation painter: a palette of regions plus an eraser; brush and fill tools; undo.
// A drag paints every cell on the straight line between two pointer samples, so fast drags skip nothing.
// The hidden field holds the 480 region names in cell order.
(function () {
  "use strict";
  var board = document.getElementById("board");
  var field = document.getElementById("categories");
  var remaining = document.getElementById("remaining");
  var form = document.getElementById("tessellation-form");
  var undoButton = document.getElementById("undo");
  if (!board || !field) { return; }
  var cells = Array.prototype.slice.call(board.querySelectorAll("button.cell"));
  var nCols = Number(getComputedStyle(board).getPropertyValue("--cols")) || 30;
  var nRows = Math.round(cells.length / nCols);
  var painting = new Array(cells.length).fill("");
  var buttons = Array.prototype.slice.call(document.querySelectorAll(".paint"));
  var current = buttons.length ? buttons[0] : null;
  var tool = "brush";
  var displays = {};
  var history = [];  // strokes: arrays of [index, previous name]
  var stroke = null;
  var last = null;  // index of the last cell of the current drag
  var lastTouch = 0;

  buttons.forEach(function (b) {
    if (b.dataset.category) { displays[b.dataset.category] = b.dataset.display; }
    b.addEventListener("click", function () {
      buttons.forEach(function (o) { o.classList.remove("active"); });
      b.classList.add("active");
      current = b;
    });
  });
  Array.prototype.slice.call(document.querySelectorAll(".tool[data-tool]")).forEach(function (t) {
    t.addEventListener("click", function () {
      document.querySelectorAll(".tool[data-tool]").forEach(function (o) {
        o.classList.remove("active"); o.setAttribute("aria-pressed", "false");
      });
      t.classList.add("active"); t.setAttribute("aria-pressed", "true");
      tool = t.dataset.tool;
    });
  });

  function show(i) {
    var name = painting[i];
    if (name) {
      cells[i].classList.add("painted");
      cells[i].style.setProperty("--paint", displays[name]);
    } else {
      cells[i].classList.remove("painted");
      cells[i].style.removeProperty("--paint");
    }
  }
  function set(i, name) {
    if (painting[i] === name) { return; }
    if (stroke) { stroke.push([i, painting[i]]); }
    painting[i] = name;
    show(i);
  }
  function colour() { return current ? current.dataset.category : ""; }
  function line(a, b) {  // every cell on the segment from a to b (Bresenham on the grid)
    var r0 = Math.floor(a / nCols), c0 = a % nCols, r1 = Math.floor(b / nCols), c1 = b % nCols;
    var dr = Math.abs(r1 - r0), dc = Math.abs(c1 - c0), sr = r0 < r1 ? 1 : -1, sc = c0 < c1 ? 1 : -1;
    var err = dc - dr, out = [];
    for (;;) {
      out.push(r0 * nCols + c0);
      if (r0 === r1 && c0 === c1) { return out; }
      var e2 = 2 * err;
      if (e2 > -dr) { err -= dr; c0 += sc; }
      if (e2 < dc) { err += dc; r0 += sr; }
    }
  }
  function fill(start) {  // the connected area (4-neighbours) that has the start cell's name
    var target = painting[start], name = colour();
    if (target === name) { return; }
    var todo = [start], seen = {};
    seen[start] = true;
    while (todo.length) {
      var i = todo.pop();
      set(i, name);
      var r = Math.floor(i / nCols), c = i % nCols;
      [[r - 1, c], [r + 1, c], [r, c - 1], [r, c + 1]].forEach(function (rc) {
        if (rc[0] < 0 || rc[0] >= nRows || rc[1] < 0 || rc[1] >= nCols) { return; }
        var j = rc[0] * nCols + rc[1];
        if (!seen[j] && painting[j] === target) { seen[j] = true; todo.push(j); }
      });
    }
  }
  function begin(i) {
    stroke = [];
    if (tool === "fill") { fill(i); end(); return; }
    set(i, colour());
    last = i;
    update();
  }
  function extend(i) {
    if (!stroke || last === null || i === last) { return; }
    line(last, i).forEach(function (j) { set(j, colour()); });
    last = i;
    update();
  }
  function end() {
    if (stroke && stroke.length) { history.push(stroke); }
    stroke = null; last = null;
    update();
  }
  function undo() {
    var s = history.pop();
    if (!s) { return; }
    for (var k = s.length - 1; k >= 0; k--) { painting[s[k][0]] = s[k][1]; show(s[k][0]); }
    update();
  }
  function update() {
    var left = painting.filter(function (p) { return !p; }).length;
    field.value = painting.join(",");
    if (remaining) {
      remaining.textContent = left ? remaining.dataset.left.replace("{n}", left) : remaining.dataset.done;
    }
    if (undoButton) { undoButton.disabled = history.length === 0; }
  }
  function cellAt(x, y) {
    var el = document.elementFromPoint(x, y);
    var cell = el && el.closest ? el.closest("button.cell") : null;
    return cell && board.contains(cell) ? Number(cell.dataset.index) : null;
  }

  // Mouse (and synthetic mouse events): mousedown starts a stroke, mouseover/mousemove extend it.
  board.addEventListener("mousedown", function (ev) {
    if (Date.now() - lastTouch < 800) { return; }  // the compatibility event after a touch
    var cell = ev.target.closest("button.cell");
    if (cell) { begin(Number(cell.dataset.index)); ev.preventDefault(); }
  });
  board.addEventListener("mouseover", function (ev) {
    var cell = ev.target.closest("button.cell");
    if (stroke && cell) { extend(Number(cell.dataset.index)); }
  });
  document.addEventListener("mouseup", function () { if (stroke) { end(); } });
  // Touch and pen: pointer events, with the cell under the finger looked up at each sample.
  board.addEventListener("pointerdown", function (ev) {
    if (ev.pointerType === "mouse") { return; }
    lastTouch = Date.now();
    var i = cellAt(ev.clientX, ev.clientY);
    if (i !== null) { begin(i); ev.preventDefault(); }
  });
  board.addEventListener("pointermove", function (ev) {
    if (ev.pointerType === "mouse" || !stroke) { return; }
    lastTouch = Date.now();
    var i = cellAt(ev.clientX, ev.clientY);
    if (i !== null) { extend(i); ev.preventDefault(); }
  });
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function (ev) {
      if (ev.pointerType !== "mouse" && stroke) { lastTouch = Date.now(); end(); }
    });
  });
  board.addEventListener("click", function (ev) {
    // keyboard activation (Enter/Space) arrives as a click without mousedown
    var cell = ev.target.closest("button.cell");
    if (cell && ev.detail === 0) { begin(Number(cell.dataset.index)); end(); }
  });
  if (undoButton) { undoButton.addEventListener("click", undo); }
  document.addEventListener("keydown", function (ev) {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "z") { undo(); ev.preventDefault(); }
  });
  var toggle = document.getElementById("regions-only");
  if (toggle) { toggle.addEventListener("change", function () { board.classList.toggle("regions-only", toggle.checked); }); }
  // restore a painting sent back after a validation error
  if (field.value) {
    field.value.split(",").forEach(function (name, i) {
      if (name && displays[name] && cells[i]) { painting[i] = name; show(i); }
    });
  }
  update();
  if (form) {
    form.addEventListener("submit", function (ev) {
      update();
      var left = painting.filter(function (p) { return !p; }).length;
      if (left) {
        ev.preventDefault();
        if (remaining) { remaining.textContent = remaining.dataset.missing.replace("{n}", left); }
      }
    });
  }
})();
