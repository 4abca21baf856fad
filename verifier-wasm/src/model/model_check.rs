//! The model-id smoke test: before an experiment's first run, the model ids
//! its tiers request are read from the provider's model list and each is
//! called once, so a run never calls an id the provider serves under
//! another spelling.

use serde::{Deserialize, Serialize};

use super::{FormatVersion, Provenance, ProviderCall};

/// The file name of an experiment's smoke test, beside `experiment.json`.
pub const MODEL_CHECK_FILE: &str = "models.json";

/// `experiments/<id>/models.json`: the model ids the experiment calls,
/// each listed by the provider and answered under its own id before the
/// first run. Optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ModelCheck {
    /// The record format's version: `1`.
    pub format_version: FormatVersion,
    /// Always `"model_check"`.
    pub kind: ModelCheckKind,
    /// The experiment whose model ids were checked, by id: the one whose
    /// directory holds the file.
    pub experiment: String,
    /// Whether the check was made with real provider calls or simulated.
    pub provenance: Provenance,
    /// When the provider's model list was read (UTC).
    pub listed_at: String,
    /// The model ids the provider listed (its `GET /v1/models`), as it
    /// wrote them.
    pub listed: Vec<String>,
    /// One probe per model id.
    pub probes: Vec<ModelProbe>,
}

/// The `kind` of a model-id smoke test record: `"model_check"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ModelCheckKind {
    /// A model-id smoke test.
    ModelCheck,
}

/// One model id, called once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ModelProbe {
    /// The id probed, as the experiment's tiers request it.
    pub model: String,
    /// The name the provider's catalog shows for it, when that differs
    /// from the id (untrusted text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_name: Option<String>,
    /// The probe's call, with the provider's receipt.
    pub call: ProviderCall,
    /// Whether the id is confirmed, as recorded: listed, requested, and
    /// answered under exactly that id.
    pub confirmed: bool,
}

impl ModelProbe {
    /// Why the id is not confirmed, or `None` when it is: the provider
    /// listed it, the call requested it, completed, and echoed it exactly.
    pub fn unconfirmed(&self, listed: &[String]) -> Option<String> {
        let id = &self.model;
        let c = &self.call;
        if c.model_requested != *id {
            return Some(format!("the call requested `{}`", c.model_requested));
        }
        if !listed.iter().any(|l| l == id) {
            return Some(match listed.iter().find(|l| l.eq_ignore_ascii_case(id)) {
                Some(l) => format!("the provider lists `{l}`, which differs in case"),
                None => "the provider's list does not name it".to_string(),
            });
        }
        if c.status != super::CallStatus::Ok || c.usage.is_none() {
            return Some("the call did not complete".to_string());
        }
        match c.model_echoed.as_deref() {
            Some(echoed) if echoed == id => None,
            Some(echoed) => Some(format!("the provider answered as `{echoed}`")),
            None => Some("the provider echoed no model".to_string()),
        }
    }
}
