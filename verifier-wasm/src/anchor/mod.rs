//! What backs a registration's time from outside the record: an RFC 3161
//! time stamp of the registration digest ([`rfc3161`]), or the git commit
//! that first held the digest ([`GitAnchor`]). A digest alone shows that
//! what it covers is unchanged since it was computed, not when that was.

pub mod rfc3161;

pub use rfc3161::Timestamp;

use crate::model::GitAnchor;

/// An experiment's anchor files, as read beside its `experiment.json`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AnchorFiles<'a> {
    /// `registration.tsr`.
    pub timestamp: Option<&'a [u8]>,
    /// `registration.tsa.pem`.
    pub tsa_certificate: Option<&'a [u8]>,
    /// `registration.git.json`, parsed.
    pub git: Option<&'a GitAnchor>,
}

/// Decodes a 64-character lowercase hex digest into its 32 bytes.
pub fn digest_bytes(hex: &str) -> Option<Vec<u8>> {
    if !crate::digest::is_sha256_hex(hex) {
        return None;
    }
    (0..32)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

/// The first characters of a commit id or fingerprint, as pages show them.
pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
