//! `receipts anchor EXPERIMENT [--request FILE] [--timestamp FILE --tsa-certificate FILE]`:
//! what backs a registration's time, a time-stamp request for it, and
//! keeping a TSA's answer beside it once it verifies.

use std::path::{Path, PathBuf};

use anyhow::Context;

use receipts_verifier::anchor::{self, rfc3161};
use receipts_verifier::layout;
use receipts_verifier::model::{TIMESTAMP_FILE, TSA_CERTIFICATE_FILE};
use receipts_verifier::prereg::{
    preregistration_digest, registration_digest, rules_digest, task_digest,
};

use crate::error::{InputError, EXIT_INPUT};
use crate::load::{self, LoadedExperiment};

use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The experiment (its directory under experiments/).
    pub experiment: String,
    /// The project directory (holding experiments/).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Write an RFC 3161 time-stamp request (DER) for the registration digest to FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "timestamp")]
    pub request: Option<PathBuf>,
    /// A TSA's time-stamp response (DER) to verify and keep as registration.tsr.
    #[arg(long, value_name = "FILE", requires = "tsa_certificate")]
    pub timestamp: Option<PathBuf>,
    /// The TSA's certificate (PEM or DER) to verify it with and keep as registration.tsa.pem.
    #[arg(long, value_name = "FILE", requires = "timestamp")]
    pub tsa_certificate: Option<PathBuf>,
}

fn input_error(file: impl Into<String>, message: impl Into<String>) -> Failure {
    Failure {
        message: InputError::new(file, message).to_string(),
        code: EXIT_INPUT as u8,
    }
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let corpus = load::load(&args.root).map_err(|e| Failure {
        message: e.to_string(),
        code: EXIT_INPUT as u8,
    })?;
    let loaded = corpus
        .experiments
        .iter()
        .find(|e| e.dir == args.experiment)
        .ok_or_else(|| {
            input_error(
                format!("experiments/{}", args.experiment),
                "no such experiment",
            )
        })?;
    let digest = registered_digest(loaded, &corpus)?;
    let imprint = anchor::digest_bytes(&digest).unwrap_or_default();
    out.status(format_args!("registration digest {digest}"))?;
    let dir = args.root.join("experiments").join(&loaded.dir);
    if let Some(request) = &args.request {
        let bytes = rfc3161::request(&imprint).map_err(anyhow::Error::msg)?;
        std::fs::write(request, bytes).with_context(|| format!("writing {}", request.display()))?;
        out.status(format_args!(
            "wrote {}: send it to a time-stamping authority, for example\n  curl -sS -H 'Content-Type: application/timestamp-query' --data-binary @{} https://freetsa.org/tsr -o response.tsr\nthen keep the answer with\n  receipts anchor {} --timestamp response.tsr --tsa-certificate tsa.pem",
            request.display(),
            request.display(),
            loaded.dir
        ))?;
        return Ok(());
    }
    if let (Some(token), Some(cert)) = (&args.timestamp, &args.tsa_certificate) {
        return keep(&dir, token, cert, &imprint, out);
    }
    match &loaded.anchors.git {
        Some(git) => out.status(format_args!(
            "git commit {} ({})",
            git.commit, git.committed_at
        ))?,
        None => out.status(format_args!(
            "git commit: none holds the registration digest"
        ))?,
    }
    match (&loaded.anchors.timestamp, &loaded.anchors.tsa_certificate) {
        (Some(token), Some(cert)) => match rfc3161::verify(token, cert, &imprint) {
            Ok(stamp) => out.status(format_args!(
                "RFC 3161 timestamp {} by {}",
                stamp.time_text, stamp.tsa
            ))?,
            Err(why) => out.status(format_args!("RFC 3161 timestamp: does not verify: {why}"))?,
        },
        _ => out.status(format_args!("RFC 3161 timestamp: none (see --request)"))?,
    }
    Ok(())
}

/// The registration digest, once every part it covers is what it recorded:
/// a time stamp of a registration that fails its own receipts anchors nothing.
fn registered_digest(loaded: &LoadedExperiment, corpus: &load::Corpus) -> Result<String, Failure> {
    let file = format!("experiments/{}/experiment.json", loaded.dir);
    let p = loaded.experiment.preregistration.as_ref().ok_or_else(|| {
        input_error(
            &file,
            "the experiment is not pre-registered: there is no registration to anchor",
        )
    })?;
    let covers = p.covers.as_ref().ok_or_else(|| {
        input_error(
            &file,
            "the registration has no `covers` block; `receipts build` says what to add",
        )
    })?;
    let mut changed = Vec::new();
    if preregistration_digest(&loaded.log, &p.end_marker).as_deref() != Some(covers.log.as_str()) {
        changed.push(format!("experiments/{}/{}", loaded.dir, p.log));
    }
    if rules_digest(&loaded.experiment) != covers.rules {
        changed.push(file.clone());
    }
    for (id, recorded) in &covers.tasks {
        if corpus.tasks.get(id).map(task_digest).as_ref() != Some(recorded) {
            changed.push(format!("experiments/{}", layout::task_path(id)));
        }
    }
    if registration_digest(&covers.log, &covers.rules, &covers.tasks) != p.sha256 {
        changed.push(format!("{file}: preregistration.sha256"));
    }
    if !changed.is_empty() {
        return Err(input_error(
            &file,
            format!(
                "the registration does not match what it covers ({}); an anchor would back a registration that fails",
                changed.join(", ")
            ),
        ));
    }
    Ok(p.sha256.clone())
}

/// Verifies `token` with `cert` and copies both beside `experiment.json`.
fn keep(dir: &Path, token: &Path, cert: &Path, imprint: &[u8], out: Out) -> Result<(), Failure> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| input_error(path.display().to_string(), e.to_string()))
    };
    let (token_bytes, cert_bytes) = (read(token)?, read(cert)?);
    let stamp = rfc3161::verify(&token_bytes, &cert_bytes, imprint)
        .map_err(|why| input_error(token.display().to_string(), why))?;
    for (name, bytes) in [
        (TIMESTAMP_FILE, &token_bytes),
        (TSA_CERTIFICATE_FILE, &cert_bytes),
    ] {
        let path = dir.join(name);
        let partial = dir.join(format!(".{name}.partial"));
        std::fs::write(&partial, bytes)
            .with_context(|| format!("writing {}", partial.display()))?;
        std::fs::rename(&partial, &path).with_context(|| format!("writing {}", path.display()))?;
    }
    out.status(format_args!(
        "kept {TIMESTAMP_FILE} and {TSA_CERTIFICATE_FILE}: stamped {} by {} (certificate SHA-256 {}); `receipts build` checks it comes before the first provider call",
        stamp.time_text, stamp.tsa, stamp.certificate_sha256
    ))?;
    Ok(())
}
