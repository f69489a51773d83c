// The invoices page: "select all" for the order checkboxes, and the progress of a bulk
// regeneration job, read from the job's progress URL until every order is done. The job runs
// in the workers; this page only watches it (leaving the page does not stop it).
(function () {
  "use strict";
  var all = document.getElementById("inv-select-all");
  if (all) {
    all.addEventListener("change", function () {
      document.querySelectorAll("input[name=order_id]").forEach(function (box) { box.checked = all.checked; });
    });
  }
  var panel = document.getElementById("inv-job");
  if (!panel) { return; }
  var url = panel.dataset.progressUrl;
  var bar = document.getElementById("inv-job-bar");
  var label = document.getElementById("inv-job-label");
  var errors = document.getElementById("inv-job-errors");
  var POLL_MS = 500;

  function show(p) {
    bar.max = p.total || 1;
    bar.value = p.total ? p.done : 1;
    panel.dataset.percent = String(p.percent);
    panel.dataset.finished = p.finished ? "true" : "false";
    label.textContent = p.done + " of " + p.total + " orders (" + p.percent + " %)" +
      (p.failed ? ", " + p.failed + " failed" : "") + (p.finished ? ": done." : "…");
    while (errors.firstChild) { errors.removeChild(errors.firstChild); }
    p.errors.forEach(function (e) {
      var li = document.createElement("li");
      li.textContent = "Order " + e.order_id + ": " + e.error;
      errors.appendChild(li);
    });
    if (p.finished) { document.getElementById("inv-job-reload").hidden = false; }
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (p) {
        if (p) { show(p); }
        if (!p || !p.finished) { setTimeout(poll, POLL_MS); }
      })
      .catch(function () { setTimeout(poll, POLL_MS * 4); });
  }
  poll();
})();
