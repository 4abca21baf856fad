//! Regression-CI verdicts: an agent edited one of its skills, the tasks it
//! had already blessed were replayed with the edited skill, and a judging
//! cascade decided each replay: a deterministic level-0 diff of the side
//! effects, then model judges from the smallest to the largest under stated
//! agreement rules, then drift evidence. The edit's verdict (PASS, WARN or
//! BLOCK) and the action taken follow from the replays. The verifier
//! recomputes level 0 from the recorded side effects, each replay's outcome
//! and the verdict from the judges' recorded verdicts and the rules, the
//! cost by tier and the all-largest counterfactual from the calls' usage,
//! and a benchmark's rates from the labelled edits.
//!
//! Under the records root (`experiments/`, or a site's `data/`):
//! `regressions/<suite>/suite.json` (the rules), `regressions/<suite>/edits/<edit>.json`
//! (one edit each) and, optionally, `regressions/<suite>/benchmark.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FormatVersion, PriceTable, Provenance, ProviderCall};

/// The directory under the records root that holds regression suites.
pub const REGRESSIONS_DIR: &str = "regressions";

/// The path of suite `suite`'s file under the records root.
pub fn regression_suite_path(suite: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/suite.json")
}

/// The path of edit `edit` of suite `suite` under the records root.
pub fn skill_edit_path(suite: &str, edit: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/edits/{edit}.json")
}

/// The path of suite `suite`'s published benchmark under the records root.
pub fn benchmark_path(suite: &str) -> String {
    format!("{REGRESSIONS_DIR}/{suite}/benchmark.json")
}

/// The rules every edit of a suite was judged by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionSuite {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"regression_suite"`.
    pub kind: RegressionSuiteKind,
    /// The suite's id, also its directory's name.
    pub id: String,
    /// The suite's title, as its pages show it.
    pub title: String,
    /// Whether the suite's edits were recorded or simulated.
    pub provenance: Provenance,
    /// Prices of the judges' models.
    pub prices: PriceTable,
    /// The judges in cascade order, smallest first; the last is the largest,
    /// which adjudicates.
    pub judges: Vec<JudgeTier>,
    /// Tools whose calls act on the world outside the sandbox: a replay
    /// making a call to one of them that its golden trace did not make fails
    /// level 0 outright.
    pub hard_tools: Vec<String>,
    /// A judge's `pass` settles a replay only at this confidence or above.
    pub pass_confidence: f64,
    /// How replays are decided (see [`AgreementRules`]).
    pub rules: AgreementRules,
    /// The sandbox the replays ran in, when the suite states one: then
    /// every call a replay or a control replay made carries the sandbox's
    /// answer, and a new call to a hard tool must have been refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Sandbox>,
}

/// The sandbox replays run in: calls the golden trace made are served from
/// its cassette, other calls to tools that are not hard are answered by a
/// mock, and a call to a hard tool that no cassette holds is refused, so
/// that no replay reaches the world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Sandbox {
    /// The HTTP status of a refusal, e.g. `409`.
    pub refusal_status: u16,
    /// The error a refusal names, e.g. `ratchet_blocked`.
    pub refusal_error: String,
}

/// The `kind` of a regression suite record: `"regression_suite"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionSuiteKind {
    /// A regression suite.
    RegressionSuite,
}

/// One judge of the cascade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct JudgeTier {
    /// The tier's id, e.g. `small`.
    pub tier: String,
    /// The provider model id the judge's calls request; it must have a price.
    pub model: String,
}

/// The agreement rules a suite states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum AgreementRules {
    /// Level 0 first: identical side effects pass, a new call to a hard tool
    /// blocks. Otherwise, a control replay (the unchanged skill replayed)
    /// with the replay's very side effects shows the difference is noise:
    /// pass. Otherwise the judges in order: a judge below the largest that
    /// says `pass` at the suite's confidence or above settles the replay as
    /// passed; anything else goes to the next judge. The largest decides:
    /// `regressed` blocks when the judge before it also said `regressed`
    /// (agreement) and warns otherwise; `pass` at the confidence passes;
    /// anything else warns. Last, a replay of a world-dependent task that
    /// the judges blocked or warned passes as drift when drift evidence
    /// observed after the golden trace was recorded corroborates the new
    /// value. A judge may not be skipped, nor called once the replay is
    /// decided. The
    /// edit's verdict is its worst replay's: BLOCK, then WARN, then PASS.
    CascadeV1,
}

/// One skill edit and everything decided about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SkillEdit {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"skill_edit"`.
    pub kind: SkillEditKind,
    /// The edit's id, also its file's name.
    pub id: String,
    /// The suite it was judged under.
    pub suite: String,
    /// Whether the edit was recorded or simulated.
    pub provenance: Provenance,
    /// When the agent made the edit (UTC, RFC 3339).
    pub edited_at: String,
    /// The skill edited, its text before and after kept by digest.
    pub skill: SkillDiff,
    /// What the edit is known to be, for a benchmark; `null` outside one.
    #[serde(default)]
    pub label: Option<EditLabel>,
    /// The replays the edit triggered, each decided.
    pub replays: Vec<Replay>,
    /// What was decided about the edit, as recorded.
    pub verdict: Verdict,
}

/// The `kind` of a skill edit record: `"skill_edit"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SkillEditKind {
    /// A skill edit.
    SkillEdit,
}

/// The edited skill: its text before and after, stored as objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SkillDiff {
    /// The skill's name; edits of the same skill share it.
    pub name: String,
    /// The object holding the skill before the edit.
    pub before_sha256: String,
    /// The object holding the skill after the edit.
    pub after_sha256: String,
}

/// A benchmark's label of an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EditLabel {
    /// The class of the edit, e.g. a regression type (`R1`) or a control (`N0`).
    pub class: String,
    /// Whether the edit is a regression (a control is not).
    pub regression: bool,
}

/// One blessed task replayed with the edited skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Replay {
    /// The blessed task replayed, by id.
    pub task: String,
    /// Whether the task's answer depends on the world (so that a changed
    /// answer may be drift rather than a regression).
    pub world_dependent: bool,
    /// The trace as it was blessed.
    pub golden: Trace,
    /// The replay with the edited skill.
    pub replay: Trace,
    /// The replay with the unchanged skill, when one was made.
    #[serde(default)]
    pub control: Option<Trace>,
    /// The side-effect diff as the cascade recorded it.
    pub level0: Level0,
    /// The judges that saw the replay, in the order they did.
    pub judges: Vec<Judgment>,
    /// Evidence that the world changed, when the cascade looked for it.
    #[serde(default)]
    pub drift: Option<Drift>,
    /// How the replay was decided, as recorded.
    pub outcome: ReplayOutcome,
}

/// A trace's side effects: the calls it made to tools that act.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Trace {
    /// When the trace was recorded (a golden trace: when it was blessed), UTC.
    pub recorded_at: String,
    /// The calls the trace made to acting tools.
    pub side_effects: Vec<SideEffect>,
}

/// One call to an acting tool (untrusted: the agent chose the arguments).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SideEffect {
    /// The tool called.
    pub tool: String,
    /// The arguments, any JSON, as the agent sent them.
    pub args: serde_json::Value,
    /// In a replay or a control replay under the suite's sandbox: how the
    /// sandbox answered the call. Not part of the call as compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxAnswer>,
}

/// How the sandbox answered a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "answer", rename_all = "snake_case", deny_unknown_fields)]
pub enum SandboxAnswer {
    /// Served from the golden trace's cassette: the golden trace made this
    /// very call (the same tool and arguments).
    Cassette,
    /// Answered by a mock of a tool that is not hard, reaching nothing.
    Mock,
    /// Refused.
    Refused {
        /// The HTTP status answered, e.g. `409`.
        status: u16,
        /// The error named, e.g. `ratchet_blocked`.
        error: String,
    },
}

/// The level-0 diff: side effects compared as multisets of calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Level0 {
    /// What the diff found.
    pub result: Level0Result,
    /// Calls the replay made that the golden trace did not.
    pub added: Vec<SideEffect>,
    /// Calls the golden trace made that the replay did not.
    pub removed: Vec<SideEffect>,
}

/// What the level-0 diff found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Level0Result {
    /// The same side effects.
    Same,
    /// Different side effects, none of them a new call to a hard tool.
    Differs,
    /// A new call to a hard tool.
    HardFail,
}

/// One judge's verdict on a replay, with the call that produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Judgment {
    /// The judge's tier, by id.
    pub tier: String,
    /// What the judge said of the replay.
    pub verdict: JudgeVerdict,
    /// The judge's stated confidence, from 0 to 1.
    pub confidence: f64,
    /// The judge's reasons (untrusted model output).
    pub rationale: String,
    /// The provider call that produced the judgment, with the provider's
    /// receipt.
    pub call: ProviderCall,
}

/// What a judge said of a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum JudgeVerdict {
    /// The replay does what the golden trace did: no regression.
    Pass,
    /// The replay regressed from the golden trace.
    Regressed,
    /// The judge could not tell.
    Unsure,
}

/// Evidence about a world-dependent fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Drift {
    /// Where the evidence was found (untrusted; a URL is shown, never followed).
    pub source: String,
    /// When the source showed it (UTC).
    pub observed_at: String,
    /// The fact as the source states it (untrusted).
    pub claim: String,
    /// Whether it corroborates the replay's new value.
    pub corroborates: bool,
}

/// How a replay was decided, and where in the cascade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReplayOutcome {
    /// The replay's outcome.
    pub result: VerdictResult,
    /// `level0`, `control`, a judge's tier or `drift`.
    pub decided_by: String,
}

/// The outcome of a replay or an edit, written in capitals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum VerdictResult {
    /// `PASS`: no regression; an edit that passes is merged.
    Pass,
    /// `WARN`: a possible regression; an edit that warns is held for review.
    Warn,
    /// `BLOCK`: a regression; an edit that is blocked is reverted.
    Block,
}

/// What was decided about the edit, and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// The edit's verdict, as recorded: by the rules, its worst replay's outcome.
    pub result: VerdictResult,
    /// The action taken, as recorded: by the rules, the one the verdict calls for.
    pub action: EditAction,
    /// What judging the edit cost.
    pub cost: VerdictCost,
    /// When the verdict was decided (UTC): after the edit, its replays and
    /// every judge call. From `edited_at` to here is the edit's time to
    /// verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<String>,
    /// The verdict in words, as the gate reported it (untrusted text): it
    /// opens with the verdict, and every number in it is a link to one of
    /// the edit's figures, e.g. `[3](#edit.replays.total)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The commits behind the action, when the skills live in a git
    /// repository whose main branch changes only through the gate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commits: Option<EditCommits>,
}

/// The commits of an edit: the agent's write to main moved onto the
/// candidate branch, then the action's own commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EditCommits {
    /// Main's head when the edit was made, by hash: the candidate's parent.
    pub base: String,
    /// The edit as a commit on the candidate branch: its parent is `base`,
    /// and the skill at it is the skill after the edit.
    pub candidate: Commit,
    /// The action's commit: a merge into main for a merge (parents `base`
    /// and the candidate, the skill as edited), a revert on the candidate
    /// branch for a revert (parent the candidate, the skill as before);
    /// `null` for a hold, which leaves the edit waiting on the candidate.
    pub action: Option<Commit>,
}

/// One commit of the skills' repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Commit {
    /// The commit's id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
    pub hash: String,
    /// Its parents' ids, in order.
    pub parents: Vec<String>,
    /// The branch it was made on.
    pub branch: Branch,
    /// The edited skill's text at this commit, as an object's digest.
    pub skill_sha256: String,
}

/// A branch of the skills' repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    /// The branch the agent runs from; it changes only through the gate.
    Main,
    /// Where the agent's writes wait for a verdict.
    Candidate,
}

/// PASS merges the edit, WARN holds it for review, BLOCK reverts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EditAction {
    /// Merge the edit (PASS).
    Merge,
    /// Hold the edit for review (WARN).
    Hold,
    /// Revert the edit (BLOCK).
    Revert,
}

/// The judging cost of an edit, in USD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VerdictCost {
    /// Each judge tier's calls, by tier.
    pub by_tier: BTreeMap<String, f64>,
    /// Every judge call of the edit, over all tiers.
    pub total_usd: f64,
    /// Had the largest judge seen every replay with a judge call on record,
    /// once: the largest judge's own call where the cascade reached it,
    /// else the replay's first judge call's tokens at the largest judge's prices.
    pub all_largest_usd: f64,
}

/// A suite's published benchmark over its labelled edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegressionBenchmark {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"regression_benchmark"`.
    pub kind: RegressionBenchmarkKind,
    /// The suite benchmarked, by id: the one whose directory holds the file.
    pub suite: String,
    /// Whether the benchmark's edits were recorded or simulated.
    pub provenance: Provenance,
    /// UTC.
    pub published_at: String,
    /// One row per label class, sorted by class.
    pub classes: Vec<ClassRates>,
    /// How often an unchanged skill's replay differs from its golden trace.
    pub noise_floor: NoiseFloor,
    /// Over every labelled regression: how many the gate held or reverted,
    /// and how many it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<Recall>,
    /// From each labelled edit to its verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<EditLatency>,
}

/// Recall over every labelled regression, two ways: counting a hold (WARN)
/// as a catch, and counting only a revert (BLOCK).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Recall {
    /// Labelled regressions whose verdict is decided.
    pub regressions: u64,
    /// Of those, held or reverted (WARN or BLOCK).
    pub held_or_reverted: u64,
    /// Of those, reverted (BLOCK).
    pub reverted: u64,
    /// `held_or_reverted / regressions`.
    pub recall: f64,
    /// `reverted / regressions`: the block recall.
    pub block_recall: f64,
}

/// Edit-to-verdict time over the labelled edits: from `edited_at` to
/// `verdict.decided_at`, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EditLatency {
    /// The labelled edits measured.
    pub edits: u64,
    /// The mean time to verdict.
    pub mean_s: f64,
    /// The nearest-rank 95th percentile.
    pub p95_s: f64,
}

/// The `kind` of a regression benchmark record: `"regression_benchmark"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RegressionBenchmarkKind {
    /// A suite's published benchmark.
    RegressionBenchmark,
}

/// The verdicts of one class of labelled edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ClassRates {
    /// The label class, e.g. `R1` or `N0`.
    pub class: String,
    /// Whether the class's edits are regressions.
    pub regression: bool,
    /// Edits of the class.
    pub total: u64,
    /// Regressions held or reverted (WARN or BLOCK); `null` for a control class.
    pub detected: Option<u64>,
    /// `detected / total`; `null` for a control class.
    pub detection_rate: Option<f64>,
    /// Controls reverted (BLOCK); `null` for a regression class.
    pub false_blocks: Option<u64>,
    /// Controls held (WARN); `null` for a regression class.
    pub false_warns: Option<u64>,
}

/// How often an unchanged skill's replay differs from its golden trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoiseFloor {
    /// Replays with a control replay, over every labelled edit.
    pub pairs: u64,
    /// Those whose control replay's side effects differ from the golden trace's.
    pub diverged: u64,
    /// `diverged / pairs`.
    pub rate: f64,
}

impl NoiseFloor {
    /// The noise floor of `pairs` control replays, `diverged` of which
    /// differ from their golden traces; its rate is 0 when there is no pair.
    pub fn of(pairs: u64, diverged: u64) -> NoiseFloor {
        NoiseFloor {
            pairs,
            diverged,
            rate: if pairs == 0 {
                0.0
            } else {
                diverged as f64 / pairs as f64
            },
        }
    }
}
