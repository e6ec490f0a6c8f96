/* Kavet 'm eus: the game table — the operation builder, its countdowns, the poll and the push
   channel, the Wi-Fi banner and reading aloud (htmx does the swapping). */
(function () {
  "use strict";
  var BINARY = ["+", "-", "*", "/", "^"];
  var TIMEOUT_MS = 8000;          // every request gives up after this (htmx.config.timeout)
  // With the push stream up the poll is only a safety net (a message Redis lost; a stream that
  // stalls without an error): once a minute, spread over 48-72 s so a class's tablets don't ask
  // together. At 10 s, 10,000 tablets asked 1,000 times a second for nothing (issue 38). None
  // at all when the stream's hello says the server keeps watch over it (games/stream.py's
  // keeper checks the table and stamps the tablet's presence; live.js gives a stalled stream
  // up): once a minute was still ~170 requests a second at 10,000 tablets.
  var POLL_FAST = 2000, POLL_SLOW = 60000;
  var tokens = [];      // {card, label, kind} or {op}
  var xValues = {};     // X card id -> the number it stands for (R3.4)
  var pendingX = null;  // the X card waiting for its number
  var xEntry = "";
  var skew = 0;         // server clock minus this tablet's clock, for the countdowns
  var streamUp = false, watched = false, pollTimer = null;
  var offline = false, retryDelay = 1000, retryTimer = null, unsent = null, resending = false;
  var retryAfterMs = 5000;  // a 503's Retry-After (kavet_site.middleware), in milliseconds

  function form() { return document.getElementById("move-form"); }
  function board() { return document.getElementById("board"); }
  function building() { var f = form(); return !!(f && f.querySelector("input[name=tokens]")); }

  // An operator as printed on its key: the server gives each key its symbol (data-symbol), so
  // the symbols have one home (games.engine.operations.OPERATOR_SYMBOLS).
  function symbol(op) {
    var key = document.querySelector('#move-form .key[data-op="' + op + '"]');
    return (key && key.dataset.symbol) || op;
  }

  function label(t) {
    if (t.card === undefined) return symbol(t.op);
    if (t.kind === "x") return "X(" + (xValues[t.card] === undefined ? "?" : xValues[t.card]) + ")";
    return t.label;
  }

  // What may come next (R3.1) is the server's: a table of states x key classes
  // (games/engine/entry.py, sent once with the page: #entry-table's data-table). A key is on when its class
  // leads somewhere from the state the tokens reached, and the cards and tokens still free are
  // enough to finish from there, so the keys never build an operation the engine can't read.
  var entry = null;
  function entryTable() {
    if (entry) return entry;
    try { entry = JSON.parse(document.getElementById("entry-table").dataset.table); } catch (e) { entry = null; }
    return entry;
  }
  function classOf(t) { return t.card !== undefined ? "card" : BINARY.indexOf(t.op) >= 0 ? "op" : t.op; }
  function freeCards() {
    var n = 0;
    document.querySelectorAll("#board .card[data-card]").forEach(function (c) { if (c.dataset.kind !== "event") n++; });
    return n - tokens.filter(function (t) { return t.card !== undefined; }).length;
  }
  function nextKeys() {
    var table = entryTable(), on = {}, state = table ? table.start : -1;
    for (var i = 0; i < tokens.length && state >= 0; i++) state = table.next[state][table.classes.indexOf(classOf(tokens[i]))];
    if (state < 0) return { on: on, complete: false };
    var free = freeCards();
    table.classes.forEach(function (cls, c) {
      var to = table.next[state][c];
      on[cls] = to >= 0 && free - (cls === "card" ? 1 : 0) >= table.need_cards[to] &&
        tokens.length + 1 + table.need_tokens[to] <= table.max_tokens;
    });
    return { on: on, complete: table.complete.indexOf(state) >= 0 };
  }

  // R2.4: the running intermediate results, "8 − 5 = 3", are the engine's too (exact, the
  // server's fractions): asked as the child taps, a little after the last tap, each answer kept
  // for an undo. Offline, the steps just wait (the operation itself never needs them).
  var stepsKnown = {}, stepsWanted = "", stepsTimer = null, stepsList = null;
  function showSteps(list, lines) {
    list.innerHTML = "";
    (lines || []).forEach(function (s) { var li = document.createElement("li"); li.textContent = s; list.appendChild(li); });
  }
  function askSteps(list) {
    var b = board();
    if (!list || !b || b.dataset.steps !== "1" || !list.dataset.url || !tokens.length) {
      stepsWanted = ""; clearTimeout(stepsTimer);
      if (list) showSteps(list, []);
      return;
    }
    var query = "tokens=" + encodeURIComponent(document.querySelector("#move-form input[name=tokens]").value) +
      "&x_values=" + encodeURIComponent(JSON.stringify(xValues));
    var url = list.dataset.url + "?" + query;
    if (stepsKnown[url]) { stepsWanted = url; clearTimeout(stepsTimer); showSteps(list, stepsKnown[url]); return; }
    if (url === stepsWanted && list === stepsList) return;
    if (list !== stepsList) showSteps(list, []);
    stepsWanted = url; stepsList = list;
    clearTimeout(stepsTimer);
    stepsTimer = setTimeout(function () {
      if (!window.fetch) return;
      fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (answer) {
          if (!answer || !Array.isArray(answer.steps)) return;
          stepsKnown[url] = answer.steps;
          var now = document.querySelector("#move-form .expr-steps");
          if (url === stepsWanted && now) showSteps(now, answer.steps);
        }, function () { /* offline: the steps come with the next tap */ });
    }, 150);
  }

  function storageKey(b) { return "kavet:op:" + b.dataset.game; }
  function save() {
    var b = board();
    if (!b || !building()) return;
    try {
      if (!tokens.length) { sessionStorage.removeItem(storageKey(b)); return; }
      sessionStorage.setItem(storageKey(b), JSON.stringify({ version: b.dataset.version, tokens: tokens, x: xValues }));
    } catch (e) { /* private mode: the operation just isn't kept */ }
  }
  // A half-built operation survives a reload or a sleeping tablet, but only on the table it was
  // built on: a new version (the table changed under it) drops it.
  function restore() {
    var b = board();
    if (!b || !building()) return;
    try {
      var raw = sessionStorage.getItem(storageKey(b));
      if (!raw) return;
      var kept = JSON.parse(raw);
      if (kept.version !== b.dataset.version) { sessionStorage.removeItem(storageKey(b)); return; }
      var present = {};
      b.querySelectorAll(".card[data-card]").forEach(function (c) { present[c.dataset.card] = true; });
      if (!kept.tokens.every(function (t) { return t.card === undefined || present[t.card]; })) return;
      tokens = kept.tokens; xValues = kept.x || {};
    } catch (e) { /* unreadable: start again */ }
  }

  function render() {
    var f = form();
    var used = {};
    tokens.forEach(function (t) { if (t.card !== undefined) used[t.card] = true; });
    var g = nextKeys();
    var cardsOpen = g.on.card && pendingX === null;
    document.querySelectorAll("#board .card[data-card]").forEach(function (b) {
      var on = !!used[b.dataset.card];
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.classList.toggle("is-used", on);
      if (building()) b.disabled = on || !cardsOpen;
    });
    if (!building()) return;
    var out = f.querySelector(".expr-text");
    out.textContent = tokens.length ? tokens.map(label).join(" ") : out.dataset.placeholder;
    out.classList.toggle("is-empty", !tokens.length);
    f.querySelector("input[name=tokens]").value = tokens.length ? JSON.stringify(tokens.map(function (t) {
      return t.card === undefined ? { op: t.op } : { card: Number(t.card) };
    })) : "";
    f.querySelector("input[name=x_values]").value = JSON.stringify(xValues);
    f.querySelectorAll(".keys .key[data-op]").forEach(function (k) { k.disabled = !g.on[classOf({ op: k.dataset.op })]; });
    f.querySelectorAll(".keys [data-action]").forEach(function (k) { k.disabled = !tokens.length; });
    var say = f.querySelector(".act-announce");
    var typed = f.querySelector(".typed-input");
    // Half-built: "Say it!" waits for the result card (typing is still read by the server).
    if (say) say.disabled = tokens.length > 0 && !g.complete && !(typed && typed.value.trim());
    askSteps(f.querySelector(".expr-steps"));
    var pad = f.querySelector(".numpad");
    if (pad) {
      pad.hidden = pendingX === null;
      f.querySelector(".keys").hidden = pendingX !== null;
      pad.querySelector(".numpad-value").textContent = xEntry || "…";
      var ok = pad.querySelector("[data-action=x-ok]");
      if (ok) ok.disabled = !/^-?\d+$/.test(xEntry);
    }
    save();
  }

  function reset() { tokens = []; xValues = {}; pendingX = null; xEntry = ""; }

  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("#board button");
    if (!el || !building()) return;
    var g = nextKeys().on;
    if (el.dataset.card !== undefined && !el.disabled) {
      if (tokens.some(function (t) { return String(t.card) === el.dataset.card; })) return;  // each card once (R3.1)
      if (!g.card) return;
      if (el.dataset.kind === "x") { pendingX = el.dataset.card; xEntry = ""; }
      else tokens.push({ card: el.dataset.card, label: el.dataset.label, kind: el.dataset.kind });
    } else if (el.dataset.op) {
      if (!g[classOf({ op: el.dataset.op })]) return;  // a second tap on "+" builds one "+"
      tokens.push({ op: el.dataset.op });
    } else if (el.dataset.digit !== undefined) {
      if (el.dataset.digit === "-") xEntry = xEntry.charAt(0) === "-" ? xEntry.slice(1) : "-" + xEntry;
      else if (xEntry.replace("-", "").length < 5) xEntry += el.dataset.digit;
    } else if (el.dataset.action === "x-back") {
      xEntry = xEntry.slice(0, -1);
    } else if (el.dataset.action === "x-ok") {
      if (/^-?\d+$/.test(xEntry) && pendingX !== null) {
        xValues[pendingX] = parseInt(xEntry, 10);
        tokens.push({ card: pendingX, label: "X", kind: "x" });
        pendingX = null; xEntry = "";
      }
    } else if (el.dataset.action === "x-cancel") {
      pendingX = null; xEntry = "";
    } else if (el.dataset.action === "undo") {
      var t = tokens.pop();
      if (t && t.kind === "x") delete xValues[t.card];
    } else if (el.dataset.action === "clear") {
      reset();
    } else {
      return;
    }
    render();
  });
  document.addEventListener("input", function (ev) { if (ev.target.closest && ev.target.closest(".typed-input")) render(); });

  var shownVersion = null;
  function afterSwap() {
    var b = board();
    if (!b) return;
    skew = Number(b.dataset.now || Date.now()) - Date.now();
    if (shownVersion !== null && shownVersion !== b.dataset.version) reset();  // the table changed under it
    if (b.dataset.applied === "1" || !building()) {
      reset();
      var typed = document.querySelector(".typed-input");
      if (typed && b.dataset.applied === "1") typed.value = "";
    }
    if (shownVersion === null) restore();
    shownVersion = b.dataset.version;
    render();
    tick();
    speakNew();
    // An end screen shown at once (the page opened on it): its settlements played, silently.
    if (b.classList.contains("is-over") && !b.dataset.settlePlayed) playSettlements(false);
    schedulePoll();
    catchUp();
  }

  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (c) {
      var left = Math.max(0, Math.ceil((Number(c.dataset.deadline) - (Date.now() + skew)) / 1000));
      var num = c.querySelector(".countdown-num");
      if (num && num.textContent !== String(left)) num.textContent = String(left);
      c.classList.toggle("is-low", left <= 3);
    });
  }

  // --- the poll, and the push channel (static/js/live.js) -----------------------------------
  function poll() {
    var p = document.querySelector("#board .poller");
    if (p && window.htmx && !offline) htmx.trigger(p, "kavet:poll");
    schedulePoll();
  }
  // The board names when its next move falls due (data-due: a computer player, a time limit):
  // the tablet asks for the table then, so a game against computers never waits for the next
  // slow poll, and where no worker runs (in-process) that very request plays the move.
  function schedulePoll() {
    clearTimeout(pollTimer);
    if (!document.querySelector("#board .poller")) return;
    var wait = !streamUp ? POLL_FAST : watched ? 0 : POLL_SLOW * (0.8 + 0.4 * Math.random());
    var b = board(), due = b ? Number(b.dataset.due || 0) : 0;
    if (due > 0) {
      var until = due + 50 - (Date.now() + skew);
      var at = until > 0 ? until : 1000;
      wait = wait ? Math.min(wait, at) : at;
    }
    if (!wait) return;  // a kept stream: nothing to ask until it tells of a change
    pollTimer = setTimeout(poll, wait);
  }
  document.addEventListener("kavet:stream-up", function (e) {
    streamUp = true;
    watched = !!(e.detail && e.detail.watched);
    schedulePoll();
  });
  document.addEventListener("kavet:stream-down", function () {
    streamUp = false;
    watched = false;
    schedulePoll();
  });
  var heardVersion = -1;  // the newest version the push channel told of
  // This tablet's own move on its way: its answer is the new board. The push event of that very
  // move usually comes first; fetching the board for it would only ask for what the answer
  // brings, so it waits for the answer, and catchUp() fetches if the table moved further.
  // Known by its request: the form itself is swapped out with the board its answer brings, so
  // htmx tells the end of the request from an ancestor. beforeSend, not beforeRequest: only a
  // request really sent has an afterRequest (load, error, abort or timeout) to end it.
  // The events that came meanwhile are kept: once the answer is in, one event at its version
  // was this move's own; anything else (a pause or the end of the game, which change the
  // status and not the version, a resync) still fetches the board at once.
  // A move's event carries the table's new board for this very tablet (games/stream.py): it is
  // shown at once, with no request. An event without one (a computer player, a pause) fetches.
  var moveXhr = null, heldEvents = [];
  function showPushed(html) {
    var b = board();
    if (!b || !window.htmx || !htmx.swap) return false;
    htmx.swap(b, html, { swapStyle: "outerHTML" });
    return true;
  }
  document.addEventListener("htmx:beforeSend", function (ev) {
    var elt = ev.detail && ev.detail.elt;
    if (elt && elt.id === "move-form") { moveXhr = ev.detail.xhr; heldEvents = []; }
  });
  document.addEventListener("htmx:afterRequest", function (ev) {
    if (!moveXhr || !ev.detail || ev.detail.xhr !== moveXhr) return;
    moveXhr = null;
    var b = board(), held = heldEvents;
    heldEvents = [];
    if (!b || !held.length) return;
    var shown = Number(b.dataset.version), newest = null, own = -1;
    // This move's own event: the one at its version that carries its board, else a plain one.
    held.forEach(function (e, i) {
      if (b.dataset.applied === "1" && e.v === shown && (own < 0 || (e.board !== undefined && held[own].board === undefined))) own = i;
    });
    if (own >= 0) held.splice(own, 1);
    var plain = held.some(function (e) { return e.board === undefined; });  // a pause, a resync
    held.forEach(function (e) { if (e.board !== undefined && e.v > shown && (!newest || e.v > newest.v)) newest = e; });
    if (plain || (newest && !showPushed(newest.board))) setTimeout(poll, 50);
  });
  document.addEventListener("kavet:changed", function (ev) {
    var b = board(), d = ev.detail || {}, v = d.version;
    var known = v !== null && v !== undefined;
    if (known) heardVersion = Math.max(heardVersion, Number(v));
    var pushed = known && typeof d.board === "string" ? d.board : undefined;
    if (moveXhr) { heldEvents.push({ v: known ? Number(v) : -1, board: pushed }); return; }
    if (!b) return;
    if (pushed !== undefined) {
      // Only a newer table: the board of the version shown is already here (the move's answer).
      if (Number(v) > Number(b.dataset.version) && !showPushed(pushed)) poll();
      return;
    }
    // Same version too: pausing or ending a game changes its status, not its version.
    if (!known || Number(v) >= Number(b.dataset.version)) poll();
  });
  // A poll queued while another was in flight dies with the poller the first one replaced:
  // after each swap, fetch again if the push channel already told of a newer table.
  function catchUp() {
    var b = board();
    if (b && heardVersion > Number(b.dataset.version)) setTimeout(poll, 50);
  }

  // --- Wi-Fi drops: a banner, retries with backoff, then the fresh table -------------------
  // A database outage (503) is told the same way, in the server's words, and retried after
  // the Retry-After it gives.
  function banner(on, words) {
    var el = document.getElementById("net-banner");
    if (!el) return;
    if (el.dataset.words === undefined) el.dataset.words = el.textContent;
    el.textContent = (on && words) || el.dataset.words;
    el.hidden = !on;
  }
  function keepUnsent(ev) {
    var elt = ev.detail && ev.detail.elt;
    if (elt && elt.id === "move-form" && !resending && ev.detail.requestConfig) {
      // The move may or may not have reached the server: send it again once we are back, with
      // the version it was made on (the server applies it at most once).
      var params = {};
      ev.detail.requestConfig.formData.forEach(function (value, key) { params[key] = value; });
      unsent = { path: ev.detail.requestConfig.path, values: params };
    }
  }
  function lostConnection(ev) {
    keepUnsent(ev);
    resending = false;
    offline = true;
    banner(true);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(retry, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }
  document.addEventListener("kavet:unavailable", function (ev) {
    var seconds = Number(ev.detail && ev.detail.retryAfter);
    if (seconds > 0) retryAfterMs = seconds * 1000;
  });
  function unavailable(ev) {
    // The server answered but its database did not: the move (if it was one) was not applied;
    // it goes again after Retry-After, still with the version it was made on.
    keepUnsent(ev);
    resending = false;
    offline = true;
    var words = "";
    try {
      var notice = new DOMParser().parseFromString(ev.detail.xhr.responseText, "text/html")
        .querySelector(".notice-unavailable");
      if (notice) words = notice.textContent.trim();
    } catch (e) { /* the banner's own words */ }
    banner(true, words);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(retry, retryAfterMs);
  }
  function retry() {
    if (!window.htmx) return;
    if (unsent) {
      resending = true;
      var move = unsent;
      htmx.ajax("POST", move.path, { target: "#board", swap: "outerHTML", values: move.values, source: form() || document.body })
        .then(function () { if (!offline) unsent = null; }, function () {});
    } else {
      var p = document.querySelector("#board .poller");
      if (p) htmx.trigger(p, "kavet:poll");
      else window.location.reload();
    }
  }
  function backOnline() {
    if (!offline) return;
    offline = false; retryDelay = 1000; clearTimeout(retryTimer);
    banner(false);
  }
  document.addEventListener("htmx:sendError", lostConnection);
  document.addEventListener("htmx:timeout", lostConnection);
  document.addEventListener("htmx:afterRequest", function (ev) {
    if (ev.detail && ev.detail.xhr && ev.detail.xhr.status === 503) {
      unavailable(ev);
    } else if (ev.detail && ev.detail.xhr && ev.detail.xhr.status > 0) {
      var wasResend = resending;
      resending = false;
      if (wasResend) unsent = null;
      backOnline();
      if (wasResend) {
        // The move came back refused as stale (it had reached the server before the drop, or the
        // table moved on): just show the fresh table, no scare. The answer is in the page by now:
        // htmx swaps and settles before afterRequest (no settle delay, base.html's htmx-config).
        var b = board();
        if (b && b.dataset.refused === "1") b.querySelectorAll(".news-flash").forEach(function (f) { f.remove(); });
      }
    }
  });
  window.addEventListener("online", function () { if (offline) { clearTimeout(retryTimer); retry(); } });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });  // a tablet waking up

  // --- reading aloud: kavet.js's voice says the board's parts (the header's speaker) ---------
  function speechText() { return window.kavetSpeech ? window.kavetSpeech() : ""; }
  function say(text, done) { if (window.kavetSay) window.kavetSay(text, undefined, done); else if (done) done(); }
  var spokenKey = null;
  function speakNew() {
    var b = board();
    if (!b || b.dataset.speak !== "1") return;
    var ruling = b.querySelector(".ruling");
    var key = (ruling ? ruling.dataset.rulingKey : "") + "/" + b.dataset.myTurn + "/" +
      b.classList.contains("is-paused") + "/" + b.classList.contains("is-over");
    try { if (spokenKey === null) spokenKey = sessionStorage.getItem("kavet:spoken:" + b.dataset.game); } catch (e) { /* none */ }
    if (key === spokenKey) return;
    var first = spokenKey === null;
    spokenKey = key;
    try { sessionStorage.setItem("kavet:spoken:" + b.dataset.game, key); } catch (e) { /* none */ }
    if (first) return;
    // The end reached while watching: its settlements played and said one step at a time.
    if (!(b.classList.contains("is-over") && playSettlements(true))) say(speechText());
  }

  // --- the end: the settlements (R6.2) as cards moving, one step after the other -----------
  // Each step's cards fly from the giver's name to the receiver's, one after the other, with
  // their numbers (Web Animations: no inline style, which the CSP forbids); the step's words
  // (games/speech.py, the same facts as its text) are said as it plays when the table reads
  // aloud, the next step waiting for them. "See again" plays it all again. With reduced motion
  // the end state just fades in, the words still said one step after the other.
  var FLIGHT = 600, STAGGER = 240, STEP_REST = 450, SPEECH_CAP = 9000;
  var settleRun = 0;
  function stillMotion() {
    return !Element.prototype.animate ||
      !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }
  function fly(step) {
    var from = step.querySelector(".settle-from"), cards = step.querySelectorAll(".settle-card");
    if (!from || !cards.length) return 0;
    var start = from.getBoundingClientRect();
    var gap = Math.min(STAGGER, Math.round(2400 / cards.length));
    cards.forEach(function (card, j) {
      var end = card.getBoundingClientRect();
      var dx = start.left + start.width / 2 - (end.left + end.width / 2);
      var dy = start.top + start.height / 2 - (end.top + end.height / 2);
      card.animate([
        { transform: "translate(" + dx.toFixed(1) + "px, " + dy.toFixed(1) + "px) scale(.7)", opacity: 0.4 },
        { transform: "none", opacity: 1 }
      ], { duration: FLIGHT, delay: j * gap, easing: "ease-in-out", fill: "backwards" });
    });
    return FLIGHT + (cards.length - 1) * gap;
  }
  function playSettlements(speak) {
    var b = board(), list = b && b.querySelector(".settle");
    if (!list) return false;
    b.dataset.settlePlayed = "1";
    var run = ++settleRun, still = stillMotion();
    var steps = Array.prototype.slice.call(list.querySelectorAll(".settle-step"));
    var title = b.querySelector(".end-screen h2"), ranking = b.querySelector(".ranking[data-speech]");
    var replay = b.querySelector("[data-settle-replay]");
    if (replay) replay.hidden = false;
    list.classList.remove("is-fading", "is-played");
    void list.offsetWidth;  // (restarts the fade)
    list.classList.add(still ? "is-fading" : "is-playing");
    steps.forEach(function (st) { st.classList.remove("is-now"); st.classList.toggle("is-waiting", !still); });
    if (still && !speak) { list.classList.add("is-played"); return true; }  // the end state, faded in
    function words(text, next) {  // said, then next (at once when silent)
      if (!speak || !text) { next(); return; }
      var gone = false, cap = setTimeout(go, SPEECH_CAP);
      function go() { if (gone) return; gone = true; clearTimeout(cap); if (run === settleRun) next(); }
      say(text, go);
    }
    function play(i) {
      if (run !== settleRun) return;
      steps.forEach(function (st, k) { st.classList.toggle("is-now", k === i); });
      if (i >= steps.length) {
        list.classList.remove("is-playing");
        list.classList.add("is-played");
        words(ranking && ranking.dataset.speech, function () {});
        return;
      }
      var st = steps[i], left = 2;
      st.classList.remove("is-waiting");
      function done() { if (--left === 0) setTimeout(function () { play(i + 1); }, STEP_REST); }
      setTimeout(done, still ? 0 : fly(st));
      words(st.dataset.speech, done);
    }
    words(title && title.textContent, function () { play(0); });
    return true;
  }
  document.addEventListener("click", function (ev) {
    var replay = ev.target.closest && ev.target.closest("[data-settle-replay]");
    var b = board();
    if (replay && b) playSettlements(b.dataset.speak === "1");
  });

  function start() {
    if (window.htmx) htmx.config.timeout = TIMEOUT_MS;
    afterSwap();
  }
  document.addEventListener("htmx:afterSettle", afterSwap);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  setInterval(tick, 250);
})();
