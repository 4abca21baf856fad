//! The provider calls the simulator's harness, judge and smoke-test records
//! share: one model asked and echoed, the reply complete.

use receipts_verifier::model::{CallStatus, FinishReason, ProviderCall, Usage};
use receipts_verifier::time::{format, UnixMillis};

/// What a simulated call took and gave.
pub struct Answer<'a> {
    /// The call's request id.
    pub request_id: String,
    /// The model asked, which the provider echoes.
    pub model: &'a str,
    /// When the call started, in milliseconds since the epoch.
    pub at: i64,
    /// How long it took.
    pub latency_ms: u64,
    /// The prompt's tokens, all of them reserved for the call.
    pub prompt: u64,
    /// The reply's tokens.
    pub completion: u64,
    /// The call's token budget.
    pub max_tokens: u64,
}

/// A call that the provider answered in full (`stop`), its usage known
/// apart from reasoning and cache tokens.
pub fn answered(a: Answer<'_>) -> ProviderCall {
    ProviderCall {
        request_id: a.request_id,
        model_requested: a.model.to_string(),
        model_echoed: Some(a.model.to_string()),
        started_at: format(UnixMillis(a.at)),
        latency_ms: a.latency_ms,
        usage: Some(Usage {
            prompt_tokens: a.prompt,
            completion_tokens: a.completion,
            reasoning_tokens: None,
            cache_hit_tokens: None,
            cache_miss_tokens: None,
            cache_write_tokens: None,
        }),
        finish_reason: Some(FinishReason::stop()),
        max_tokens: a.max_tokens,
        prompt_tokens_reserved: a.prompt,
        status: CallStatus::Ok,
        http_status: None,
        error: None,
        retry_of: None,
        wire: None,
    }
}
