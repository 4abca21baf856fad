// Filters and sorting for the runs index. The table on the page is complete
// without JavaScript (paged); this script loads the whole index, in parts, and
// shows the runs that match the filters in the address (?task=…&sort=…).
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

  function load() {
    if (rows) return Promise.resolve(rows);
    count.textContent = "Loading the index…";
    var all = [];
    // Parts load one after another so the first results can be counted early.
    return parts.reduce(function (chain, part) {
      return chain.then(function () {
        return fetch(root + part).then(function (r) { return r.json(); }).then(function (data) {
          var models = data.models || {};
          data.rows.forEach(function (values) {
            var row = {};
            data.columns.forEach(function (c, i) { row[c] = values[i]; });
            var tiers = models[row.experiment] || {};
            // What the search reads, lower-cased once: the models of the tiers tried too.
            row.hay = [row.id, row.experiment, row.task, row.profile, "s" + row.seed, row.policy, row.tiers,
              row.tiers.split(" → ").map(function (t) { return tiers[t] || ""; }).join(" "),
              row.passed ? "passed" : "failed", row.truncated ? "truncated" : "", row.lost_usage ? "usage lost" : ""].join(" ").toLowerCase();
            all.push(row);
          });
        });
      });
    }, Promise.resolve()).then(function () { rows = all; return rows; });
  }

  function matches(r) {
    var f = form.elements;
    var words = f.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    return words.every(function (w) { return r.hay.indexOf(w) >= 0; })
      && (!f.experiment.value || r.experiment === f.experiment.value)
      && (!f.task.value || r.task === f.task.value)
      && (!f.profile.value || r.profile === f.profile.value)
      && (!f.seed.value || String(r.seed) === f.seed.value)
      && (!f.policy.value || r.policy === f.policy.value)
      && (!f.tier.value || r.tiers.split(" → ").indexOf(f.tier.value) >= 0)
      && (!f.outcome.value || (f.outcome.value === "passed") === r.passed)
      && (!f.truncated.checked || r.truncated)
      && (!f.lost.checked || r.lost_usage);
  }

  function cell(tr, content, className) {
    var td = document.createElement("td");
    td.textContent = content;
    if (className) td.className = className;
    tr.appendChild(td);
  }

  function money(r) {
    var low = "$" + r.cost_low.toFixed(4);
    return r.cost_low === r.cost_high ? low : low + "–" + r.cost_high.toFixed(4);
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
      cell(tr, money(r));
      cell(tr, r.time_s.toFixed(1) + " s");
      cell(tr, r.replaces);
      cell(tr, r.verified === "pass" ? "✓" : r.verified === "fail" ? "✗" : "?", r.verified);
      body.appendChild(tr);
    });
    var shown = Math.min(list.length, SHOWN);
    count.textContent = list.length + " of " + rows.length + " runs match" + (list.length > SHOWN ? "; the first " + SHOWN + " are shown" : "");
    caption.textContent = shown + " runs shown of " + list.length + " that match the filters";
    if (pager) pager.hidden = true;
  }

  function apply() {
    var p = params();
    var sort = p.get("sort"), dir = p.get("dir") === "desc" ? -1 : 1;
    return load().then(function (all) {
      var list = all.filter(matches);
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
