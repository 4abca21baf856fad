//! `receipts verifier --out DIR`: the standalone verifier, a folder of its
//! own (a page, its scripts and its WebAssembly) that checks a receipts site
//! without running any of the site's code. It can be hosted anywhere or
//! opened from disk: the WebAssembly and the worker travel inside
//! `engine.js`, a classic script, because a page opened from disk may
//! neither fetch files nor start a worker from one.
//!
//! It verifies the site's records and manifests as the site's own Verify
//! page does, with its own copy of the verifier, and also holds the site's
//! code to the copies this version ships (see
//! `ManifestCheck::against_shipped`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use base64::Engine as _;

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{format_sums, SUMS, VERIFIER_DIR};

use crate::error::{BuildError, Doing};
use crate::render::{
    RenderError, Theme, FULL_WASM, GLUE_JS, RENDER_GLUE_JS, RENDER_WASM, VERIFY_JS, WORKER_JS,
};

const INDEX: &str = include_str!("../../site-templates/standalone/index.html");
const SCRIPT: &[u8] = include_bytes!("../../site-templates/standalone/standalone.js");
const STYLE: &str = "assets/style.css";
const FAVICON: &str = "assets/favicon.svg";

/// The verifier's files, by name, as [`write`] writes them.
pub fn files() -> Result<BTreeMap<String, Vec<u8>>, RenderError> {
    let theme = Theme::embedded();
    let asset = |path: &str| -> Vec<u8> {
        theme
            .assets
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .unwrap_or_default()
    };
    let version = env!("CARGO_PKG_VERSION");
    let shipped: BTreeMap<&str, String> = theme
        .assets
        .iter()
        .map(|(p, b)| (p.as_str(), sha256_hex(b)))
        .collect();
    let worker = [
        asset(GLUE_JS),
        b"\n".to_vec(),
        asset(RENDER_GLUE_JS),
        b"\n".to_vec(),
        asset(WORKER_JS),
    ]
    .concat();
    let base64 = |path: &str| base64::engine::general_purpose::STANDARD.encode(asset(path));
    let mut env = minijinja::Environment::new();
    env.add_template("index.html", INDEX)
        .map_err(|reason| RenderError::Template {
            name: "standalone/index.html".to_string(),
            reason,
        })?;
    let index = env
        .get_template("index.html")
        .and_then(|t| t.render(minijinja::context! { version => version }))
        .map_err(|reason| RenderError::Page {
            page: "the standalone verifier's page".to_string(),
            template: "standalone/index.html".to_string(),
            reason,
        })?;
    let mut files = BTreeMap::new();
    files.insert("index.html".to_string(), index.into_bytes());
    files.insert("standalone.js".to_string(), SCRIPT.to_vec());
    files.insert("verify.js".to_string(), asset(VERIFY_JS));
    files.insert("style.css".to_string(), asset(STYLE));
    files.insert("favicon.svg".to_string(), asset(FAVICON));
    // The digests of its other files, so that it can hold a site's copy of
    // it to itself; engine.js is the one line of JavaScript below, which the
    // page can write out again from the engine it holds (`engineText` in
    // standalone.js), and so hash.
    let others: BTreeMap<String, String> = files
        .iter()
        .map(|(name, bytes)| (format!("{VERIFIER_DIR}/{name}"), sha256_hex(bytes)))
        .collect();
    let engine = serde_json::json!({
        "about": format!("The standalone verifier's engine: receipts {version}'s worker and WebAssembly (the verifier and the page check), and the SHA-256 of the code a site of this version ships."),
        "version": version,
        "worker": String::from_utf8(worker).map_err(|_| RenderError::NotText(WORKER_JS))?,
        // The full verifier: a site picked may hold imports or time stamps.
        "wasm": base64(FULL_WASM),
        "render_wasm": base64(RENDER_WASM),
        "assets": shipped,
        "verifier": others,
    });
    let engine = format!("var RECEIPTS_ENGINE = {engine};\n");
    files.insert("engine.js".to_string(), engine.into_bytes());
    Ok(files)
}

/// The verifier's files with its manifest `SHA256SUMS`, by name, and the
/// manifest's SHA-256: the same for every site a version of `receipts`
/// builds, which carries a copy under `verifier/`.
pub fn with_manifest() -> Result<(BTreeMap<String, Vec<u8>>, String), RenderError> {
    let mut files = files()?;
    let digests: BTreeMap<String, String> = files
        .iter()
        .map(|(name, bytes)| (name.clone(), sha256_hex(bytes)))
        .collect();
    let sums = format_sums(&digests);
    let digest = sha256_hex(sums.as_bytes());
    files.insert(SUMS.to_string(), sums.into_bytes());
    Ok((files, digest))
}

/// Writes the verifier into `out` (created if needed; files of the same
/// names replaced) with its manifest `SHA256SUMS`; returns each file's
/// SHA-256 and the manifest's.
pub fn write(out: &Path) -> Result<(BTreeMap<String, String>, String), BuildError> {
    let (files, manifest) = with_manifest()?;
    fs::create_dir_all(out).doing(|| format!("creating {}", out.display()))?;
    let mut digests = BTreeMap::new();
    for (name, bytes) in &files {
        let path = out.join(name);
        fs::write(&path, bytes).doing(|| format!("writing {}", path.display()))?;
        if name != SUMS {
            digests.insert(name.clone(), sha256_hex(bytes));
        }
    }
    Ok((digests, manifest))
}
