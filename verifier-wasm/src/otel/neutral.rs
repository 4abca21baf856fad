//! The importer's own account of a span, whatever convention wrote it:
//! an agent, a model call, a tool execution or another step, with the
//! facts each may carry ([`Facts`]). Each convention (`genai`,
//! `openinference`, `openllmetry`) maps the attributes it knows to these
//! facts; the record is derived from them and every receipt holds them
//! against each other, so one set of cross-checks serves every
//! convention. A fact no convention finds is absent, never guessed.

use std::collections::BTreeMap;

use serde_json::Value;

use super::attrs::{Attribute, Attrs};
use super::otlp::{traces, Event, Export, Span};
use super::{genai, openinference, openllmetry};

/// What a span is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An agent's run (`invoke_agent`, OpenInference `AGENT` or `CHAIN`,
    /// OpenLLMetry `agent` or `workflow`).
    Agent,
    /// A call to a model (`chat`, OpenInference `LLM`, OpenLLMetry's
    /// `llm.request.type`).
    Call,
    /// A tool's execution (`execute_tool`, `TOOL`, `tool`).
    Tool,
    /// Another step a convention names (embeddings, retrieval, a task).
    Other,
}

/// Token counts as a span reports them; a count it does not report is
/// absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Tokens of input.
    pub input: Option<u64>,
    /// Tokens of output.
    pub output: Option<u64>,
    /// Input tokens read from the provider's cache.
    pub cache_read: Option<u64>,
    /// Input tokens written to the provider's cache.
    pub cache_creation: Option<u64>,
    /// Output tokens spent on reasoning.
    pub reasoning: Option<u64>,
}

/// What a span says, in the importer's terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// What the span is, when a convention says.
    pub kind: Option<Kind>,
    /// The operation as the convention names it (`chat`, `LLM`, `agent`).
    pub operation: Option<String>,
    /// The agent's name (root spans).
    pub agent: Option<String>,
    /// The conversation or session (root spans).
    pub conversation: Option<String>,
    /// The provider (calls).
    pub provider: Option<String>,
    /// `host:port` of the server called (calls).
    pub server: Option<String>,
    /// The model asked for (calls).
    pub request_model: Option<String>,
    /// The model that answered (calls).
    pub response_model: Option<String>,
    /// The provider's id of the response (calls).
    pub response_id: Option<String>,
    /// Why the model stopped, per choice, as written (calls).
    pub finish_reasons: Option<Vec<String>>,
    /// The output budget asked for (calls).
    pub max_tokens: Option<u64>,
    /// Token counts (calls, and a run's totals on its root).
    pub usage: Counts,
    /// The messages the call read (calls).
    pub input: Option<Vec<Value>>,
    /// The messages the call returned (calls).
    pub output: Option<Vec<Value>>,
    /// The tool's name (tools).
    pub tool_name: Option<String>,
    /// The id of the tool call executed (tools).
    pub call_id: Option<String>,
    /// The arguments, as text (tools).
    pub arguments: Option<String>,
    /// The result, as text (tools).
    pub result: Option<String>,
    /// The span's failure in its own words: its status message, else
    /// its error type.
    pub error: Option<String>,
}

/// A span with its facts and the attributes no convention read.
#[derive(Debug, Clone)]
pub struct Step<'s> {
    /// The span.
    pub span: &'s Span,
    /// What it says.
    pub facts: Facts,
    /// Its attributes no convention read, by key.
    pub unread: Vec<Attribute>,
}

impl Step<'_> {
    /// Whether the span is of `kind`.
    pub fn is(&self, kind: Kind) -> bool {
        self.facts.kind == Some(kind)
    }
}

/// The log events of each span, by (trace, span), in the order written.
pub type EventsBySpan = BTreeMap<(String, String), Vec<Event>>;

/// The events of `exports` by the span they belong to.
pub fn events_by_span(exports: &[&Export]) -> EventsBySpan {
    let mut out = EventsBySpan::new();
    for export in exports {
        for event in &export.events {
            out.entry((event.trace_id.clone(), event.span_id.clone()))
                .or_default()
                .push(event.clone());
        }
    }
    out
}

/// Reads `span` (the root of its trace when `root`) with its `events`:
/// a span OpenInference marks (`openinference.span.kind`) by that
/// convention alone, since the GenAI attributes it may carry beside are
/// its own translation of the same facts; any other by the GenAI
/// conventions, OpenLLMetry's attributes filling what those leave out.
pub fn step<'s>(span: &'s Span, events: &[Event], root: bool) -> Step<'s> {
    let mut a = Attrs::new(span);
    let mut f = Facts::default();
    if openinference::marks(&a) {
        openinference::read(&mut a, root, &mut f);
    } else {
        f.kind = genai::kind(&a).or_else(|| openllmetry::kind(&a));
        genai::read(&mut a, events, root, &mut f);
        openllmetry::read(&mut a, root, &mut f);
    }
    f.error = failure(span, &mut a);
    Step {
        span,
        facts: f,
        unread: a.unread(),
    }
}

/// A span's failure, in its own words: the status message, else
/// `error.type` (read only when it gives the words).
fn failure(span: &Span, a: &mut Attrs<'_>) -> Option<String> {
    if span.status != "error" && !a.has("error.type") {
        return None;
    }
    let message = span.status_message.trim();
    Some(if message.is_empty() {
        a.text("error.type").unwrap_or_else(|| "error".to_string())
    } else {
        message.to_string()
    })
}

/// One trace read: its spans by start time, each a [`Step`], and which
/// is the root.
pub struct Trace<'s> {
    /// Every span of the trace, read, by start time then id.
    pub steps: Vec<Step<'s>>,
    /// The root's place in `steps`: the earliest span whose parent is not
    /// in the trace.
    pub root: usize,
}

impl<'s> Trace<'s> {
    /// The root span, read.
    pub fn root(&self) -> &Step<'s> {
        &self.steps[self.root]
    }

    /// The steps of `kind`, by start time.
    pub fn of(&self, kind: Kind) -> impl Iterator<Item = &Step<'s>> {
        self.steps.iter().filter(move |s| s.is(kind))
    }
}

/// The traces of `export` that hold a span some convention names (the
/// agent runs), read with their events, by start time; and how many other
/// traces it holds.
pub fn runs<'s>(export: &'s Export, events: &EventsBySpan) -> (Vec<Trace<'s>>, u32) {
    let mut runs = Vec::new();
    let mut others = 0;
    for spans in traces(&export.spans) {
        let ids: std::collections::BTreeSet<&str> =
            spans.iter().map(|s| s.span_id.as_str()).collect();
        let root = spans
            .iter()
            .position(|s| !ids.contains(s.parent_span_id.as_str()))
            .unwrap_or(0);
        let steps: Vec<Step> = spans
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let key = (s.trace_id.clone(), s.span_id.clone());
                let evs = events.get(&key).map_or(&[][..], Vec::as_slice);
                step(s, evs, i == root)
            })
            .collect();
        if steps.iter().any(|s| s.facts.kind.is_some()) {
            runs.push(Trace { steps, root });
        } else {
            others += 1;
        }
    }
    (runs, others)
}
