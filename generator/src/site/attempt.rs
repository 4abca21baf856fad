//! The view of one attempt on a run's page: each turn beside the provider
//! call that produced it, the artifact, the checks recorded beside
//! recomputed, and the inputs.

use serde::Serialize;

use receipts_verifier::checks::Evidence;
use receipts_verifier::cost::{attempt_cost, call_cost, Cost};
use receipts_verifier::layout;
use std::collections::BTreeMap;

use receipts_verifier::model::{
    answered_as, Answered, Attempt, CallStatus, Experiment, InputRole, ProviderCall, Run, Source,
    Task, Turn, Usage,
};
use receipts_verifier::time;
use receipts_verifier::verify::{kept_file_claim, RunVerification, Status};
use receipts_verifier::wire::{Api, Capture, CAPTURE_FORMAT};

use super::transcript::{transcript_view, TranscriptView};
use super::{label, mark, object_href, ReceiptView};
use crate::load::Corpus;

#[derive(Debug, Clone, Serialize)]
pub struct AttemptView {
    pub tier_label: String,
    pub model: String,
    pub started_at: String,
    pub duration_s: f64,
    pub cost: Cost,
    pub end: String,
    pub end_message: Option<String>,
    /// Each turn with the call that produced it, in turn order; then the
    /// calls no turn names.
    pub steps: Vec<StepView>,
    pub artifact: Option<ArtifactView>,
    /// Other files the attempt kept, by digest; no check reads them.
    pub files: Vec<ArtifactView>,
    /// The messages, when the attempt recorded them.
    pub transcript: Option<TranscriptView>,
    pub checks: Vec<CheckView>,
    pub inputs: Vec<InputView>,
    /// Every input has the task's digest before and after the attempt: the
    /// page lists them in a line instead of a table of equal digests.
    pub inputs_unchanged: bool,
    /// What every call shares, stated once above the table instead of in a
    /// column; `None` where the calls differ.
    pub calls: SharedCallFacts,
    /// The number of columns of the steps table, for rows that span it.
    pub columns: usize,
    /// Each call's name (see [`CallView::name`]) in the record's order, for
    /// the replay a compact page draws in the browser; empty when no call
    /// was recorded on the wire (the page then names none).
    pub call_names: Vec<String>,
}

/// Facts every call of an attempt shares.
#[derive(Debug, Clone, Serialize)]
pub struct SharedCallFacts {
    /// The model every call requested and the provider echoed, when it is
    /// the attempt's model.
    pub model: Option<String>,
    /// The dated snapshot of the attempt's model every call was answered
    /// as, when each was (see [`answered_as`]).
    pub snapshot: Option<String>,
    /// The output budget every call had.
    pub budget: Option<u64>,
    /// The finish reason every call gave.
    pub finish: Option<String>,
    /// The status every call ended with.
    pub status: Option<String>,
}

/// One row of the steps table: a turn, its call, or both.
#[derive(Debug, Clone, Serialize)]
pub struct StepView {
    /// The row's fragment: `turn-3` in the first attempt, `attempt-2-turn-3` after.
    pub anchor: String,
    pub turn: Option<TurnView>,
    /// The call the turn names (or, for a call no turn names, the call).
    pub call: Option<CallView>,
    /// The request id the turn names when no call is shown beside it.
    pub unmatched_call: Option<String>,
    /// That call is the one an earlier row shows (two turns name it).
    pub call_shown_earlier: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    pub tool: String,
    pub args: Option<Args>,
    pub allowed: bool,
    pub reason: String,
    pub ok: bool,
    pub result_text: Option<String>,
    pub result_ref: Option<ObjectRefView>,
}

/// A turn's arguments as JSON: on one line when short, laid out when long.
#[derive(Debug, Clone, Serialize)]
pub struct Args {
    pub json: String,
    pub block: bool,
}

/// Arguments up to this many characters of compact JSON stay on the turn's line.
const INLINE_ARGS: usize = 100;

fn turn_args(args: &serde_json::Value) -> Option<Args> {
    if args.is_null() {
        return None;
    }
    let json = serde_json::to_string(args).unwrap_or_default();
    Some(if json.chars().count() <= INLINE_ARGS {
        Args { json, block: false }
    } else {
        Args {
            json: serde_json::to_string_pretty(args).unwrap_or_default(),
            block: true,
        }
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct ObjectRefView {
    pub href: String,
    pub label: String,
    pub injected: bool,
    /// The text, shown inline for injected documents so the reader sees what the model saw.
    pub text: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CallView {
    pub request_id: String,
    pub model_requested: String,
    pub model_echoed: Option<String>,
    /// How the echoed model names the requested one: `same`, `snapshot`
    /// (a dated snapshot of the alias requested: the same model), `other`
    /// or `none`.
    pub answered: &'static str,
    /// What the call was, for a call no turn names: its API, its place
    /// among the attempt's calls of that API and its model, e.g. `chat
    /// completion 2 (gpt-4o-mini)`.
    pub name: String,
    pub started_at: String,
    /// Seconds from the attempt's start, when both times parse.
    pub offset_s: Option<f64>,
    pub latency_ms: u64,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
    pub max_tokens: u64,
    pub status: String,
    /// What went wrong, in words, when the call failed or its reply was empty.
    pub failure: Option<String>,
    /// The call this one retries.
    pub retry_of: Option<String>,
    pub cost: Cost,
    /// What the call's capture kept, when it was recorded on the wire.
    pub wire: Option<WireView>,
}

/// A call recorded on the wire: when its first byte came, and its bodies.
#[derive(Debug, Clone, Serialize)]
pub struct WireView {
    /// Milliseconds from sending to the response's first byte.
    pub first_byte_ms: Option<u64>,
    pub request_href: String,
    /// `None` when no response came.
    pub response_href: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArtifactView {
    /// The digest on record against the digest of the published bytes.
    pub digest: Option<ReceiptView>,
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub href: String,
    /// The artifact as text (JSON pretty-printed), or `None` when it is not UTF-8.
    pub text: Option<String>,
    /// A CSV artifact as rows (the first is the header), when it parses.
    pub table: Option<Vec<Vec<String>>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckView {
    pub check: String,
    pub kind: String,
    /// The verdict and detail the harness recorded.
    pub recorded: String,
    /// The verdict and detail recomputed from the artifact.
    pub recomputed: String,
    /// The recomputed verdict.
    pub passed: bool,
    /// Whether recorded and recomputed agree.
    pub status: String,
    pub mark: String,
    pub evidence: Vec<Evidence>,
    /// The receipt's subject (empty when there is none) and claim: what
    /// the browser's verify looks up to update the mark in place.
    pub subject: String,
    pub claim: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct InputView {
    pub path: String,
    pub role: String,
    pub href: String,
    pub before: String,
    pub after: String,
}

/// The view of attempt `index` of a run.
pub fn attempt_view(
    corpus: &Corpus,
    e: &Experiment,
    task: &Task,
    run: &Run,
    a: &Attempt,
    index: usize,
    verification: &RunVerification,
) -> AttemptView {
    let source = run.source.as_ref();
    let run = run.id.as_str();
    let tier = e.tiers.iter().find(|t| t.id == a.tier);
    let model = tier.map_or_else(String::new, |t| t.model.clone());
    let started = time::parse(&a.started_at).ok();
    let names = call_names(corpus, source, a);
    let wire_names = if a.calls.iter().any(|c| c.wire.is_some()) {
        names.clone()
    } else {
        Vec::new()
    };
    let call_view = |c: &ProviderCall, n: usize| CallView {
        request_id: c.request_id.clone(),
        model_requested: c.model_requested.clone(),
        model_echoed: c.model_echoed.clone(),
        answered: match c.model_echoed.as_deref() {
            None => "none",
            Some(echoed) => match answered_as(&c.model_requested, echoed) {
                Answered::Same => "same",
                Answered::DatedSnapshot => "snapshot",
                Answered::Other => "other",
            },
        },
        name: names[n].clone(),
        started_at: c.started_at.clone(),
        offset_s: started
            .zip(time::parse(&c.started_at).ok())
            .map(|(a, c)| (c.0 - a.0) as f64 / 1000.0),
        latency_ms: c.latency_ms,
        usage: c.usage,
        finish_reason: c.finish_reason.as_ref().map(|f| f.as_str().to_string()),
        max_tokens: c.max_tokens,
        status: label(&c.status),
        failure: failure(a, c),
        retry_of: c.retry_of.clone(),
        cost: call_cost(c, &e.prices).unwrap_or_default(),
        wire: c.wire.as_ref().map(|w| WireView {
            first_byte_ms: w.first_byte_ms,
            request_href: object_href(&w.request_sha256),
            response_href: w.response_sha256.as_deref().map(object_href),
        }),
    };
    let calls = SharedCallFacts {
        model: a
            .calls
            .iter()
            .all(|c| {
                !model.is_empty()
                    && c.model_requested == model
                    && c.model_echoed.as_deref() == Some(model.as_str())
            })
            .then(|| model.clone()),
        snapshot: uniform(a.calls.iter().map(|c| c.model_echoed.as_deref()))
            .flatten()
            .filter(|echoed| {
                a.calls.iter().all(|c| c.model_requested == model)
                    && answered_as(&model, echoed) == Answered::DatedSnapshot
            })
            .map(str::to_string),
        budget: uniform(a.calls.iter().map(|c| c.max_tokens)),
        finish: uniform(a.calls.iter().map(|c| c.finish_reason.as_ref()))
            .flatten()
            .map(|f| f.as_str().to_string()),
        status: uniform(a.calls.iter().map(|c| c.status)).map(|s| label(&s)),
    };
    // A shared snapshot is said once above the table, as a shared model is.
    let calls = SharedCallFacts {
        model: calls
            .model
            .or_else(|| calls.snapshot.as_ref().map(|_| model.clone())),
        ..calls
    };
    // #, action, permission, result, request, at, latency, prompt,
    // completion, reasoning, cache, cost; and a column for each fact the
    // calls do not share.
    let columns = 12
        + [
            calls.model.is_none(),
            calls.budget.is_none(),
            calls.finish.is_none(),
            calls.status.is_none(),
        ]
        .iter()
        .filter(|&&differs| differs)
        .count();
    AttemptView {
        call_names: wire_names,
        tier_label: tier.map_or(a.tier.clone(), |t| t.label.clone()),
        started_at: a.started_at.clone(),
        duration_s: a.duration_ms as f64 / 1000.0,
        cost: attempt_cost(a, &e.prices).unwrap_or_default(),
        end: label(&a.end.reason).replace('_', " "),
        end_message: a.end.message.clone(),
        steps: steps(a, index, |t| turn_view(corpus, task, t), call_view),
        artifact: a.artifact.as_ref().map(|f| {
            let claim = kept_file_claim(true, &f.path, run, index);
            artifact_view(corpus, f, &claim, verification, true)
        }),
        files: a
            .files
            .iter()
            .map(|f| {
                let claim = kept_file_claim(false, &f.path, run, index);
                artifact_view(corpus, f, &claim, verification, false)
            })
            .collect(),
        transcript: transcript_view(corpus, task, a, index, verification),
        checks: check_views(index, verification),
        inputs: a
            .inputs
            .iter()
            .map(|i| {
                let spec = task.inputs.iter().find(|t| t.path == i.path);
                InputView {
                    path: i.path.clone(),
                    role: spec.map_or_else(String::new, |t| label(&t.role)),
                    href: spec.map_or_else(String::new, |t| object_href(&t.sha256)),
                    before: i.sha256_before.clone(),
                    after: i.sha256_after.clone(),
                }
            })
            .collect(),
        inputs_unchanged: !a.inputs.is_empty()
            && a.inputs.iter().all(|i| {
                task.inputs
                    .iter()
                    .any(|t| t.path == i.path && t.sha256 == i.sha256_before)
                    && i.sha256_after == i.sha256_before
            }),
        calls,
        columns,
        model,
    }
}

/// The fragment of row `step` (from 0) of attempt `index` (from 0).
fn step_anchor(index: usize, step: usize) -> String {
    if index == 0 {
        format!("turn-{}", step + 1)
    } else {
        format!("attempt-{}-turn-{}", index + 1, step + 1)
    }
}

/// Pairs each turn with the call it names (the first not yet shown with
/// that request id), in turn order, then adds the calls no turn named.
fn steps(
    a: &Attempt,
    index: usize,
    turn_view: impl Fn(&Turn) -> TurnView,
    call_view: impl Fn(&ProviderCall, usize) -> CallView,
) -> Vec<StepView> {
    let mut shown = vec![false; a.calls.len()];
    let mut steps: Vec<StepView> = a
        .turns
        .iter()
        .map(|t| {
            let found = (0..a.calls.len()).find(|&i| !shown[i] && a.calls[i].request_id == t.call);
            if let Some(i) = found {
                shown[i] = true;
            }
            StepView {
                anchor: String::new(),
                turn: Some(turn_view(t)),
                call: found.map(|i| call_view(&a.calls[i], i)),
                unmatched_call: found.is_none().then(|| t.call.clone()),
                call_shown_earlier: found.is_none()
                    && a.calls.iter().any(|c| c.request_id == t.call),
            }
        })
        .collect();
    steps.extend(
        a.calls
            .iter()
            .zip(&shown)
            .enumerate()
            .filter(|(_, (_, &shown))| !shown)
            .map(|(i, (c, _))| StepView {
                anchor: String::new(),
                turn: None,
                call: Some(call_view(c, i)),
                unmatched_call: None,
                call_shown_earlier: false,
            }),
    );
    for (i, s) in steps.iter_mut().enumerate() {
        s.anchor = step_anchor(index, i);
    }
    steps
}

/// A link to the object `d`, named by the task input it is when it is
/// one; a planted document's text is shown so the reader sees what the
/// model saw.
pub(super) fn object_ref(corpus: &Corpus, task: &Task, d: &str) -> ObjectRefView {
    let input = task.inputs.iter().find(|i| i.sha256 == d);
    let injected = input.is_some_and(|i| i.role == InputRole::Injected);
    ObjectRefView {
        href: object_href(d),
        label: input.map_or_else(
            || format!("object {}", &d[..d.len().min(12)]),
            |i| i.path.clone(),
        ),
        injected,
        text: injected
            .then(|| {
                corpus
                    .objects
                    .get(d)
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            })
            .flatten(),
    }
}

fn turn_view(corpus: &Corpus, task: &Task, t: &Turn) -> TurnView {
    let result_ref = t
        .result
        .sha256
        .as_ref()
        .map(|d| object_ref(corpus, task, d));
    TurnView {
        tool: label(&t.action.tool),
        args: turn_args(&t.action.args),
        allowed: t.permission.decision == receipts_verifier::model::Decision::Allowed,
        reason: t.permission.reason.clone(),
        ok: t.result.ok,
        result_text: t.result.text.clone(),
        result_ref,
    }
}

/// The view of a file an attempt kept, with the receipt of its digest
/// (`claim`); shown as text or a table when `shown`.
fn artifact_view(
    corpus: &Corpus,
    f: &receipts_verifier::model::FileRef,
    claim: &str,
    verification: &RunVerification,
    shown: bool,
) -> ArtifactView {
    let bytes = corpus.objects.get(&f.sha256).filter(|_| shown);
    ArtifactView {
        digest: verification
            .receipts
            .iter()
            .find(|r| r.subject == layout::object_path(&f.sha256) && r.claim == claim)
            .map(ReceiptView::from),
        path: f.path.clone(),
        sha256: f.sha256.clone(),
        bytes: f.bytes,
        href: object_href(&f.sha256),
        text: bytes.and_then(|b| readable(b)),
        table: bytes
            .filter(|_| f.media_type == "text/csv")
            .and_then(|b| receipts_verifier::csv_rows::read_rows(b).ok()),
    }
}

fn check_views(index: usize, verification: &RunVerification) -> Vec<CheckView> {
    let receipt = |claim: &str| verification.receipts.iter().find(|r| r.claim == claim);
    verification
        .checks
        .get(index)
        .into_iter()
        .flatten()
        .map(|outcome| {
            let claim = format!("attempts[{index}].checks[{}]", outcome.check);
            let status = receipt(&claim).map_or(Status::CouldNotCheck, |r| r.status);
            CheckView {
                check: outcome.check.clone(),
                kind: outcome.kind.clone(),
                recorded: receipt(&claim)
                    .map_or_else(|| "not recorded".to_string(), |r| r.recorded.clone()),
                recomputed: receipt(&claim).map_or_else(String::new, |r| r.recomputed.clone()),
                passed: outcome.passed,
                status: label(&status),
                mark: mark(status).to_string(),
                evidence: outcome.evidence.clone(),
                subject: receipt(&claim).map_or_else(String::new, |r| r.subject.clone()),
                claim,
            }
        })
        .collect()
}

/// The one value every item has, if they all have the same (and there is one).
fn uniform<T: PartialEq>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.all(|x| x == first).then_some(first)
}

/// An artifact as text, exactly as the agent wrote it (JSON too: its keys
/// in the agent's order, its spacing its own), or `None` when it is not
/// UTF-8.
fn readable(bytes: &[u8]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(str::to_string)
}

/// Each call of `a` named by what it was: its wire API (from the capture
/// of a run recorded on the wire, `source`), its place among the
/// attempt's calls of that API, and the model it requested, e.g. `chat
/// completion 2 (gpt-4o-mini)`; a call of a run not recorded on the wire
/// is a `provider call`.
fn call_names(corpus: &Corpus, source: Option<&Source>, a: &Attempt) -> Vec<String> {
    let capture: Option<Capture> = source
        .filter(|s| s.format == CAPTURE_FORMAT)
        .and_then(|s| corpus.objects.get(&s.sha256))
        .and_then(|bytes| serde_json::from_slice(bytes).ok());
    let api_of = |c: &ProviderCall| {
        let wire = c.wire.as_ref()?;
        let capture = capture.as_ref()?;
        let e = capture
            .calls
            .iter()
            .find(|e| e.request.sha256 == wire.request_sha256)?;
        Api::from_name(&e.api)
    };
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    a.calls
        .iter()
        .map(|c| {
            let kind = match api_of(c) {
                Some(Api::OpenAiChat) => "chat completion",
                Some(Api::OpenAiResponses) => "response",
                Some(Api::AnthropicMessages) => "message",
                Some(Api::Other) | None => "provider call",
            };
            let n = seen.entry(kind).or_default();
            *n += 1;
            if c.model_requested.is_empty() {
                format!("{kind} {n}")
            } else {
                format!("{kind} {n} ({})", c.model_requested)
            }
        })
        .collect()
}

/// What went wrong with call `c` of attempt `a`, in words: a refused key, an
/// error status, an empty reply.
fn failure(a: &Attempt, c: &ProviderCall) -> Option<String> {
    let error = c
        .error
        .as_deref()
        .map(|e| format!(": {e}"))
        .unwrap_or_default();
    if c.refused_authentication() {
        return Some(format!(
            "authentication refused (HTTP {}){error}",
            c.http_status.unwrap_or_default()
        ));
    }
    if let Some(code) = c.http_status.filter(|&code| code >= 400) {
        return Some(format!("HTTP {code}{error}"));
    }
    if c.status == CallStatus::Error {
        return Some(format!("error{error}"));
    }
    a.empty_responses()
        .any(|e| e.request_id == c.request_id)
        .then(|| "empty reply: finished within budget with no action".to_string())
}
