//! The timeline at the top of a run's page: its attempts on one axis from
//! the run's start, each provider call a bar linked to its row of the turns
//! table.

use receipts_verifier::time;

use super::attempt::AttemptView;
use crate::charts::{self, TimelineCall, TimelineRow};

/// The run's timeline as SVG; `None` when no call has a time.
pub fn run_timeline(attempts: &[AttemptView]) -> Option<String> {
    charts::run_timeline("timeline-chart", &rows(attempts))
}

/// One row per attempt. An attempt whose start does not parse follows the
/// one before it.
fn rows(attempts: &[AttemptView]) -> Vec<TimelineRow> {
    let starts: Vec<Option<i64>> = attempts
        .iter()
        .map(|a| time::parse(&a.started_at).ok().map(|t| t.0))
        .collect();
    let origin = starts.iter().flatten().min().copied();
    let mut next = 0.0;
    attempts
        .iter()
        .zip(&starts)
        .enumerate()
        .map(|(i, (a, start))| {
            let start_s = origin
                .zip(*start)
                .map_or(next, |(o, s)| (s - o) as f64 / 1000.0);
            next = start_s + a.duration_s;
            TimelineRow {
                label: format!("Attempt {}", i + 1),
                title: format!("attempt {} ({})", i + 1, a.tier_label),
                start_s,
                duration_s: a.duration_s,
                calls: a
                    .steps
                    .iter()
                    .enumerate()
                    .filter_map(|(j, s)| {
                        let c = s.call.as_ref()?;
                        let what = s.turn.as_ref().map_or_else(
                            || match &c.wire {
                                Some(_) => format!("Row {}: {}", j + 1, c.name),
                                None => format!("Row {}: a call no turn names", j + 1),
                            },
                            |t| {
                                let denied = if t.allowed { "" } else { " (denied)" };
                                format!("Turn {}: {}{denied}", j + 1, t.tool)
                            },
                        );
                        let failure = c
                            .failure
                            .as_deref()
                            .map(|f| format!(", {f}"))
                            .unwrap_or_default();
                        Some(TimelineCall {
                            start_s: c.offset_s?,
                            seconds: c.latency_ms as f64 / 1000.0,
                            anchor: s.anchor.clone(),
                            label: format!(
                                "{what}; call {} at +{:.3} s, {} ms{failure}",
                                c.request_id, c.offset_s?, c.latency_ms
                            ),
                            failed: c.failure.is_some(),
                        })
                    })
                    .collect(),
            }
        })
        .collect()
}
