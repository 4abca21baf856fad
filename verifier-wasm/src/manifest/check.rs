//! The manifest checks of a built site, in one place: `receipts verify`
//! calls them on the files it reads, the browser on the files it fetches.
//!
//! The root manifest `SHA256SUMS` lists the files a site is made from: the
//! records manifest `data/SHA256SUMS` (which lists every record by the
//! SHA-256 of its bytes, a gzipped one as the record it holds) and the code
//! under `assets/` that shows and checks them. Its SHA-256 is the root
//! digest. The pages and the other files rendered from the records (the runs
//! index parts, the in-toto statement) are not listed: each page shows the
//! root digest, so it cannot also be inside it. They are bound to the
//! records by rendering them again (see `receipts verify`).

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::sha256_hex;
use crate::verify::Receipt;

use super::{parse_sums, SUMS};

/// Where a site publishes its records.
pub const DATA_DIR: &str = "data";
/// Where a site keeps its stylesheet, scripts and the verifier.
pub const ASSETS_DIR: &str = "assets";
/// The records manifest's path in a site.
pub const RECORDS_SUMS: &str = "data/SHA256SUMS";
/// Where a site carries a copy of the standalone verifier.
pub const VERIFIER_DIR: &str = "verifier";

/// Whether `claim` is one the manifest checks make of a file (its digest or
/// listing, the root digest, the manifests themselves, the site's code
/// against the copy a verifier ships), as opposed to a digest a page shows.
pub fn is_manifest_claim(claim: &str) -> bool {
    claim.starts_with("SHA-256 in ")
        || claim.starts_with("listed in ")
        || claim.starts_with("the code receipts ")
        || claim.starts_with("the copy receipts ")
        || matches!(claim, "root digest" | "manifest" | "the records manifest")
}

/// Whether the root manifest lists `path` (relative to the site): the
/// records manifest, the code (the assets and the copy of the standalone
/// verifier) and `.nojekyll`; not the records (the records manifest lists
/// them), nor the files rendered from them.
pub fn is_listed(path: &str) -> bool {
    path == RECORDS_SUMS
        || [ASSETS_DIR, VERIFIER_DIR].iter().any(|dir| {
            path.strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
        })
        || path == ".nojekyll"
}

/// The manifest checks of one site, fed the files as they are read.
#[derive(Debug)]
pub struct ManifestCheck {
    root_digest: String,
    listed: BTreeMap<String, String>,
    records: Option<BTreeMap<String, String>>,
    records_digest: Option<String>,
    seen: BTreeSet<String>,
    seen_records: BTreeSet<String>,
    receipts: Vec<Receipt>,
}

/// What the manifest checks found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ManifestResult {
    /// The SHA-256 of `SHA256SUMS`.
    pub root_digest: String,
    /// The SHA-256 of `data/SHA256SUMS`, when it was read.
    pub records_digest: Option<String>,
    pub receipts: Vec<Receipt>,
}

impl ManifestCheck {
    /// Starts with the root manifest's bytes and the pinned root digest, if
    /// any (already parsed by [`super::parse_pin`]).
    pub fn new(sums: &[u8], pin: Option<&str>) -> ManifestCheck {
        let root_digest = sha256_hex(sums);
        let mut receipts = Vec::new();
        if let Some(pin) = pin {
            receipts.push(Receipt::new(
                SUMS,
                "root digest",
                pin,
                &root_digest,
                pin == root_digest,
            ));
        }
        let listed = match std::str::from_utf8(sums)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_sums(t).map_err(|e| e.to_string()))
        {
            Ok(listed) => listed,
            Err(e) => {
                receipts.push(Receipt::new(
                    SUMS,
                    "manifest",
                    "a SHA256SUMS file",
                    e,
                    false,
                ));
                BTreeMap::new()
            }
        };
        for path in listed.keys().filter(|p| !is_listed(p)) {
            receipts.push(Receipt::new(
                path,
                "listed in SHA256SUMS",
                "listed",
                "a file rendered from the records, which SHA256SUMS does not list",
                false,
            ));
        }
        ManifestCheck {
            root_digest,
            listed,
            records: None,
            records_digest: None,
            seen: BTreeSet::new(),
            seen_records: BTreeSet::new(),
            receipts,
        }
    }

    pub fn root_digest(&self) -> &str {
        &self.root_digest
    }

    /// Whether the root manifest lists `path`.
    pub fn lists(&self, path: &str) -> bool {
        self.listed.contains_key(path)
    }

    /// A file of the site the manifest should list, with the SHA-256 of its
    /// bytes, or `None` when it could not be read.
    pub fn file(&mut self, path: &str, digest: Option<&str>) {
        self.seen.insert(path.to_string());
        let listed = self.listed.get(path);
        let receipt = match (listed, digest) {
            (Some(expected), Some(actual)) => Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                actual,
                expected == actual,
            ),
            (Some(expected), None) => Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                "the file could not be read",
                false,
            ),
            (None, _) => Receipt::new(
                path,
                "listed in SHA256SUMS",
                "not listed",
                "a file of the site",
                false,
            ),
        };
        self.receipts.push(receipt);
    }

    /// The records manifest `data/SHA256SUMS` (also checked as a file).
    pub fn records_manifest(&mut self, bytes: &[u8]) {
        self.records_digest = Some(sha256_hex(bytes));
        match std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_sums(t).map_err(|e| e.to_string()))
        {
            Ok(records) => self.records = Some(records),
            Err(e) => self.receipts.push(Receipt::new(
                RECORDS_SUMS,
                "manifest",
                "a SHA256SUMS file",
                e,
                false,
            )),
        }
    }

    /// A record, by its path under `data/` (a gzipped record as the record
    /// it holds), with the SHA-256 of the record's bytes or why they could
    /// not be read.
    pub fn record(&mut self, rel: &str, digest: Result<&str, &str>) {
        let Some(records) = &self.records else {
            return;
        };
        self.seen_records.insert(rel.to_string());
        let subject = format!("{DATA_DIR}/{rel}");
        let receipt = match (records.get(rel), digest) {
            (Some(expected), Ok(actual)) => Receipt::new(
                &subject,
                "SHA-256 in data/SHA256SUMS",
                expected,
                actual,
                expected == actual,
            ),
            (Some(expected), Err(why)) => {
                Receipt::new(&subject, "SHA-256 in data/SHA256SUMS", expected, why, false)
            }
            (None, _) => Receipt::new(
                &subject,
                "listed in data/SHA256SUMS",
                "not listed",
                "a record of the site",
                false,
            ),
        };
        self.receipts.push(receipt);
    }

    /// The site's code against the copies a verifier ships: each asset and
    /// each file of the standalone verifier's copy (`verifier/`) the root
    /// manifest lists against `shipped` (path → SHA-256), when the site
    /// was built by the same version (`built_by` against `ours`); a site
    /// built by another version, or by one it does not name, ships other
    /// code, and that could not be checked.
    pub fn against_shipped(
        &mut self,
        shipped: &BTreeMap<String, String>,
        built_by: Option<&str>,
        ours: &str,
    ) {
        if built_by != Some(ours) {
            self.receipts.push(Receipt::unchecked(
                ASSETS_DIR,
                format!("the code receipts {ours} ships"),
                format!("built by receipts {}", built_by.unwrap_or("(not named)")),
                "another version ships other code: not compared",
            ));
            return;
        }
        let claim = format!("the copy receipts {ours} ships");
        let assets = |m: &BTreeMap<String, String>| -> BTreeSet<String> {
            m.keys()
                .filter(|p| {
                    p.starts_with(&format!("{ASSETS_DIR}/"))
                        || p.starts_with(&format!("{VERIFIER_DIR}/"))
                })
                .cloned()
                .collect()
        };
        for path in assets(&self.listed).union(&assets(shipped)) {
            let (listed, ours) = (self.listed.get(path), shipped.get(path));
            self.receipts.push(Receipt::new(
                path,
                claim.clone(),
                listed.map_or("not in the site", String::as_str),
                ours.map_or("not shipped", String::as_str),
                listed.is_some() && listed == ours,
            ));
        }
    }

    /// A digest a page shows (`shown`) of `what` (the root manifest, a
    /// record), against the digest found (`actual`).
    pub fn shown(&mut self, page: &str, what: &str, shown: &str, actual: &str) {
        self.receipts.push(Receipt::new(
            page,
            format!("digest of {what} shown on the page"),
            shown,
            actual,
            shown == actual,
        ));
    }

    /// The receipts. With `whole_site` (every file of the site was fed),
    /// every file or record a manifest lists and nothing fed is missing.
    pub fn finish(mut self, whole_site: bool) -> ManifestResult {
        if whole_site {
            for (path, expected) in &self.listed {
                if !self.seen.contains(path) {
                    self.receipts.push(Receipt::new(
                        path,
                        "SHA-256 in SHA256SUMS",
                        expected,
                        "the file is missing",
                        false,
                    ));
                }
            }
            if !self.seen.contains(RECORDS_SUMS) {
                self.receipts.push(Receipt::new(
                    RECORDS_SUMS,
                    "the records manifest",
                    "data/SHA256SUMS",
                    "the file is missing",
                    false,
                ));
            }
            for (rel, expected) in self.records.iter().flatten() {
                if !self.seen_records.contains(rel) {
                    self.receipts.push(Receipt::new(
                        &format!("{DATA_DIR}/{rel}"),
                        "SHA-256 in data/SHA256SUMS",
                        expected,
                        "the record is missing",
                        false,
                    ));
                }
            }
        }
        ManifestResult {
            root_digest: self.root_digest,
            records_digest: self.records_digest,
            receipts: self.receipts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::format_sums;
    use crate::verify::Status;

    fn sums(files: &[(&str, &[u8])]) -> Vec<u8> {
        let map: BTreeMap<String, String> = files
            .iter()
            .map(|(p, b)| (p.to_string(), sha256_hex(b)))
            .collect();
        format_sums(&map).into_bytes()
    }

    fn failed(r: &ManifestResult) -> Vec<(String, String)> {
        r.receipts
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| (r.subject.clone(), r.claim.clone()))
            .collect()
    }

    #[test]
    fn only_records_and_assets_are_listed() {
        assert!(is_listed("data/SHA256SUMS"));
        assert!(!is_listed("data/E01/runs/a.json"));
        assert!(is_listed("assets/verify.js"));
        assert!(is_listed("verifier/engine.js"));
        assert!(!is_listed("verifier.html"));
        assert!(is_listed(".nojekyll"));
        assert!(!is_listed("index.html"));
        assert!(!is_listed("dataset.html"));
        assert!(!is_listed("assets"));
        assert!(!is_listed("runs/rows-0.json"));
        assert!(!is_listed("statement.intoto.json"));
    }

    #[test]
    fn a_whole_site_passes_and_each_forgery_is_named() {
        let record = b"{\"run\":1}".as_slice();
        let records = sums(&[("E01/runs/a.json", record)]);
        let root = sums(&[("data/SHA256SUMS", &records), ("assets/verify.js", b"js")]);
        let feed = |check: &mut ManifestCheck, js: &[u8], rec: &[u8]| {
            check.file("data/SHA256SUMS", Some(&sha256_hex(&records)));
            check.records_manifest(&records);
            check.record("E01/runs/a.json", Ok(&sha256_hex(rec)));
            check.file("assets/verify.js", Some(&sha256_hex(js)));
        };
        let digest = sha256_hex(&root);

        let mut check = ManifestCheck::new(&root, Some(&digest));
        feed(&mut check, b"js", record);
        let ok = check.finish(true);
        assert_eq!(failed(&ok), vec![]);
        assert_eq!(ok.root_digest, digest);

        // A patched script.
        let mut check = ManifestCheck::new(&root, Some(&digest));
        feed(&mut check, b"patched", record);
        assert_eq!(
            failed(&check.finish(true)),
            [("assets/verify.js".into(), "SHA-256 in SHA256SUMS".into())]
        );

        // Resealed: the pin no longer holds.
        let resealed = sums(&[
            ("data/SHA256SUMS", &records),
            ("assets/verify.js", b"patched"),
        ]);
        let mut check = ManifestCheck::new(&resealed, Some(&digest));
        feed(&mut check, b"patched", record);
        assert_eq!(
            failed(&check.finish(true)),
            [("SHA256SUMS".into(), "root digest".into())]
        );

        // A record edited, neither manifest resealed; a record slipped in;
        // an asset not listed.
        let mut check = ManifestCheck::new(&root, None);
        feed(&mut check, b"js", b"{\"run\":2}");
        check.record("E01/runs/b.json", Ok(&sha256_hex(b"x")));
        check.file("assets/extra.js", Some(&sha256_hex(b"x")));
        assert_eq!(
            failed(&check.finish(true)),
            [
                (
                    "data/E01/runs/a.json".into(),
                    "SHA-256 in data/SHA256SUMS".into()
                ),
                (
                    "data/E01/runs/b.json".into(),
                    "listed in data/SHA256SUMS".into()
                ),
                ("assets/extra.js".into(), "listed in SHA256SUMS".into()),
            ]
        );

        // Files dropped.
        let mut check = ManifestCheck::new(&root, None);
        check.file("data/SHA256SUMS", Some(&sha256_hex(&records)));
        check.records_manifest(&records);
        let missing = failed(&check.finish(true));
        assert_eq!(
            missing,
            [
                ("assets/verify.js".into(), "SHA-256 in SHA256SUMS".into()),
                (
                    "data/E01/runs/a.json".into(),
                    "SHA-256 in data/SHA256SUMS".into()
                ),
            ]
        );
        let missing = failed(&ManifestCheck::new(&root, None).finish(true));
        assert!(missing.contains(&("data/SHA256SUMS".into(), "the records manifest".into())));
    }

    #[test]
    fn assets_are_held_to_the_shipped_copies_of_the_same_version() {
        let root = sums(&[("assets/a.js", b"a"), ("assets/b.js", b"patched")]);
        let shipped: BTreeMap<String, String> =
            [("assets/a.js", b"a".as_slice()), ("assets/b.js", b"b")]
                .iter()
                .map(|(p, b)| (p.to_string(), sha256_hex(b)))
                .collect();
        let mut same = ManifestCheck::new(&root, None);
        same.against_shipped(&shipped, Some("1.0.0"), "1.0.0");
        assert_eq!(
            failed(&same.finish(false)),
            [("assets/b.js".into(), "the copy receipts 1.0.0 ships".into())]
        );
        let mut other = ManifestCheck::new(&root, None);
        other.against_shipped(&shipped, Some("0.9.0"), "1.0.0");
        let r = other.finish(false);
        assert_eq!(r.receipts.len(), 1);
        assert_eq!(r.receipts[0].status, Status::CouldNotCheck);
    }

    #[test]
    fn a_page_listed_in_the_root_manifest_is_refused() {
        let root = sums(&[("index.html", b"<p>")]);
        let r = ManifestCheck::new(&root, None).finish(false);
        assert_eq!(
            failed(&r),
            [("index.html".into(), "listed in SHA256SUMS".into())]
        );
    }

    #[test]
    fn an_unreadable_manifest_fails() {
        let r = ManifestCheck::new(b"not a manifest", None).finish(false);
        assert_eq!(failed(&r), [("SHA256SUMS".into(), "manifest".into())]);
    }
}
