// Two runs side by side: outcome, cost, time, checks, turns, and a line diff
// of their final artifacts. Everything is fetched from this site's data/.
(function () {
  "use strict";

  var out = document.getElementById("compare");
  var form = document.getElementById("compare-form");
  if (!out || !form || !window.fetch) return;
  var params = new URLSearchParams(window.location.search);
  var ids = [params.get("a"), params.get("b")];
  var parts = (form.dataset.parts || "").split(" ").filter(Boolean);
  var SUGGESTED = 20;
  form.elements.a.value = ids[0] || "";
  form.elements.b.value = ids[1] || "";

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
  // A run's record, where the page says the site publishes it (the
  // verification core's layout): gzipped when the site was built with
  // --compress-records.
  function record(row) {
    var url = out.dataset.runRecord
      .replace("{experiment}", function () { return row.experiment; })
      .replace("{run}", function () { return row.id; });
    if (!out.hasAttribute("data-records-gzipped")) return json(url);
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot decompress gzip (no DecompressionStream)"));
    }
    return fetch(url).then(function (gz) {
      if (!gz.ok) throw new Error(gz.status + " for " + url);
      return new Response(gz.body.pipeThrough(new DecompressionStream("gzip"))).json();
    });
  }
  function text(url) {
    return fetch(url).then(function (r) { return r.ok ? r.text() : ""; });
  }

  // The runs index, every part, loaded once when first needed.
  var loading = null;
  function allRows() {
    if (loading) return loading;
    var rows = [];
    loading = parts.reduce(function (chain, path) {
      return chain.then(function () {
        return json(path).then(function (data) {
          data.rows.forEach(function (values) {
            var row = {};
            data.columns.forEach(function (c, j) { row[c] = values[j]; });
            row.hay = (row.id + " " + row.task + " " + row.policy + " " + row.profile + " " + row.experiment).toLowerCase();
            rows.push(row);
          });
        });
      });
    }, Promise.resolve()).then(function () { return rows; });
    return loading;
  }

  // The runs whose id, task, policy or profile hold every word typed.
  function matching(rows, typed, limit) {
    var words = typed.toLowerCase().split(/\s+/).filter(Boolean);
    var out = [];
    for (var i = 0; i < rows.length && out.length < limit; i++) {
      if (words.every(function (w) { return rows[i].hay.indexOf(w) >= 0; })) out.push(rows[i]);
    }
    return out;
  }

  // Edits (insertions, deletions, substitutions) from `a` to `b`.
  function distance(a, b) {
    var row = [];
    for (var j = 0; j <= b.length; j++) row.push(j);
    for (var i = 1; i <= a.length; i++) {
      var diagonal = row[0];
      row[0] = i;
      for (var k = 1; k <= b.length; k++) {
        var above = row[k];
        row[k] = Math.min(row[k] + 1, row[k - 1] + 1, diagonal + (a[i - 1] === b[k - 1] ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length];
  }

  // The runs nearest an unknown id: those with most parts of the id in
  // common (one pass over the index), then the fewest edits away.
  function nearest(rows, id, limit) {
    var lower = id.toLowerCase();
    var wanted = lower.split(/[^a-z0-9]+/).filter(Boolean);
    return rows.map(function (r) {
      var have = r.id.toLowerCase().split(/[^a-z0-9]+/);
      return [wanted.filter(function (w) { return have.indexOf(w) >= 0; }).length, r];
    }).filter(function (s) { return s[0] > 0; }).sort(function (x, y) {
      return y[0] - x[0];
    }).slice(0, 50).map(function (s) {
      return [s[0], distance(lower, s[1].id.toLowerCase()), s[1]];
    }).sort(function (x, y) {
      return y[0] - x[0] || x[1] - y[1] || (x[2].id < y[2].id ? -1 : 1);
    }).slice(0, limit).map(function (s) { return s[2]; });
  }

  // Suggestions as one types, from the whole index.
  var list = document.getElementById("run-ids");
  var timer = null;
  ["a", "b"].forEach(function (name) {
    form.elements[name].addEventListener("input", function (e) {
      var typed = e.target.value;
      clearTimeout(timer);
      timer = setTimeout(function () {
        allRows().then(function (rows) {
          list.textContent = "";
          matching(rows, typed, SUGGESTED).forEach(function (r) {
            var option = el("option");
            option.value = r.id;
            option.label = r.experiment + " · " + r.task + " · " + r.policy + " · " + (r.passed ? "passed" : "failed");
            list.appendChild(option);
          });
        });
      }, 120);
    });
  });
  if (!ids[0] || !ids[1]) return;

  // Each run's row of the index; an id the index does not hold is named,
  // with the runs nearest it.
  function findRows() {
    return allRows().then(function (rows) {
      var found = {};
      rows.forEach(function (r) { if (ids.indexOf(r.id) >= 0) found[r.id] = r; });
      var missing = ids.filter(function (id) { return !found[id]; });
      if (missing.length) throw { unknown: missing, rows: rows };
      return found;
    });
  }

  function unknown(missing, rows) {
    out.textContent = "";
    missing.forEach(function (id) {
      out.appendChild(el("p", "This site has no run “" + id + "”.", "fail"));
      var near = nearest(rows, id, 5);
      if (!near.length) return;
      out.appendChild(el("p", "Runs with the most of that id in common:"));
      var ul = el("ul", undefined, "suggestions");
      near.forEach(function (r) {
        var li = el("li");
        var a = el("a", r.id);
        var p = new URLSearchParams();
        p.set("a", ids[0] === id ? r.id : ids[0]);
        p.set("b", ids[1] === id ? r.id : ids[1]);
        a.href = "compare.html?" + p.toString();
        li.appendChild(a);
        li.appendChild(document.createTextNode(" (" + r.task + ", " + r.policy + ")"));
        ul.appendChild(li);
      });
      out.appendChild(ul);
    });
    out.dataset.status = "unknown";
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
    var calls = [];
    run.attempts.forEach(function (a) { (a.calls || []).forEach(function (c) { calls.push(c); }); });
    var sum = function (key) {
      var known = calls.filter(function (c) { return c.usage; });
      var total = known.reduce(function (n, c) { return n + (c.usage[key] || 0); }, 0);
      return total.toLocaleString("en-US") + (known.length < calls.length ? " (" + (calls.length - known.length) + " calls with usage lost)" : "");
    };
    var truncated = calls.filter(function (c) { return c.finish_reason === "length"; }).length;
    var models = [];
    calls.forEach(function (c) { if (c.model_requested && models.indexOf(c.model_requested) < 0) models.push(c.model_requested); });
    [["Experiment", row.experiment], ["Task", row.task], ["Profile, seed", row.profile + ", " + row.seed],
     ["Policy", row.policy], ["Tiers tried", row.tiers], ["Models", models.join(", ") || "none"],
     ["Outcome (recomputed)", row.passed ? "passed" : "failed"],
     ["Attempts", String(run.attempts.length)], ["Provider calls", String(calls.length)],
     ["Truncated calls", String(truncated) + (row.truncated ? " (the run was cut short)" : "")],
     ["Prompt tokens", sum("prompt_tokens")], ["Completion tokens", sum("completion_tokens")],
     ["Cost", ReceiptsView.usd(row.cost_low, row.cost_high)],
     ["Time", row.time_s.toFixed(1) + " s"], ["Receipts", row.verified === "pass" ? "✓ all agree" : row.verified === "fail" ? "✗ some do not agree" : "? some could not be checked"]].forEach(function (f) {
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
        fa ? text(out.dataset.objects + fa.sha256) : Promise.resolve(""),
        fb ? text(out.dataset.objects + fb.sha256) : Promise.resolve("")
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
    if (e && e.unknown) return unknown(e.unknown, e.rows);
    out.textContent = "These runs could not be compared: " + e.message;
    out.dataset.status = "error";
  });
})();
