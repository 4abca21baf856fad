//! A study too big for one host, published as shards: each shard a site of
//! its own (one experiment, or a range of runs), under a small root site
//! that lists them. The root's `SHARDS` names each shard with its root
//! digest (the SHA-256 of the shard's `SHA256SUMS`), one `<digest>  <name>`
//! line each in the format `sha256sum` writes, and the shard is published
//! beside the root, at `../<name>/`. The root's own `SHA256SUMS` lists
//! `SHARDS` and the root's assets, so the root's root digest seals the list:
//! pinning it pins every shard and every record of the study.
//!
//! [`RootCheck`] holds a root and its shards to that: each file the root's
//! manifest lists to its digest; each shard's `SHA256SUMS` to the digest
//! `SHARDS` lists for it (a shard swapped, altered and resealed, or missing
//! fails by name); no run record published by two shards (a shard copied
//! under a second name would count its runs twice); one call index over
//! every shard's runs ([`crate::verify::calls`]), so that no provider call
//! is on record in two shards and no run of one shard copies a run of
//! another (the same runs under new run ids, or an experiment registered
//! again under a new id); and the figures the root's page shows to those of
//! the shards. Each shard is verified as a
//! site of its own beside it, its receipts named under the shard's name.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::digest::sha256_hex;
use crate::verify::calls::{CallIndex, SitePrints};
use crate::verify::Receipt;

use super::check::{open_manifest, Opened};
use super::chunks::run_record;
use super::{format_sums, parse_sums, SumsError, ASSETS_DIR, SUMS};

/// The root's list of shards.
pub const SHARDS: &str = "SHARDS";

/// A run record's path, as the root keeps it: 16 bytes, whatever its length.
fn path_key(rel: &str) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(rel.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// The root site's page.
pub const ROOT_PAGE: &str = "index.html";

/// A shard as `SHARDS` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    /// The folder the shard is published in, beside the root.
    pub name: String,
    /// The SHA-256 of the shard's `SHA256SUMS`.
    pub root_digest: String,
}

/// Whether `name` can name a shard: a folder name of ASCII letters, digits,
/// `-`, `_` and `.`, not starting with `.`, at most 100 characters; so
/// `../<name>/` is one folder beside the root and nothing else.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > 100 {
        return Err("a shard's name must have 1 to 100 characters");
    }
    if name.starts_with('.') {
        return Err("a shard's name must not start with `.`");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err("a shard's name must hold only ASCII letters, digits, `-`, `_` and `.`");
    }
    Ok(())
}

/// The shards `SHARDS` lists, sorted by name: at least one, each name a
/// folder name ([`check_name`]) listed once.
pub fn parse_shards(text: &str) -> Result<Vec<Shard>, SumsError> {
    let listed = parse_sums(text)?;
    if listed.is_empty() {
        return Err(SumsError {
            line: 1,
            message: "no shard is listed".to_string(),
        });
    }
    let mut shards = Vec::with_capacity(listed.len());
    for (name, root_digest) in listed {
        if let Err(why) = check_name(&name) {
            let line = text
                .lines()
                .position(|l| l.get(66..) == Some(name.as_str()))
                .map_or(1, |i| i + 1);
            return Err(SumsError {
                line,
                message: format!("{name}: {why}"),
            });
        }
        shards.push(Shard { name, root_digest });
    }
    Ok(shards)
}

/// `SHARDS` text for `shards`.
pub fn format_shards(shards: &[Shard]) -> String {
    let map: BTreeMap<String, String> = shards
        .iter()
        .map(|s| (s.name.clone(), s.root_digest.clone()))
        .collect();
    format_sums(&map)
}

/// What a shard publishes, read from its manifests: the figures the root's
/// page shows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShardFacts {
    /// The folder the shard is published in, as `SHARDS` names it.
    pub name: String,
    /// The SHA-256 of its `SHA256SUMS`.
    pub root_digest: String,
    /// How many run records its manifests list.
    pub runs: usize,
    /// The directories (under `data/`) its run records are in, sorted.
    pub experiments: Vec<String>,
}

impl ShardFacts {
    /// The facts of shard `name` whose `SHA256SUMS` has SHA-256
    /// `root_digest` and whose manifests list `run_records` (paths under
    /// `data/`; one listed twice is counted once).
    pub fn of(name: &str, root_digest: &str, run_records: &[String]) -> ShardFacts {
        let runs: BTreeSet<&str> = run_records.iter().map(String::as_str).collect();
        let experiments: BTreeSet<&str> = runs
            .iter()
            .filter_map(|r| run_record(r).map(|(dir, _)| dir))
            .collect();
        ShardFacts {
            name: name.to_string(),
            root_digest: root_digest.to_string(),
            runs: runs.len(),
            experiments: experiments.into_iter().map(str::to_string).collect(),
        }
    }
}

/// What checking a root found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootResult {
    /// The SHA-256 of the root's `SHA256SUMS`.
    pub root_digest: String,
    /// The facts of each shard checked, by name.
    pub shards: Vec<ShardFacts>,
    /// A receipt for each check of the root: its files, each shard's digest
    /// against `SHARDS`, each run to one shard, each call on record once
    /// across the shards and no run a copy of another shard's, the figures
    /// its page shows.
    pub receipts: Vec<Receipt>,
}

/// The checks of a root site and its shards, fed as they are read: the
/// root's manifest, then `SHARDS`, then each shard.
#[derive(Debug)]
pub struct RootCheck {
    root_digest: String,
    listed: BTreeMap<String, String>,
    seen: BTreeSet<String>,
    shards: Option<Vec<Shard>>,
    /// The shards [`Self::shard`] was given, by name.
    checked: BTreeSet<String>,
    /// Which shard (by its place in `names`) publishes each run record
    /// seen so far, by the first 16 bytes of the SHA-256 of its path.
    owner: std::collections::HashMap<[u8; 16], u32>,
    /// The shards checked, in the order they were.
    names: Vec<String>,
    /// Every shard's runs, by the keys of their calls.
    calls: CallIndex,
    facts: BTreeMap<String, ShardFacts>,
    receipts: Vec<Receipt>,
}

impl RootCheck {
    /// Starts with the bytes of the root's `SHA256SUMS` and the pinned root
    /// digest, if any (already parsed by [`super::parse_pin`]).
    pub fn new(sums: &[u8], pin: Option<&str>) -> RootCheck {
        let assets = format!("{ASSETS_DIR}/");
        let Opened {
            root_digest,
            listed,
            receipts,
        } = open_manifest(
            sums,
            pin,
            &|p| p == SHARDS || p.starts_with(&assets),
            "SHARDS or an asset",
            "a file a root site does not have",
        );
        RootCheck {
            root_digest,
            listed,
            seen: BTreeSet::new(),
            checked: BTreeSet::new(),
            shards: None,
            owner: std::collections::HashMap::new(),
            names: Vec::new(),
            calls: CallIndex::default(),
            facts: BTreeMap::new(),
            receipts,
        }
    }

    /// The SHA-256 of the root's `SHA256SUMS`.
    pub fn root_digest(&self) -> &str {
        &self.root_digest
    }

    /// The files the root's manifest lists, sorted.
    pub fn listed(&self) -> Vec<String> {
        self.listed.keys().cloned().collect()
    }

    /// A file of the root with its bytes, or why they could not be read;
    /// `SHARDS` is read for its shards, which [`Self::shards`] then names.
    pub fn file(&mut self, path: &str, bytes: Result<&[u8], &str>) {
        self.seen.insert(path.to_string());
        let actual = bytes.map(sha256_hex);
        let receipt = match (self.listed.get(path), &actual) {
            (Some(expected), Ok(actual)) => Receipt::new(
                path,
                "SHA-256 in SHA256SUMS",
                expected,
                actual,
                expected == actual,
            ),
            (Some(expected), Err(why)) => {
                Receipt::new(path, "SHA-256 in SHA256SUMS", expected, *why, false)
            }
            (None, _) => Receipt::new(
                path,
                "listed in SHA256SUMS",
                "listed",
                "a file of the root site",
                false,
            ),
        };
        self.receipts.push(receipt);
        if path != SHARDS {
            return;
        }
        let Ok(bytes) = bytes else {
            return;
        };
        match std::str::from_utf8(bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_shards(t).map_err(|e| e.to_string()))
        {
            Ok(shards) => self.shards = Some(shards),
            Err(e) => self.receipts.push(Receipt::new(
                SHARDS,
                "list of shards",
                "a SHARDS file",
                e,
                false,
            )),
        }
    }

    /// The shards `SHARDS` lists (empty until it was read, or when it could not be).
    pub fn shards(&self) -> Vec<Shard> {
        self.shards.clone().unwrap_or_default()
    }

    /// Shard `name`, with the SHA-256 of its `SHA256SUMS` (or why it could
    /// not be read) and the run records its manifests list (paths under
    /// `data/`): its digest held to the one `SHARDS` lists, each run to
    /// this shard alone. Its own receipts are the caller's, under `<name>/`.
    pub fn shard(&mut self, name: &str, digest: Result<&str, &str>, run_records: &[String]) {
        self.checked.insert(name.to_string());
        let subject = format!("{name}/{SUMS}");
        let Some(expected) = self
            .shards
            .iter()
            .flatten()
            .find(|s| s.name == name)
            .map(|s| s.root_digest.clone())
        else {
            self.receipts.push(Receipt::new(
                &subject,
                format!("listed in {SHARDS}"),
                "not listed",
                "a shard that was verified",
                false,
            ));
            return;
        };
        let claim = format!("root digest in {SHARDS}");
        let actual = match digest {
            Ok(actual) => actual,
            Err(why) => {
                self.receipts
                    .push(Receipt::new(&subject, claim, expected, why, false));
                return;
            }
        };
        self.receipts.push(Receipt::new(
            &subject,
            claim,
            &expected,
            actual,
            expected == actual,
        ));
        // A run published twice is counted twice: named once, where it is seen again.
        let shard = self.shard_number(name);
        for rel in run_records {
            let key = path_key(rel);
            match self.owner.get(&key) {
                Some(&first) if first != shard => {
                    self.receipts.push(Receipt::new(
                        &format!("{name}/data/{rel}"),
                        "published by one shard",
                        format!("only in {name}"),
                        format!("also in {}", self.names[first as usize]),
                        false,
                    ));
                }
                Some(_) => {}
                None => {
                    self.owner.insert(key, shard);
                }
            }
        }
        self.facts
            .insert(name.to_string(), ShardFacts::of(name, actual, run_records));
    }

    fn shard_number(&mut self, name: &str) -> u32 {
        let at = match self.names.iter().position(|n| n == name) {
            Some(at) => at,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(u32::MAX)
    }

    /// The prints of shard `name`'s runs ([`SitePrints`], from verifying
    /// it), or why there are none: each run joins the root's one call index,
    /// so that a call on record in two shards, or a run of one shard that
    /// copies a run of another, fails by both names.
    pub fn calls(&mut self, name: &str, prints: Result<&SitePrints, &str>) {
        match prints {
            Ok(prints) => {
                for (rel, run) in &prints.runs {
                    self.calls.add(name, &format!("{name}/data/{rel}"), run);
                }
                self.calls.seal();
            }
            Err(why) => self.receipts.push(Receipt::unchecked(
                &format!("{name}/{SUMS}"),
                "calls on record once, across the shards",
                "the calls of the shard's runs",
                format!("could not be read: {why}"),
            )),
        }
    }

    /// The shards page `page` shows, `(name, root digest, runs)` each as
    /// written there, against `SHARDS` and the facts of the shards checked:
    /// every shard shown once, none that is not listed, each figure as found.
    pub fn shown(&mut self, page: &str, rows: &[(String, String, String)]) {
        let listed = self.shards();
        let mut seen = BTreeSet::new();
        for (name, digest, runs) in rows {
            let Some(shard) = listed.iter().find(|s| &s.name == name) else {
                self.receipts.push(Receipt::new(
                    page,
                    format!("shard {name} shown on the page"),
                    "a shard SHARDS lists",
                    "not listed in SHARDS",
                    false,
                ));
                continue;
            };
            if !seen.insert(name.clone()) {
                self.receipts.push(Receipt::new(
                    page,
                    format!("shard {name} shown on the page"),
                    "once",
                    "shown twice",
                    false,
                ));
                continue;
            }
            self.receipts.push(Receipt::new(
                page,
                format!("digest of shard {name} shown on the page"),
                digest,
                &shard.root_digest,
                *digest == shard.root_digest,
            ));
            let actual = self
                .facts
                .get(name)
                .map_or("the shard could not be read".to_string(), |f| {
                    f.runs.to_string()
                });
            self.receipts.push(Receipt::new(
                page,
                format!("runs of shard {name} shown on the page"),
                runs,
                &actual,
                *runs == actual,
            ));
        }
        for shard in listed.iter().filter(|s| !seen.contains(&s.name)) {
            self.receipts.push(Receipt::new(
                page,
                format!("shard {} shown on the page", shard.name),
                "shown",
                "listed in SHARDS, not shown",
                false,
            ));
        }
    }

    /// The root digest page `page` shows, against the root's.
    pub fn shown_root(&mut self, page: &str, shown: &str) {
        self.receipts.push(Receipt::new(
            page,
            format!("digest of {SUMS} shown on the page"),
            shown,
            &self.root_digest,
            shown == self.root_digest,
        ));
    }

    /// The receipts and each shard's facts: a file the manifest lists and
    /// nothing fed, and a shard `SHARDS` lists and nothing checked, fail.
    pub fn finish(mut self) -> RootResult {
        self.receipts
            .extend(super::check::missing(&self.listed, &self.seen));
        if !self.listed.contains_key(SHARDS) {
            self.receipts.push(Receipt::new(
                SHARDS,
                "listed in SHA256SUMS",
                "listed",
                "SHA256SUMS does not list the shards: not a root site",
                false,
            ));
        }
        for shard in self.shards.iter().flatten() {
            if !self.checked.contains(&shard.name) {
                self.receipts.push(Receipt::new(
                    &format!("{}/{SUMS}", shard.name),
                    format!("root digest in {SHARDS}"),
                    &shard.root_digest,
                    "the shard was not checked",
                    false,
                ));
            }
        }
        // Repeats within a shard are the shard's own receipts.
        let calls = std::mem::take(&mut self.calls);
        self.receipts
            .extend(calls.finish(|first, then| first != then));
        let order: Vec<String> = self.shards().into_iter().map(|s| s.name).collect();
        let shards = order.iter().filter_map(|n| self.facts.remove(n)).collect();
        RootResult {
            root_digest: self.root_digest,
            shards,
            receipts: self.receipts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Status;

    fn shards_text(shards: &[(&str, &str)]) -> String {
        format_shards(
            &shards
                .iter()
                .map(|(n, d)| Shard {
                    name: n.to_string(),
                    root_digest: sha256_hex(d.as_bytes()),
                })
                .collect::<Vec<_>>(),
        )
    }

    /// A root listing shards `a` and `b` (their `SHA256SUMS` being "A" and
    /// "B"), fed its files; the check and its `SHARDS`.
    fn root(pin: Option<&str>) -> (RootCheck, String) {
        let shards = shards_text(&[("a", "A"), ("b", "B")]);
        let mut files = BTreeMap::new();
        files.insert(SHARDS.to_string(), sha256_hex(shards.as_bytes()));
        files.insert("assets/style.css".to_string(), sha256_hex(b"css"));
        let sums = format_sums(&files);
        let mut check = RootCheck::new(sums.as_bytes(), pin);
        check.file(SHARDS, Ok(shards.as_bytes()));
        check.file("assets/style.css", Ok(b"css"));
        (check, sums)
    }

    fn runs(list: &[&str]) -> Vec<String> {
        list.iter().map(std::string::ToString::to_string).collect()
    }

    fn failing(result: &RootResult) -> Vec<(String, String)> {
        result
            .receipts
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| (r.subject.clone(), r.claim.clone()))
            .collect()
    }

    #[test]
    fn a_root_and_its_shards_as_listed_pass_with_their_facts() {
        let (mut check, sums) = root(None);
        check.shard(
            "a",
            Ok(&sha256_hex(b"A")),
            &runs(&["E01/runs/r1.json", "E01/runs/r2.json"]),
        );
        check.shard("b", Ok(&sha256_hex(b"B")), &runs(&["E02/runs/r3.json"]));
        check.shown(
            "index.html",
            &[
                ("a".into(), sha256_hex(b"A"), "2".into()),
                ("b".into(), sha256_hex(b"B"), "1".into()),
            ],
        );
        check.shown_root("index.html", &sha256_hex(sums.as_bytes()));
        let result = check.finish();
        assert_eq!(failing(&result), vec![]);
        assert_eq!(result.root_digest, sha256_hex(sums.as_bytes()));
        assert_eq!(result.shards.len(), 2);
        assert_eq!(result.shards[0].runs, 2);
        assert_eq!(result.shards[0].experiments, vec!["E01"]);
    }

    #[test]
    fn a_shard_swapped_altered_or_missing_fails_by_name() {
        let (mut check, _) = root(None);
        // b's folder holds another site (or b resealed after an edit).
        check.shard("a", Ok(&sha256_hex(b"A")), &[]);
        check.shard("b", Ok(&sha256_hex(b"A")), &[]);
        assert_eq!(
            failing(&check.finish()),
            vec![("b/SHA256SUMS".into(), "root digest in SHARDS".into())]
        );
        let (mut check, _) = root(None);
        check.shard("a", Err("cannot read it"), &[]);
        check.shard("b", Ok(&sha256_hex(b"B")), &[]);
        assert_eq!(
            failing(&check.finish()),
            vec![("a/SHA256SUMS".into(), "root digest in SHARDS".into())]
        );
        // A shard left out of the check is not a pass.
        let (mut check, _) = root(None);
        check.shard("a", Ok(&sha256_hex(b"A")), &[]);
        assert_eq!(
            failing(&check.finish()),
            vec![("b/SHA256SUMS".into(), "root digest in SHARDS".into())]
        );
    }

    #[test]
    fn a_run_in_two_shards_fails_where_it_is_seen_again() {
        let (mut check, _) = root(None);
        check.shard("a", Ok(&sha256_hex(b"A")), &runs(&["E01/runs/r1.json"]));
        check.shard(
            "b",
            Ok(&sha256_hex(b"B")),
            &runs(&["E01/runs/r1.json", "E01/runs/r2.json"]),
        );
        assert_eq!(
            failing(&check.finish()),
            vec![(
                "b/data/E01/runs/r1.json".into(),
                "published by one shard".into()
            )]
        );
    }

    #[test]
    fn a_call_two_shards_both_publish_fails_by_both_names() {
        use crate::verify::calls::{Held, Print, Prints};
        let run = |key: u8| Prints {
            calls: 1,
            keys: vec![Print {
                held: Held::Request,
                at: 0,
                key: [key; 16],
            }],
        };
        let prints = |runs: &[(&str, u8)]| SitePrints {
            runs: runs
                .iter()
                .map(|(path, key)| ((*path).to_string(), run(*key)))
                .collect(),
        };
        let (mut check, _) = root(None);
        check.shard("a", Ok(&sha256_hex(b"A")), &runs(&["E01/runs/r1.json"]));
        check.calls("a", Ok(&prints(&[("E01/runs/r1.json", 1)])));
        // The same run under another id and experiment, and one of b's own.
        check.shard(
            "b",
            Ok(&sha256_hex(b"B")),
            &runs(&["E05/runs/r9.json", "E05/runs/r2.json"]),
        );
        check.calls(
            "b",
            Ok(&prints(&[("E05/runs/r9.json", 1), ("E05/runs/r2.json", 2)])),
        );
        let result = check.finish();
        let failed: Vec<(String, String)> = result
            .receipts
            .iter()
            .filter(|r| r.status == Status::Fail)
            .map(|r| (r.subject.clone(), r.recomputed.clone()))
            .collect();
        assert_eq!(
            failed,
            vec![
                (
                    "a/data/E01/runs/r1.json".to_string(),
                    "same request id as a call of b/data/E05/runs/r9.json".to_string()
                ),
                (
                    "b/data/E05/runs/r9.json".to_string(),
                    "same request id as a call of a/data/E01/runs/r1.json".to_string()
                ),
            ]
        );
        // A shard whose runs could not be verified leaves its calls unchecked.
        let (mut check, _) = root(None);
        check.calls("a", Err("the shard's records were not verified"));
        assert!(check
            .finish()
            .receipts
            .iter()
            .any(|r| r.status == Status::CouldNotCheck && r.subject == "a/SHA256SUMS"));
    }

    #[test]
    fn figures_the_page_shows_are_held_to_the_shards() {
        let (mut check, _) = root(None);
        check.shard("a", Ok(&sha256_hex(b"A")), &runs(&["E01/runs/r1.json"]));
        check.shard("b", Ok(&sha256_hex(b"B")), &runs(&["E02/runs/r2.json"]));
        check.shown(
            "index.html",
            &[
                // a's runs rounded up; b left out; c not listed.
                ("a".into(), sha256_hex(b"A"), "2".into()),
                ("c".into(), sha256_hex(b"C"), "1".into()),
            ],
        );
        check.shown_root("index.html", &"0".repeat(64));
        let failed = failing(&check.finish());
        for claim in [
            "runs of shard a shown on the page",
            "shard c shown on the page",
            "shard b shown on the page",
            "digest of SHA256SUMS shown on the page",
        ] {
            assert!(
                failed.iter().any(|(s, c)| s == "index.html" && c == claim),
                "{claim}: {failed:?}"
            );
        }
        assert_eq!(failed.len(), 4, "{failed:?}");
    }

    #[test]
    fn the_root_manifest_pin_and_its_files_are_checked() {
        let (check, sums) = root(Some(&"0".repeat(64)));
        let failed = failing(&check.finish());
        assert!(failed.contains(&("SHA256SUMS".into(), "root digest".into())));
        let mut check = RootCheck::new(sums.as_bytes(), None);
        check.file(SHARDS, Ok(b"tampered"));
        let failed = failing(&check.finish());
        assert!(failed.contains(&("SHARDS".into(), "SHA-256 in SHA256SUMS".into())));
        assert!(failed.contains(&("SHARDS".into(), "list of shards".into())));
        assert!(failed.contains(&("assets/style.css".into(), "SHA-256 in SHA256SUMS".into())));
        // A site that is not a root lists no SHARDS, and a root lists nothing but it and assets.
        let site = format_sums(&BTreeMap::from([(
            "data/SHA256SUMS".to_string(),
            sha256_hex(b"x"),
        )]));
        let failed = failing(&RootCheck::new(site.as_bytes(), None).finish());
        assert!(failed.contains(&("SHARDS".into(), "listed in SHA256SUMS".into())));
        assert!(failed.contains(&("data/SHA256SUMS".into(), "listed in SHA256SUMS".into())));
    }

    #[test]
    fn shard_names_are_single_folder_names() {
        for bad in ["", ".", "..", ".hidden", "a/b", "a b", "a%2F"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in ["part-1", "E01", "runs_0.5"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        assert!(parse_shards("").is_err());
        let text = format!("{}  ok\n{}  .x\n", "a".repeat(64), "b".repeat(64));
        let err = parse_shards(&text).unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert!(parse_shards(&shards_text(&[("a", "A")])).is_ok());
    }
}
