//! A run's head: the little the pages other than its own read of it (its
//! cell, whether any call lost its usage, the points it adds to the
//! throughput chart). Loading keeps a head per run and lets the record go;
//! the record is read again when the run is verified and its page is made,
//! so a build holds one record per thread, not every record at once.

use receipts_verifier::facts::RunPlace;
use receipts_verifier::model::{Experiment, Run};
use receipts_verifier::time;

#[derive(Debug, Clone)]
pub struct RunHead {
    /// The run's id and cell, as its facts carry them.
    pub place: RunPlace,
    /// Whether any provider call lost its usage.
    pub lost_usage: bool,
    /// Each provider call with known usage and time, for the throughput chart.
    pub calls: Vec<CallSketch>,
    /// The run's record says the simulator wrote it.
    pub simulated: bool,
    /// The digest of the wire capture the run was recorded as, when it was
    /// recorded on the wire (what its page's banner is decided from).
    pub capture: Option<String>,
}

/// One provider call on the throughput chart.
#[derive(Debug, Clone, Copy)]
pub struct CallSketch {
    /// The position of the call's tier among the experiment's tiers (0 when unknown).
    pub series: usize,
    /// When the call started, in milliseconds since the epoch.
    pub started_ms: i64,
    /// Completion tokens per second of the call's latency.
    pub tokens_per_second: f64,
    /// Its prompt tokens, and how many of them the provider read from its
    /// cache, where it reports that.
    pub prompt_tokens: u64,
    pub cache_hit_tokens: Option<u64>,
}

impl RunHead {
    pub fn of(run: &Run, experiment: &Experiment) -> RunHead {
        let mut calls = Vec::new();
        for a in &run.attempts {
            let series = experiment
                .tiers
                .iter()
                .position(|t| t.id == a.tier)
                .unwrap_or(0);
            for c in &a.calls {
                let (Some(u), Some(tokens_per_second), Ok(t)) =
                    (c.usage, c.tokens_per_second(), time::parse(&c.started_at))
                else {
                    continue;
                };
                calls.push(CallSketch {
                    series,
                    started_ms: t.0,
                    tokens_per_second,
                    prompt_tokens: u.prompt_tokens,
                    cache_hit_tokens: u.cache_hit_tokens,
                });
            }
        }
        RunHead {
            place: RunPlace::of(run),
            lost_usage: run.calls().any(|c| c.usage.is_none()),
            calls,
            simulated: run.provenance.is_simulated(),
            capture: run
                .source
                .as_ref()
                .filter(|s| s.format == receipts_verifier::wire::CAPTURE_FORMAT)
                .map(|s| s.sha256.clone()),
        }
    }
}
