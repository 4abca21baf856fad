//! Harness suites and their runs: ids are safe file names, timestamps parse,
//! every model called has a price, digests are SHA-256 digests, the rules
//! are usable.

use receipts_verifier::digest::is_sha256_hex;
use receipts_verifier::model::{HarnessEvent, HarnessRun};

use super::{safe_id, timestamp};
use crate::error::InputError;
use crate::load::LoadedSuite;

pub(super) fn suite(loaded: &LoadedSuite) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.suite_path());
    let s = &loaded.suite;
    safe_id(&file, "id", &s.id)?;
    for (i, host) in s.egress_allowlist.iter().enumerate() {
        if host.is_empty() || host.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(InputError::at(
                &file,
                format!("egress_allowlist[{i}]"),
                format!("`{}` is not a host name", host.escape_debug()),
            ));
        }
    }
    if s.token_cap == 0 {
        return Err(InputError::at(
            &file,
            "token_cap",
            "a cap of 0 tokens allows no call",
        ));
    }
    for run in &loaded.runs {
        self::run(loaded, run)?;
    }
    Ok(())
}

fn run(loaded: &LoadedSuite, run: &HarnessRun) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.run_path(&run.id));
    safe_id(&file, "id", &run.id)?;
    timestamp(&file, "started_at", &run.started_at)?;
    for (i, event) in run.events.iter().enumerate() {
        match event {
            HarnessEvent::ProviderCall(call) => {
                timestamp(&file, &format!("events[{i}].started_at"), &call.started_at)?;
                if !loaded
                    .suite
                    .prices
                    .models
                    .contains_key(&call.model_requested)
                {
                    return Err(InputError::at(
                        &file,
                        format!("events[{i}].model_requested"),
                        format!(
                            "no price for `{}` in experiments/{}",
                            call.model_requested,
                            loaded.suite_path()
                        ),
                    ));
                }
            }
            HarnessEvent::Snapshot(snapshot) if !is_sha256_hex(&snapshot.sha256) => {
                return Err(InputError::at(
                    &file,
                    format!("events[{i}].sha256"),
                    "not a SHA-256 digest (64 lowercase hex characters)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
