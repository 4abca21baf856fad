//! The WebAssembly modules a site carries stay within their budgets, raw
//! and gzipped (deflate at its best level, as a static host serves them):
//! a module that grows past its budget fails here, so growth is a choice
//! made with its figure in BENCHMARKS.md, never noticed afterwards.
//!
//! The core verifier, which every page's Verify loads first, is held to the
//! goal of 150 KB raw and 60 KB gzipped; the budgets of the modules loaded
//! after it, only by pages that need them, are what they are today
//! (BENCHMARKS.md says where their bytes go). The bytes measured are the
//! committed `pkg/` files, which the test run checks equal a fresh build of
//! the source (`scripts/build-wasm --check`).

use crate::common;

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;

struct Budget {
    /// The module, relative to the repository.
    path: &'static str,
    raw: usize,
    gzip: usize,
}

const BUDGETS: &[Budget] = &[
    // Every page but those below, after the core: every recomputed receipt
    // but the two the full verifier adds, and a root's checks of its shards
    // (which grew it by 27 KB, 11 KB gzipped, from 1,165,147 bytes), and a
    // run recorded on the wire derived again from its capture (64 KB, 8 KB
    // gzipped, from 1,191,896 bytes: every recorded run's page needs it),
    // and Inspect AI's scorers as each version gave them (18 KB, 9 KB
    // gzipped, from 1,260,078 bytes); and the third round of soundness
    // rules (numbers written in words, Roman numerals and look-alikes, the
    // kinds direction words describe, copied runs by their calls' keys,
    // a registration of imported evaluations, the log's deviations) by
    // 131 KB, 49 KB gzipped, from 1,277,899 bytes; and the runner's guards
    // and a regression suite's sandbox answers and commits, by 30 KB, 11 KB
    // gzipped, from 1,417,304 bytes; and composed policies, by 15 KB, 4 KB
    // gzipped, from 1,447,402 bytes; and a stopped study resumed, with its
    // figures claimed as run, by 6 KB, 4 KB gzipped, from 1,465,769 bytes.
    Budget {
        path: "verifier-wasm/pkg/receipts_verifier_bg.wasm",
        raw: 1_475_000,
        gzip: 552_000,
    },
    // Pages whose Verify reaches an imported record or an RFC 3161 time
    // stamp, and the standalone verifier (the wire derivation grew it by
    // 54 KB from 2,332,622 bytes; reading OpenInference's and OpenLLMetry's
    // spans and the GenAI conventions' message log records, by 38 KB, 15 KB
    // gzipped, from 2,390,385 bytes; Inspect AI logs of every version, read
    // and scored as each version did, by 72 KB, 29 KB gzipped, from
    // 2,428,541 bytes; the third round of soundness rules by 72 KB, 28 KB
    // gzipped, from 2,504,688 bytes; a regression suite's sandbox answers
    // and commits, by 30 KB, 11 KB gzipped, from 2,585,572 bytes; composed
    // policies, by 15 KB, 7 KB gzipped, from 2,615,787 bytes; a stopped
    // study resumed, with its figures claimed as run, by 6 KB, 2 KB
    // gzipped, from 2,634,138 bytes).
    Budget {
        path: "verifier-wasm/pkg/receipts_verifier_full_bg.wasm",
        raw: 2_645_000,
        gzip: 1_006_000,
    },
    // Every page, first: the manifest checks and SHA-256; the only module
    // a page without records to recompute loads.
    Budget {
        path: "verifier-wasm/pkg/receipts_verifier_core_bg.wasm",
        raw: 150_000,
        gzip: 60_000,
    },
    // The page check, loaded only to verify a whole site (the import pages
    // of every Inspect version and instrumentation grew it by 138 KB, 58 KB
    // gzipped, from 5,365,691 bytes; prose held as claims, with the number
    // words marked on its pages, and the registration on an import's page,
    // by 88 KB, 33 KB gzipped, from 5,508,495 bytes; numbers written as
    // people read them, the counts of every record kind and each page's
    // origin, by 15 KB, 6 KB gzipped, from 5,596,784 bytes; the runner's
    // guards, a regression suite's sandbox answers and commits and their
    // pages, by 57 KB, 13 KB gzipped, from 5,632,901 bytes; composed
    // policies and each cell's composition on the experiment's page, by
    // 28 KB, 10 KB gzipped, from 5,689,810 bytes).
    Budget {
        path: "render-wasm/pkg/receipts_render_bg.wasm",
        raw: 5_735_000,
        gzip: 2_102_000,
    },
];

fn gzipped(bytes: &[u8]) -> usize {
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(bytes).expect("gzip");
    gz.finish().expect("gzip").len()
}

#[test]
fn each_module_stays_within_its_budget() {
    let mut over = Vec::new();
    for budget in BUDGETS {
        let path = common::repo().join(budget.path);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (raw, gzip) = (bytes.len(), gzipped(&bytes));
        eprintln!("{}: {raw} bytes, {gzip} gzipped", budget.path);
        if raw > budget.raw || gzip > budget.gzip {
            over.push(format!(
                "{}: {raw} bytes ({} budgeted), {gzip} gzipped ({} budgeted)",
                budget.path, budget.raw, budget.gzip
            ));
        }
    }
    assert!(over.is_empty(), "over budget:\n{}", over.join("\n"));
}

#[test]
fn the_lean_verifier_leaves_out_what_run_pages_need_not_load() {
    let size = |p: &str| {
        std::fs::metadata(common::repo().join(p))
            .expect("module")
            .len()
    };
    let lean = size(BUDGETS[0].path);
    let full = size(BUDGETS[1].path);
    // What the split saves every page that loads the lean verifier: the
    // imports' recomputation and the RFC 3161 checks, 1,168,385 bytes when
    // this was written (the lean one was 0.55 of the full one). Code both
    // carry grows them alike and leaves the saving as it was; a change that
    // pulls the full verifier's weight into the lean one shrinks it.
    assert!(
        full.saturating_sub(lean) >= 1_100_000,
        "lean {lean} bytes against full {full}: the split saves only {} bytes",
        full.saturating_sub(lean)
    );
}
