//! The manifest checks of a built site, in one place: `receipts verify`
//! calls them on the files it reads, the browser on the files it fetches.
//!
//! The root manifest `SHA256SUMS` lists the files a site is made from: the
//! records manifest `data/SHA256SUMS` (which lists every record by the
//! SHA-256 of its bytes, a gzipped one as the record it holds, or for an
//! experiment of many runs the chunk manifests that list its run records:
//! see [`super::chunks`]) and the code
//! under `assets/` that shows and checks them. Its SHA-256 is the root
//! digest. The pages and the other files rendered from the records (the runs
//! index parts, the in-toto statement) are not listed: each page shows the
//! root digest, so it cannot also be inside it. They are bound to the
//! records by rendering them again (see `receipts verify`).

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::sha256_hex;
use crate::verify::Receipt;

use super::chunks::{self, chunk_of, chunk_place, run_record};
use super::{parse_sums, SUMS};
use crate::layout::{record_of, RUNS_DIR};

pub use crate::layout::{ASSETS_DIR, DATA_DIR, RECORDS_SUMS, VERIFIER_DIR};

/// Whether `claim` is one the manifest checks make of a file (its digest or
/// listing, the root digest, the manifests themselves, the site's code
/// against the copy a verifier ships, a root's shards against its
/// `SHARDS`), as opposed to a digest a page shows.
pub fn is_manifest_claim(claim: &str) -> bool {
    claim.starts_with("SHA-256 in ")
        || claim.starts_with("listed in ")
        || claim.starts_with("the code receipts ")
        || claim.starts_with("the copy receipts ")
        // A root site's (see `shards`): a shard's digest in SHARDS, the list, a run in one shard.
        || claim.starts_with("root digest in ")
        || matches!(
            claim,
            "root digest"
                | "manifest"
                | "the records manifest"
                | "list of shards"
                | "published by one shard"
        )
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

/// A file `listed` (path → SHA-256 in a top manifest) that was not `seen`
/// fails as missing.
pub(crate) fn missing<'a>(
    listed: &'a BTreeMap<String, String>,
    seen: &'a BTreeSet<String>,
) -> impl Iterator<Item = Receipt> + 'a {
    listed
        .iter()
        .filter(|(path, _)| !seen.contains(*path))
        .map(|(path, expected)| {
            Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                "the file is missing",
                false,
            )
        })
}

/// A site's top manifest, opened: its root digest, what it lists, and the
/// receipts found so far.
pub(crate) struct Opened {
    pub root_digest: String,
    pub listed: BTreeMap<String, String>,
    pub receipts: Vec<Receipt>,
}

/// Opens the `SHA256SUMS` at the top of a site (or of a root site): the
/// pin held to its digest, when there is one; a manifest that cannot be
/// read fails and lists nothing; and each path it lists that `may_list`
/// refuses fails, as `expected` against `found`.
pub(crate) fn open_manifest(
    sums: &[u8],
    pin: Option<&str>,
    may_list: &dyn Fn(&str) -> bool,
    expected: &str,
    found: &str,
) -> Opened {
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
    for path in listed.keys().filter(|p| !may_list(p)) {
        receipts.push(Receipt::new(
            path,
            "listed in SHA256SUMS",
            expected,
            found,
            false,
        ));
    }
    Opened {
        root_digest,
        listed,
        receipts,
    }
}

/// The manifest checks of one site, fed the files as they are read.
#[derive(Debug)]
pub struct ManifestCheck {
    root_digest: String,
    listed: BTreeMap<String, String>,
    records: Option<BTreeMap<String, String>>,
    records_digest: Option<String>,
    /// The chunk width of each experiment directory whose runs are listed in chunks.
    widths: BTreeMap<String, usize>,
    /// The run records the chunks fed list, each in its own chunk.
    chunked: BTreeMap<String, String>,
    seen_chunks: BTreeSet<String>,
    seen: BTreeSet<String>,
    seen_records: BTreeSet<String>,
    receipts: Vec<Receipt>,
}

/// A file fed to the manifest checks ([`ManifestCheck::feed`]): its bytes,
/// the SHA-256 of its bytes, or why it could not be read (`None`: it could
/// not be fetched).
#[derive(Debug, Clone, Copy)]
pub enum Fed<'a> {
    /// The file's bytes.
    Bytes(&'a [u8]),
    /// The lowercase hex SHA-256 of the file's bytes, found already.
    Digest(&'a str),
    /// The file could not be read: why, or `None` when it could not be fetched.
    Unread(Option<&'a str>),
}

impl<'a> Fed<'a> {
    /// A file as it was read: its bytes, or why not.
    pub fn read(bytes: Result<&'a [u8], &'a str>) -> Fed<'a> {
        bytes.map_or_else(|why| Fed::Unread(Some(why)), Fed::Bytes)
    }

    /// A file whose SHA-256 was found already, or why it could not be read.
    pub fn hashed(digest: Result<&'a str, &'a str>) -> Fed<'a> {
        digest.map_or_else(|why| Fed::Unread(Some(why)), Fed::Digest)
    }
}

/// What the manifest checks found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ManifestResult {
    /// The SHA-256 of `SHA256SUMS`.
    pub root_digest: String,
    /// The SHA-256 of `data/SHA256SUMS`, when it was read.
    pub records_digest: Option<String>,
    /// A receipt for each check made: a digest, a listing, a missing file.
    pub receipts: Vec<Receipt>,
}

impl ManifestCheck {
    /// Starts with the root manifest's bytes and the pinned root digest, if
    /// any (already parsed by [`super::parse_pin`]).
    pub fn new(sums: &[u8], pin: Option<&str>) -> ManifestCheck {
        let Opened {
            root_digest,
            listed,
            receipts,
        } = open_manifest(
            sums,
            pin,
            &is_listed,
            "listed",
            "a file rendered from the records, which SHA256SUMS does not list",
        );
        ManifestCheck {
            root_digest,
            listed,
            records: None,
            records_digest: None,
            widths: BTreeMap::new(),
            chunked: BTreeMap::new(),
            seen_chunks: BTreeSet::new(),
            seen: BTreeSet::new(),
            seen_records: BTreeSet::new(),
            receipts,
        }
    }

    /// The SHA-256 of the root manifest's bytes: the site's root digest.
    pub fn root_digest(&self) -> &str {
        &self.root_digest
    }

    /// Every run record (a path under `data/`, `<dir>/runs/<file>`) the
    /// records manifest and the chunk manifests fed so far list: what a
    /// shard publishes, for the root that lists it. Those `data/SHA256SUMS`
    /// lists come first, then the chunks'; a record both list (which fails)
    /// is named twice. Neither sorted nor deduplicated here: that would
    /// bring sorting code into the core verifier, whose every byte each
    /// page's Verify fetches ([`super::shards::ShardFacts::of`] does both).
    pub fn run_records(&self) -> Vec<String> {
        self.records
            .iter()
            .flat_map(|r| r.keys())
            .filter(|rel| run_record(rel).is_some())
            .chain(self.chunked.keys())
            .cloned()
            .collect()
    }

    /// Whether the root manifest lists `path`.
    pub fn lists(&self, path: &str) -> bool {
        self.listed.contains_key(path)
    }

    /// A file of the site the manifest should list, with the SHA-256 of its
    /// bytes, or `None` when it could not be read.
    fn file(&mut self, path: &str, digest: Option<&str>) {
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
    fn records_manifest(&mut self, bytes: &[u8]) {
        self.records_digest = Some(sha256_hex(bytes));
        let parsed = std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_sums(t).map_err(|e| e.to_string()))
            .and_then(|records| Ok((chunks::widths(&records)?, records)));
        let (widths, records) = match parsed {
            Ok(parsed) => parsed,
            Err(e) => {
                self.receipts.push(Receipt::new(
                    RECORDS_SUMS,
                    "manifest",
                    "a SHA256SUMS file",
                    e,
                    false,
                ));
                return;
            }
        };
        // A run of an experiment listed in chunks belongs in its chunk.
        for rel in records.keys() {
            let Some((dir, file)) = run_record(rel) else {
                continue;
            };
            if let Some(chunk) = widths.get(dir).and_then(|&w| chunk_of(dir, file, w)) {
                self.receipts.push(Receipt::new(
                    &format!("{DATA_DIR}/{rel}"),
                    format!("listed in {DATA_DIR}/{chunk}"),
                    format!("listed in {DATA_DIR}/{chunk}"),
                    format!("listed in {RECORDS_SUMS}, whose experiment has its runs in chunks"),
                    false,
                ));
            }
        }
        self.widths = widths;
        self.records = Some(records);
    }

    /// The chunk manifest that should list record `rel` (a path under
    /// `data/`), as a path under `data/`; `None` when `data/SHA256SUMS` lists
    /// it (or was not read). Feed it ([`Self::feed`]) before the record.
    pub fn chunk_for(&self, rel: &str) -> Option<String> {
        let (dir, file) = run_record(rel)?;
        chunk_of(dir, file, *self.widths.get(dir)?)
    }

    /// A chunk manifest, by its path under `data/`, with its bytes or why
    /// they could not be read: held to its line in `data/SHA256SUMS`, and
    /// each run it lists to the chunk its name hashes to.
    fn chunk_manifest(&mut self, rel: &str, bytes: Result<&[u8], &str>) {
        let Some(records) = &self.records else {
            return;
        };
        self.seen_chunks.insert(rel.to_string());
        let subject = format!("{DATA_DIR}/{rel}");
        let claim = format!("SHA-256 in {RECORDS_SUMS}");
        let Some(expected) = records.get(rel).filter(|_| chunk_place(rel).is_some()) else {
            self.receipts.push(Receipt::new(
                &subject,
                format!("listed in {RECORDS_SUMS}"),
                "not listed",
                "a chunk manifest of the site",
                false,
            ));
            return;
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(why) => {
                self.receipts
                    .push(Receipt::new(&subject, claim, expected, why, false));
                return;
            }
        };
        let actual = sha256_hex(bytes);
        let holds = *expected == actual;
        self.receipts
            .push(Receipt::new(&subject, claim, expected, &actual, holds));
        // Read even when it fails its digest, as data/SHA256SUMS is when it
        // fails its line in SHA256SUMS: the one forgery is named once.
        let listed = match std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_sums(t).map_err(|e| e.to_string()))
        {
            Ok(listed) => listed,
            Err(e) => {
                self.receipts.push(Receipt::new(
                    &subject,
                    "manifest",
                    "a SHA256SUMS file",
                    e,
                    false,
                ));
                return;
            }
        };
        let (dir, width) = chunk_place(rel).unwrap_or_default();
        for (file, digest) in listed {
            let record = format!("{dir}/{RUNS_DIR}/{file}");
            let home = run_record(&record).and_then(|(d, f)| chunk_of(d, f, width));
            if home.as_deref() == Some(rel) {
                self.chunked.insert(record, digest);
            } else {
                self.receipts.push(Receipt::new(
                    &format!("{DATA_DIR}/{record}"),
                    format!("listed in {subject}"),
                    match home {
                        Some(home) => format!("listed in {DATA_DIR}/{home}"),
                        None => "a run record".to_string(),
                    },
                    format!("listed in {subject}"),
                    false,
                ));
            }
        }
    }

    /// A record, by its path under `data/` (a gzipped record as the record
    /// it holds), with the SHA-256 of the record's bytes or why they could
    /// not be read: held to its line in its chunk manifest (which must have
    /// been fed), or else in `data/SHA256SUMS`.
    fn record(&mut self, rel: &str, digest: Result<&str, &str>) {
        let Some(records) = &self.records else {
            return;
        };
        self.seen_records.insert(rel.to_string());
        let subject = format!("{DATA_DIR}/{rel}");
        let (manifest, listed) = match self.chunk_for(rel) {
            Some(chunk) if !self.seen_chunks.contains(&chunk) => {
                self.receipts.push(Receipt::new(
                    &subject,
                    format!("SHA-256 in {DATA_DIR}/{chunk}"),
                    "listed",
                    "its chunk manifest was not read",
                    false,
                ));
                return;
            }
            Some(chunk) => (format!("{DATA_DIR}/{chunk}"), self.chunked.get(rel)),
            None => (RECORDS_SUMS.to_string(), records.get(rel)),
        };
        let receipt = match (listed, digest) {
            (Some(expected), Ok(actual)) => Receipt::new(
                &subject,
                format!("SHA-256 in {manifest}"),
                expected,
                actual,
                expected == actual,
            ),
            (Some(expected), Err(why)) => Receipt::new(
                &subject,
                format!("SHA-256 in {manifest}"),
                expected,
                why,
                false,
            ),
            (None, _) => Receipt::new(
                &subject,
                format!("listed in {manifest}"),
                "not listed",
                "a record of the site",
                false,
            ),
        };
        self.receipts.push(receipt);
    }

    /// One file of the site, by its path in the site, routed by the
    /// layout ([`crate::layout::record_of`]): `data/SHA256SUMS` (checked as
    /// a file, then read as the records manifest), a chunk manifest, a
    /// record (a gzipped run record as the record it holds: fed with the
    /// record's bytes or digest), or else a file the root manifest lists.
    /// Feed `data/SHA256SUMS` first and each chunk manifest before the
    /// records it lists. A second file standing for a record already fed
    /// (`x.json` and `x.json.gz`) fails, never merged with the first.
    pub fn feed(&mut self, path: &str, fed: Fed<'_>) {
        let digest = match fed {
            Fed::Bytes(bytes) => Ok(sha256_hex(bytes)),
            Fed::Digest(digest) => Ok(digest.to_string()),
            Fed::Unread(why) => Err(why),
        };
        let record = record_of(path).map(|(rel, _)| rel);
        match record {
            _ if path == RECORDS_SUMS => {
                self.file(path, digest.as_deref().ok());
                match fed {
                    Fed::Bytes(bytes) => self.records_manifest(bytes),
                    // Its digest alone lists no record, and a record fed
                    // against no list would go unchecked: it fails.
                    Fed::Digest(_) => self.receipts.push(Receipt::new(
                        RECORDS_SUMS,
                        "manifest",
                        "a SHA256SUMS file",
                        "its bytes were not read",
                        false,
                    )),
                    // The file's receipt says why it could not be read.
                    Fed::Unread(_) => {}
                }
            }
            None => self.file(path, digest.as_deref().ok()),
            Some(rel) if chunks::is_chunk(rel) => {
                let bytes = match fed {
                    Fed::Bytes(bytes) => Ok(bytes),
                    Fed::Digest(_) => Err("its bytes were not read"),
                    Fed::Unread(why) => {
                        Err(why.unwrap_or("the chunk manifest could not be fetched"))
                    }
                };
                self.chunk_manifest(rel, bytes);
            }
            Some(rel) if self.seen_records.contains(rel) => {
                self.record(rel, Err("a second file holds this record"));
            }
            Some(rel) => match &digest {
                Ok(digest) => self.record(rel, Ok(digest)),
                Err(why) => self.record(rel, Err(why.unwrap_or("the record could not be fetched"))),
            },
        }
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
            self.receipts.extend(missing(&self.listed, &self.seen));
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
                let (seen, what) = match chunk_place(rel) {
                    Some(_) => (&self.seen_chunks, "the chunk manifest is missing"),
                    None => (&self.seen_records, "the record is missing"),
                };
                if !seen.contains(rel) {
                    self.receipts.push(Receipt::new(
                        &format!("{DATA_DIR}/{rel}"),
                        format!("SHA-256 in {RECORDS_SUMS}"),
                        expected,
                        what,
                        false,
                    ));
                }
            }
            for (rel, expected) in &self.chunked {
                if !self.seen_records.contains(rel) {
                    let chunk = self.chunk_for(rel).unwrap_or_default();
                    self.receipts.push(Receipt::new(
                        &format!("{DATA_DIR}/{rel}"),
                        format!("SHA-256 in {DATA_DIR}/{chunk}"),
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

    /// One feed routes every kind of file by its path in the site, as the
    /// native verifier and the browser's worker both call it.
    #[test]
    fn each_file_fed_is_routed_by_its_place_in_the_site() {
        let record = b"{\"run\":1}".as_slice();
        let records = sums(&[("E01/runs/a.json", record), ("tasks/t.json", b"{}")]);
        let root = sums(&[("data/SHA256SUMS", &records), ("assets/verify.js", b"js")]);
        let mut check = ManifestCheck::new(&root, None);
        check.feed("data/SHA256SUMS", Fed::Bytes(&records));
        check.feed("assets/verify.js", Fed::Bytes(b"js"));
        // A gzipped run record is fed, under its own name, with the record inside.
        check.feed("data/E01/runs/a.json.gz", Fed::Bytes(record));
        check.feed("data/tasks/t.json", Fed::Digest(&sha256_hex(b"{}")));
        let result = check.finish(true);
        assert_eq!(failed(&result), vec![]);
        assert_eq!(result.records_digest, Some(sha256_hex(&records)));

        // A second file for a record already fed; a gzipped file that is no
        // run record; a record that could not be read; a chunk nobody lists.
        let mut check = ManifestCheck::new(&root, None);
        check.feed("data/SHA256SUMS", Fed::Bytes(&records));
        check.feed("assets/verify.js", Fed::Bytes(b"js"));
        check.feed("data/E01/runs/a.json", Fed::Bytes(record));
        check.feed("data/E01/runs/a.json.gz", Fed::Bytes(record));
        check.feed("data/tasks/t.json.gz", Fed::Bytes(b"{}"));
        check.feed("data/E02/runs/b.json", Fed::Unread(None));
        check.feed("data/E03/runs/SHA256SUMS-a", Fed::Bytes(b""));
        let result = check.finish(true);
        let second = result
            .receipts
            .iter()
            .find(|r| r.recomputed == "a second file holds this record")
            .expect("the second file fails");
        assert_eq!(second.subject, "data/E01/runs/a.json");
        assert_eq!(
            failed(&result),
            [
                (
                    "data/E01/runs/a.json".into(),
                    "SHA-256 in data/SHA256SUMS".into()
                ),
                (
                    "data/tasks/t.json.gz".into(),
                    "listed in data/SHA256SUMS".into()
                ),
                (
                    "data/E02/runs/b.json".into(),
                    "listed in data/SHA256SUMS".into()
                ),
                (
                    "data/E03/runs/SHA256SUMS-a".into(),
                    "listed in data/SHA256SUMS".into()
                ),
                (
                    "data/tasks/t.json".into(),
                    "SHA-256 in data/SHA256SUMS".into()
                ),
            ]
        );
    }

    /// The records manifest fed by its digest alone lists nothing to hold
    /// the records to: it fails, and the records fed after it are not
    /// passed unchecked.
    #[test]
    fn the_records_manifest_fed_by_its_digest_fails() {
        let record = b"{\"run\":1}".as_slice();
        let records = sums(&[("E01/runs/a.json", record)]);
        let root = sums(&[("data/SHA256SUMS", &records)]);
        let mut check = ManifestCheck::new(&root, None);
        check.feed("data/SHA256SUMS", Fed::Digest(&sha256_hex(&records)));
        check.feed("data/E01/runs/a.json", Fed::Bytes(b"{\"run\":2}"));
        let result = check.finish(false);
        assert_eq!(
            failed(&result),
            [("data/SHA256SUMS".into(), "manifest".into())]
        );
        assert_eq!(result.receipts.len(), 2, "{:?}", result.receipts);
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

    /// A site whose experiment E01 has its 600 runs listed in chunks, fed
    /// to a check whole: `chunks` and `top` as served (forged or not).
    fn chunked_site(
        records: &BTreeMap<String, Vec<u8>>,
        top: &str,
        chunks: &BTreeMap<String, String>,
    ) -> Vec<(String, String)> {
        let root = sums(&[("data/SHA256SUMS", top.as_bytes())]);
        let mut check = ManifestCheck::new(&root, None);
        check.file("data/SHA256SUMS", Some(&sha256_hex(top.as_bytes())));
        check.records_manifest(top.as_bytes());
        for (path, text) in chunks {
            check.chunk_manifest(path, Ok(text.as_bytes()));
        }
        for (rel, bytes) in records {
            check.record(rel, Ok(&sha256_hex(bytes)));
        }
        failed(&check.finish(true))
    }

    #[test]
    fn chunk_manifests_hold_each_run_and_each_forgery_of_them_is_named() {
        use crate::manifest::chunks::RecordsManifests;
        let mut records: BTreeMap<String, Vec<u8>> = (0..600)
            .map(|i| {
                (
                    format!("E01/runs/r{i}.json"),
                    format!("{{\"run\":{i}}}").into_bytes(),
                )
            })
            .collect();
        records.insert("tasks/t.json".into(), b"{}".to_vec());
        let digests = |r: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, String> {
            r.iter().map(|(p, b)| (p.clone(), sha256_hex(b))).collect()
        };
        let m = RecordsManifests::of(&digests(&records));
        assert_eq!(m.chunks.len(), 16);
        assert_eq!(chunked_site(&records, &m.top, &m.chunks), vec![]);

        let top = crate::manifest::parse_sums(&m.top).unwrap();
        let mut check = ManifestCheck::new(b"", None);
        check.records_manifest(m.top.as_bytes());
        let chunk = check.chunk_for("E01/runs/r7.json").unwrap();
        assert!(m.chunks.contains_key(&chunk) && top.contains_key(&chunk));
        assert_eq!(check.chunk_for("tasks/t.json"), None);
        let other = m.chunks.keys().find(|c| **c != chunk).unwrap().clone();
        let subject = |rel: &str| format!("data/{rel}");

        // A record edited, its chunk not resealed.
        let mut edited = records.clone();
        edited.insert("E01/runs/r7.json".into(), b"{\"run\":\"forged\"}".to_vec());
        assert_eq!(
            chunked_site(&edited, &m.top, &m.chunks),
            [(
                subject("E01/runs/r7.json"),
                format!("SHA-256 in data/{chunk}")
            )]
        );

        // The chunk resealed too, data/SHA256SUMS not: the chunk fails.
        let resealed = RecordsManifests::of(&digests(&edited));
        assert_eq!(
            chunked_site(&edited, &m.top, &resealed.chunks),
            [(subject(&chunk), "SHA-256 in data/SHA256SUMS".into())]
        );
        // Every manifest resealed: only the root digest the authors gave
        // can tell (see the root digest's own test above).
        assert_eq!(
            chunked_site(&edited, &resealed.top, &resealed.chunks),
            vec![]
        );

        // A chunk dropped.
        let mut dropped = m.chunks.clone();
        dropped.remove(&chunk);
        let found = chunked_site(&records, &m.top, &dropped);
        assert!(found.contains(&(subject(&chunk), "SHA-256 in data/SHA256SUMS".into())));
        assert!(found.contains(&(
            subject("E01/runs/r7.json"),
            format!("SHA-256 in data/{chunk}")
        )));

        // Two chunks swapped.
        let mut swapped = m.chunks.clone();
        swapped.insert(chunk.clone(), m.chunks[&other].clone());
        swapped.insert(other.clone(), m.chunks[&chunk].clone());
        let found = chunked_site(&records, &m.top, &swapped);
        assert!(found.contains(&(subject(&chunk), "SHA-256 in data/SHA256SUMS".into())));
        assert!(found.contains(&(subject(&other), "SHA-256 in data/SHA256SUMS".into())));

        // A chunk the records manifest does not list.
        let mut extra = m.chunks.clone();
        extra.insert("E01/runs/SHA256SUMS-x".into(), String::new());
        extra.insert("E02/runs/SHA256SUMS-0".into(), String::new());
        assert_eq!(
            chunked_site(&records, &m.top, &extra),
            [
                (
                    subject("E01/runs/SHA256SUMS-x"),
                    "listed in data/SHA256SUMS".into()
                ),
                (
                    subject("E02/runs/SHA256SUMS-0"),
                    "listed in data/SHA256SUMS".into()
                ),
            ]
        );

        // A record moved to another chunk, every manifest resealed: it is
        // not where a verifier of its page looks for it.
        let line = m.chunks[&chunk]
            .lines()
            .find(|l| l.ends_with("  r7.json"))
            .unwrap();
        let mut moved = m.chunks.clone();
        moved.insert(
            chunk.clone(),
            m.chunks[&chunk].replace(&format!("{line}\n"), ""),
        );
        moved.insert(other.clone(), format!("{}{line}\n", m.chunks[&other]));
        let mut moved_top = top.clone();
        for c in [&chunk, &other] {
            moved_top.insert(c.clone(), sha256_hex(moved[c].as_bytes()));
        }
        let found = chunked_site(&records, &format_sums(&moved_top), &moved);
        assert_eq!(
            found,
            [
                (
                    subject("E01/runs/r7.json"),
                    format!("listed in data/{other}")
                ),
                (
                    subject("E01/runs/r7.json"),
                    format!("listed in data/{chunk}")
                ),
            ]
        );

        // A run listed in data/SHA256SUMS instead of its chunk.
        let mut direct_top = moved_top.clone();
        direct_top.insert(
            "E01/runs/r7.json".into(),
            sha256_hex(&records["E01/runs/r7.json"]),
        );
        moved.insert(other.clone(), m.chunks[&other].clone());
        direct_top.insert(other.clone(), sha256_hex(moved[&other].as_bytes()));
        let found = chunked_site(&records, &format_sums(&direct_top), &moved);
        assert!(found.contains(&(
            subject("E01/runs/r7.json"),
            format!("listed in data/{chunk}")
        )));
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
