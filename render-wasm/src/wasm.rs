//! The worker's entry points (wasm-bindgen): files cross as bytes, results
//! as JSON strings (receipts as the verifier's core writes them).

use receipts::browser::{render_site, Digests, PageCheck, SiteFiles};
use wasm_bindgen::prelude::*;

fn js(e: impl ToString) -> JsError {
    JsError::new(&e.to_string())
}

/// A site's files handed over one at a time, rendered, then each page the
/// site serves compared with what its records render to.
#[wasm_bindgen]
#[derive(Default)]
pub struct SitePages {
    files: SiteFiles,
    check: Option<PageCheck>,
}

#[wasm_bindgen]
impl SitePages {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SitePages {
        SitePages::default()
    }

    /// Adds a file of the site, by its path in the site: `data/…` (a record,
    /// gzipped or not, as the site publishes it) or `assets/…`; others are
    /// ignored. Throws on a path that is not a manifest's canonical spelling.
    pub fn add(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), JsError> {
        receipts::browser::check_path(path).map_err(|e| js(format!("{path}: {e}")))?;
        if path.starts_with("data/") {
            self.files.data.insert(path, bytes);
        } else if path.starts_with("assets/") {
            self.files.assets.push((path.to_string(), bytes));
        }
        Ok(())
    }

    /// Renders every page, with the root digest of the site's `SHA256SUMS`
    /// and the digest it lists for `verifier/SHA256SUMS`; returns the paths
    /// of the pages to compare as a JSON array. Records that cannot be
    /// rendered (`receipts build` would refuse them) give no pages and a
    /// receipt, naming the file and the place, that could not be checked.
    pub fn render(&mut self, root_digest: &str, verifier_digest: &str) -> Result<String, JsError> {
        let files = std::mem::take(&mut self.files);
        let digests = Digests {
            root: root_digest.to_string(),
            verifier: verifier_digest.to_string(),
        };
        let check = match render_site(files, &digests) {
            Ok(rendered) => PageCheck::new(rendered),
            Err(e) => PageCheck::unrendered(&e),
        };
        let paths = check.paths();
        self.check = Some(check);
        serde_json::to_string(&paths).map_err(js)
    }

    /// Compares the site's file at `path`, `found` (`undefined` when the site
    /// has none), with what the records render there: the failing receipt
    /// as JSON, or `null` when it is the same.
    pub fn page(&mut self, path: &str, found: Option<Vec<u8>>) -> Result<String, JsError> {
        let check = self
            .check
            .as_mut()
            .ok_or_else(|| js("render the site first"))?;
        serde_json::to_string(&check.page(path, found.as_deref())).map_err(js)
    }

    /// Every receipt of the check, as a JSON array.
    pub fn finish(&mut self) -> Result<String, JsError> {
        let check = self
            .check
            .take()
            .ok_or_else(|| js("render the site first"))?;
        serde_json::to_string(&check.finish()).map_err(js)
    }
}
