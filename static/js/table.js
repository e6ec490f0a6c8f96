/* Kavet 'm eus: the game table's operation builder and its countdowns (htmx does the rest). */
(function () {
  "use strict";
  var SHOW = { "+": "+", "-": "−", "*": "×", "/": "÷", "^": "^", "(": "(", ")": ")", "=": "=" };
  var tokens = [];      // {card, label, kind} or {op}
  var xValues = {};     // X card id -> the number it stands for (R3.4)
  var pendingX = null;  // the X card waiting for its number
  var xEntry = "";
  var skew = 0;         // server clock minus this tablet's clock, for the countdowns

  function form() { return document.getElementById("move-form"); }
  function board() { return document.getElementById("board"); }

  function label(t) {
    if (t.card === undefined) return SHOW[t.op] || t.op;
    if (t.kind === "x") return "X(" + (xValues[t.card] === undefined ? "?" : xValues[t.card]) + ")";
    return t.label;
  }

  // R2.4: the running intermediate results, "8 − 5 = 3", computed from the left side.
  function valueOf(t) { return t.kind === "x" ? xValues[t.card] : Number(t.label); }
  function steps(list) {
    var pos = 0, out = [];
    function peek() { return list[pos]; }
    function isOp(t, ops) { return t && t.card === undefined && ops.indexOf(t.op) >= 0; }
    function base() {
      var t = peek();
      if (!t) throw "end";
      if (isOp(t, ["("])) { pos++; var v = expr(); if (!isOp(peek(), [")"])) throw "paren"; pos++; return v; }
      if (t.card === undefined) throw "op";
      pos++; return valueOf(t);
    }
    function binary(a, op, b) {
      var r = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : op === "/" ? a / b : Math.pow(a, b);
      var shown = Number.isInteger(r) ? String(r) : "≈ " + (Math.round(r * 100) / 100);
      out.push(a + " " + SHOW[op] + " " + b + " = " + shown);
      return r;
    }
    function factor() { var a = base(); if (isOp(peek(), ["^"])) { pos++; a = binary(a, "^", factor()); } return a; }
    function term() { var a = factor(); while (isOp(peek(), ["*", "/"])) { var op = peek().op; pos++; a = binary(a, op, factor()); } return a; }
    function expr() { var a = term(); while (isOp(peek(), ["+", "-"])) { var op = peek().op; pos++; a = binary(a, op, term()); } return a; }
    try { expr(); } catch (e) { /* an unfinished operation: show the steps made so far */ }
    return out;
  }

  function render() {
    var f = form();
    var used = {};
    tokens.forEach(function (t) { if (t.card !== undefined) used[t.card] = true; });
    document.querySelectorAll("#board .card[data-card]").forEach(function (b) {
      var on = !!used[b.dataset.card];
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.classList.toggle("is-used", on);
    });
    if (!f || !f.querySelector("input[name=tokens]")) return;
    var out = f.querySelector(".expr-text");
    out.textContent = tokens.length ? tokens.map(label).join(" ") : out.dataset.placeholder;
    out.classList.toggle("is-empty", !tokens.length);
    f.querySelector("input[name=tokens]").value = tokens.length ? JSON.stringify(tokens.map(function (t) {
      return t.card === undefined ? { op: t.op } : { card: Number(t.card) };
    })) : "";
    f.querySelector("input[name=x_values]").value = JSON.stringify(xValues);
    var list = f.querySelector(".expr-steps");
    list.innerHTML = "";
    if (board() && board().dataset.steps === "1") {
      var left = [];
      for (var i = 0; i < tokens.length && !(tokens[i].card === undefined && tokens[i].op === "="); i++) left.push(tokens[i]);
      steps(left).forEach(function (s) { var li = document.createElement("li"); li.textContent = s; list.appendChild(li); });
    }
    var pad = f.querySelector(".numpad");
    if (pad) {
      pad.hidden = pendingX === null;
      pad.querySelector(".numpad-value").textContent = xEntry || "…";
    }
  }

  function reset() { tokens = []; xValues = {}; pendingX = null; xEntry = ""; }

  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("#board button");
    if (!el || !form() || !form().querySelector("input[name=tokens]")) return;
    if (el.dataset.card !== undefined && !el.disabled) {
      if (tokens.some(function (t) { return String(t.card) === el.dataset.card; })) return;  // each card once (R3.1)
      if (el.dataset.kind === "x") { pendingX = el.dataset.card; xEntry = ""; }
      else tokens.push({ card: el.dataset.card, label: el.dataset.label, kind: el.dataset.kind });
    } else if (el.dataset.op) {
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

  function afterSwap() {
    var b = board();
    if (!b) return;
    skew = Number(b.dataset.now || Date.now()) - Date.now();
    var present = {};
    b.querySelectorAll(".card[data-card]").forEach(function (c) { present[c.dataset.card] = true; });
    var gone = tokens.some(function (t) { return t.card !== undefined && !present[t.card]; });
    if (b.dataset.applied === "1" || gone || !form() || !form().querySelector("input[name=tokens]")) {
      reset();
      var typed = document.querySelector(".typed-input");
      if (typed && b.dataset.applied === "1") typed.value = "";
    }
    render();
    tick();
  }

  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (c) {
      var left = Math.max(0, Math.ceil((Number(c.dataset.deadline) - (Date.now() + skew)) / 1000));
      var num = c.querySelector(".countdown-num");
      if (num && num.textContent !== String(left)) num.textContent = String(left);
      c.classList.toggle("is-low", left <= 3);
    });
  }

  document.addEventListener("htmx:afterSettle", afterSwap);
  document.addEventListener("DOMContentLoaded", afterSwap);
  setInterval(tick, 250);
})();
