// The replay of a run on the compact page of a site of many runs: each
// attempt's turns beside the provider calls that produced them, and its
// messages, drawn from the run's gzipped record. Every recorded text is set
// as text, never as markup.
(function () {
  "use strict";

  var out = document.getElementById("replay");
  if (!out || !window.fetch) return;

  function el(tag, text, className) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  }
  function row(cells, head) {
    var tr = el("tr");
    cells.forEach(function (c, i) {
      var cell = el(head ? "th" : i === 0 ? "th" : "td");
      if (head) cell.scope = "col";
      else if (i === 0) cell.scope = "row";
      if (c instanceof Node) cell.appendChild(c);
      else cell.textContent = c === undefined || c === null ? "" : String(c);
      tr.appendChild(cell);
    });
    return tr;
  }
  function code(text) { return el("code", text); }
  function objectLink(sha256, label) {
    var a = el("a", label || "object " + sha256.slice(0, 12));
    a.href = out.dataset.objects + sha256;
    return a;
  }
  // Each attempt's call names, in the record's order, as the page names
  // the calls of a run recorded on the wire ("chat completion 2 (model)").
  var callNames = [];
  try { callNames = JSON.parse(out.dataset.callNames || "[]"); } catch (e) { callNames = []; }
  function json(value) { return value === undefined || value === null ? "" : JSON.stringify(value); }
  function scroll(table) {
    var div = el("div", undefined, "scroll");
    div.tabIndex = 0;
    div.setAttribute("role", "region");
    div.setAttribute("aria-label", "Scrollable table");
    div.appendChild(table);
    return div;
  }

  // The record, gunzipped when its name says so.
  function record(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error(r.status + " for " + url);
      if (!/\.gz$/.test(url)) return r.json();
      if (typeof DecompressionStream === "undefined") {
        throw new Error("this browser cannot decompress gzip (no DecompressionStream)");
      }
      return new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).json();
    });
  }

  // The fragment of row `step` of attempt `index` (both from 0), as the
  // full run page names it.
  function anchor(index, step) {
    return index === 0 ? "turn-" + (step + 1) : "attempt-" + (index + 1) + "-turn-" + (step + 1);
  }

  // Each turn with the first call of its request id not yet shown, in turn
  // order; then the calls no turn names.
  function steps(attempt) {
    var calls = attempt.calls || [];
    var shown = calls.map(function () { return false; });
    var list = (attempt.turns || []).map(function (turn) {
      var i = -1;
      for (var k = 0; k < calls.length; k++) {
        if (!shown[k] && calls[k].request_id === turn.call) { i = k; break; }
      }
      if (i >= 0) shown[i] = true;
      return { turn: turn, call: i >= 0 ? calls[i] : null, at: i };
    });
    calls.forEach(function (c, k) { if (!shown[k]) list.push({ turn: null, call: c, at: k }); });
    return list;
  }

  function result(turn) {
    var r = turn.result;
    if (!r) return "";
    var span = el("span", (r.ok === false ? "✗ " : "→ ") + (typeof r.text === "string" ? r.text : ""));
    if (r.sha256) span.appendChild(objectLink(r.sha256));
    return span;
  }

  function turnsTable(attempt, index) {
    var table = el("table", undefined, "steps");
    var thead = el("thead");
    thead.appendChild(row(["#", "Action", "Permission", "Result", "Request", "Model requested", "Started", "Latency", "Prompt", "Completion", "Finish", "Status"], true));
    table.appendChild(thead);
    var body = el("tbody");
    var names = callNames[index] || [];
    steps(attempt).forEach(function (s, i) {
      var t = s.turn, c = s.call;
      var action = el("span");
      if (t) {
        action.appendChild(el("strong", t.action && t.action.tool));
        if (t.action && t.action.args !== undefined && t.action.args !== null) {
          action.appendChild(document.createTextNode(" "));
          action.appendChild(code(json(t.action.args)));
        }
      } else if (c && c.wire && typeof names[s.at] === "string") {
        action.textContent = names[s.at];
      } else {
        action.appendChild(el("span", "a call no turn names", "muted"));
      }
      var permission = t && t.permission ? t.permission.decision + (t.permission.reason ? ": " + t.permission.reason : "") : "";
      var usage = c && c.usage;
      var tr = row([
        String(i + 1), action, permission, t ? result(t) : "",
        c ? code(c.request_id) : "no call", c ? code(c.model_requested) : "",
        c ? c.started_at : "", c ? c.latency_ms + " ms" : "",
        usage ? usage.prompt_tokens : c ? "usage lost" : "", usage ? usage.completion_tokens : "",
        c ? c.finish_reason || "none" : "", c ? c.status : ""
      ]);
      tr.id = anchor(index, i);
      body.appendChild(tr);
    });
    table.appendChild(body);
    return scroll(table);
  }

  function messages(attempt) {
    var list = el("ol", undefined, "messages");
    (attempt.messages || []).forEach(function (m) {
      var li = el("li", undefined, "message " + (m.role || ""));
      li.appendChild(el("strong", m.role));
      if (m.turn !== undefined && m.turn !== null) li.appendChild(document.createTextNode(" · turn " + (m.turn + 1)));
      if (m.call) {
        li.appendChild(document.createTextNode(" · call "));
        li.appendChild(code(m.call));
      }
      if (m.reasoning) {
        var folded = el("details", undefined, "reasoning");
        folded.appendChild(el("summary", "Reasoning (" + m.reasoning.length + " character" + (m.reasoning.length === 1 ? "" : "s") + "): untrusted text, shown inert"));
        var r = el("pre", undefined, "untrusted");
        r.appendChild(code(m.reasoning));
        folded.appendChild(r);
        li.appendChild(folded);
      }
      if (m.text !== undefined && m.text !== null) {
        var pre = el("pre", undefined, "untrusted");
        pre.appendChild(code(m.text));
        li.appendChild(pre);
      }
      if (m.sha256) {
        var p = el("p", "→ ");
        p.appendChild(objectLink(m.sha256));
        li.appendChild(p);
      }
      list.appendChild(li);
    });
    return list;
  }

  function checks(attempt) {
    var ul = el("ul", undefined, "checks");
    (attempt.checks || []).forEach(function (c) {
      ul.appendChild(el("li", (c.passed ? "✓ " : "✗ ") + c.check + (c.detail ? ": " + c.detail : ""), c.passed ? "pass" : "fail"));
    });
    return ul;
  }

  function draw(run) {
    out.textContent = "";
    out.appendChild(el("p", "Each attempt's turns, provider calls and messages as the record holds them: untrusted text, shown inert. Verifying this page holds the record to the digest below."));
    (run.attempts || []).forEach(function (a, i) {
      var section = el("section", undefined, "attempt");
      var h = el("h3", "Attempt " + (i + 1) + ": " + a.tier);
      h.id = "attempt-" + (i + 1);
      section.appendChild(h);
      var end = a.end || {};
      section.appendChild(el("p", "Started " + a.started_at + ", " + (a.duration_ms / 1000).toFixed(1) + " s. Ended: " + (end.reason || "not recorded") + (end.message ? ": " + end.message : "") + "."));
      section.appendChild(el("h4", "Turns and provider calls"));
      section.appendChild(turnsTable(a, i));
      if (a.messages && a.messages.length) {
        var details = el("details", undefined, "transcript");
        details.appendChild(el("summary", "Transcript (" + a.messages.length + " message" + (a.messages.length === 1 ? "" : "s") + "): untrusted text, shown inert"));
        details.appendChild(messages(a));
        section.appendChild(details);
      }
      section.appendChild(el("h4", "Checks, as recorded"));
      section.appendChild(checks(a));
      out.appendChild(section);
    });
    out.dataset.status = "ready";
    // A link to a turn or an attempt names a row drawn only now.
    if (window.location.hash) {
      var target = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }

  out.dataset.status = "loading";
  // The record is the one the page links (its Record).
  var link = document.getElementById("record-link");
  record(out.dataset.record || (link ? link.getAttribute("href") : "")).then(draw).catch(function (e) {
    out.textContent = "";
    out.appendChild(el("p", "The replay could not be drawn: " + e.message, "fail"));
    out.dataset.status = "error";
  });
})();
