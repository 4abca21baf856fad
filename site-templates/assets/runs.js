// Filters and sorting for the runs index. The table on the page is complete
// without JavaScript (paged); this script loads the whole index, in parts (a
// few at a time, once a filter is first used), and shows the runs that match
// the filters in the address (?task=…&sort=…).
(function () {
  "use strict";

  var form = document.getElementById("run-filters");
  var table = document.querySelector("table.runs");
  if (!form || !table || !window.fetch || !window.URLSearchParams) return;
  var body = table.tBodies[0];
  var caption = table.caption;
  var count = document.getElementById("run-count");
  var pager = document.querySelector("nav.pages");
  var root = form.dataset.root;
  var parts = form.dataset.parts.split(" ").filter(Boolean);
  var SHOWN = 500;
  var FILTERS = ["q", "experiment", "task", "profile", "seed", "policy", "tier", "outcome"];
  var rows = null;
  form.hidden = false;

  function params() {
    return new URLSearchParams(window.location.search);
  }

  // Filters from the address into the form, and back.
  function readAddress() {
    var p = params();
    FILTERS.forEach(function (name) { form.elements[name].value = p.get(name) || ""; });
    form.elements.truncated.checked = p.get("truncated") === "1";
    form.elements.lost.checked = p.get("lost") === "1";
  }
  function writeAddress(sort, dir) {
    var p = new URLSearchParams();
    FILTERS.forEach(function (name) { if (form.elements[name].value) p.set(name, form.elements[name].value); });
    if (form.elements.truncated.checked) p.set("truncated", "1");
    if (form.elements.lost.checked) p.set("lost", "1");
    if (sort) { p.set("sort", sort); p.set("dir", dir); }
    var query = p.toString();
    window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : ""));
  }

  // Reads one part of the index into rows, each with what the search reads.
  function read(data) {
    var models = data.models || {};
    return data.rows.map(function (values) {
      var row = {};
      data.columns.forEach(function (c, i) { row[c] = values[i]; });
      var tiers = models[row.experiment] || {};
      // What the search reads, lower-cased once: the models of the tiers tried too.
      row.hay = [row.id, row.experiment, row.task, row.profile, "s" + row.seed, row.policy, row.tiers,
        row.tiers.split(" → ").map(function (t) { return tiers[t] || ""; }).join(" "),
        row.passed ? "passed" : "failed", row.truncated ? "truncated" : "", row.lost_usage ? "usage lost" : ""].join(" ").toLowerCase();
      return row;
    });
  }

  // The parts are fetched a few at a time and kept in their order.
  var AT_ONCE = 6;
  function load() {
    if (rows) return Promise.resolve(rows);
    count.textContent = "Loading the index…";
    var read_parts = new Array(parts.length);
    var next = 0;
    function worker() {
      if (next >= parts.length) return Promise.resolve();
      var i = next++;
      return fetch(root + parts[i])
        .then(function (r) {
          if (!r.ok) throw new Error(parts[i] + ": HTTP " + r.status);
          return r.json();
        })
        .then(function (data) { read_parts[i] = read(data); })
        .then(worker);
    }
    var workers = [];
    for (var w = 0; w < Math.min(AT_ONCE, parts.length); w++) workers.push(worker());
    return Promise.all(workers).then(function () {
      rows = [].concat.apply([], read_parts);
      return rows;
    });
  }

  // The filters as they stand, as one test of a row: the form is read once
  // per search, not once per row.
  function matcher() {
    var f = form.elements;
    var words = f.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var v = {};
    ["experiment", "task", "profile", "seed", "policy", "tier", "outcome"].forEach(function (name) { v[name] = f[name].value; });
    var truncated = f.truncated.checked, lost = f.lost.checked;
    return function (r) {
      for (var i = 0; i < words.length; i++) if (r.hay.indexOf(words[i]) < 0) return false;
      return (!v.experiment || r.experiment === v.experiment)
        && (!v.task || r.task === v.task)
        && (!v.profile || r.profile === v.profile)
        && (!v.seed || String(r.seed) === v.seed)
        && (!v.policy || r.policy === v.policy)
        && (!v.tier || r.tiers.split(" → ").indexOf(v.tier) >= 0)
        && (!v.outcome || (v.outcome === "passed") === r.passed)
        && (!truncated || r.truncated)
        && (!lost || r.lost_usage);
    };
  }

  function cell(tr, content, className) {
    var td = document.createElement("td");
    td.textContent = content;
    if (className) td.className = className;
    tr.appendChild(td);
  }

  function render(list) {
    body.textContent = "";
    list.slice(0, SHOWN).forEach(function (r) {
      var tr = document.createElement("tr");
      var th = document.createElement("th");
      th.scope = "row";
      var a = document.createElement("a");
      a.href = root + "runs/" + r.id + ".html";
      a.textContent = r.id;
      th.appendChild(a);
      tr.appendChild(th);
      [r.experiment, r.task, r.profile, String(r.seed), r.policy, r.tiers].forEach(function (v) { cell(tr, v); });
      cell(tr, (r.passed ? "passed" : "failed") + (r.truncated ? " · truncated" : "") + (r.lost_usage ? " · usage lost" : ""), r.passed ? "pass" : "fail");
      cell(tr, ReceiptsView.usd(r.cost_low, r.cost_high));
      cell(tr, r.time_s.toFixed(1) + " s");
      cell(tr, r.replaces);
      cell(tr, r.verified === "pass" ? "✓" : r.verified === "fail" ? "✗" : "?", r.verified);
      body.appendChild(tr);
    });
    var shown = Math.min(list.length, SHOWN);
    count.textContent = list.length + " of " + rows.length + " runs match" + (list.length > SHOWN ? "; the first " + SHOWN + " are shown" : "");
    caption.textContent = shown + (shown === 1 ? " run" : " runs") + " shown of " + list.length + " that match the filters";
    if (pager) pager.hidden = true;
  }

  function apply() {
    var p = params();
    var sort = p.get("sort"), dir = p.get("dir") === "desc" ? -1 : 1;
    return load().then(function (all) {
      var list = all.filter(matcher());
      if (sort) {
        list.sort(function (a, b) {
          var x = a[sort], y = b[sort];
          return (x < y ? -1 : x > y ? 1 : 0) * dir;
        });
      }
      render(list);
      table.querySelectorAll("th[data-key]").forEach(function (th) {
        th.setAttribute("aria-sort", th.dataset.key === sort ? (dir > 0 ? "ascending" : "descending") : "none");
      });
    }).catch(function (e) { count.textContent = "The index could not be loaded: " + e.message; });
  }

  // Column headers become sort buttons.
  table.querySelectorAll("th[data-key]").forEach(function (th) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", function () {
      var p = params();
      var dir = p.get("sort") === th.dataset.key && p.get("dir") !== "desc" ? "desc" : "asc";
      writeAddress(th.dataset.key, dir);
      apply();
    });
  });

  form.addEventListener("change", function () {
    var p = params();
    writeAddress(p.get("sort"), p.get("dir") || "asc");
    apply();
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  // The search applies as one types, once typing pauses.
  var typing = null;
  form.elements.q.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(function () {
      var p = params();
      writeAddress(p.get("sort"), p.get("dir") || "asc");
      apply();
    }, 150);
  });

  readAddress();
  if (window.location.search) apply();
})();
