/* Kavet 'm eus! — the site's small behaviours, with no inline script or handler anywhere
   (Content-Security-Policy: script-src 'self'). Listeners are delegated from the document, so
   content htmx swaps in later works the same. Every page works without this file.

     <select data-autosubmit>            submits its form when the choice changes
     <button data-print>                 prints the page
     <input data-select-on-click>        selects its text when tapped (a link to copy)
     <button data-confirm="Question?">   asks before submitting; "Cancel" stops it
     <input type=checkbox data-check-all="name">  ticks/unticks every input[name=name] of its form
     <div hx-get=… data-poll-hold="details[open]">  skips its htmx poll while the selector matches
                                                    inside it (an htmx trigger filter needs eval)
     <div hx-get=… data-clear-messages>  once it swaps in fresh content, the page's flash
                                         messages ("The game has started…") are taken away
     <div hx-get=… data-stream=…>  while the push stream is up (static/js/live.js), its timer
                                   poll asks only about every 15 s instead of every 2.5 s
*/
(function () {
  "use strict";

  function closest(event, selector) {
    var el = event.target;
    return el && el.closest ? el.closest(selector) : null;
  }

  document.addEventListener("change", function (event) {
    var select = closest(event, "select[data-autosubmit]");
    if (select && select.form) { select.form.submit(); return; }
    var box = closest(event, "input[type=checkbox][data-check-all]");
    if (box && box.form) {
      var name = box.dataset.checkAll;
      box.form.querySelectorAll("input[type=checkbox]").forEach(function (b) {
        if (b !== box && b.name === name) b.checked = box.checked;
      });
    }
  });

  // The push stream tells what changed (kavet:changed); the timer poll is then only a safety net.
  var STREAM_POLL_EVERY = 15000;
  var streamUp = false, lastPoll = 0;
  document.addEventListener("kavet:stream-up", function () { streamUp = true; });
  document.addEventListener("kavet:stream-down", function () { streamUp = false; });

  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail && event.detail.elt;
    var hold = el && el.dataset ? el.dataset.pollHold : null;
    if (hold && el.querySelector(hold)) { event.preventDefault(); return; }
    // Only the polling element itself: a link inside it (a cell of the live skill grid) is asked
    // for by a person, never held back.
    var live = el && el.hasAttribute && el.hasAttribute("data-stream") ? el : null;
    var cause = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    var pushed = cause && cause.type === "kavet:changed";
    if (live && streamUp && !pushed && Date.now() - lastPoll < STREAM_POLL_EVERY) {
      event.preventDefault();
      return;
    }
    if (live) lastPoll = Date.now();
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var d = event.detail || {};
    var swapped = [d.elt, d.target].some(function (x) {
      return x && x.hasAttribute && x.hasAttribute("data-clear-messages");
    });
    // An outerHTML swap may report the old element: the new one then sits in the page.
    if (!swapped && !(d.target && d.target.id && document.querySelector(
      "#" + d.target.id + "[data-clear-messages]"))) return;
    var box = document.getElementById("messages");
    if (box) box.textContent = "";
  });

  document.addEventListener("click", function (event) {
    if (closest(event, "[data-print]")) { event.preventDefault(); window.print(); return; }
    var input = closest(event, "[data-select-on-click]");
    if (input && input.select) { input.select(); return; }
    var asking = closest(event, "[data-confirm]");
    if (asking && !window.confirm(asking.dataset.confirm)) {
      event.preventDefault();
      event.stopPropagation();
    }
  });
})();
