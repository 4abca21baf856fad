//! The capture `receipts record` writes: every call an agent's command
//! sent through the recording proxy, as it crossed the wire. It is kept as
//! an object by its SHA-256, and each call's request and response bodies
//! too; a recorded run names it as its `source`.

use serde::{Deserialize, Serialize};

use crate::model::FormatVersion;

/// The `source.format` of a run recorded on the wire.
pub const CAPTURE_FORMAT: &str = "receipts-wire";

/// What `receipts record` saw while one command ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Capture {
    /// The record format's version.
    pub format_version: FormatVersion,
    /// Always `"wire_capture"`.
    pub kind: CaptureKind,
    /// The recorder and its version, e.g. `receipts 0.1.0`.
    pub recorder: String,
    /// The command run, as given (its arguments are the publisher's to show).
    pub command: Vec<String>,
    /// When the command started and ended (UTC).
    pub started_at: String,
    /// When the command ended (UTC).
    pub ended_at: String,
    /// The command's exit code; `null` when a signal ended it.
    pub exit_code: Option<i32>,
    /// The signal that ended the command, where one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// Every call, in the order it was sent.
    pub calls: Vec<Exchange>,
}

/// The `kind` that marks a file as a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CaptureKind {
    /// A capture of provider calls on the wire (`"wire_capture"`).
    WireCapture,
}

/// One call through the proxy: a request and what came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Exchange {
    /// The call's place in the capture, from 0, in the order sent.
    pub seq: u32,
    /// The request's HTTP method, e.g. `POST`.
    pub method: String,
    /// Where it was forwarded: the upstream's origin, e.g.
    /// `https://api.openai.com`.
    pub upstream: String,
    /// The path and query forwarded, secret query values redacted.
    pub target: String,
    /// The wire API, by [`super::Api::as_str`]'s names.
    pub api: String,
    /// The request's headers as sent, secret values redacted
    /// ([`super::is_secret_header`]), names lowercase, in order.
    pub request_headers: Vec<(String, String)>,
    /// The request body.
    pub request: Body,
    /// When the request was sent upstream (UTC, milliseconds).
    pub sent_at: String,
    /// Milliseconds from sending to the response's first body byte (to its
    /// head, for a body that is empty); `null` when no response came.
    pub first_byte_ms: Option<u64>,
    /// Milliseconds from sending to the end: the response's last byte, or
    /// the failure.
    pub done_ms: u64,
    /// The HTTP status the upstream answered; `null` when none arrived.
    pub status: Option<u16>,
    /// The response's headers, secret values redacted, names lowercase.
    pub response_headers: Vec<(String, String)>,
    /// The response body as far as it arrived; `null` when no response came.
    pub response: Option<Body>,
    /// How the exchange ended.
    pub end: ExchangeEnd,
    /// What went wrong, as the proxy saw it, for an exchange that did not
    /// end complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The earlier call with the same method, target and request bytes that
    /// did not end complete and 2xx, which this call repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_of: Option<u32>,
}

/// A body kept as an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// SHA-256 of the body's bytes, lowercase hex: the object it is kept as.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// How an exchange ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExchangeEnd {
    /// The whole response arrived and was passed on.
    Complete,
    /// The upstream could not be reached or refused the connection: no
    /// response, and the command's connection was closed without one.
    Unreachable,
    /// The response stopped before its end (the upstream's stream was cut);
    /// the command's connection was cut at the same byte.
    Cut,
    /// The command closed its connection before the response ended.
    ClientGone,
}

impl Exchange {
    /// The provider's request id, from the first of
    /// [`super::REQUEST_ID_HEADERS`] the response carries.
    pub fn request_id(&self) -> Option<&str> {
        super::REQUEST_ID_HEADERS.iter().find_map(|name| {
            self.response_headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        })
    }

    /// The response's `Content-Type`, if it gave one.
    pub fn content_type(&self) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|(n, _)| n == "content-type")
            .map(|(_, v)| v.as_str())
    }
}
