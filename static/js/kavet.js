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

  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail && event.detail.elt;
    var hold = el && el.dataset ? el.dataset.pollHold : null;
    if (hold && el.querySelector(hold)) event.preventDefault();
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
