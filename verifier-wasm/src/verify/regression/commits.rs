//! The commits behind an edit's action and behind an undo, held to the
//! verdict and to each other. The skills live in a git repository whose
//! main branch changes only through the gate: the agent's write becomes a
//! commit on the candidate branch whose parent is main's head; a merge is a
//! commit on main with main's head and the candidate as parents and the
//! skill as edited; a hold makes no commit; a revert is a commit on the
//! candidate branch with the candidate as parent and the skill as before;
//! an undo is a commit on main, on main's head at the time, with the skill
//! as before the edit. Main's head at any time is the last merge or undo
//! commit recorded before it.

use crate::model::skill_edit_path;
use crate::model::{
    actions_path, ActionKind, ActionOutcome, Branch, Commit, EditAction, EditCommits,
    RegressionActions, SkillEdit,
};
use crate::time::parse;

use super::super::Receipt;

/// A git object id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
fn is_id(hash: &str) -> bool {
    matches!(hash.len(), 40 | 64)
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn short(hash: &str) -> &str {
    hash.get(..7).unwrap_or(hash)
}

fn branch_name(b: Branch) -> &'static str {
    match b {
        Branch::Main => "main",
        Branch::Candidate => "candidate",
    }
}

/// Which skill text a commit holds, named by the edit's digests.
fn skill_name<'a>(edit: &SkillEdit, digest: &'a str) -> &'a str {
    if digest == edit.skill.after_sha256 {
        "the skill as edited"
    } else if digest == edit.skill.before_sha256 {
        "the skill as before"
    } else {
        digest
    }
}

fn show(edit: &SkillEdit, c: &Commit) -> String {
    let parents: Vec<&str> = c.parents.iter().map(|p| short(p)).collect();
    format!(
        "{} on {}, parents [{}], {}",
        short(&c.hash),
        branch_name(c.branch),
        parents.join(", "),
        skill_name(edit, &c.skill_sha256)
    )
}

/// What a commit must be: its branch, its parents and its skill's digest.
struct Expected<'a> {
    branch: Branch,
    parents: Vec<&'a str>,
    skill: &'a str,
}

impl Expected<'_> {
    fn describe(&self, edit: &SkillEdit) -> String {
        let parents: Vec<&str> = self.parents.iter().map(|p| short(p)).collect();
        format!(
            "on {}, parents [{}], {}",
            branch_name(self.branch),
            parents.join(", "),
            skill_name(edit, self.skill)
        )
    }

    fn held_by(&self, c: &Commit) -> bool {
        is_id(&c.hash)
            && c.branch == self.branch
            && c.skill_sha256 == self.skill
            && c.parents
                .iter()
                .map(String::as_str)
                .eq(self.parents.iter().copied())
    }
}

fn commit_receipt(
    subject: &str,
    claim: &str,
    edit: &SkillEdit,
    commit: &Commit,
    want: &Expected<'_>,
) -> Receipt {
    let mut text = want.describe(edit);
    if !is_id(&commit.hash) {
        text = format!("a git object id, 40 or 64 lowercase hex digits; {text}");
    }
    Receipt::new(
        subject,
        claim,
        show(edit, commit),
        text,
        want.held_by(commit),
    )
}

/// The receipts of an edit's own commits, `action` being the action its
/// verdict calls for: the candidate, then the action's commit or its
/// absence. Empty when the edit records no commits.
pub(super) fn edit_commits(subject: &str, edit: &SkillEdit, action: EditAction) -> Vec<Receipt> {
    let Some(commits) = &edit.verdict.commits else {
        return Vec::new();
    };
    let EditCommits {
        base,
        candidate,
        action: made,
    } = commits;
    let mut receipts = vec![commit_receipt(
        subject,
        "verdict.commits.candidate",
        edit,
        candidate,
        &Expected {
            branch: Branch::Candidate,
            parents: vec![base],
            skill: &edit.skill.after_sha256,
        },
    )];
    let want = match action {
        EditAction::Merge => Some(Expected {
            branch: Branch::Main,
            parents: vec![base, &candidate.hash],
            skill: &edit.skill.after_sha256,
        }),
        EditAction::Hold => None,
        EditAction::Revert => Some(Expected {
            branch: Branch::Candidate,
            parents: vec![&candidate.hash],
            skill: &edit.skill.before_sha256,
        }),
    };
    let claim = "verdict.commits.action";
    receipts.push(match (made, want) {
        (Some(c), Some(want)) => commit_receipt(subject, claim, edit, c, &want),
        (None, None) => Receipt::new(
            subject,
            claim,
            "no commit",
            "a hold makes no commit: the edit waits on candidate",
            true,
        ),
        (Some(c), None) => Receipt::new(
            subject,
            claim,
            show(edit, c),
            "a hold makes no commit: the edit waits on candidate",
            false,
        ),
        (None, Some(want)) => Receipt::new(
            subject,
            claim,
            "no commit",
            format!("a commit {}", want.describe(edit)),
            false,
        ),
    });
    let repeated = base == &candidate.hash
        || made
            .as_ref()
            .is_some_and(|c| &c.hash == base || c.hash == candidate.hash);
    if repeated || !is_id(base) {
        receipts.push(Receipt::new(
            subject,
            "verdict.commits.base",
            short(base),
            "a git object id that no other commit of the edit has",
            false,
        ));
    }
    receipts
}

fn ms(text: &str) -> Option<i64> {
    parse(text).ok().map(|t| t.0)
}

/// A commit on main, when it was made, and what made it.
struct OnMain<'a> {
    at: i64,
    hash: &'a str,
    what: String,
}

/// Main's head just after `at`: the last commit made on main at or before
/// it (of two made at once, the one found later), other than `except`.
/// A scan, not a sort: a suite has few commits on main.
fn head_at<'a>(line: &'a [OnMain<'a>], at: i64, except: &str) -> Option<&'a OnMain<'a>> {
    let mut head: Option<&OnMain<'_>> = None;
    for c in line {
        if c.at <= at && c.what != except && head.is_none_or(|h| c.at >= h.at) {
            head = Some(c);
        }
    }
    head
}

/// The receipts that tie a suite's commits into one main branch: each
/// edit's base is main's head when it was made (before main's first
/// recorded commit, the base of the first edit), and each done undo's
/// commit sits on main's head at the undo, with the skill as before the
/// edit; a refused undo makes no commit. Returns each edit's receipts, by
/// index, and the action history's.
pub(super) fn main_line(
    dir: &str,
    edits: &[SkillEdit],
    history: Option<&RegressionActions>,
) -> (Vec<(usize, Receipt)>, Vec<Receipt>) {
    let mut line: Vec<OnMain<'_>> = Vec::new();
    for e in edits {
        let (Some(c), Some(at)) = (&e.verdict.commits, e.verdict.decided_at.as_deref()) else {
            continue;
        };
        if let (Some(made), Some(at)) = (&c.action, ms(at)) {
            if made.branch == Branch::Main {
                line.push(OnMain {
                    at,
                    hash: &made.hash,
                    what: format!("{}'s merge", e.id),
                });
            }
        }
    }
    let undos: Vec<_> = history
        .map(|h| h.actions.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|a| a.action == ActionKind::Undo)
        .collect();
    for a in &undos {
        if let (Some(c), Some(at), ActionOutcome::Done) = (&a.commit, ms(&a.at), a.outcome) {
            line.push(OnMain {
                at,
                hash: &c.hash,
                what: format!("undo {}", a.id),
            });
        }
    }
    let first_base = edits
        .iter()
        .filter_map(|e| Some((ms(&e.edited_at)?, &e.verdict.commits.as_ref()?.base)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, base)| base.as_str());
    let recording = edits.iter().filter(|e| e.verdict.commits.is_some()).count();
    let mut per_edit = Vec::new();
    for (k, edit) in edits.iter().enumerate() {
        if edit.verdict.commits.is_none() && recording > 0 {
            // Once a suite records its commits, an edit without them hides
            // what its action did to the skill.
            per_edit.push((
                k,
                Receipt::new(
                    &skill_edit_path(dir, &edit.id),
                    "verdict.commits",
                    "none recorded",
                    format!(
                        "the suite records the commits of {recording} of its {} edits: each edit's candidate and action are owed",
                        edits.len()
                    ),
                    false,
                ),
            ));
            continue;
        }
        let (Some(commits), Some(at)) = (&edit.verdict.commits, ms(&edit.edited_at)) else {
            continue;
        };
        let (want, why) = match head_at(&line, at, "") {
            Some(head) => (Some(head.hash), format!("main's head then, {}", head.what)),
            None => (
                first_base,
                "main's head before its first recorded commit".to_string(),
            ),
        };
        let text = match want {
            Some(h) => format!("{} ({why})", short(h)),
            None => why,
        };
        per_edit.push((
            k,
            Receipt::new(
                &skill_edit_path(dir, &edit.id),
                "verdict.commits.base",
                short(&commits.base),
                text,
                want == Some(commits.base.as_str()),
            ),
        ));
    }
    let subject = actions_path(dir);
    let mut receipts = Vec::new();
    for a in undos {
        let Some(edit) = edits.iter().find(|e| e.id == a.edit) else {
            continue;
        };
        let claim = format!("actions[{}].commit", a.id);
        if edit.verdict.commits.is_none() && a.commit.is_none() {
            continue;
        }
        let Some(at) = ms(&a.at) else {
            continue;
        };
        let head = head_at(&line, at, &format!("undo {}", a.id)).map(|c| c.hash);
        receipts.push(match (a.outcome, &a.commit) {
            (ActionOutcome::Refused, None) => Receipt::new(
                &subject,
                claim,
                "no commit",
                "a refused undo makes no commit",
                true,
            ),
            (ActionOutcome::Refused, Some(c)) => Receipt::new(
                &subject,
                claim,
                show(edit, c),
                "a refused undo makes no commit",
                false,
            ),
            (ActionOutcome::Done, made) => {
                let want = Expected {
                    branch: Branch::Main,
                    parents: head.into_iter().collect(),
                    skill: &edit.skill.before_sha256,
                };
                match made {
                    Some(c) => commit_receipt(&subject, &claim, edit, c, &want),
                    None => Receipt::new(
                        &subject,
                        claim,
                        "no commit",
                        format!("a commit {}", want.describe(edit)),
                        false,
                    ),
                }
            }
        });
    }
    (per_edit, receipts)
}
