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
     <div hx-get=…?v=… data-stream=… data-mark=…>  its poll's v is made from the page as it
                                   stands: its data-mark and each [data-table]'s (the live
                                   class view: 204 while it shows everything as it is)
     <button data-speaker data-say="…">  the page's speaker: says its words aloud (games/speech.py)
     <button data-speaker data-say-from="#board" data-say-parts=".ruling,.whose-turn">
                                   says the parts of a live board, each an element with a
                                   data-speech attribute (its words; empty: its text as shown)
*/
(function () {
  "use strict";

  function closest(event, selector) {
    var el = event.target;
    return el && el.closest ? el.closest(selector) : null;
  }

  // A child's page back from the back-forward cache would show a stale home or table (the
  // server sends them "no-store"; a browser may still keep one): load it afresh.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted && document.body && document.body.classList.contains("tablet")) {
      window.location.reload();
    }
  });

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
    // The live class view: the push says which table moved; only that table is asked for
    // (data-table-url), not every table of the class game. The timer poll brings the whole.
    var game = pushed && cause.detail ? parseInt(cause.detail.game, 10) : NaN;
    var one = live && live.dataset.tableUrl && game > 0
      ? live.querySelector('[data-table="' + game + '"]') : null;
    if (one && window.htmx) {
      event.preventDefault();
      htmx.ajax("GET", live.dataset.tableUrl.replace(/\/0\/$/, "/" + game + "/"),
        { target: one, swap: "outerHTML" });
      return;
    }
    if (live) lastPoll = Date.now();
  });

  // The live class view's poll says what the page shows: the class game's mark and each
  // table's (data-mark; a one-table fetch brings its table's new one), so the server answers
  // 204 while the page already shows everything as it is (classgames.selectors.live_shown),
  // rather than the whole view again each time a table of the class moved.
  function shownMarks(live) {
    var marks = [];
    live.querySelectorAll("[data-table][data-mark]").forEach(function (t) {
      marks.push(t.dataset.mark);
    });
    return live.dataset.mark + ":" + marks.join(".");
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var d = event.detail || {};
    var el = d.elt;
    if (!el || !el.dataset || el.dataset.mark === undefined || !el.hasAttribute("data-stream")) {
      return;
    }
    if (typeof d.path === "string" && /[?&]v=/.test(d.path)) {
      d.path = d.path.replace(/([?&]v=)[^&#]*/, "$1" + encodeURIComponent(shownMarks(el)));
    }
  });
  // ... and on that 204 the page's "updated" time moves on (data-live-clock).
  function clockTime(now) {
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(now.getHours()) + ":" + two(now.getMinutes()) + ":" + two(now.getSeconds());
  }
  document.addEventListener("htmx:afterRequest", function (event) {
    var d = event.detail || {};
    if (!d.xhr || d.xhr.status !== 204 || !d.elt || !d.elt.querySelector) return;
    var clock = d.elt.querySelector("[data-live-clock]");
    if (clock) {
      clock.textContent = clock.textContent.replace(/\d{1,2}:\d{2}:\d{2}/, clockTime(new Date()));
    }
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

  // --- the voice (speechSynthesis, in the page's language) -----------------------------------
  // Parts joined as games.speech.join does: each ends with a mark, never two marks in a row.
  var ENDS = ".!?\u2026:";
  function speechOf(parts) {
    return parts.map(function (p) { return String(p || "").replace(/\s+/g, " ").trim(); })
      .filter(Boolean)
      .map(function (p) { return ENDS.indexOf(p.charAt(p.length - 1)) >= 0 ? p : p + "."; })
      .join(" ");
  }
  function boardSpeech(root, selectors) {
    var parts = [];
    if (!root) return "";
    (selectors || "").split(",").forEach(function (sel) {
      if (!sel) return;
      root.querySelectorAll(sel + "[data-speech]").forEach(function (el) {
        if (el.closest("[hidden]")) return;
        parts.push(el.dataset.speech || el.textContent);
      });
    });
    return speechOf(parts);
  }
  // `done` (optional) is called once the words are said, or at once when there is no voice.
  function say(text, rate, done) {
    var called = false;
    function end() { if (done && !called) { called = true; done(); } }
    if (!text || !window.speechSynthesis || !window.SpeechSynthesisUtterance) { end(); return; }
    try {
      window.speechSynthesis.cancel();
      var u = new SpeechSynthesisUtterance(text);
      u.lang = document.documentElement.lang || "en";
      u.rate = rate || 0.9;
      u.onend = end;
      u.onerror = end;
      window.speechSynthesis.speak(u);
    } catch (e) { end(); /* no voice on this tablet: reading aloud is never needed to use a page */ }
  }
  function speakerText(button) {
    if (!button) button = document.querySelector("[data-speaker]");
    if (!button) return "";
    if (button.dataset.sayFrom) {
      return boardSpeech(document.querySelector(button.dataset.sayFrom), button.dataset.sayParts);
    }
    return button.dataset.say || "";
  }
  window.kavetSay = say;
  window.kavetSpeech = speakerText;

  document.addEventListener("click", function (event) {
    var speaker = closest(event, "[data-speaker]");
    if (speaker) { event.preventDefault(); say(speakerText(speaker)); return; }
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
