//! Verification: every recorded or published claim recomputed from the raw
//! records, each as a [`Receipt`] that passes, fails (recorded against
//! recomputed, with the evidence) or could not be checked (and why).
//!
//! Subjects are paths relative to the records root (the `experiments/`
//! directory of the input, `data/` in a built site).

mod bundle;
pub mod calls;
mod conduct;
mod kinds;
mod lean;
mod logged_deviations;
pub use conduct::{is_conduct, MAX_TOKENS_PER_SECOND};
mod experiment;
mod grid;
mod harness;
mod models;
mod published;
mod registration;
mod regression;
mod report;
mod results;
mod run;
mod study;
mod summary;
mod transcript;

pub use bundle::{verify_files, BundleResult, Scope};
pub use calls::reused_across;
pub use experiment::{
    rule_policies, summary_claims, verify_experiment, Conclusion, ExperimentCheck,
    ExperimentVerification, TaskInputs, RERUNS_REPLACE,
};
pub use grid::{grid_receipts, GridFindings};
pub use harness::{
    allowed, figures, percentile, verify_harness_run, verify_suite, CapReached, HarnessFigures,
    SuiteVerification,
};
pub use kinds::{Kind, Kinds, PUBLISHED, RENDERED};
pub use lean::{left_out, needs_full, FULL};
pub use published::{
    agrees, agrees_to, display, display_like, display_literal, judge, published_fields,
    values_agree, Precision, PublishedField, Verdict,
};
pub use registration::ANCHOR_NONE;
pub use regression::{
    ablation_figures, action, benchmark_rates, edit_cost, edit_figures, edit_unit, judge_edit,
    level0, replay_verdict, replay_verdict_under, same_side_effects, trace_digest, verdict,
    verify_ablation, verify_actions, verify_benchmark, verify_regressions, verify_skill_edit,
    AblationRun, CascadeRules, Decision, EditCost, Level0Diff, Rates, RegressionVerification,
    SuiteRecords, CONTROL, DRIFT, LEVEL0,
};
pub use report::{anchor_report, assemble_report, verify_report};
pub use run::{kept_file_claim, task_input_bytes, verify_run, verify_task_inputs, RunVerification};
pub use study::{
    conclude_study, showcase_claims, showcase_narrative, study_figures, totals, Memo, NamedFigures,
    Prose, Reads, StudyVerification, MEMOS_DIR, SHOWCASE_FILE,
};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::checks::Evidence;

/// The bytes of the objects store, by digest.
pub trait Objects {
    /// The bytes stored under `digest` (SHA-256, lowercase hex), if the
    /// store holds them.
    fn object(&self, digest: &str) -> Option<&[u8]>;
}

impl Objects for BTreeMap<String, Vec<u8>> {
    fn object(&self, digest: &str) -> Option<&[u8]> {
        self.get(digest).map(Vec::as_slice)
    }
}

/// What recomputing a claim found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The recomputed value agrees with the one on record.
    Pass,
    /// The recomputed value disagrees with the one on record.
    Fail,
    /// The claim could not be recomputed (the reason is in `recomputed`).
    CouldNotCheck,
}

/// One claim, recomputed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// The file the claim is recorded in, relative to the records root.
    pub subject: String,
    /// A stable name of the claim within the subject, e.g.
    /// `attempts[0].checks[quotes-exact]` or `primary.policies[ladder].pass_rate_pct`.
    pub claim: String,
    /// Whether the claim passed, failed or could not be checked.
    pub status: Status,
    /// The value on record, as written.
    pub recorded: String,
    /// The value recomputed from the raw records, or why it could not be.
    pub recomputed: String,
    /// For checks: the items looked at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl Receipt {
    /// A receipt of claim `claim` of `subject` that passes when `pass`, and
    /// fails otherwise, with the value on record and the value recomputed.
    pub fn new(
        subject: &str,
        claim: impl Into<String>,
        recorded: impl Into<String>,
        recomputed: impl Into<String>,
        pass: bool,
    ) -> Receipt {
        Receipt {
            subject: subject.to_string(),
            claim: claim.into(),
            status: if pass { Status::Pass } else { Status::Fail },
            recorded: recorded.into(),
            recomputed: recomputed.into(),
            evidence: Vec::new(),
        }
    }

    /// A receipt that passes when the value on record equals the value
    /// recomputed, showing both as written by [`std::fmt::Display`].
    pub fn equal<T: PartialEq + std::fmt::Display>(
        subject: &str,
        claim: impl Into<String>,
        recorded: T,
        recomputed: T,
    ) -> Receipt {
        let pass = recorded == recomputed;
        Receipt::new(
            subject,
            claim,
            recorded.to_string(),
            recomputed.to_string(),
            pass,
        )
    }

    /// A receipt of a claim that could not be checked, and why.
    pub fn unchecked(
        subject: &str,
        claim: impl Into<String>,
        recorded: impl Into<String>,
        why: impl Into<String>,
    ) -> Receipt {
        Receipt {
            subject: subject.to_string(),
            claim: claim.into(),
            status: Status::CouldNotCheck,
            recorded: recorded.into(),
            recomputed: why.into(),
            evidence: Vec::new(),
        }
    }

    /// The receipt with `evidence`: the items a check looked at.
    pub fn with_evidence(mut self, evidence: Vec<Evidence>) -> Receipt {
        self.evidence = evidence;
        self
    }
}

/// Counts of receipts by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// How many receipts passed.
    pub pass: usize,
    /// How many receipts failed.
    pub fail: usize,
    /// How many receipts could not be checked.
    pub could_not_check: usize,
}

impl Tally {
    /// The counts of `receipts`.
    pub fn of<'a>(receipts: impl IntoIterator<Item = &'a Receipt>) -> Tally {
        let mut t = Tally::default();
        for r in receipts {
            match r.status {
                Status::Pass => t.pass += 1,
                Status::Fail => t.fail += 1,
                Status::CouldNotCheck => t.could_not_check += 1,
            }
        }
        t
    }

    /// How many receipts were counted.
    pub fn total(&self) -> usize {
        self.pass + self.fail + self.could_not_check
    }

    /// What the counted receipts say together.
    pub fn verdict(&self) -> TallyVerdict {
        TallyVerdict(if self.fail > 0 {
            Outcome::Failed
        } else if self.could_not_check > 0 {
            Outcome::Unchecked
        } else if self.pass == 0 {
            Outcome::Nothing
        } else {
            Outcome::Verified
        })
    }
}

/// What a tally of receipts says: made only by [`Tally::verdict`], so
/// "verified" always means at least one receipt was recomputed and every
/// one agreed; nothing recomputed is not verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TallyVerdict(Outcome);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Verified,
    Failed,
    Unchecked,
    Nothing,
}

impl TallyVerdict {
    /// Whether every receipt agreed, and there was at least one.
    pub fn is_verified(&self) -> bool {
        self.0 == Outcome::Verified
    }

    /// Whether any receipt failed.
    pub fn is_failed(&self) -> bool {
        self.0 == Outcome::Failed
    }

    /// The verdict as `receipts verify --json` and the browser name it:
    /// `verified`, `failed`, `unchecked` (something could not be checked)
    /// or `nothing` (no receipt was recomputed).
    pub fn word(&self) -> &'static str {
        match self.0 {
            Outcome::Verified => "verified",
            Outcome::Failed => "failed",
            Outcome::Unchecked => "unchecked",
            Outcome::Nothing => "nothing",
        }
    }
}

#[cfg(test)]
mod tally_tests {
    use super::*;

    #[test]
    fn verified_needs_a_receipt_and_every_one_agreeing() {
        let t = |pass, fail, could_not_check| {
            Tally {
                pass,
                fail,
                could_not_check,
            }
            .verdict()
            .word()
        };
        assert_eq!(t(0, 0, 0), "nothing");
        assert_eq!(t(3, 0, 0), "verified");
        assert_eq!(t(3, 1, 0), "failed");
        assert_eq!(t(3, 1, 2), "failed");
        assert_eq!(t(3, 0, 2), "unchecked");
        assert_eq!(t(0, 0, 2), "unchecked");
        assert!(!Tally::default().verdict().is_verified());
    }
}
