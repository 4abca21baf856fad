// Verify in the browser: recompute this page's receipts (or the whole site's)
// with the receipts verifier compiled to WebAssembly, in a Web Worker.
// Nothing is uploaded: every file is fetched from this site and checked here.

// How a result is shown: the outcome in words and in `data-status`
// (`verified`, `failed`, `unchecked` when nothing failed but something could
// not be checked or anchored, `error`), every receipt that did not pass, and
// all of them when there are few. The standalone verifier shows its results
// with the same code.
var ReceiptsView = (function () {
  "use strict";

  function text(tag, content, className) {
    var el = document.createElement(tag);
    el.textContent = content;
    if (className) el.className = className;
    return el;
  }

  function setStatus(summary, status, checked, failed, message) {
    summary.dataset.status = status;
    summary.dataset.checked = String(checked);
    summary.dataset.failed = String(failed);
    summary.textContent = message;
  }

  function show(summary, results, result) {
    results.textContent = "";
    var t = result.tally;
    var checked = t.pass + t.fail + t.could_not_check;
    var status = t.fail > 0 ? "failed" : t.could_not_check > 0 ? "unchecked" : "verified";
    var message = status === "verified"
      ? "Verified: all " + t.pass + " receipts recomputed in this browser agree."
      : status === "failed"
        ? "Failed: " + t.fail + " of " + checked + " receipts do not agree with what was recomputed."
        : "Nothing failed, but " + t.could_not_check + " of " + checked + " receipts could not be checked or anchored: see them below.";
    // The same account of the total as `receipts verify` gives.
    if (result.kinds) message += " The " + checked + ": " + result.kinds + ".";
    if (status !== "failed" && !result.pinned) {
      message += " No root digest was pinned: this shows the site is consistent, not that it is the one you were pointed to.";
    }
    if (result.root_digest) {
      results.appendChild(text("p", "Root digest (SHA-256 of SHA256SUMS): " + result.root_digest, "digest"));
    }
    var notPassing = result.not_passing;
    if (notPassing.length) {
      var list = document.createElement("ul");
      list.className = "verify-failures";
      notPassing.forEach(function (r) {
        var item = document.createElement("li");
        item.dataset.subject = r.subject;
        item.dataset.status = r.status;
        item.appendChild(text("strong", (r.status === "fail" ? "✗ " : "? ") + r.subject + ": " + r.claim));
        item.appendChild(text("span", " recorded " + r.recorded + "; recomputed " + r.recomputed));
        (r.evidence || []).filter(function (e) { return !e.passed; }).slice(0, 5).forEach(function (e) {
          item.appendChild(text("div", e.item + ": expected " + e.expected + ", got " + e.got, "evidence"));
        });
        list.appendChild(item);
      });
      results.appendChild(list);
    }
    if (result.receipts) {
      var all = document.createElement("details");
      all.appendChild(text("summary", "All " + result.count + " receipts"));
      var table = document.createElement("ul");
      table.className = "verify-all";
      result.receipts.forEach(function (r) {
        var mark = r.status === "pass" ? "✓ " : r.status === "fail" ? "✗ " : "? ";
        table.appendChild(text("li", mark + r.subject + ": " + r.claim + ": " + r.recomputed, r.status));
      });
      all.appendChild(table);
      results.appendChild(all);
    }
    setStatus(summary, status, checked, t.fail, message);
  }

  // A pin given in the address (`#root=` or `?root=`), as written: the
  // verifier refuses anything that is not a digest ("invalid pin").
  function pinIn(location) {
    var m = /(?:^#|&)root=([^&]*)/.exec(location.hash) || /(?:^\?|&)root=([^&]*)/.exec(location.search);
    if (!m) return null;
    try {
      return decodeURIComponent(m[1]);
    } catch (e) {
      return m[1];
    }
  }

  // The worker's progress message, on the progress bar and in the summary.
  function progress(summary, bar, m) {
    bar.max = m.total;
    bar.value = m.done;
    summary.textContent = "Verifying… " + m.done + " of " + m.total + " files";
  }

  return { show: show, setStatus: setStatus, text: text, pinIn: pinIn, progress: progress };
})();

(function () {
  "use strict";

  var panel = document.getElementById("verify");
  if (!panel || !panel.dataset.workerSrc || !window.Worker || !window.WebAssembly || !window.fetch) {
    return;
  }
  var button = document.getElementById("verify-run");
  var progress = document.getElementById("verify-progress");
  var summary = document.getElementById("verify-summary");
  var results = document.getElementById("verify-results");
  var dropZone = document.getElementById("verify-drop");
  var fileInput = document.getElementById("verify-file");
  panel.hidden = false;

  function abs(path) {
    return new URL(path, document.baseURI).href;
  }

  var text = ReceiptsView.text;

  function setStatus(status, checked, failed, message) {
    ReceiptsView.setStatus(summary, status, checked, failed, message);
  }

  function show(result) {
    ReceiptsView.show(summary, results, result);
  }

  function fail(message) {
    progress.hidden = true;
    setStatus("error", 0, 0, "Could not verify: " + message);
    button.disabled = false;
    marks.forEach(function (el) {
      if (el.dataset.built === undefined) return;
      el.textContent = el.dataset.built;
      el.dataset.verify = "error";
      el.title = "not verified: " + message;
    });
  }

  // The marks of the page's receipts, each naming its receipt: pending
  // while a verification runs, then what this browser recomputed.
  var marks = Array.prototype.slice.call(document.querySelectorAll("main [data-claim]"));
  var WORDS = { pass: "pass", fail: "fail", could_not_check: "could not check" };
  var SIGNS = { pass: "✓", fail: "✗", could_not_check: "?" };
  // A mark's subject is its own data-subject or, left out, the nearest
  // enclosing one's (a run page's facts name their record once).
  function markKey(el) {
    var named = el.closest("[data-subject]");
    return (named ? named.dataset.subject : "") + "\u0000" + el.dataset.claim;
  }
  function marksPending() {
    marks.forEach(function (el) {
      if (el.dataset.built === undefined) el.dataset.built = el.textContent;
      el.dataset.verify = "pending";
      el.textContent = "… checking";
      el.title = "being recomputed in this browser";
    });
  }
  function marksDone(found) {
    marks.forEach(function (el) {
      var m = found ? found[markKey(el)] : undefined;
      el.classList.remove("pass", "fail", "could_not_check");
      if (!m) {
        el.textContent = el.dataset.built;
        el.dataset.verify = "unchecked";
        el.title = "not recomputed by this page's verification";
        return;
      }
      el.classList.add(m.status);
      el.dataset.verify = m.status;
      // As the build wrote it: the mark and the status in words, the mark
      // and the value (between its unit), or the mark alone while it passes.
      var sign = SIGNS[m.status];
      if (el.dataset.show === "word") el.textContent = sign + " " + WORDS[m.status];
      else if (el.dataset.show === "value") el.textContent = sign + " " + (el.dataset.before || "") + m.recomputed + (el.dataset.after || "");
      else el.textContent = m.status === "pass" ? sign : sign + " " + m.recomputed;
      el.title = "recomputed in this browser: " + m.recomputed;
    });
  }

  // The worker's code is fetched with Subresource Integrity and started from
  // a blob, with the wasm-bindgen glue in front of it, and on a page that
  // verifies the whole site the page check's glue too (its WebAssembly is
  // fetched by the worker only then).
  var checksPages = !!panel.dataset.renderGlueSrc;
  var workerPromise = null;
  function startWorker() {
    if (!workerPromise) {
      var load = function (name) {
        return fetch(abs(panel.dataset[name + "Src"]), { integrity: panel.dataset[name + "Sri"] }).then(function (r) {
          if (!r.ok) throw new Error(r.status + " " + r.statusText + " for " + r.url);
          return r.text();
        });
      };
      var parts = checksPages ? ["glue", "renderGlue", "worker"] : ["glue", "worker"];
      workerPromise = Promise.all(parts.map(load)).then(function (texts) {
        var blob = new Blob([texts.join("\n")], { type: "text/javascript" });
        return new Worker(URL.createObjectURL(blob));
      });
    }
    return workerPromise;
  }

  function run(job) {
    if (job.type === "site") {
      job.marks = marks.map(markKey);
      marksPending();
    }
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    setStatus("running", 0, 0, "Verifying…");
    startWorker().then(function (worker) {
      worker.onmessage = function (event) {
        var m = event.data;
        if (m.type === "progress") {
          ReceiptsView.progress(summary, progress, m);
        } else if (m.type === "result") {
          progress.hidden = true;
          button.disabled = false;
          if (job.type === "site") marksDone(m.result.marks);
          show(m.result);
        } else if (m.type === "export") {
          progress.hidden = true;
          button.disabled = false;
          var link = document.createElement("a");
          link.href = URL.createObjectURL(new Blob([m.text], { type: "application/json" }));
          link.download = m.name;
          link.textContent = "Download " + m.name;
          link.id = "report-download";
          results.textContent = "";
          results.appendChild(link);
          setStatus("exported", 0, 0, "The report is ready: " + m.name + ".");
          link.click();
        } else if (m.type === "error") {
          fail(m.message);
        }
      };
      worker.onerror = function (e) { fail(e.message || "the worker stopped"); };
      job.wasm = abs(panel.dataset.wasmSrc);
      job.wasmIntegrity = panel.dataset.wasmSri;
      if (checksPages && job.type === "site") {
        job.render = { url: abs(panel.dataset.renderWasmSrc), integrity: panel.dataset.renderWasmSri };
      }
      worker.postMessage(job);
    }).catch(function (e) { fail(e.message); });
  }

  // A reader can pin the site they mean: verify.html#root=<SHA-256 of
  // SHA256SUMS>. Whatever follows root= is handed to the verifier, which
  // refuses anything that is not a digest ("invalid pin"): never ignored.
  // verify.html also takes it pasted into a field (the address's wins only
  // while the field is empty).
  var pinField = document.getElementById("verify-pin");
  if (pinField) {
    document.getElementById("verify-pin-field").hidden = false;
    var fromAddress = ReceiptsView.pinIn(window.location);
    if (fromAddress !== null) pinField.value = fromAddress;
  }
  function expectedRoot() {
    if (pinField && pinField.value.trim() !== "") return pinField.value.trim();
    return ReceiptsView.pinIn(window.location);
  }

  var shownRoot = document.getElementById("root-digest");
  var shownRecord = document.getElementById("record-digest");

  button.addEventListener("click", function () {
    run({
      expectRoot: expectedRoot(),
      type: "site",
      base: abs(panel.dataset.root),
      scope: JSON.parse(panel.dataset.scope),
      files: panel.dataset.files ? panel.dataset.files.split(" ") : null,
      gzipped: panel.dataset.recordsGzipped === "true",
      page: panel.dataset.page,
      shownRoot: shownRoot ? shownRoot.textContent.trim() : null,
      // The digests checked are the ones the reader sees.
      pin: panel.dataset.pinPath && shownRecord ? { path: panel.dataset.pinPath, digest: shownRecord.textContent.trim() } : null
    });
  });

  // Copy buttons beside the digests a page shows.
  Array.prototype.forEach.call(document.querySelectorAll("button.copy[data-copy]"), function (copy) {
    var source = document.getElementById(copy.dataset.copy);
    if (!source || !navigator.clipboard) return;
    copy.hidden = false;
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        copy.textContent = "Copied";
      }, function () {
        copy.textContent = "Select and copy";
      });
    });
  });

  // A section's or a turn's link: following it also copies its address.
  document.addEventListener("click", function (e) {
    var link = e.target.closest ? e.target.closest("a.anchor") : null;
    if (!link || !navigator.clipboard) return;
    navigator.clipboard.writeText(link.href).then(function () {
      link.title = "Link copied";
    }, function () {});
  });

  var exportButton = document.getElementById("export-report");
  if (exportButton) {
    exportButton.hidden = false;
    exportButton.addEventListener("click", function () {
      run({
        type: "export",
        base: abs(panel.dataset.root),
        files: panel.dataset.files.split(" "),
        dir: exportButton.dataset.dir,
        run: exportButton.dataset.run
      });
    });
  }

  function verifyReportFile(file) {
    file.text().then(function (content) {
      run({ type: "report", name: file.name, text: content, expectRoot: expectedRoot(), base: abs(panel.dataset.root) });
    }).catch(function (e) { fail(e.message); });
  }
  if (fileInput) {
    fileInput.addEventListener("change", function () {
      if (fileInput.files.length) verifyReportFile(fileInput.files[0]);
    });
  }
  if (dropZone) {
    dropZone.addEventListener("dragover", function (e) { e.preventDefault(); dropZone.classList.add("over"); });
    dropZone.addEventListener("dragleave", function () { dropZone.classList.remove("over"); });
    dropZone.addEventListener("drop", function (e) {
      e.preventDefault();
      dropZone.classList.remove("over");
      if (e.dataTransfer.files.length) verifyReportFile(e.dataTransfer.files[0]);
    });
  }
})();
