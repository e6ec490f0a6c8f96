/* Kavet 'm eus: the class board — the countdown, and the board asked for again when its table
   changes. live.js tells of every change at the class game's tables (kavet:changed with the
   game's id); the board fetches only for its own table, or after a reconnect. Without the push
   channel it polls every POLL_DOWN ms, and every POLL_UP ms as a safety net while it is up.
   The server answers 204 when nothing changed (classgames/board.py). */
(function () {
  "use strict";
  var POLL_DOWN = 3000, POLL_UP = 20000;
  var streamUp = false, pollTimer = null, skew = 0;

  function board() { return document.getElementById("board"); }
  function live() { var b = board(); return !!(b && b.getAttribute("data-live") === "1"); }

  function refresh() {
    var b = board();
    if (b && live() && window.htmx) window.htmx.trigger(b, "kavet:board");
  }
  function schedule() {
    clearTimeout(pollTimer);
    if (!live()) return;
    pollTimer = setTimeout(function () { refresh(); schedule(); }, streamUp ? POLL_UP : POLL_DOWN);
  }

  // The server's clock, so the countdown a projector shows is the tablets' countdown.
  function readClock() {
    var b = board();
    var now = b && Number(b.getAttribute("data-now"));
    if (now) skew = now - Date.now();
  }
  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (c) {
      var left = Math.max(0, Math.ceil((Number(c.getAttribute("data-deadline")) - (Date.now() + skew)) / 1000));
      var num = c.querySelector(".countdown-num");
      if (num && num.textContent !== String(left)) num.textContent = String(left);
      c.classList.toggle("is-low", left <= 5);
    });
  }

  document.addEventListener("kavet:changed", function (ev) {
    var d = ev.detail || {}, b = board();
    if (!b) return;
    if (d.resync || d.game === undefined || String(d.game) === b.getAttribute("data-game")) refresh();
  });
  document.addEventListener("kavet:stream-up", function () { streamUp = true; schedule(); });
  document.addEventListener("kavet:stream-down", function () { streamUp = false; schedule(); });
  document.addEventListener("htmx:afterSettle", function () { readClock(); tick(); schedule(); });

  function start() { readClock(); tick(); schedule(); setInterval(tick, 250); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
