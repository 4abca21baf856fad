//! The model-id smoke test each simulated experiment records before its
//! first run: the provider's list read, each tier's model id called once.

use receipts_verifier::model::{
    CallStatus, FinishReason, FormatVersion, ModelCheck, ModelCheckKind, ModelProbe, Provenance,
    ProviderCall, Usage,
};
use receipts_verifier::time::{format, UnixMillis};

use super::plan::ExperimentPlan;
use super::rng::{short_id, Rng};

/// Ids the simulated provider lists beside the tiers' models.
const OTHER_LISTED: [&str; 2] = ["simulated/Sim-Small-30B-Vision", "simulated/sim-embed-1"];

/// The smoke test of `plan`, ten minutes before its first run.
pub fn model_check(plan: &ExperimentPlan) -> ModelCheck {
    let listed_ms = plan.start_ms - 600_000;
    let mut rng = Rng::from_key(&format!("{}/models", plan.id));
    let mut t = listed_ms + 1_000;
    let mut listed: Vec<String> = plan.tiers.iter().map(|t| t.model.clone()).collect();
    listed.extend(OTHER_LISTED.map(String::from));
    listed.sort();
    let probes = plan
        .tiers
        .iter()
        .map(|tier| {
            let latency_ms = 200 + rng.range(0, 400);
            let call = ProviderCall {
                request_id: format!(
                    "sim-{}",
                    short_id(&format!("{}/models/{}", plan.id, tier.id))
                ),
                model_requested: tier.model.clone(),
                model_echoed: Some(tier.model.clone()),
                started_at: format(UnixMillis(t)),
                latency_ms,
                usage: Some(Usage {
                    prompt_tokens: 14,
                    completion_tokens: 2,
                    reasoning_tokens: Some(0),
                    cache_hit_tokens: None,
                    cache_miss_tokens: None,
                    cache_write_tokens: None,
                }),
                finish_reason: Some(FinishReason::stop()),
                max_tokens: 16,
                prompt_tokens_reserved: 14,
                status: CallStatus::Ok,
                http_status: Some(200),
                error: None,
                retry_of: None,
                wire: None,
            };
            t += latency_ms as i64 + 500;
            ModelProbe {
                model: tier.model.clone(),
                // The catalog shows a display name, not the id.
                catalog_name: Some(tier.label.clone()),
                call,
                confirmed: true,
            }
        })
        .collect();
    ModelCheck {
        format_version: FormatVersion,
        kind: ModelCheckKind::ModelCheck,
        experiment: plan.id.clone(),
        provenance: Provenance::Simulated,
        listed_at: format(UnixMillis(listed_ms)),
        listed,
        probes,
    }
}
