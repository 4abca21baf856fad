// Verify in the browser: recompute this page's receipts (or the whole site's)
// with the receipts verifier compiled to WebAssembly, in a Web Worker.
// Nothing is uploaded: every file is fetched from this site and checked here.
(function () {
  "use strict";

  var panel = document.getElementById("verify");
  if (!panel || !window.Worker || !window.WebAssembly || !window.fetch) {
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

  function text(tag, content, className) {
    var el = document.createElement(tag);
    el.textContent = content;
    if (className) el.className = className;
    return el;
  }

  function setStatus(status, checked, failed, message) {
    summary.dataset.status = status;
    summary.dataset.checked = String(checked);
    summary.dataset.failed = String(failed);
    summary.textContent = message;
  }

  function show(result) {
    results.textContent = "";
    var t = result.tally;
    var checked = t.pass + t.fail + t.could_not_check;
    var status = t.fail > 0 ? "failed" : "verified";
    var message = status === "verified"
      ? "Verified: all " + t.pass + " receipts recomputed in this browser agree" + (t.could_not_check ? " (" + t.could_not_check + " could not be checked)" : "") + "."
      : "Failed: " + t.fail + " of " + checked + " receipts do not agree with what was recomputed.";
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
    setStatus(status, checked, t.fail, message);
  }

  function fail(message) {
    progress.hidden = true;
    setStatus("error", 0, 0, "Could not verify: " + message);
    button.disabled = false;
  }

  // The worker's code is fetched with Subresource Integrity and started from
  // a blob, with the wasm-bindgen glue in front of it.
  var workerPromise = null;
  function startWorker() {
    if (!workerPromise) {
      var load = function (name) {
        return fetch(abs(panel.dataset[name + "Src"]), { integrity: panel.dataset[name + "Sri"] }).then(function (r) {
          if (!r.ok) throw new Error(r.status + " " + r.statusText + " for " + r.url);
          return r.text();
        });
      };
      workerPromise = Promise.all([load("glue"), load("worker")]).then(function (parts) {
        var blob = new Blob([parts[0], "\n", parts[1]], { type: "text/javascript" });
        return new Worker(URL.createObjectURL(blob));
      });
    }
    return workerPromise;
  }

  function run(job) {
    button.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    setStatus("running", 0, 0, "Verifying…");
    startWorker().then(function (worker) {
      worker.onmessage = function (event) {
        var m = event.data;
        if (m.type === "progress") {
          progress.max = m.total;
          progress.value = m.done;
          summary.textContent = "Verifying… " + m.done + " of " + m.total + " files";
        } else if (m.type === "result") {
          progress.hidden = true;
          button.disabled = false;
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
      worker.postMessage(job);
    }).catch(function (e) { fail(e.message); });
  }

  // A reader can pin the site they mean: verify.html#root=<SHA-256 of SHA256SUMS>.
  function expectedRoot() {
    var m = /(?:^#|&)root=([0-9a-f]{64})(?:&|$)/.exec(window.location.hash);
    return m ? m[1] : null;
  }

  button.addEventListener("click", function () {
    run({
      expectRoot: expectedRoot(),
      type: "site",
      base: abs(panel.dataset.root),
      scope: JSON.parse(panel.dataset.scope),
      files: panel.dataset.files ? panel.dataset.files.split(" ") : null,
      page: panel.dataset.page,
      pin: { path: panel.dataset.pinPath, digest: panel.dataset.pinDigest }
    });
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
      run({ type: "report", name: file.name, text: content });
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
