// GCA page: the introspection slider starts unset (no preset value to anchor on); slider and number stay in step.
(function () {
  "use strict";
  var slider = document.getElementById("threshold");
  var field = document.getElementById("threshold-value");
  var out = document.getElementById("threshold-out");
  if (!slider || !field) { return; }
  function show(value) {
    if (out) { out.value = value; out.textContent = value; }
  }
  slider.addEventListener("input", function () {
    slider.classList.remove("unset");
    field.value = slider.value;
    show(slider.value);
  });
  field.addEventListener("input", function () {
    var v = Number(field.value);
    if (field.value !== "" && v >= 0 && v <= 100) {
      slider.classList.remove("unset");
      slider.value = String(Math.round(v));
      show(String(Math.round(v)));
    }
  });
})();
