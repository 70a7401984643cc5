// Word task board: clicking a cell fills the coordinate field; typing a coordinate highlights the cell.
(function () {
  "use strict";
  var input = document.getElementById("coordinate");
  var board = document.getElementById("board");
  if (!input || !board) { return; }
  var selected = null;
  function select(cell) {
    if (selected) { selected.classList.remove("selected"); }
    selected = cell;
    if (cell) { cell.classList.add("selected"); }
  }
  board.addEventListener("click", function (ev) {
    var cell = ev.target.closest("button.cell");
    if (!cell) { return; }
    input.value = cell.dataset.coord;
    select(cell);
  });
  input.addEventListener("input", function () {
    var m = /^\s*([A-Pa-p])\s*-?\s*([1-9]|[12][0-9]|30)\s*$/.exec(input.value);
    select(m ? board.querySelector('button.cell[data-coord="' + m[1].toUpperCase() + m[2] + '"]') : null);
  });
  if (input.value) { input.dispatchEvent(new Event("input")); }
})();
