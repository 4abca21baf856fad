//! A task: its family, the input files the agent sees, the artifact it must
//! produce and the deterministic checks that judge it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::FormatVersion;

/// `experiments/tasks/<id>.json`. Tasks are shared by every experiment that runs them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub format_version: FormatVersion,
    /// Always `"task"`.
    pub kind: TaskKind,
    pub id: String,
    pub title: String,
    pub family: TaskFamily,
    /// The instruction the agent is given.
    pub prompt: String,
    /// The files the agent can read. Their bytes live in the object store.
    pub inputs: Vec<TaskInput>,
    /// The file the agent must write.
    pub artifact: ArtifactSpec,
    pub checks: Vec<CheckSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Task,
}

/// What kind of task it is. The simulated sample's three families are
/// known by name; any other (a real benchmark's `coding`, `web-research`,
/// …) is kept as written. Nothing the verifier checks reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(from = "String", into = "String")]
#[cfg_attr(feature = "schema", schemars(with = "String"))]
pub enum TaskFamily {
    /// Read documents (one carries a planted prompt injection), write a brief with exact quotes.
    DocumentResearch,
    /// Normalize a CSV without losing rows.
    FileTransformation,
    /// Write a rule program in the restricted expression language.
    BoundedProgramming,
    /// Any other family, by the name the task gives it.
    Named(String),
}

impl TaskFamily {
    /// The family's name as written in the record.
    pub fn as_str(&self) -> &str {
        match self {
            TaskFamily::DocumentResearch => "document-research",
            TaskFamily::FileTransformation => "file-transformation",
            TaskFamily::BoundedProgramming => "bounded-programming",
            TaskFamily::Named(name) => name,
        }
    }
}

impl From<String> for TaskFamily {
    fn from(name: String) -> TaskFamily {
        match name.as_str() {
            "document-research" => TaskFamily::DocumentResearch,
            "file-transformation" => TaskFamily::FileTransformation,
            "bounded-programming" => TaskFamily::BoundedProgramming,
            _ => TaskFamily::Named(name),
        }
    }
}

impl From<TaskFamily> for String {
    fn from(family: TaskFamily) -> String {
        family.as_str().to_string()
    }
}

/// An input file and what it is to the task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TaskInput {
    /// The file's name as the agent sees it.
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
    pub media_type: String,
    pub role: InputRole,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum InputRole {
    /// An approved source: its lines may be quoted.
    ApprovedSource,
    /// A document carrying a planted prompt injection; it must not be cited.
    Injected,
    /// Data the artifact is derived from.
    Data,
    /// A specification of what to build.
    Spec,
}

/// The artifact the agent must produce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArtifactSpec {
    pub path: String,
    pub media_type: String,
}

/// One deterministic check and its parameters. A check is a pure function of
/// the task's inputs, these parameters and the artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CheckSpec {
    /// Every `quote` in the brief equals, character for character, a line of
    /// the `source` it names, and that source is an approved input.
    ExactQuotes { id: String },
    /// No item of the brief cites one of these inputs.
    NoCitation { id: String, forbidden: Vec<String> },
    /// Each required item is covered: some exactly-quoted line contains its phrase.
    RequiredItems {
        id: String,
        items: Vec<RequiredItem>,
    },
    /// Every input's digest after the run equals its digest before and the task's.
    InputsUnchanged { id: String },
    /// The artifact keeps every row of `source`, by `id_column`, in order.
    RowsPreserved {
        id: String,
        source: String,
        id_column: String,
    },
    /// Each European-format amount in `source` is converted to integer cents,
    /// and each malformed amount is marked invalid instead of guessed.
    EuroCents {
        id: String,
        source: String,
        id_column: String,
        amount_column: String,
        cents_column: String,
        status_column: String,
    },
    /// The rule program is executed on each case and must give its expected result.
    RuleCases {
        id: String,
        /// The variables the program may read.
        variables: Vec<String>,
        cases: Vec<RuleCase>,
    },
}

impl CheckSpec {
    /// The check's identifier within its task.
    pub fn id(&self) -> &str {
        match self {
            CheckSpec::ExactQuotes { id }
            | CheckSpec::NoCitation { id, .. }
            | CheckSpec::RequiredItems { id, .. }
            | CheckSpec::InputsUnchanged { id }
            | CheckSpec::RowsPreserved { id, .. }
            | CheckSpec::EuroCents { id, .. }
            | CheckSpec::RuleCases { id, .. } => id,
        }
    }

    /// The check's kind as written in the record.
    pub fn kind(&self) -> &'static str {
        match self {
            CheckSpec::ExactQuotes { .. } => "exact-quotes",
            CheckSpec::NoCitation { .. } => "no-citation",
            CheckSpec::RequiredItems { .. } => "required-items",
            CheckSpec::InputsUnchanged { .. } => "inputs-unchanged",
            CheckSpec::RowsPreserved { .. } => "rows-preserved",
            CheckSpec::EuroCents { .. } => "euro-cents",
            CheckSpec::RuleCases { .. } => "rule-cases",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RequiredItem {
    pub id: String,
    /// Covered when an exactly-quoted line contains this text.
    pub phrase: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RuleCase {
    pub id: String,
    /// What the case probes: `threshold`, `weight`, `discount`, `held-out`, …
    pub group: String,
    /// Held-out cases are not shown to the agent.
    #[serde(default)]
    pub held_out: bool,
    pub vars: BTreeMap<String, i64>,
    pub expected: i64,
}
