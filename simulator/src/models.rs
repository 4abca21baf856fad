//! The model-id smoke test each simulated experiment records before its
//! first run: the provider's list read, each tier's model id called once.

use receipts_verifier::model::{FormatVersion, ModelCheck, ModelCheckKind, ModelProbe, Provenance};
use receipts_verifier::time::{format, UnixMillis};

use super::calls::{answered, Answer};
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
            let mut call = answered(Answer {
                request_id: format!(
                    "sim-{}",
                    short_id(&format!("{}/models/{}", plan.id, tier.id))
                ),
                model: &tier.model,
                at: t,
                latency_ms,
                prompt: 14,
                completion: 2,
                max_tokens: 16,
            });
            // A probe records its HTTP status and a reasoning count of 0.
            call.http_status = Some(200);
            if let Some(usage) = &mut call.usage {
                usage.reasoning_tokens = Some(0);
            }
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
