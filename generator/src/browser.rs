//! The browser's page check: a built site rendered again, in memory, from
//! the records its `data/` publishes, so each page the site serves can be
//! compared byte for byte with what its records render to. The same stages
//! as `receipts verify` (load, validate, verify, model, render), without a
//! file system, threads or a clock; `render-wasm/` exports it to the page's
//! worker. What is not rendered here: `data/` itself and the code under
//! `assets/` and `verifier/` (the manifest checks hold them to their
//! digests and to the shipped copies) and the statement (not a page).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

pub use receipts_verifier::manifest::check_path;
use receipts_verifier::manifest::{self, chunks::RecordsManifests};
use receipts_verifier::verify::Receipt;

use crate::data;
use crate::difference::Difference;
use crate::error::BuildError;
use crate::load::{self, Memory};
use crate::pages::{self, Output};
use crate::render::{Renderer, Theme};
use crate::site;
use crate::validate;
use crate::verification::Keep;

/// The files a site's pages are rendered from.
#[derive(Debug, Default)]
pub struct SiteFiles {
    /// Every file under `data/`, by its path in the site (`data/…`).
    pub data: Memory,
    /// Every file under `assets/`, by its path in the site (`assets/…`).
    pub assets: Vec<(String, Vec<u8>)>,
}

/// What the site's manifests say of it.
#[derive(Debug, Clone)]
pub struct Digests {
    /// The SHA-256 of its `SHA256SUMS`, which every page shows.
    pub root: String,
    /// The SHA-256 of its standalone verifier's `verifier/SHA256SUMS`, which
    /// `verify.html` names.
    pub verifier: String,
}

/// Every page the records of `files` render to, by path, as `receipts
/// verify` renders them from the same site.
pub fn render_site(files: SiteFiles, digests: &Digests) -> Result<Rendered, BuildError> {
    let SiteFiles {
        data: records,
        assets,
    } = files;
    let corpus = load::load_site(Arc::new(records), Path::new(""))?;
    validate::validate_published(&corpus)?;
    let records_sums = RecordsManifests::of(&corpus.record_digests);
    let records_digest = records_sums.digest();
    let gzipped = data::records_gzipped(&corpus);
    let info = site::site_info(
        &corpus,
        site::Digests {
            records: records_digest,
            root: digests.root.clone(),
            verifier: digests.verifier.clone(),
        },
        gzipped,
    );
    let renderer = Renderer::new(info, &Theme::with_assets(assets))?;
    let out = Rendered::default();
    // The records manifest as the records loaded publish it: compared like a
    // page, so the manifest the checks read and the records rendered are one.
    out.write(
        &format!("{}/{}", manifest::DATA_DIR, manifest::SUMS),
        records_sums.top.as_bytes(),
    )?;
    for (chunk, text) in &records_sums.chunks {
        out.write(&format!("{}/{chunk}", manifest::DATA_DIR), text.as_bytes())?;
    }
    let verified = pages::runs(
        &corpus,
        &renderer,
        &out,
        Keep::NotPassing,
        None,
        gzipped,
        |_| Ok(()),
    )?;
    pages::render(&corpus, &verified, &renderer, &out)?;
    Ok(out)
}

/// The claim of a page that is, or is not, what the records render to;
/// `receipts verify` names a differing page with the same claim.
pub use receipts_verifier::verify::RENDERED;

/// The subject of the receipt that sums up a page check that found no difference.
pub const PAGES: &str = "pages";

/// Rendered files, by path.
#[derive(Debug, Default)]
pub struct Rendered {
    files: Mutex<BTreeMap<String, Vec<u8>>>,
}

/// Each page a site serves, compared with what its records render to: a
/// failing receipt for every page that differs or is missing, and for every
/// file of the site the records do not make; one passing receipt for all
/// of them when none does.
#[derive(Debug)]
pub struct PageCheck {
    rendered: Rendered,
    compared: usize,
    receipts: Vec<Receipt>,
}

impl PageCheck {
    pub fn new(rendered: Rendered) -> PageCheck {
        PageCheck {
            rendered,
            compared: 0,
            receipts: Vec::new(),
        }
    }

    /// The check of a site whose records cannot be rendered (`receipts
    /// build` would refuse them): no page is compared, and its one receipt
    /// fails.
    pub fn unrendered(error: &BuildError) -> PageCheck {
        PageCheck {
            rendered: Rendered::default(),
            compared: 0,
            // The site says it was built from these records; no build would
            // render them, so its pages cannot be what they render to.
            receipts: vec![Receipt::new(
                PAGES,
                RENDERED,
                "the pages the site serves",
                format!("the records cannot be rendered: {error}"),
                false,
            )],
        }
    }

    /// The pages to compare, in order.
    pub fn paths(&self) -> Vec<String> {
        self.rendered.paths()
    }

    /// Compares the site's file at `path`, `found` (`None` when the site
    /// has no such file or it could not be read), with what the records
    /// render there; returns the failing receipt it adds, if any.
    pub fn page(&mut self, path: &str, found: Option<&[u8]>) -> Option<&Receipt> {
        self.compared += 1;
        let difference = match found {
            Some(bytes) => self.rendered.compare(path, bytes)?,
            None => Difference {
                path: path.to_string(),
                found: "no such file".to_string(),
                expected: "a page the records make".to_string(),
            },
        };
        self.receipts.push(Receipt::new(
            &difference.path,
            RENDERED,
            difference.found,
            difference.expected,
            false,
        ));
        self.receipts.last()
    }

    /// Every receipt of the check.
    pub fn finish(mut self) -> Vec<Receipt> {
        let made = self.rendered.paths().len();
        if self.receipts.is_empty() {
            self.receipts.push(Receipt::new(
                PAGES,
                RENDERED,
                format!("{} files served", self.compared),
                format!(
                    "{made} files rendered from the records (pages and index parts), each byte for byte the same"
                ),
                self.compared == made,
            ));
        }
        self.receipts
    }
}

impl Output for Rendered {
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), BuildError> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(rel.to_string(), bytes.to_vec());
        Ok(())
    }
}

impl Rendered {
    /// The paths rendered, in order.
    pub fn paths(&self) -> Vec<String> {
        self.files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    /// How the site's file at `path`, `found`, differs from what the records
    /// render to there; `None` when it is the same.
    pub fn compare(&self, path: &str, found: &[u8]) -> Option<Difference> {
        let files = self
            .files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match files.get(path) {
            Some(expected) if expected.as_slice() == found => None,
            Some(expected) => Some(Difference::between(path, found, expected)),
            None => Some(Difference {
                path: path.to_string(),
                found: "a file".to_string(),
                expected: "no such file: the records do not make it".to_string(),
            }),
        }
    }
}
