//! A run: one cell of an experiment's grid, with every attempt, turn and provider call.

use serde::{Deserialize, Deserializer, Serialize};

use super::{FileRef, FormatVersion, Provenance, Source};

/// `experiments/<experiment>/runs/<id>.json`: one file per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"run"`.
    pub kind: RunKind,
    /// Unique across the whole input; also the file name without `.json`.
    pub id: String,
    /// The experiment the run belongs to, by id: the one whose directory holds
    /// the file.
    pub experiment: String,
    /// The task, by id: one of the experiment grid's tasks.
    pub task: String,
    /// The agent profile: one of the experiment grid's profiles.
    pub profile: String,
    /// The seed: one of the experiment grid's seeds.
    pub seed: u64,
    /// The policy that chose the tiers, by id: one of the experiment grid's policies.
    pub policy: String,
    /// Whether the run was recorded or simulated; it must equal the experiment's.
    pub provenance: Provenance,
    /// The original this run was converted from, when another tool
    /// recorded it; the original's bytes are kept by digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The run this one was rerun to replace. The replaced run stays on record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// When the run started; its wall time runs from here to the end of its last
    /// attempt.
    pub started_at: String,
    /// Attempts in order; a ladder makes one per tier it tries.
    pub attempts: Vec<Attempt>,
    /// The outcome the harness recorded.
    pub outcome: RunOutcome,
}

/// The `kind` of a run record: `"run"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    /// One run of an experiment.
    Run,
}

/// One attempt on one tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    /// The tier tried, by id: a tier of the run's policy.
    pub tier: String,
    /// When the attempt started.
    pub started_at: String,
    /// How long the attempt took, in milliseconds: it ends at `started_at`
    /// plus this.
    pub duration_ms: u64,
    /// The agent's turns, in order, each naming the call that chose its action.
    pub turns: Vec<Turn>,
    /// The provider calls the attempt made, in order.
    pub calls: Vec<ProviderCall>,
    /// The conversation as the model saw it, in order: the transcript.
    /// Empty when the attempt's messages were not recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// The input files the agent could see, with digests before and after the attempt.
    pub inputs: Vec<InputDigests>,
    /// The file the agent produced, if any: the one the task's checks
    /// read. Its bytes live in the object store.
    pub artifact: Option<FileRef>,
    /// Other files the agent produced, each kept by digest in the object
    /// store; no check reads them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileRef>,
    /// The check results the harness recorded.
    pub checks: Vec<RecordedCheck>,
    /// How the attempt ended.
    pub end: AttemptEnd,
}

/// One agent turn: the action the model chose and what the runtime did with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// The `request_id` of the provider call that chose this action.
    pub call: String,
    /// The action the model chose.
    pub action: Action,
    /// Whether the runtime let the action run, and why.
    pub permission: Permission,
    /// What the action returned to the model.
    pub result: TurnResult,
}

/// The action the model chose. `args` is whatever the model sent: untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// The tool called.
    pub tool: ActionTool,
    /// The arguments, any JSON, as the model sent them (untrusted).
    pub args: serde_json::Value,
}

/// The tool an action called. The simulated runtime's tools are known by
/// name; any other name (a real agent's `search_web`, `bash`, …) is kept
/// as written, and nothing the verifier checks gives it a meaning it
/// does not know.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(from = "String", into = "String")]
#[cfg_attr(feature = "schema", schemars(with = "String"))]
pub enum ActionTool {
    /// `read`: read one of the task's input files.
    Read,
    /// `write`: write a file; only a `write` can produce the attempt's artifact.
    Write,
    /// `check`: run the task's checks on the artifact written so far.
    Check,
    /// `finish`: the agent is done and ends the attempt.
    Finish,
    /// A tool the runtime does not offer (the model asked for it anyway).
    Other,
    /// The model's output held no usable action (e.g. it was truncated).
    None,
    /// Any other tool, by the name the record gives it.
    Named(String),
}

impl ActionTool {
    /// The tool's name as written in the record.
    pub fn as_str(&self) -> &str {
        match self {
            ActionTool::Read => "read",
            ActionTool::Write => "write",
            ActionTool::Check => "check",
            ActionTool::Finish => "finish",
            ActionTool::Other => "other",
            ActionTool::None => "none",
            ActionTool::Named(name) => name,
        }
    }
}

impl From<String> for ActionTool {
    fn from(name: String) -> ActionTool {
        match name.as_str() {
            "read" => ActionTool::Read,
            "write" => ActionTool::Write,
            "check" => ActionTool::Check,
            "finish" => ActionTool::Finish,
            "other" => ActionTool::Other,
            "none" => ActionTool::None,
            _ => ActionTool::Named(name),
        }
    }
}

impl From<ActionTool> for String {
    fn from(tool: ActionTool) -> String {
        tool.as_str().to_string()
    }
}

/// One message of an attempt's transcript. Its content is untrusted text,
/// kept inline (`text`) or, when large, as an object by digest (`sha256`).
/// A message that names a turn is held to it: an assistant message to the
/// call that chose the turn's action, a tool message to the turn's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`; any other role is kept as
    /// written.
    pub role: String,
    /// The content, kept inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The content, kept as the object with this digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A summary of the model's reasoning, where the provider returned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// For an assistant message: the `request_id` of the provider call
    /// that returned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// The turn (its index in `turns`, from 0) whose action an assistant
    /// message chose or whose result a tool message carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<usize>,
}

/// What a message's role is to the checks and the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKind {
    /// System instructions (`system`, `developer`).
    System,
    /// The user's message (`user`, `human`).
    User,
    /// The model's reply (`assistant`, `model`, `ai`).
    Assistant,
    /// A tool's result (`tool`, `tool_result`, `function`, …).
    Tool,
    /// Any other role.
    Other,
}

impl RoleKind {
    /// The kind's name, for pages.
    pub fn as_str(self) -> &'static str {
        match self {
            RoleKind::System => "system",
            RoleKind::User => "user",
            RoleKind::Assistant => "assistant",
            RoleKind::Tool => "tool",
            RoleKind::Other => "other",
        }
    }
}

impl Message {
    /// Whether the role is a protocol word: ASCII letters, digits, `_`
    /// and `-`. A role in other letters could look like `tool` and be
    /// another word.
    pub fn role_is_word(&self) -> bool {
        !self.role.is_empty()
            && self
                .role
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    /// The role's kind, read ignoring case and punctuation as providers
    /// spell it (`Tool`, `tool_result`, `function` are tool messages), so
    /// a spelling cannot carry a result past the checks.
    pub fn role_kind(&self) -> RoleKind {
        let folded: String = self
            .role
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match folded.as_str() {
            "system" | "developer" => RoleKind::System,
            "user" | "human" => RoleKind::User,
            "assistant" | "model" | "ai" => RoleKind::Assistant,
            "tool" | "toolresult" | "function" | "functionresult" | "ipython" => RoleKind::Tool,
            _ => RoleKind::Other,
        }
    }
}

/// The runtime's permission decision for an action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Permission {
    /// Whether the action was allowed to run.
    pub decision: Decision,
    /// Why, in the runtime's words.
    pub reason: String,
}

/// A decision on what was asked for: an action, a tool call's arguments, or
/// reaching a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Allowed: it went ahead.
    Allowed,
    /// Denied: it was refused and did not go ahead.
    Denied,
}

/// What the action returned to the model. Text is untrusted; a read of an
/// input file refers to it by digest instead of copying it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TurnResult {
    /// Whether the action succeeded.
    pub ok: bool,
    /// The content returned, kept inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The content returned is the object with this digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// One provider call: the receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProviderCall {
    /// The call's request id, by which turns, messages and retries name it.
    pub request_id: String,
    /// The model id the request named; the call is priced by this id.
    pub model_requested: String,
    /// The model id the provider echoed; `null` when no response arrived.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(
        feature = "schema",
        schemars(required, with = "super::Nullable<String>")
    )]
    pub model_echoed: Option<String>,
    /// When the call was sent.
    pub started_at: String,
    /// How long the call took, in milliseconds: it ends at `started_at` plus
    /// this.
    pub latency_ms: u64,
    /// Token usage as the provider reported it; `null` when it was lost
    /// (the call timed out or was aborted). Unknown is not zero.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(
        feature = "schema",
        schemars(required, with = "super::Nullable<Usage>")
    )]
    pub usage: Option<Usage>,
    /// `null` when no response arrived.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(
        feature = "schema",
        schemars(required, with = "super::Nullable<FinishReason>")
    )]
    pub finish_reason: Option<FinishReason>,
    /// The output budget (`max_tokens`) sent with the request.
    pub max_tokens: u64,
    /// The prompt tokens the harness counted and reserved before sending.
    /// With `max_tokens` it bounds the cost of a call whose usage was lost.
    pub prompt_tokens_reserved: u64,
    /// How the call ended.
    pub status: CallStatus,
    /// The HTTP status the provider answered with, where it was recorded.
    /// A status of 400 or above is a refusal: the call returned no usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The provider's error message, as it sent it (untrusted), for a call
    /// that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The `request_id` of the earlier call of the same attempt that this
    /// call repeats, because that one returned no usable action (it failed,
    /// timed out, or its reply was empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_of: Option<String>,
    /// The call as it crossed the wire, for a run `receipts record` made:
    /// its bodies, kept by digest, and when its first byte came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire: Option<Box<WireCall>>,
}

/// A provider call's bytes, as `receipts record` kept them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WireCall {
    /// The request body sent, kept as the object with this digest.
    pub request_sha256: String,
    /// The response body as far as it arrived, kept as the object with
    /// this digest; `null` when no response came.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(
        feature = "schema",
        schemars(required, with = "super::Nullable<String>")
    )]
    pub response_sha256: Option<String>,
    /// Milliseconds from sending to the response's first byte; `null`
    /// when no response came.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(feature = "schema", schemars(required, with = "super::Nullable<u64>"))]
    pub first_byte_ms: Option<u64>,
}

/// Token usage of one call. Counters a provider did not report are `null`.
/// `prompt_tokens` counts every input token, those read from and written
/// to the provider's prompt cache included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// All input tokens, those read from and written to the prompt cache
    /// included.
    pub prompt_tokens: u64,
    /// All output tokens, reasoning included.
    pub completion_tokens: u64,
    /// Output tokens spent on reasoning, within `completion_tokens`; `null`
    /// when the provider did not report them.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(feature = "schema", schemars(required, with = "super::Nullable<u64>"))]
    pub reasoning_tokens: Option<u64>,
    /// Input tokens read from the prompt cache, within `prompt_tokens`; `null`
    /// when the provider did not report them.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(feature = "schema", schemars(required, with = "super::Nullable<u64>"))]
    pub cache_hit_tokens: Option<u64>,
    /// Input tokens not read from the prompt cache; `null` when the provider
    /// did not report them.
    #[serde(deserialize_with = "required_option")]
    #[cfg_attr(feature = "schema", schemars(required, with = "super::Nullable<u64>"))]
    pub cache_miss_tokens: Option<u64>,
    /// Input tokens written to the prompt cache (Anthropic's
    /// `cache_creation_input_tokens`), within `prompt_tokens`; absent when
    /// the provider has no such count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
}

/// Why a provider stopped generating, as the provider sent it (`stop`,
/// `length`, `tool_calls`, `end_turn`, `max_tokens`, …): kept verbatim, and
/// recognized where the verifier needs it: whether the output budget ran
/// out. Recognition ignores case and punctuation, so `Length` or
/// `max-tokens` cannot hide a truncation behind a spelling.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(try_from = "String", into = "String")]
#[cfg_attr(feature = "schema", schemars(with = "String"))]
pub struct FinishReason(String);

/// The words providers use for a stop on the output budget or the context
/// window, lowercase with punctuation dropped: OpenAI's `length`,
/// Anthropic's `max_tokens`, the Responses API's `max_output_tokens`,
/// Gemini's `MAX_TOKENS`, Inspect AI's `model_length`.
const TRUNCATIONS: [&str; 6] = [
    "length",
    "maxtokens",
    "maxoutputtokens",
    "maxcompletiontokens",
    "modellength",
    "contextlength",
];

impl FinishReason {
    /// The output budget ran out, as OpenAI-compatible providers write it.
    pub fn length() -> FinishReason {
        FinishReason("length".to_string())
    }

    /// The model stopped on its own.
    pub fn stop() -> FinishReason {
        FinishReason("stop".to_string())
    }

    /// As the provider sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the output budget ran out (a truncation), in any provider's
    /// words and any spelling of them.
    pub fn is_truncation(&self) -> bool {
        let folded: String = self
            .0
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        TRUNCATIONS.contains(&folded.as_str())
    }
}

impl ProviderCall {
    /// Whether the provider refused the call for its credentials (HTTP 401
    /// or 403): every later call with the same key would be refused too.
    pub fn refused_authentication(&self) -> bool {
        self.status == CallStatus::Error && matches!(self.http_status, Some(401 | 403))
    }

    /// Whether the provider refused the call (an error with HTTP status 400
    /// or above): it returned no usage, and no output to bound.
    pub fn refused(&self) -> bool {
        self.status == CallStatus::Error && self.http_status.is_some_and(|s| s >= 400)
    }

    /// Whether the call stopped on its budget: the provider said so, or it
    /// returned every output token it was allowed, whatever word it gave.
    pub fn truncated(&self) -> bool {
        self.finish_reason
            .as_ref()
            .is_some_and(FinishReason::is_truncation)
            || self
                .usage
                .is_some_and(|u| self.max_tokens > 0 && u.completion_tokens >= self.max_tokens)
    }

    /// The call's completion tokens per second of its latency: `None` when
    /// its usage was lost or its latency is zero.
    pub fn tokens_per_second(&self) -> Option<f64> {
        let usage = self.usage?;
        (self.latency_ms > 0)
            .then(|| usage.completion_tokens as f64 * 1000.0 / self.latency_ms as f64)
    }
}

impl TryFrom<String> for FinishReason {
    type Error = String;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        if s.is_empty() || s.len() > 64 || s.chars().any(char::is_control) {
            Err(format!(
                "a finish reason is the provider's word, 1 to 64 characters: {s:?}"
            ))
        } else {
            Ok(FinishReason(s))
        }
    }
}

impl From<FinishReason> for String {
    fn from(f: FinishReason) -> String {
        f.0
    }
}

/// How a provider call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// A response arrived in full.
    Ok,
    /// The call timed out; its usage is lost.
    Timeout,
    /// The call was cut off before it completed; its usage is lost.
    Aborted,
    /// The provider refused or failed the call (see `http_status` and
    /// `error`); it returned no usage.
    Error,
}

/// An input's digests around the attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InputDigests {
    /// The input's path, as the task names it.
    pub path: String,
    /// SHA-256 of the input's bytes before the attempt.
    pub sha256_before: String,
    /// SHA-256 of the input's bytes after the attempt.
    pub sha256_after: String,
}

/// A check result as the harness recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RecordedCheck {
    /// The `id` of the task's check.
    pub check: String,
    /// Whether the check passed, as the harness recorded it.
    pub passed: bool,
    /// One line of evidence, as the harness wrote it.
    pub detail: String,
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AttemptEnd {
    /// Why the attempt ended.
    pub reason: EndReason,
    /// What ended it, in the harness's words; absent when it gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Why an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The agent called `finish`.
    Finished,
    /// The attempt used all of its `max_turns` turns.
    TurnLimit,
    /// A time limit: a call timed out or was cut, or the run reached its
    /// `max_run_ms`.
    TimeLimit,
    /// The last call stopped on its output budget with no usable action.
    OutputLimit,
    /// The token ledger or a spending cap stopped the attempt.
    BudgetStop,
    /// An error ended the attempt (a refused or failed call, for instance).
    Error,
}

/// The outcome the harness recorded for the whole run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunOutcome {
    /// Whether the final attempt passed every check.
    pub passed: bool,
    /// The tier of the attempt that passed, if one did.
    pub passed_tier: Option<String>,
}

impl Attempt {
    /// The calls that completed with an empty reply: the provider said it
    /// stopped on its own, within its budget, yet the turn the call chose
    /// runs nothing (a reply of reasoning only, or no content at all).
    pub fn empty_responses(&self) -> impl Iterator<Item = &ProviderCall> {
        self.calls.iter().filter(|c| {
            c.status == CallStatus::Ok
                && !c.truncated()
                && self
                    .turns
                    .iter()
                    .any(|t| t.call == c.request_id && t.action.tool == ActionTool::None)
        })
    }
}

impl Run {
    /// Every provider call of the run, in order.
    pub fn calls(&self) -> impl Iterator<Item = &ProviderCall> {
        self.attempts.iter().flat_map(|a| a.calls.iter())
    }

    /// Whether any attempt reached the provider.
    pub fn reached_provider(&self) -> bool {
        self.calls().next().is_some()
    }

    /// The tiers tried, in order.
    pub fn tiers_tried(&self) -> Vec<&str> {
        self.attempts.iter().map(|a| a.tier.as_str()).collect()
    }

    /// The digests of every object the run names (artifacts and other kept
    /// files, turn results,
    /// message contents, the bodies of calls recorded on the wire, its
    /// original), sorted, each once. The task's
    /// inputs are the task's.
    pub fn object_digests(&self) -> Vec<&str> {
        let mut digests: Vec<&str> = self.source.iter().map(|s| s.sha256.as_str()).collect();
        for a in &self.attempts {
            digests.extend(a.artifact.iter().chain(&a.files).map(|f| f.sha256.as_str()));
            digests.extend(a.turns.iter().filter_map(|t| t.result.sha256.as_deref()));
            digests.extend(a.messages.iter().filter_map(|m| m.sha256.as_deref()));
            for wire in a.calls.iter().filter_map(|c| c.wire.as_ref()) {
                digests.push(&wire.request_sha256);
                digests.extend(wire.response_sha256.as_deref());
            }
        }
        digests.sort_unstable();
        digests.dedup();
        digests
    }
}

/// Deserializes an `Option` that must be present in the record (as `null` or a value).
fn required_option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

#[cfg(test)]
mod tests {
    use super::{ActionTool, FinishReason};

    #[test]
    fn a_tool_name_is_kept_as_written_and_the_runtimes_tools_are_known() {
        for name in ["read", "write", "check", "finish", "other", "none"] {
            let tool: ActionTool = serde_json::from_value(name.into()).expect("a tool");
            assert!(!matches!(tool, ActionTool::Named(_)), "{name} is known");
            assert_eq!(serde_json::to_value(&tool).expect("json"), name);
        }
        let tool: ActionTool = serde_json::from_value("search_web".into()).expect("a tool");
        assert_eq!(tool, ActionTool::Named("search_web".into()));
        assert_eq!(serde_json::to_value(&tool).expect("json"), "search_web");
        // A name that only looks like a known one is another tool.
        let tool: ActionTool = serde_json::from_value("Write".into()).expect("a tool");
        assert_ne!(tool, ActionTool::Write);
    }

    #[test]
    fn a_finish_reason_is_kept_as_sent_and_truncations_are_recognized() {
        for (sent, truncated) in [
            ("\"stop\"", false),
            ("\"tool_calls\"", false),
            ("\"end_turn\"", false),
            ("\"length\"", true),
            ("\"max_tokens\"", true),
            ("\"MAX_TOKENS\"", true),
            ("\"Length\"", true),
            ("\"max-tokens\"", true),
            ("\"Max Output Tokens\"", true),
            ("\"model_length\"", true),
            ("\"lengthy\"", false),
        ] {
            let f: FinishReason = serde_json::from_str(sent).expect(sent);
            assert_eq!(f.is_truncation(), truncated, "{sent}");
            assert_eq!(
                serde_json::to_string(&f).expect("json"),
                sent,
                "kept verbatim"
            );
        }
        for refused in ["\"\"", "\"a\\nb\"", "3"] {
            assert!(
                serde_json::from_str::<FinishReason>(refused).is_err(),
                "{refused}"
            );
        }
    }
}
