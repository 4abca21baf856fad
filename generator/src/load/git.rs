//! The git commit that first held an experiment's registration digest.
//!
//! Building inside a git checkout, each experiment without a
//! `registration.git.json` gets one: the earliest commit (by history, as
//! `git log -S` finds it) whose `experiment.json` contains the registration
//! digest. The digest is a SHA-256 of everything the registration covers, so
//! a commit holding it shows that all of it existed by then. Outside a
//! checkout, or where no commit holds the digest yet, nothing is added; git
//! not being installed is the same as not being in a checkout.

use std::path::Path;
use std::process::Command;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::model::{FormatVersion, GitAnchor, GitAnchorKind, GIT_ANCHOR_FILE};

use super::Corpus;

/// Adds a git anchor to every experiment of `corpus` that has none and whose
/// registration a commit holds, and lists it among the published records.
pub fn find_anchors(corpus: &mut Corpus) {
    for e in &mut corpus.experiments {
        if e.anchors.git.is_some() {
            continue;
        }
        let dir = corpus.records_dir.join(&e.dir);
        let Some(p) = &e.experiment.preregistration else {
            continue;
        };
        let Some(anchor) = first_commit_holding(&dir, &p.sha256) else {
            continue;
        };
        let mut bytes = serde_json::to_vec_pretty(&anchor).unwrap_or_default();
        bytes.push(b'\n');
        corpus
            .record_digests
            .insert(format!("{}/{GIT_ANCHOR_FILE}", e.dir), sha256_hex(&bytes));
        e.anchors.git = Some(anchor);
        e.anchors.git_found = Some(bytes);
    }
}

/// The earliest commit whose `experiment.json` in `dir` contains `digest`.
pub fn first_commit_holding(dir: &Path, digest: &str) -> Option<GitAnchor> {
    if !receipts_verifier::digest::is_sha256_hex(digest) {
        return None;
    }
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "log",
            "--reverse",
            "--date=format-local:%Y-%m-%dT%H:%M:%SZ",
            "--format=%H %cd",
        ])
        .arg(format!("-S{digest}"))
        .args(["--", "experiment.json"])
        .env("TZ", "UTC")
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let (commit, committed_at) = text.lines().next()?.split_once(' ')?;
    Some(GitAnchor {
        format_version: FormatVersion,
        kind: GitAnchorKind::RegistrationCommit,
        commit: commit.to_string(),
        committed_at: committed_at.to_string(),
        registration: digest.to_string(),
    })
}
