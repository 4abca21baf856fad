//! Parsing record files into the format's types, with errors that name the
//! file, the field path and the line.

use serde::de::DeserializeOwned;

use receipts_verifier::model::{unsupported_version_message, FORMAT_VERSION};

use receipts_verifier::messages::plain;

use crate::error::InputError;

/// Parses a JSON record. On failure the error names the field path
/// (`attempts[0].calls[1].usage`) and the line and column; a record whose
/// `format_version` this build does not read is reported as such before any
/// other problem.
pub fn json<T: DeserializeOwned>(file: &str, bytes: &[u8]) -> Result<T, InputError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let (path, inner) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => match de.end() {
            Ok(()) => return Ok(v),
            Err(e) => (String::new(), e),
        },
        Err(err) => (err.path().to_string(), err.into_inner()),
    };
    if let Some(version_error) = version_error(file, bytes) {
        return Err(version_error);
    }
    let position = format!("line {}, column {}", inner.line(), inner.column());
    let place = if path.is_empty() || path == "." {
        position
    } else {
        format!("{path} ({position})")
    };
    let mut message = plain(&strip_position(&inner.to_string()));
    if let Some(hint) = missing_field_hint(&message) {
        message.push_str("; ");
        message.push_str(hint);
    }
    Err(InputError::at(file, place, message))
}

/// How to add a field that input written for an earlier release lacks.
fn missing_field_hint(message: &str) -> Option<&'static str> {
    let field = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    Some(match field {
        "runs_per_cell" => {
            "add `\"runs_per_cell\": 1` to the grid: how many runs each cell holds in the primary analysis (see docs/FORMAT.md, \"The grid, reruns and deviations\")"
        }
        _ => return None,
    })
}

/// The error for a record whose `format_version` is present and not ours.
fn version_error(file: &str, bytes: &[u8]) -> Option<InputError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let version = value.get("format_version")?;
    if version.as_u64() == Some(u64::from(FORMAT_VERSION)) {
        return None;
    }
    Some(InputError::at(
        file,
        "format_version",
        unsupported_version_message(version),
    ))
}

/// serde_json appends " at line L column C"; the place already says it.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Reads a file as UTF-8 text.
pub fn utf8(file: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        InputError::at(
            file,
            format!("line {line}, byte {offset}"),
            "the file is not valid UTF-8",
        )
    })
}
