//! A pin: the root digest a reader was given from somewhere other than the
//! site (a paper, a tag, an attestation), which the site must match.
//!
//! Accepted forms: 64 hex digits in either case, optionally prefixed
//! `sha256:` (in either case), with surrounding white space ignored.
//! Anything else is an invalid pin: never ignored, never a digest that
//! happens to be compared.

/// Why a pin was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid pin {shown:?}: {why}; expected 64 hex digits, optionally prefixed sha256:")]
pub struct PinError {
    /// The pin as given, shortened when long.
    pub shown: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// The lowercase digest `text` pins, or why it is not a pin.
pub fn parse_pin(text: &str) -> Result<String, PinError> {
    let error = |why| PinError {
        shown: text.chars().take(100).collect(),
        why,
    };
    let trimmed = text.trim();
    let hex = match trimmed.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case("sha256:") => &trimmed[7..],
        _ => trimmed,
    };
    if hex.is_empty() {
        return Err(error("it is empty"));
    }
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(error("it has a character that is not a hex digit"));
    }
    if hex.len() != 64 {
        return Err(error(if hex.len() < 64 {
            "it is shorter than a SHA-256 digest"
        } else {
            "it is longer than a SHA-256 digest"
        }));
    }
    Ok(hex.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    #[test]
    fn accepted_forms_give_the_lowercase_digest() {
        for pin in [
            D.to_string(),
            D.to_uppercase(),
            format!("sha256:{D}"),
            format!("SHA256:{}", D.to_uppercase()),
            format!("  {D}\n"),
        ] {
            assert_eq!(parse_pin(&pin).as_deref(), Ok(D), "{pin:?}");
        }
    }

    #[test]
    fn anything_else_is_refused() {
        for pin in [
            String::new(),
            "sha256:".to_string(),
            D[..63].to_string(),
            format!("{D}0"),
            format!("{D}&x=1"),
            format!("{D}g"),
            format!("sha512:{D}"),
            format!("sha256: {D}"),
            format!("{} {}", &D[..32], &D[32..]),
            "g".repeat(64),
        ] {
            assert!(parse_pin(&pin).is_err(), "{pin:?} was accepted");
        }
        let e = parse_pin("xyz").unwrap_err();
        assert!(e.to_string().starts_with("invalid pin \"xyz\""), "{e}");
    }
}
