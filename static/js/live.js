/* Kavet 'm eus: the push channel. Opens an EventSource on the URL in the data-stream attribute
   of the page's live element ([data-stream]) and tells the page's own code through DOM events
   on document:

     kavet:changed      {version, game?, resync?}  something changed: refresh now
     kavet:stream-up    {watched}                  events arrive: polling may slow down;
                                                   watched: the server keeps watch over this
                                                   stream (its table, the tablet's presence:
                                                   games/stream.py's keeper), no poll needed
     kavet:stream-down  {}                         no stream (a buffering proxy, a server that
                                                   answers 204, the network): poll as before

   The server starts every stream with a `hello` event; a stream that opens but says nothing
   (a proxy that buffers) counts as failed. After a reconnect the page gets kavet:changed with
   resync: true, so whatever was missed while the connection was down is fetched once.

   The server sends an `hb` event every 25 s while it has nothing else to say: a stream silent
  for SILENT_AFTER has stalled without an error (a connection dropped on the way without a
  word), and is given up as a failed one (the page polls, and opens another later).

  A stream that ends with a `bye` event was replaced by a newer one of the same tablet (more
   tabs open than the server allows, games/streamcap.py): this page polls from then on and
   does not reconnect, so two tabs never take turns closing each other.

   A stream refused (403: the child was signed out, in another tab or by the idle time) stops
   for good: the page goes to the sign-in (the live element's data-signin) and tells
   kavet:signed-out. */
(function () {
  "use strict";
  if (!window.EventSource) return;  // the page keeps polling as it always did
  var MAX_FAILURES = 3;     // failures in a row before the page is told to poll again
  var HELLO_WITHIN = 5000;  // ms after opening for the first event
  var RETRY_AFTER = 30000;  // ms before trying again once the stream was given up
  var SILENT_AFTER = 60000; // ms without any event (hb every 25 s) before the stream counts as stalled
  var source = null, url = null, failures = 0, state = "", heard = false, watched = false;
  var helloTimer = null, retryTimer = null, silentTimer = null;

  function tell(name, detail) {
    document.dispatchEvent(new CustomEvent(name, { detail: detail || {} }));
  }
  function setState(next, keptWatch) {
    keptWatch = !!keptWatch;
    if (state === next && (next !== "up" || watched === keptWatch)) return;
    state = next;
    watched = next === "up" && keptWatch;
    tell(next === "up" ? "kavet:stream-up" : "kavet:stream-down", { watched: watched });
  }
  // Any event says the stream is alive; none for SILENT_AFTER: stalled.
  function alive() {
    clearTimeout(silentTimer);
    silentTimer = setTimeout(function () {
      if (source) source.close();
      failed();
    }, SILENT_AFTER);
  }
  function streamUrl() {
    var el = document.querySelector("[data-stream]");
    return el ? el.getAttribute("data-stream") : null;
  }
  function stop() {
    clearTimeout(helloTimer); clearTimeout(retryTimer); clearTimeout(silentTimer);
    if (source) source.close();
    source = null;
  }
  // An EventSource never tells why it failed: asked once, a 403 is a tab whose child was
  // signed out (games/stream.py). It then stops for good and shows the sign-in, instead of
  // asking again every RETRY_AFTER for ever.
  function signedOut() {
    if (!window.fetch) return Promise.resolve(false);
    var asked = url;
    var ctl = window.AbortController ? new AbortController() : null;
    return fetch(asked, { credentials: "same-origin", signal: ctl ? ctl.signal : undefined })
      .then(function (r) { if (ctl) ctl.abort(); return r.status === 403; }, function () { return false; });
  }
  function goSignIn() {
    var el = document.querySelector("[data-stream]");
    var to = el && el.getAttribute("data-signin");
    stop();
    setState("down");
    tell("kavet:signed-out");
    if (to) window.location.assign(to);
    else window.location.reload();  // a staff page: its view answers with the sign-in
  }
  function failed() {
    failures++;
    if (!source || source.readyState === EventSource.CLOSED || failures >= MAX_FAILURES) {
      stop();  // give up for a while: the page polls
      setState("down");
      signedOut().then(function (out) {
        if (out) { goSignIn(); return; }
        clearTimeout(retryTimer);
        retryTimer = setTimeout(function () { failures = 0; open(); }, RETRY_AFTER);
      });
    }
    // else: the browser reconnects by itself after the server's `retry:`
  }

  function open() {
    url = streamUrl();
    if (!url) return;
    source = new EventSource(url);
    source.addEventListener("open", function () {
      clearTimeout(helloTimer);
      helloTimer = setTimeout(function () { if (source) source.close(); failed(); }, HELLO_WITHIN);
    });
    source.addEventListener("hello", function (ev) {
      var data = {};
      try { data = JSON.parse(ev.data) || {}; } catch (e) { data = {}; }
      clearTimeout(helloTimer);
      alive();
      failures = 0;
      if (heard) tell("kavet:changed", { version: null, resync: true });
      heard = true;
      setState("up", data.watched === true);
    });
    source.addEventListener("hb", alive);
    source.addEventListener("table", function (ev) {
      var data;
      alive();
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      tell("kavet:changed", data);
    });
    source.addEventListener("bye", function () {
      stop();  // no reconnect and no retry timer: polling keeps the page up to date
      setState("down");
    });
    source.addEventListener("error", function () {
      clearTimeout(helloTimer);
      failed();
    });
  }

  // The live element may be swapped by htmx with a new stream URL (a new token, another game).
  document.addEventListener("htmx:afterSettle", function () {
    var next = streamUrl();
    if (next !== url) { stop(); failures = 0; heard = false; if (next) open(); else setState("down"); }
  });
  window.addEventListener("pagehide", stop);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", open);
  else open();
})();
