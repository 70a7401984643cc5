// Tessellation painter: pick a region colour, click or drag over cells; the hidden field holds 480 names.
(function () {
  "use strict";
  var board = document.getElementById("board");
  var field = document.getElementById("categories");
  var remaining = document.getElementById("remaining");
  var form = document.getElementById("tessellation-form");
  if (!board || !field) { return; }
  var cells = Array.prototype.slice.call(board.querySelectorAll("button.cell"));
  var painting = new Array(cells.length).fill("");
  var buttons = Array.prototype.slice.call(document.querySelectorAll(".paint"));
  var current = buttons.length ? buttons[0] : null;
  var displays = {};
  buttons.forEach(function (b) {
    displays[b.dataset.category] = b.dataset.display;
    b.addEventListener("click", function () {
      buttons.forEach(function (o) { o.classList.remove("active"); });
      b.classList.add("active");
      current = b;
    });
  });
  function paint(cell) {
    if (!current) { return; }
    var i = Number(cell.dataset.index);
    painting[i] = current.dataset.category;
    cell.classList.add("painted");
    cell.style.setProperty("--paint", current.dataset.display);
    update();
  }
  function update() {
    var left = painting.filter(function (p) { return !p; }).length;
    field.value = painting.join(",");
    if (remaining) { remaining.textContent = left ? left + " cells left to paint" : "all cells painted"; }
  }
  var down = false;
  board.addEventListener("mousedown", function (ev) {
    var cell = ev.target.closest("button.cell");
    if (cell) { down = true; paint(cell); ev.preventDefault(); }
  });
  board.addEventListener("mouseover", function (ev) {
    var cell = ev.target.closest("button.cell");
    if (down && cell) { paint(cell); }
  });
  document.addEventListener("mouseup", function () { down = false; });
  board.addEventListener("click", function (ev) {
    // keyboard activation (Enter/Space) arrives as a click without mousedown
    var cell = ev.target.closest("button.cell");
    if (cell && ev.detail === 0) { paint(cell); }
  });
  board.addEventListener("touchmove", function (ev) {
    var t = ev.touches[0];
    var el = document.elementFromPoint(t.clientX, t.clientY);
    var cell = el && el.closest ? el.closest("button.cell") : null;
    if (cell) { paint(cell); ev.preventDefault(); }
  }, { passive: false });
  var toggle = document.getElementById("regions-only");
  if (toggle) { toggle.addEventListener("change", function () { board.classList.toggle("regions-only", toggle.checked); }); }
  // restore a painting sent back after a validation error
  if (field.value) {
    field.value.split(",").forEach(function (name, i) {
      if (name && displays[name] && cells[i]) {
        painting[i] = name; cells[i].classList.add("painted"); cells[i].style.setProperty("--paint", displays[name]);
      }
    });
  }
  update();
  if (form) {
    form.addEventListener("submit", function (ev) {
      update();
      if (painting.some(function (p) { return !p; })) {
        ev.preventDefault();
        if (remaining) { remaining.textContent = "Please paint every cell (" + painting.filter(function (p) { return !p; }).length + " left)."; }
      }
    });
  }
})();
