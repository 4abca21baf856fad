// Two runs side by side: outcome, cost, time, checks, turns, and a line diff
// of their final artifacts. Everything is fetched from this site's data/.
(function () {
  "use strict";

  var out = document.getElementById("compare");
  var form = document.getElementById("compare-form");
  if (!out || !form || !window.fetch) return;
  var params = new URLSearchParams(window.location.search);
  var ids = [params.get("a"), params.get("b")];
  form.elements.a.value = ids[0] || "";
  form.elements.b.value = ids[1] || "";
  if (!ids[0] || !ids[1]) return;

  function el(tag, text, className) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  }
  function json(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(r.status + " for " + url);
      return r.json();
    });
  }
  // A run's record: data/<experiment>/runs/<run>.json, or gzipped in
  // <run>.json.gz when the site was built with --compress-records.
  function record(row) {
    var url = "data/" + row.experiment + "/runs/" + row.id + ".json";
    if (!out.hasAttribute("data-records-gzipped")) return json(url);
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot decompress gzip (no DecompressionStream)"));
    }
    return fetch(url + ".gz").then(function (gz) {
      if (!gz.ok) throw new Error(gz.status + " for " + url + ".gz");
      return new Response(gz.body.pipeThrough(new DecompressionStream("gzip"))).json();
    });
  }
  function text(url) {
    return fetch(url).then(function (r) { return r.ok ? r.text() : ""; });
  }

  // Finds each run's experiment in the runs index, then loads its record.
  function findRows() {
    var found = {};
    function part(i) {
      return json("runs/rows-" + i + ".json").then(function (data) {
        data.rows.forEach(function (values) {
          var row = {};
          data.columns.forEach(function (c, j) { row[c] = values[j]; });
          if (ids.indexOf(row.id) >= 0) found[row.id] = row;
        });
        if (found[ids[0]] && found[ids[1]]) return found;
        return part(i + 1);
      });
    }
    return part(1);
  }

  // The longest common subsequence of lines, as a list of [kind, line].
  function diff(a, b) {
    var n = a.length, m = b.length, i, j;
    var t = [];
    for (i = 0; i <= n; i++) { t.push(new Array(m + 1).fill(0)); }
    for (i = n - 1; i >= 0; i--) {
      for (j = m - 1; j >= 0; j--) {
        t[i][j] = a[i] === b[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
      }
    }
    var result = [];
    i = 0; j = 0;
    while (i < n && j < m) {
      if (a[i] === b[j]) { result.push([" ", a[i]]); i++; j++; }
      else if (t[i + 1][j] >= t[i][j + 1]) { result.push(["-", a[i]]); i++; }
      else { result.push(["+", b[j]]); j++; }
    }
    for (; i < n; i++) result.push(["-", a[i]]);
    for (; j < m; j++) result.push(["+", b[j]]);
    return result;
  }

  function lastArtifact(run) {
    var found = null;
    run.attempts.forEach(function (a) { if (a.artifact) found = a.artifact; });
    return found;
  }

  function column(row, run) {
    var col = el("section", undefined, "compare-col");
    var h = el("h2");
    var link = el("a", row.id);
    link.href = "runs/" + row.id + ".html";
    h.appendChild(link);
    col.appendChild(h);
    var facts = el("dl", undefined, "facts");
    [["Policy", row.policy], ["Tiers tried", row.tiers], ["Outcome (recomputed)", row.passed ? "passed" : "failed"],
     ["Cost", "$" + row.cost_low.toFixed(4) + (row.cost_low === row.cost_high ? "" : "–" + row.cost_high.toFixed(4))],
     ["Time", row.time_s.toFixed(1) + " s"]].forEach(function (f) {
      facts.appendChild(el("dt", f[0]));
      facts.appendChild(el("dd", f[1]));
    });
    col.appendChild(facts);
    col.appendChild(el("h3", "Checks of the last attempt (recorded)"));
    var checks = el("ul");
    var last = run.attempts[run.attempts.length - 1];
    (last ? last.checks : []).forEach(function (c) {
      checks.appendChild(el("li", (c.passed ? "✓ " : "✗ ") + c.check + ": " + c.detail, c.passed ? "pass" : "fail"));
    });
    col.appendChild(checks);
    col.appendChild(el("h3", "Turns"));
    var turns = el("ol");
    run.attempts.forEach(function (a, i) {
      a.turns.forEach(function (t) {
        turns.appendChild(el("li", "attempt " + (i + 1) + " (" + a.tier + "): " + t.action.tool + " " + (t.action.args === null ? "" : JSON.stringify(t.action.args)) + " — " + t.permission.decision));
      });
    });
    col.appendChild(turns);
    return col;
  }

  findRows().then(function (rows) {
    var a = rows[ids[0]], b = rows[ids[1]];
    return Promise.all([
      record(a),
      record(b)
    ]).then(function (runs) {
      var fa = lastArtifact(runs[0]), fb = lastArtifact(runs[1]);
      return Promise.all([
        fa ? text("data/objects/" + fa.sha256) : Promise.resolve(""),
        fb ? text("data/objects/" + fb.sha256) : Promise.resolve("")
      ]).then(function (artifacts) {
        out.textContent = "";
        if (a.task !== b.task) out.appendChild(el("p", "These runs are of different tasks (" + a.task + ", " + b.task + ").", "fail"));
        var grid = el("div", undefined, "compare-grid");
        grid.appendChild(column(a, runs[0]));
        grid.appendChild(column(b, runs[1]));
        out.appendChild(grid);
        out.appendChild(el("h2", "Artifacts, line by line"));
        var pre = el("pre", undefined, "diff");
        diff(artifacts[0].split("\n"), artifacts[1].split("\n")).forEach(function (d) {
          pre.appendChild(el("span", d[0] + " " + d[1] + "\n", d[0] === "+" ? "added" : d[0] === "-" ? "removed" : ""));
        });
        out.appendChild(pre);
        out.dataset.status = "ready";
      });
    });
  }).catch(function (e) {
    out.textContent = "These runs could not be compared: " + e.message;
    out.dataset.status = "error";
  });
})();
