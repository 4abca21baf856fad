//! What a directory of imported evaluations registered before they ran:
//! `<dir>/registration.json`, each task's samples, epochs and scorers.
//!
//! A log's own header names its dataset's samples, its epochs and its
//! scorers, and [`super::verify`] holds the log to them; but whoever edits
//! a log can edit its header with it (drop an inconvenient sample from the
//! samples, the dataset's ids and the totals, and recompute the metrics).
//! A registration written before the evaluation ran is what such an edit
//! cannot reach: every log of the directory is then held to the grid its
//! task registered, and every registered task to a log.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::verify::sample_epochs;
use crate::plural::count;

use super::record::ImportedEval;
use super::scorers::base_name;
use crate::model::FormatVersion;
use crate::time;
use crate::verify::Receipt;

/// The registration of a directory of imported evaluations, beside `inspect/`.
pub const EVAL_REGISTRATION_FILE: &str = "registration.json";

/// `<dir>/registration.json`: what each task of a directory of imported
/// evaluations was registered to run, before it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EvalRegistration {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"evaluation_registration"`.
    pub kind: EvalRegistrationKind,
    /// When the registration was written (UTC), as its author says: an
    /// evaluation created earlier fails.
    pub registered_at: String,
    /// One entry per task; each log of the directory is held to its task's.
    pub evaluations: Vec<RegisteredEval>,
}

/// The `kind` of an [`EvalRegistration`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EvalRegistrationKind {
    /// A registration of imported evaluations (`"evaluation_registration"`).
    EvaluationRegistration,
}

/// What one task was registered to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RegisteredEval {
    /// The task's name, as its logs give it.
    pub task: String,
    /// The dataset's sample ids (strings or integers, as the dataset has them).
    pub samples: Vec<SampleId>,
    /// How many epochs each sample runs.
    pub epochs: u32,
    /// The scorers the task runs, by name (`match`, `includes`, a custom
    /// scorer's name, …); a package prefix (`inspect_ai/`) is not needed.
    pub scorers: Vec<String>,
}

/// A sample id, as a dataset gives it: text or an integer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum SampleId {
    /// An integer id (`7`).
    Integer(i64),
    /// A text id (`"add-1"`).
    Text(String),
}

impl SampleId {
    /// The id as an imported record writes it.
    pub fn text(&self) -> String {
        match self {
            SampleId::Integer(n) => n.to_string(),
            SampleId::Text(s) => s.clone(),
        }
    }
}

/// The claims a registration's receipts make.
const REGISTERED: &str = "registered before it ran";
const GRID: &str = "the samples its task registered";
const SCORERS: &str = "the scorers its task registered";
const LOGGED: &str = "each registered task has a log";

/// The registration's receipts for each evaluation (in the order given),
/// and the directory's own: a registered task no log ran. `dir` is the
/// directory under the records root.
pub fn registration_receipts(
    dir: &str,
    registration: &EvalRegistration,
    evals: &[(&str, &ImportedEval)],
) -> (Vec<Vec<Receipt>>, Vec<Receipt>) {
    let subject = format!("{dir}/{EVAL_REGISTRATION_FILE}");
    let registered_at = time::parse(&registration.registered_at);
    let per_eval = evals
        .iter()
        .map(|(name, eval)| {
            let claim = |what: &str| format!("{name}: {what}");
            let Some(task) = registration
                .evaluations
                .iter()
                .find(|r| r.task == eval.task)
            else {
                let tasks: Vec<&str> = registration
                    .evaluations
                    .iter()
                    .map(|r| r.task.as_str())
                    .collect();
                return vec![Receipt::new(
                    &subject,
                    claim(GRID),
                    format!("task `{}`", eval.task),
                    format!("not registered: the registration names {}", names(&tasks)),
                    false,
                )];
            };
            vec![
                timing(
                    &subject,
                    &claim(REGISTERED),
                    registration,
                    &registered_at,
                    eval,
                ),
                grid(&subject, &claim(GRID), task, eval),
                scorers(&subject, &claim(SCORERS), task, eval),
            ]
        })
        .collect();
    let ran: BTreeSet<&str> = evals.iter().map(|(_, e)| e.task.as_str()).collect();
    let mut own = Vec::new();
    let mut seen = BTreeSet::new();
    for task in &registration.evaluations {
        if !seen.insert(task.task.as_str()) {
            own.push(Receipt::new(
                &subject,
                LOGGED,
                format!("task `{}`", task.task),
                "registered twice: a task has one registration",
                false,
            ));
        } else if !ran.contains(task.task.as_str()) {
            own.push(Receipt::new(
                &subject,
                LOGGED,
                format!("task `{}`", task.task),
                "no log of the directory ran it: a registered evaluation is published, whatever it found",
                false,
            ));
        }
    }
    if own.is_empty() {
        own.push(Receipt::new(
            &subject,
            LOGGED,
            format!(
                "{} registered",
                count(registration.evaluations.len(), "task", None)
            ),
            format!("{} run them", count(evals.len(), "log", None)),
            true,
        ));
    }
    (per_eval, own)
}

fn names(items: &[&str]) -> String {
    if items.is_empty() {
        return "no task".to_string();
    }
    items
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The registration is older than the evaluation: its time before the
/// log's creation (and start).
fn timing(
    subject: &str,
    claim: &str,
    registration: &EvalRegistration,
    registered_at: &Result<time::UnixMillis, time::TimestampError>,
    eval: &ImportedEval,
) -> Receipt {
    let recorded = format!("registered {} (self-asserted)", registration.registered_at);
    let registered_at = match registered_at {
        Ok(t) => *t,
        Err(e) => return Receipt::new(subject, claim, recorded, e.to_string(), false),
    };
    let began = std::iter::once(&eval.created)
        .chain(eval.started_at.as_ref())
        .filter_map(|t| time::parse(t).ok().map(|at| (at, t)))
        .min_by_key(|(at, _)| *at);
    match began {
        None => Receipt::unchecked(
            subject,
            claim,
            recorded,
            format!(
                "the log's creation time `{}` is not a time the verifier reads",
                eval.created
            ),
        ),
        Some((at, text)) => Receipt::new(
            subject,
            claim,
            recorded,
            format!("the evaluation was created {text}"),
            registered_at < at,
        ),
    }
}

/// The log holds exactly its task's registered samples × epochs; a log
/// that stopped without metrics may hold fewer, and says which.
fn grid(subject: &str, claim: &str, task: &RegisteredEval, eval: &ImportedEval) -> Receipt {
    let expected: BTreeSet<(String, u32)> = task
        .samples
        .iter()
        .flat_map(|id| (1..=task.epochs).map(move |e| (id.text(), e)))
        .collect();
    let held: BTreeSet<(String, u32)> = eval
        .samples
        .iter()
        .map(|s| (s.id.clone(), s.epoch))
        .collect();
    let recorded = sample_epochs(held.len());
    let registered = format!(
        "{} × {} registered",
        count(task.samples.len(), "sample", None),
        count(task.epochs as usize, "epoch", None)
    );
    if expected.len() != task.samples.len() * task.epochs as usize {
        return Receipt::new(
            subject,
            claim,
            recorded,
            "the registration names a sample twice",
            false,
        );
    }
    if let Some((id, e)) = held.difference(&expected).next() {
        return Receipt::new(
            subject,
            claim,
            recorded,
            format!("sample {id}, epoch {e} is not among the {registered}"),
            false,
        );
    }
    let missing: Vec<&(String, u32)> = expected.difference(&held).collect();
    let Some((id, e)) = missing.first() else {
        return Receipt::new(subject, claim, recorded, format!("all {registered}"), true);
    };
    let reports = eval.scorers.iter().any(|s| !s.metrics.is_empty());
    if eval.status != "success" && !reports {
        // A log that stopped says so on its page and reports no figure
        // the missing samples could have changed.
        return Receipt::new(
            subject,
            claim,
            recorded,
            format!(
                "of the {registered}: the evaluation stopped (`{}`) with {} missing and reports no metric",
                eval.status,
                missing.len()
            ),
            true,
        );
    }
    Receipt::new(
        subject,
        claim,
        recorded,
        format!(
            "the {registered} include sample {id}, epoch {e}, which the log does not hold ({} missing)",
            missing.len()
        ),
        false,
    )
}

/// The log's scorers are the ones its task registered, no more and no fewer.
fn scorers(subject: &str, claim: &str, task: &RegisteredEval, eval: &ImportedEval) -> Receipt {
    let registered: BTreeSet<&str> = task.scorers.iter().map(|s| base_name(s)).collect();
    let ran: BTreeSet<&str> = eval.scorers.iter().map(|s| base_name(&s.scorer)).collect();
    let recorded = if ran.is_empty() {
        "no scorer".to_string()
    } else {
        names(&ran.iter().copied().collect::<Vec<_>>())
    };
    let stopped_unscored = ran.is_empty() && eval.status != "success";
    let problem = if stopped_unscored {
        None
    } else if let Some(extra) = ran.difference(&registered).next() {
        Some(format!(
            "`{extra}` was not registered: the task registered {}",
            names(&registered.iter().copied().collect::<Vec<_>>())
        ))
    } else {
        registered.difference(&ran).next().map(|missing| {
            format!("the task registered `{missing}`, which the log does not report")
        })
    };
    match problem {
        None => Receipt::new(
            subject,
            claim,
            recorded,
            format!(
                "registered {}",
                names(&registered.iter().copied().collect::<Vec<_>>())
            ),
            true,
        ),
        Some(why) => Receipt::new(subject, claim, recorded, why, false),
    }
}

/// What an evaluation's page says of its registration.
pub fn registration_words(registration: Option<&EvalRegistration>, task: &str) -> String {
    match registration.and_then(|r| {
        r.evaluations
            .iter()
            .find(|e| e.task == task)
            .map(|e| (r, e))
    }) {
        None if registration.is_some() => {
            "not registered: the directory's registration does not name this task".to_string()
        }
        None => "not registered: the log is held to the samples, epochs and scorers its own header names, which whoever edits the log can edit".to_string(),
        Some((r, e)) => format!(
            "registered {} (self-asserted): {} × {}, scored by {}",
            r.registered_at,
            count(e.samples.len(), "sample", None),
            count(e.epochs as usize, "epoch", None),
            e.scorers.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests;
