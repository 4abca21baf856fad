//! `receipts record`: an agent's provider calls captured on the wire.
//!
//! A recording proxy ([`proxy`]) listens on 127.0.0.1; the agent's command
//! runs with its base-URL variables pointing there ([`upstream`]), and every
//! call it makes is forwarded unchanged and kept as it crossed: the bytes
//! both ways, the times, the status. When the command exits, what was kept
//! is the [`Capture`] its run is derived from.

mod error;
pub mod proxy;
pub mod run;
pub mod upstream;

use std::collections::BTreeMap;

use bytes::Bytes;
use receipts_verifier::model::FormatVersion;
use receipts_verifier::wire::{Capture, CaptureKind};

pub use error::RecordError;
pub use proxy::Proxy;
pub use upstream::Upstreams;

/// What recording one command kept.
pub struct Recording {
    pub capture: Capture,
    /// Every request and response body, by SHA-256.
    pub objects: BTreeMap<String, Bytes>,
}

/// Runs `command` (a program and its arguments) with its base URLs pointed
/// at a recording proxy forwarding to `upstreams`, waits for it to exit
/// and for its calls under way to end, and returns what was kept. The
/// command's standard streams are this process's. An interrupt (Ctrl-C)
/// while the command runs is left to the command.
pub async fn record_command(
    command: &[String],
    upstreams: Upstreams,
) -> Result<Recording, RecordError> {
    let (program, args) = command.split_first().ok_or(RecordError::NoCommand)?;
    let proxy = Proxy::start(upstreams.clone()).await?;
    let mut child = tokio::process::Command::new(program);
    child.args(args);
    for (name, value) in upstreams.variables(proxy.addr) {
        child.env(name, value);
    }
    // Ctrl-C in a terminal signals the command and the recorder alike:
    // the command ends as it would, and the recorder outlives it, so what
    // the command did before it ended is recorded.
    #[cfg(unix)]
    let interrupts = {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt()).map_err(RecordError::Signal)?;
        tokio::spawn(async move {
            while interrupt.recv().await.is_some() {
                eprintln!(
                    "receipts record: interrupted; recording what the command did once it ends"
                );
            }
        })
    };
    let started_at = proxy::now();
    let status = child.status().await.map_err(|source| RecordError::Run {
        program: program.clone(),
        source,
    })?;
    let ended_at = proxy::now();
    #[cfg(unix)]
    interrupts.abort();
    let kept = proxy.finish().await;
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    Ok(Recording {
        capture: Capture {
            format_version: FormatVersion,
            kind: CaptureKind::WireCapture,
            recorder: format!("receipts {}", env!("CARGO_PKG_VERSION")),
            command: kept_command(command),
            started_at,
            ended_at,
            exit_code: status.code(),
            signal,
            calls: kept.exchanges,
        },
        objects: kept.objects,
    })
}

/// The command line as the capture keeps it: the value of an option whose
/// name speaks of a secret (`--api-key VALUE`, `--token=VALUE`) redacted.
/// Keys belong in the environment, which is not kept.
pub fn kept_command(command: &[String]) -> Vec<String> {
    use receipts_verifier::wire::{is_secret_header, REDACTED};
    let mut out = Vec::with_capacity(command.len());
    let mut hide_next = false;
    for arg in command {
        if std::mem::take(&mut hide_next) {
            out.push(REDACTED.to_string());
            continue;
        }
        match arg.strip_prefix('-').map(|a| a.trim_start_matches('-')) {
            Some(option) if is_secret_header(option.split('=').next().unwrap_or("")) => {
                match option.split_once('=') {
                    Some(_) => {
                        let name = &arg[..arg.find('=').unwrap_or(arg.len())];
                        out.push(format!("{name}={REDACTED}"));
                    }
                    None => {
                        hide_next = true;
                        out.push(arg.clone());
                    }
                }
            }
            _ => out.push(arg.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::kept_command;

    #[test]
    fn a_secret_option_of_the_command_is_kept_redacted() {
        let given: Vec<String> = [
            "agent",
            "--api-key",
            "sk-1",
            "--token=t2",
            "-k",
            "--model",
            "m",
            "key",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            kept_command(&given),
            [
                "agent",
                "--api-key",
                "[redacted]",
                "--token=[redacted]",
                "-k",
                "--model",
                "m",
                "key"
            ]
        );
    }
}
