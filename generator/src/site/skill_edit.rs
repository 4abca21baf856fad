//! A skill edit's verdict page: the skill's diff, each replay's evidence
//! (the side effects of the golden trace, the replay and the control, the
//! level-0 diff, the judges and the drift evidence), each decision recorded
//! beside recomputed, and the cost.

use serde::Serialize;

use receipts_verifier::cost::{call_cost, Cost};
use receipts_verifier::layout;
use receipts_verifier::model::{Replay, SandboxAnswer, SideEffect};
use receipts_verifier::verify::{
    edit_figures, edit_unit, judge_edit, level0, replay_verdict, RegressionVerification, Status,
};

use super::regression::{regressions_href, FigureCell};
use super::{
    claim_parts_by, claim_rows, label, object_href, parts_html, receipt_cell, Cell, ClaimRow,
    ReceiptView,
};
use crate::load::{Corpus, LoadedRegressions};

#[derive(Debug, Clone, Serialize)]
pub struct SkillEditView {
    pub id: String,
    pub suite: String,
    pub suite_title: String,
    pub suite_href: String,
    pub simulated: bool,
    pub edited_at: String,
    pub skill: String,
    pub class: Option<String>,
    pub regression: Option<bool>,
    /// What the label calls for against the recomputed verdict.
    pub gate: Option<super::regression::Gate>,
    pub record_href: String,
    pub before_href: String,
    pub after_href: String,
    /// The skill's text, line by line: `same`, `removed` or `added`;
    /// `None` for a skill too large to diff on the page.
    pub diff: Option<Vec<DiffLine>>,
    pub max_diff_kib: usize,
    pub verdict: Cell,
    pub action: Cell,
    /// The verdict in the gate's words, its numbers marked against the
    /// edit's figures (escaped HTML), and whether it opens with the verdict.
    pub summary_html: Option<String>,
    pub summary_opening: Cell,
    pub summary_claims: Vec<ClaimRow>,
    pub costs: Vec<FigureCell>,
    /// The commits behind the action, when recorded.
    pub commits: Option<CommitsView>,
    pub replays: Vec<ReplayView>,
    pub receipts: Vec<ReceiptView>,
    pub not_passing: usize,
}

/// The edit's commits, each with its receipt.
#[derive(Debug, Clone, Serialize)]
pub struct CommitsView {
    pub rows: Vec<CommitRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CommitRow {
    /// What the commit is: main's head, the candidate or the action's.
    pub role: &'static str,
    /// The full id, as recorded (or `none`).
    pub hash: String,
    /// The receipt that holds the commit to the rules.
    pub check: Cell,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffLine {
    pub kind: &'static str,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReplayView {
    /// The index in the record's `replays`, as receipts name it.
    pub n: usize,
    pub task: String,
    pub world_dependent: bool,
    pub golden: Vec<String>,
    pub golden_at: String,
    pub replay: Vec<String>,
    pub control: Option<Vec<String>>,
    /// The level-0 diff, recomputed.
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub level0: Cell,
    /// How the sandbox answered the replay's and the control's calls,
    /// against the answers it had to give; `None` without a sandbox.
    pub sandbox: Option<Cell>,
    pub judges_cell: Cell,
    pub judges: Vec<JudgeView>,
    pub drift: Option<DriftView>,
    pub outcome: Cell,
}

#[derive(Debug, Clone, Serialize)]
pub struct JudgeView {
    pub tier: String,
    pub model: String,
    pub verdict: String,
    pub confidence: f64,
    /// Whether a `pass` at this confidence may settle the replay.
    pub confident: bool,
    pub rationale: String,
    pub request_id: String,
    pub latency_ms: u64,
    /// Prompt + completion tokens, or why unknown.
    pub tokens: String,
    pub cost: Option<Cost>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DriftView {
    pub source: String,
    pub observed_at: String,
    pub claim: String,
    pub corroborates: bool,
}

fn show(effect: &SideEffect) -> String {
    let call = format!("{} {}", effect.tool, effect.args);
    match &effect.sandbox {
        None => call,
        Some(SandboxAnswer::Cassette) => format!("{call} — from the cassette"),
        Some(SandboxAnswer::Mock) => format!("{call} — mocked"),
        Some(SandboxAnswer::Refused { status, error }) => {
            format!("{call} — refused: {status} {error}")
        }
    }
}

fn lines(effects: &[SideEffect]) -> Vec<String> {
    effects.iter().map(show).collect()
}

/// The largest skill text, in bytes, diffed on the page: a line diff's
/// time can grow with the square of its input, and a build must not stall
/// on a hostile object. Larger skills are linked, not diffed.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;

/// The skill's text before and after, line by line; `None` when either is
/// over [`MAX_DIFF_BYTES`].
fn diff(before: &[u8], after: &[u8]) -> Option<Vec<DiffLine>> {
    if before.len().max(after.len()) > MAX_DIFF_BYTES {
        return None;
    }
    let (before, after) = (
        String::from_utf8_lossy(before),
        String::from_utf8_lossy(after),
    );
    similar::TextDiff::from_lines(before.as_ref(), after.as_ref())
        .iter_all_changes()
        .map(|c| DiffLine {
            kind: match c.tag() {
                similar::ChangeTag::Equal => "same",
                similar::ChangeTag::Delete => "removed",
                similar::ChangeTag::Insert => "added",
            },
            text: c.value().trim_end_matches('\n').to_string(),
        })
        .collect::<Vec<_>>()
        .into()
}

fn replay_view(
    loaded: &LoadedRegressions,
    receipts: &[receipts_verifier::verify::Receipt],
    n: usize,
    r: &Replay,
) -> ReplayView {
    let suite = &loaded.suite;
    let l0 = level0(suite, r);
    let decision = replay_verdict(suite, r);
    let claim = |f: &str| receipt_cell(receipts, &format!("replays[{n}].{f}"));
    ReplayView {
        n,
        task: r.task.clone(),
        world_dependent: r.world_dependent,
        golden: lines(&r.golden.side_effects),
        golden_at: r.golden.recorded_at.clone(),
        replay: lines(&r.replay.side_effects),
        control: r.control.as_ref().map(|c| lines(&c.side_effects)),
        added: lines(&l0.added),
        removed: lines(&l0.removed),
        level0: claim("level0"),
        sandbox: receipts
            .iter()
            .any(|x| x.claim == format!("replays[{n}].sandbox"))
            .then(|| claim("sandbox")),
        judges_cell: claim("judges"),
        judges: r
            .judges
            .iter()
            .map(|j| JudgeView {
                tier: j.tier.clone(),
                model: j.call.model_requested.clone(),
                verdict: label(&j.verdict),
                confidence: j.confidence,
                confident: j.confidence >= suite.pass_confidence,
                rationale: j.rationale.clone(),
                request_id: j.call.request_id.clone(),
                latency_ms: j.call.latency_ms,
                tokens: j.call.usage.map_or_else(
                    || "lost".to_string(),
                    |u| format!("{} + {}", u.prompt_tokens, u.completion_tokens),
                ),
                cost: call_cost(&j.call, &suite.prices).ok(),
            })
            .collect(),
        drift: r.drift.as_ref().map(|d| DriftView {
            source: d.source.clone(),
            observed_at: d.observed_at.clone(),
            claim: d.claim.clone(),
            corroborates: d.corroborates,
        }),
        outcome: {
            let mut cell = claim("outcome");
            if decision.result.is_none() {
                cell.recomputed = "no decision".to_string();
            }
            cell
        },
    }
}

/// The verdict page of edit `index` of `loaded`.
pub fn skill_edit_view(
    corpus: &Corpus,
    loaded: &LoadedRegressions,
    index: usize,
    verified: &RegressionVerification,
) -> SkillEditView {
    let e = &loaded.edits[index];
    let receipts = &verified.edits[index];
    let bytes = |d: &str| corpus.objects.get(d).map_or(&[][..], Vec::as_slice);
    let mut costs: Vec<FigureCell> = loaded
        .suite
        .judges
        .iter()
        .map(|j| FigureCell {
            label: format!("Judge {} ({})", j.tier, j.model),
            cell: receipt_cell(receipts, &format!("verdict.cost.by_tier[{}]", j.tier)),
        })
        .collect();
    costs.push(FigureCell {
        label: "Total".to_string(),
        cell: receipt_cell(receipts, "verdict.cost.total_usd"),
    });
    costs.push(FigureCell {
        label: "Had the largest judge seen every judged replay".to_string(),
        cell: receipt_cell(receipts, "verdict.cost.all_largest_usd"),
    });
    let decisions: Vec<_> = e
        .replays
        .iter()
        .map(|r| replay_verdict(&loaded.suite, r))
        .collect();
    let figures = edit_figures(&loaded.suite, e, &decisions);
    let summary = e.verdict.summary.as_ref().map(|text| {
        claim_parts_by(
            text,
            &|t, target| judge_edit(t, target, &figures),
            &edit_unit,
        )
    });
    SkillEditView {
        summary_html: summary.as_deref().map(parts_html),
        summary_opening: receipt_cell(receipts, "verdict.summary"),
        summary_claims: summary.as_deref().map(claim_rows).unwrap_or_default(),
        id: e.id.clone(),
        suite: loaded.suite.id.clone(),
        suite_title: loaded.suite.title.clone(),
        suite_href: regressions_href(&loaded.dir),
        simulated: e.provenance.is_simulated() || loaded.suite.provenance.is_simulated(),
        edited_at: e.edited_at.clone(),
        skill: e.skill.name.clone(),
        class: e.label.as_ref().map(|l| l.class.clone()),
        regression: e.label.as_ref().map(|l| l.regression),
        gate: super::regression::gate(e.label.as_ref(), receipts),
        record_href: layout::published(&loaded.edit_path(&e.id), false),
        before_href: object_href(&e.skill.before_sha256),
        after_href: object_href(&e.skill.after_sha256),
        diff: diff(bytes(&e.skill.before_sha256), bytes(&e.skill.after_sha256)),
        max_diff_kib: MAX_DIFF_BYTES / 1024,
        verdict: receipt_cell(receipts, "verdict.result"),
        action: receipt_cell(receipts, "verdict.action"),
        costs,
        commits: e.verdict.commits.as_ref().map(|c| CommitsView {
            rows: [
                (
                    "main's head, the base",
                    Some(&c.base),
                    "verdict.commits.base",
                ),
                (
                    "the edit, on candidate",
                    Some(&c.candidate.hash),
                    "verdict.commits.candidate",
                ),
                (
                    "the action's",
                    c.action.as_ref().map(|a| &a.hash),
                    "verdict.commits.action",
                ),
            ]
            .into_iter()
            .map(|(role, hash, claim)| CommitRow {
                role,
                hash: hash.map_or_else(|| "none".to_string(), Clone::clone),
                check: receipt_cell(receipts, claim),
            })
            .collect(),
        }),
        replays: e
            .replays
            .iter()
            .enumerate()
            .map(|(n, r)| replay_view(loaded, receipts, n, r))
            .collect(),
        receipts: receipts.iter().map(ReceiptView::from).collect(),
        not_passing: receipts.iter().filter(|r| r.status != Status::Pass).count(),
    }
}
