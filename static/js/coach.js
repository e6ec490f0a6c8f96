/* Kavet 'm eus: the coach of "Learn to play" — rings the card or key to tap next and reads the
   step aloud. The game itself is played by table.js; this only points (games/tutorial.py). */
(function () {
  "use strict";
  if (window.kavetCoach) return;  // htmx may bring the script back with a swapped board
  window.kavetCoach = true;
  // The stylesheet came inside the board, which every htmx swap replaces: keep it in <head>.
  var css = document.querySelector("link[data-coach-css]");
  if (css) document.head.appendChild(css);

  function coach() { return document.getElementById("coach"); }
  function tokenCount() {
    var out = document.querySelector("#move-form .expr-text");
    if (!out || out.classList.contains("is-empty")) return 0;
    return out.textContent.trim().split(/\s+/).filter(Boolean).length;
  }
  function find(selector) {
    try { return document.querySelector("#board " + selector); } catch (e) { return null; }
  }
  function visible(el) { return !!(el && !el.closest("[hidden]")); }

  // The next tap: the step's list is the operation's cards and signs in order, then the button.
  function target(c) {
    var taps = (c.dataset.tap || "").split(" | ").filter(Boolean);
    if (!taps.length) return null;
    var pad = document.querySelector("#move-form .numpad");
    if (visible(pad)) {
      var value = pad.querySelector(".numpad-value");
      var typed = value ? value.textContent.replace(/\D/g, "") : "";
      if (typed === c.dataset.digit) return pad.querySelector("[data-action=x-ok]");
      if (typed) return pad.querySelector("[data-action=x-back]");
      return pad.querySelector('[data-digit="' + c.dataset.digit + '"]');
    }
    var n = tokenCount();
    var steps = taps.slice(0, -1);
    // A card tapped that the step does not use: "Clear", and start again.
    for (var i = 0; i < Math.min(n, steps.length); i++) {
      var el = find(steps[i]);
      if (el && el.dataset.card !== undefined && el.getAttribute("aria-pressed") !== "true") {
        return find(".key-clear");
      }
    }
    if (n > steps.length) return find(".key-clear");
    return find(n < steps.length ? steps[n] : taps[taps.length - 1]);
  }

  function update() {
    document.querySelectorAll(".coach-tap").forEach(function (el) { el.classList.remove("coach-tap"); });
    var c = coach();
    if (!c) return;
    var el = target(c);
    if (el) el.classList.add("coach-tap");
  }

  // The header's speaker says the coach's step (its data-speech, games.speech) with the board.
  document.addEventListener("click", function () {
    update();  // table.js's listener came first and has built the operation
    setTimeout(update, 0);
  });
  document.addEventListener("htmx:afterSettle", update);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", update);
  else update();
})();
