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
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"task"`.
    pub kind: TaskKind,
    /// The task's id; also the file name without `.json`.
    pub id: String,
    /// The task's title, as its pages show it.
    pub title: String,
    /// What kind of task it is.
    pub family: TaskFamily,
    /// The instruction the agent is given.
    pub prompt: String,
    /// The files the agent can read. Their bytes live in the object store.
    pub inputs: Vec<TaskInput>,
    /// The file the agent must write.
    pub artifact: ArtifactSpec,
    /// The checks that judge the artifact, each with an id unique within the
    /// task.
    pub checks: Vec<CheckSpec>,
}

/// The `kind` of a task record: `"task"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// A task.
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
    /// SHA-256 of the file's bytes, lowercase hex, naming the object that holds them.
    pub sha256: String,
    /// The file's size in bytes; it must equal the object's.
    pub bytes: u64,
    /// Media type, e.g. `text/csv`, `text/markdown`.
    pub media_type: String,
    /// What the file is to the task.
    pub role: InputRole,
}

/// What an input file is to the task.
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
    /// The file's name as the agent writes it.
    pub path: String,
    /// Media type, e.g. `application/json`, `text/csv`.
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
    ExactQuotes {
        /// The check's id, unique within its task.
        id: String,
    },
    /// No item of the brief cites one of these inputs.
    NoCitation {
        /// The check's id, unique within its task.
        id: String,
        /// The input paths no item may cite.
        forbidden: Vec<String>,
    },
    /// Each required item is covered: some exactly-quoted line contains its phrase.
    RequiredItems {
        /// The check's id, unique within its task.
        id: String,
        /// The items the brief must cover.
        items: Vec<RequiredItem>,
    },
    /// Every input's digest after the run equals its digest before and the task's.
    InputsUnchanged {
        /// The check's id, unique within its task.
        id: String,
    },
    /// The artifact keeps every row of `source`, by `id_column`, in order.
    RowsPreserved {
        /// The check's id, unique within its task.
        id: String,
        /// The input CSV whose rows the artifact must keep, by path.
        source: String,
        /// The column that holds each row's id, in the input and the artifact.
        id_column: String,
    },
    /// Each European-format amount in `source` is converted to integer cents,
    /// and each malformed amount is marked invalid instead of guessed.
    EuroCents {
        /// The check's id, unique within its task.
        id: String,
        /// The input CSV that holds the amounts, by path.
        source: String,
        /// The column that holds each row's id, in the input and the artifact.
        id_column: String,
        /// The input's column of European-format amounts.
        amount_column: String,
        /// The artifact's column for the amount in integer cents, empty for a
        /// malformed amount.
        cents_column: String,
        /// The artifact's column for each row's status: `ok`, or `invalid` for a
        /// malformed amount.
        status_column: String,
    },
    /// The rule program is executed on each case and must give its expected result.
    RuleCases {
        /// The check's id, unique within its task.
        id: String,
        /// The variables the program may read.
        variables: Vec<String>,
        /// The cases the program is run on.
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

/// An item a brief must cover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RequiredItem {
    /// The item's id, which the check's evidence names it by.
    pub id: String,
    /// Covered when an exactly-quoted line contains this text.
    pub phrase: String,
}

/// One case a rule program is run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RuleCase {
    /// The case's id, which the check's evidence names it by.
    pub id: String,
    /// What the case probes: `threshold`, `weight`, `discount`, `held-out`, …
    pub group: String,
    /// Held-out cases are not shown to the agent.
    #[serde(default)]
    pub held_out: bool,
    /// The value of each variable, by name; it must give every variable the
    /// evaluation reaches.
    pub vars: BTreeMap<String, i64>,
    /// The integer the program must give.
    pub expected: i64,
}
