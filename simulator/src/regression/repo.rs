//! The sandbox and the skills' repository as the simulator keeps them:
//! each replayed call answered as a sandbox would answer it, and each
//! edit's commits made on one main branch.

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::model::{
    Branch, Commit, EditCommits, RegressionSuite, SandboxAnswer, SideEffect, VerdictResult,
};

/// A simulated commit id: 40 hex digits named by what the commit is.
pub(super) fn commit_id(what: &str) -> String {
    sha256_hex(what.as_bytes())[..40].to_string()
}

/// The skills repository's main branch before the first edit.
pub(super) fn initial_main() -> String {
    commit_id("skills: the blessed skills")
}

/// The sandbox's answer to each call of a replayed trace: a call the golden
/// trace made comes from its cassette, a new call to a hard tool is refused
/// with 409 ratchet_blocked, any other new call is mocked.
pub(super) fn sandboxed(
    suite: &RegressionSuite,
    golden: &[SideEffect],
    calls: &[SideEffect],
) -> Vec<SideEffect> {
    let mut cassette: Vec<Option<&SideEffect>> = golden.iter().map(Some).collect();
    calls
        .iter()
        .map(|call| {
            let hit = cassette
                .iter_mut()
                .find(|g| g.is_some_and(|g| g.tool == call.tool && g.args == call.args))
                .map(Option::take);
            let answer = match hit {
                Some(_) => SandboxAnswer::Cassette,
                None if suite.hard_tools.contains(&call.tool) => SandboxAnswer::Refused {
                    status: 409,
                    error: "ratchet_blocked".to_string(),
                },
                None => SandboxAnswer::Mock,
            };
            SideEffect {
                sandbox: Some(answer),
                ..call.clone()
            }
        })
        .collect()
}

/// The edit's commits: the agent's write moved onto the candidate branch
/// from main's head, then a merge into main, nothing for a hold, or a
/// revert on the candidate branch. `digests` are the skill's before and after.
pub(super) fn edit_commits(
    id: &str,
    main: &str,
    result: VerdictResult,
    digests: &[String],
) -> EditCommits {
    let candidate = Commit {
        hash: commit_id(&format!("{id}: candidate")),
        parents: vec![main.to_string()],
        branch: Branch::Candidate,
        skill_sha256: digests[1].clone(),
    };
    let action = match result {
        VerdictResult::Pass => Some(Commit {
            hash: commit_id(&format!("{id}: merge")),
            parents: vec![main.to_string(), candidate.hash.clone()],
            branch: Branch::Main,
            skill_sha256: digests[1].clone(),
        }),
        VerdictResult::Warn => None,
        VerdictResult::Block => Some(Commit {
            hash: commit_id(&format!("{id}: revert")),
            parents: vec![candidate.hash.clone()],
            branch: Branch::Candidate,
            skill_sha256: digests[0].clone(),
        }),
    };
    EditCommits {
        base: main.to_string(),
        candidate,
        action,
    }
}
