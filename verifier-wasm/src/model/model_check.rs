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
            Some(echoed) if answered_as(id, echoed) != Answered::Other => None,
            Some(echoed) => Some(format!("the provider answered as `{echoed}`")),
            None => Some("the provider echoed no model".to_string()),
        }
    }
}

/// How a provider's answer names the model a call requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// Under exactly the id requested.
    Same,
    /// Under a dated snapshot of the id requested, an alias: the alias
    /// with a date after it (`gpt-4o-mini` answered as
    /// `gpt-4o-mini-2024-07-18`), the same model.
    DatedSnapshot,
    /// Under another id: another model.
    Other,
}

/// How `echoed`, the model a provider said answered, names `requested`.
/// A dated snapshot is the alias followed by a date: `-YYYY-MM-DD`,
/// `-YYYYMMDD` or `@YYYYMMDD` (a year from 2000), or `-MMDD` (OpenAI's
/// older snapshots, `gpt-4-0613`), each a real month and day.
pub fn answered_as(requested: &str, echoed: &str) -> Answered {
    if echoed == requested {
        return Answered::Same;
    }
    let dated = !requested.is_empty() && echoed.strip_prefix(requested).is_some_and(is_date_suffix);
    if dated {
        Answered::DatedSnapshot
    } else {
        Answered::Other
    }
}

/// Whether `rest` is one of [`answered_as`]'s date suffixes.
fn is_date_suffix(rest: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let month_day = |m: &str, d: &str| {
        let (Ok(m), Ok(d)) = (m.parse::<u32>(), d.parse::<u32>()) else {
            return false;
        };
        (1..=12).contains(&m) && (1..=31).contains(&d)
    };
    let year = |y: &str| y.parse::<u32>().is_ok_and(|y| (2000..=2999).contains(&y));
    let Some((sep, date)) = rest
        .strip_prefix('-')
        .map(|d| ('-', d))
        .or_else(|| rest.strip_prefix('@').map(|d| ('@', d)))
    else {
        return false;
    };
    let parts: Vec<&str> = date.split('-').collect();
    match parts.as_slice() {
        [y, m, d] if sep == '-' && y.len() == 4 && m.len() == 2 && d.len() == 2 => {
            [y, m, d].iter().all(|p| digits(p)) && year(y) && month_day(m, d)
        }
        [ymd] if ymd.len() == 8 && digits(ymd) => {
            year(&ymd[..4]) && month_day(&ymd[4..6], &ymd[6..])
        }
        [md] if sep == '-' && md.len() == 4 && digits(md) => month_day(&md[..2], &md[2..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{answered_as, Answered};

    #[test]
    fn a_dated_snapshot_of_the_alias_is_the_model_requested_and_another_model_is_not() {
        for (requested, echoed, answered) in [
            ("gpt-4o-mini", "gpt-4o-mini", Answered::Same),
            (
                "gpt-4o-mini",
                "gpt-4o-mini-2024-07-18",
                Answered::DatedSnapshot,
            ),
            (
                "gpt-4o-mini",
                "gpt-4o-mini-20240718",
                Answered::DatedSnapshot,
            ),
            (
                "claude-3-5-sonnet",
                "claude-3-5-sonnet@20240620",
                Answered::DatedSnapshot,
            ),
            ("gpt-4", "gpt-4-0613", Answered::DatedSnapshot),
            // Another model, whatever it shares with the alias.
            ("gpt-4o-mini", "gpt-4o", Answered::Other),
            ("gpt-4o", "gpt-4o-mini", Answered::Other),
            ("gpt-4o", "gpt-4o-mini-2024-07-18", Answered::Other),
            ("gpt-4o-mini-2024-07-18", "gpt-4o-mini", Answered::Other),
            ("gpt-4o-mini", "GPT-4o-mini-2024-07-18", Answered::Other),
            // Not dates: a version, a size, an impossible month or day.
            ("llama-3", "llama-3-70b", Answered::Other),
            ("m", "m-2024-13-01", Answered::Other),
            ("m", "m-2024-07-32", Answered::Other),
            ("m", "m-1999-07-18", Answered::Other),
            ("m", "m-2024-07-18-x", Answered::Other),
            ("m", "m-9999", Answered::Other),
            ("m", "m@0613", Answered::Other),
            ("", "-2024-07-18", Answered::Other),
        ] {
            assert_eq!(
                answered_as(requested, echoed),
                answered,
                "{requested} as {echoed}"
            );
        }
    }
}
