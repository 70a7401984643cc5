// Display facts: every form with data-fact inputs sends what the browser reports about the screen.
(function () {
  "use strict";
  function mq(q) { return window.matchMedia && window.matchMedia(q).matches; }
  function gamut() {
    if (mq("(color-gamut: rec2020)")) { return "rec2020"; }
    if (mq("(color-gamut: p3)")) { return "p3"; }
    if (mq("(color-gamut: srgb)")) { return "srgb"; }
    return "none";
  }
  function contrast() {
    var values = ["more", "less", "custom"];
    for (var i = 0; i < values.length; i++) { if (mq("(prefers-contrast: " + values[i] + ")")) { return values[i]; } }
    return "no-preference";
  }
  function facts() {
    return {
      viewport: Math.round(window.innerWidth) + "x" + Math.round(window.innerHeight),
      screen: Math.round(screen.width) + "x" + Math.round(screen.height),
      dpr: String(window.devicePixelRatio || 1),
      orientation: mq("(orientation: portrait)") ? "portrait" : "landscape",
      gamut: gamut(),
      forced: mq("(forced-colors: active)") ? "1" : "0",
      dark: mq("(prefers-color-scheme: dark)") ? "1" : "0",
      contrast: contrast()
    };
  }
  function fill() {
    var f = facts();
    var inputs = document.querySelectorAll("input[data-fact]");
    for (var i = 0; i < inputs.length; i++) { inputs[i].value = f[inputs[i].dataset.fact] || ""; }
  }
  fill();
  window.addEventListener("resize", fill);
  document.addEventListener("submit", fill, true);
})();
