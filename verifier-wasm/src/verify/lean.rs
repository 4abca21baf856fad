//! The lean verifier: the browser's verifier built without the `full`
//! feature, which leaves out the two checks that take most of its size,
//! imported Inspect AI evaluations and OpenTelemetry traces recomputed
//! against their originals (a zip and Zstandard reader, a regex engine, the
//! scorers) and a registration's RFC 3161 time stamp verified (DER, CMS,
//! X.509, RSA and ECDSA). A page loads the full verifier when its Verify
//! reaches one of them ([`needs_full`]); the lean one, given such a record
//! all the same, says it could not check it ([`left_out`]), never that it
//! passed.

use crate::inspect::INSPECT_DIR;
use crate::model::TIMESTAMP_FILE;
use crate::otel::OTEL_DIR;

use super::{Receipt, Scope};

/// This build recomputes imports and verifies time stamps.
pub const FULL: bool = cfg!(feature = "full");

/// Whether verifying `scope` checks record `path` (relative to the records
/// root) in a way only the full verifier can: an imported record of a
/// directory the scope verifies, or the time stamp of a registration it
/// verifies. A run's scope never does: its receipts are its own.
pub fn needs_full(scope: &Scope, path: &str) -> bool {
    let Some((dir, rest)) = path.split_once('/') else {
        return false;
    };
    let imported = rest.split_once('/').is_some_and(|(kind, name)| {
        (kind == INSPECT_DIR || kind == OTEL_DIR) && name.ends_with(".json") && !name.contains('/')
    });
    let stamped = rest == TIMESTAMP_FILE;
    let reads = |dirs: &[String]| dirs.iter().any(|d| d == dir);
    match scope {
        Scope::All => imported || stamped,
        Scope::Import { dir: d } => imported && d == dir,
        Scope::Experiment { experiment, with } => stamped && (experiment == dir || reads(with)),
        Scope::Document { with, .. } => stamped && reads(with),
        Scope::Run { .. }
        | Scope::Harness { .. }
        | Scope::HarnessRun { .. }
        | Scope::Regressions { .. }
        | Scope::SkillEdit { .. }
        | Scope::None => false,
    }
}

/// The receipt of a check the lean verifier leaves out: could not be
/// checked, naming the verifier that can.
pub fn left_out(subject: &str, claim: &str, recorded: &str) -> Receipt {
    Receipt::unchecked(
        subject,
        claim,
        recorded,
        "checked by the full verifier (assets/receipts_verifier_full_bg.wasm, or `receipts verify`); this is the lean one, which leaves it out",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn experiment(dir: &str, with: &[&str]) -> Scope {
        Scope::Experiment {
            experiment: dir.to_string(),
            with: with.iter().map(std::string::ToString::to_string).collect(),
        }
    }

    #[test]
    fn imports_and_time_stamps_need_the_full_verifier_where_the_scope_reaches_them() {
        let eval = "I01/inspect/eval-1.json";
        let traces = "I02/otel/trace.json";
        let stamp = "E01/registration.tsr";
        assert!(needs_full(&Scope::All, eval));
        assert!(needs_full(&Scope::All, traces));
        assert!(needs_full(&Scope::All, stamp));
        let import = |d: &str| Scope::Import { dir: d.to_string() };
        assert!(needs_full(&import("I01"), eval));
        assert!(!needs_full(&import("I02"), eval));
        assert!(needs_full(&experiment("E01", &[]), stamp));
        assert!(needs_full(&experiment("E02", &["E01"]), stamp));
        assert!(!needs_full(&experiment("E02", &[]), stamp));
        let memo = |with: &[&str]| Scope::Document {
            path: "docs/memos/m.md".to_string(),
            with: with.iter().map(std::string::ToString::to_string).collect(),
        };
        assert!(needs_full(&memo(&["E01"]), stamp));
        assert!(!needs_full(&memo(&["E02"]), stamp));
        let run = Scope::Run {
            experiment: "E01".to_string(),
            run: "r1".to_string(),
        };
        for path in [eval, traces, stamp] {
            assert!(!needs_full(&run, path), "{path}");
            assert!(!needs_full(&Scope::None, path), "{path}");
        }
        // Other files of the same directories do not.
        for path in [
            "E01/experiment.json",
            "E01/registration.tsa.pem",
            "E01/runs/r1.json",
            "I01/inspect/logs/x.json",
            "I01/inspect/eval-1.eval",
            "study.json",
        ] {
            assert!(!needs_full(&Scope::All, path), "{path}");
        }
    }
}
