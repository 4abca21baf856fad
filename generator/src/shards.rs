//! A study published as shards under a root site (the format and its
//! checks are the verification core's `manifest::shards`): `receipts root`
//! writes the root from the shards' folders, and `receipts verify` on a root
//! checks it and verifies every shard beside it as a site of its own.
//!
//! A root site holds `SHARDS`, its page `index.html`, the assets (the
//! verifier its page's Verify runs), `.nojekyll` and `SHA256SUMS`, which
//! lists `SHARDS` and the assets. Its page is rendered from `SHARDS` and
//! what each shard's manifests list, and is bound to them by rendering it
//! again, as a site's pages are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::layout;
use receipts_verifier::manifest::chunks::is_chunk;
use receipts_verifier::manifest::shards::{
    check_name, format_shards, RootCheck, Shard, ShardFacts, ROOT_PAGE, SHARDS,
};
use receipts_verifier::manifest::{
    format_sums, parse_sums, Fed, ManifestCheck, DATA_DIR, RECORDS_SUMS, SUMS,
};
use receipts_verifier::verify::{Kinds, Receipt, Status, Tally};

use crate::audit::{read_site_file, SiteAudit, RENDERED};
use crate::error::BuildError;
use crate::error::{display_path, InputError};
use crate::render::{RenderError, Theme};
use crate::write::Staging;

/// The SHA-256 of the `SHA256SUMS` of the site in `dir`, and the run
/// records its manifests list (paths under `data/`, sorted, each once),
/// read from its manifests alone; why, naming the file, when they cannot be read.
pub fn read_shard(dir: &Path) -> Result<(String, Vec<String>), InputError> {
    let read = |rel: &str| {
        read_site_file(dir, rel).map_err(|e| {
            InputError::new(
                display_path(Path::new(""), &dir.join(rel)),
                format!("cannot read it ({e}): a shard is a site receipts built"),
            )
        })
    };
    let sums = read(SUMS)?;
    let mut check = ManifestCheck::new(&sums, None);
    let records = read(RECORDS_SUMS)?;
    check.feed(RECORDS_SUMS, Fed::Bytes(&records));
    let listed = std::str::from_utf8(&records)
        .ok()
        .and_then(|t| parse_sums(t).ok())
        .unwrap_or_default();
    for rel in listed.keys().filter(|rel| is_chunk(rel)) {
        let path = layout::published(rel, false);
        check.feed(&path, Fed::Bytes(&read(&path)?));
    }
    let mut runs = check.run_records();
    runs.sort_unstable();
    runs.dedup();
    Ok((sha256_hex(&sums), runs))
}

/// Every file of a root site for `shards` (their facts, in `SHARDS`
/// order), path → bytes: its page carries the root digest its manifest makes.
pub fn root_files(
    shards: &[ShardFacts],
    theme: &Theme,
) -> Result<BTreeMap<String, Vec<u8>>, RenderError> {
    let list: Vec<Shard> = shards
        .iter()
        .map(|f| Shard {
            name: f.name.clone(),
            root_digest: f.root_digest.clone(),
        })
        .collect();
    let mut files: BTreeMap<String, Vec<u8>> = theme.assets.iter().cloned().collect();
    files.insert(SHARDS.to_string(), format_shards(&list).into_bytes());
    let digests: BTreeMap<String, String> = files
        .iter()
        .map(|(p, b)| (p.clone(), sha256_hex(b)))
        .collect();
    let sums = format_sums(&digests);
    let root_digest = sha256_hex(sums.as_bytes());
    files.insert(SUMS.to_string(), sums.into_bytes());
    files.insert(".nojekyll".to_string(), Vec::new());
    let page = crate::render::root_page(theme, shards, &root_digest)?;
    files.insert(ROOT_PAGE.to_string(), page.into_bytes());
    Ok(files)
}

/// What `receipts root` wrote.
pub struct RootSummary {
    pub root_digest: String,
    pub shards: Vec<ShardFacts>,
}

/// Writes into `out` the root site of the shards in `dirs`, each named by
/// its folder's name and published beside the root under it. Input errors
/// (exit 2): a folder whose name cannot name a shard, two with one name, one
/// that is not a site, or a run record two shards publish. A failed build
/// leaves the previous root as it was.
pub fn build_root(out: &Path, dirs: &[PathBuf]) -> Result<RootSummary, BuildError> {
    let mut facts: BTreeMap<String, ShardFacts> = BTreeMap::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for dir in dirs {
        let shown = dir.display().to_string();
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .ok_or_else(|| InputError::new(&shown, "not a folder"))?;
        check_name(&name).map_err(|why| InputError::new(&shown, why))?;
        let (digest, runs) = read_shard(dir)?;
        for rel in &runs {
            if let Some(first) = owner.insert(rel.clone(), name.clone()) {
                return Err(InputError::new(
                    &shown,
                    format!("run record {DATA_DIR}/{rel} is published by shard {first} too: each run belongs to one shard"),
                )
                .into());
            }
        }
        let fact = ShardFacts::of(&name, &digest, &runs);
        if facts.insert(name.clone(), fact).is_some() {
            return Err(InputError::new(&shown, format!("a second shard named {name}")).into());
        }
    }
    if facts.is_empty() {
        return Err(
            InputError::new(out.display().to_string(), "a root lists at least one shard").into(),
        );
    }
    let shards: Vec<ShardFacts> = facts.into_values().collect();
    let files = root_files(&shards, &Theme::embedded())?;
    let staging = Staging::new(out)?;
    for (path, bytes) in &files {
        staging.write(path, bytes)?;
    }
    // The previous root, moved aside, is deleted here.
    drop(staging.commit()?);
    let root_digest = sha256_hex(&files[SUMS]);
    Ok(RootSummary {
        root_digest,
        shards,
    })
}

/// Whether `dir` holds a root site: a `SHARDS` beside its `SHA256SUMS`.
pub fn is_root(dir: &Path) -> bool {
    dir.join(SHARDS).is_file() && !dir.join(DATA_DIR).exists()
}

/// Verifies the root site in `dir` and every shard it lists, each read from
/// `shards_dir/<name>` (the root's parent when it was published beside
/// them): the root's files against its manifest (and the pin), each shard's
/// `SHA256SUMS` against `SHARDS`, no run in two shards, no call on record in
/// two shards nor a run of one copied from another, the root's page and
/// files against their rendering, then every shard verified as a site, its
/// receipts named under `<name>/`. Every receipt is counted; without
/// `keep_passing` only those that did not pass are kept past their shard, so
/// that a root of millions of runs verifies in about one shard's memory and
/// its call index (16 bytes a key, about two keys a call: some 500 MB at a
/// million runs of twelve calls).
pub fn audit_root(
    dir: &Path,
    pin: Option<&str>,
    shards_dir: &Path,
    keep_passing: bool,
) -> Result<SiteAudit, InputError> {
    let sums = read_site_file(dir, SUMS).map_err(|e| {
        InputError::new(
            display_path(Path::new(""), &dir.join(SUMS)),
            format!("cannot read it ({e}): not a site receipts built"),
        )
    })?;
    let mut check = RootCheck::new(&sums, pin);
    let root_digest = check.root_digest().to_string();
    for path in check.listed() {
        let bytes = read_site_file(dir, &path);
        check.file(&path, bytes.as_deref().map_err(std::string::String::as_str));
    }
    let mut found = Counted::new(keep_passing);
    for shard in check.shards() {
        let at = shards_dir.join(&shard.name);
        match read_shard(&at) {
            Ok((digest, runs)) => {
                check.shard(&shard.name, Ok(&digest), &runs);
                let named = |subject: &str| format!("{}/{subject}", shard.name);
                match crate::audit::audit(&at, None) {
                    Ok(site) => {
                        check.calls(&shard.name, Ok(&site.prints));
                        found.add(site.receipts.into_iter().map(|r| Receipt {
                            subject: named(&r.subject),
                            ..r
                        }));
                    }
                    Err(e) => found.add([Receipt::new(
                        &named(&e.file),
                        "a site receipts built",
                        "a site",
                        e.to_string(),
                        false,
                    )]),
                }
            }
            Err(e) => check.shard(&shard.name, Err(&e.to_string()), &[]),
        }
    }
    let result = check.finish();
    let shards = std::mem::take(&mut found.receipts);
    found.add(result.receipts);
    found.receipts.extend(shards);
    found.add(check_rendering(dir, &result.shards));
    Ok(SiteAudit {
        root_digest,
        records_digest: None,
        tally: found.tally,
        kinds: found.kinds,
        receipts: found.receipts,
        prints: receipts_verifier::verify::calls::SitePrints::default(),
    })
}

/// Receipts as they are found: each counted by status and kind, and kept
/// unless it passed and only the others are wanted.
struct Counted {
    keep_passing: bool,
    tally: Tally,
    kinds: Kinds,
    receipts: Vec<Receipt>,
}

impl Counted {
    fn new(keep_passing: bool) -> Counted {
        Counted {
            keep_passing,
            tally: Tally::default(),
            kinds: Kinds::default(),
            receipts: Vec::new(),
        }
    }

    fn add(&mut self, receipts: impl IntoIterator<Item = Receipt>) {
        for r in receipts {
            let one = std::slice::from_ref(&r);
            let (t, k) = (Tally::of(one), Kinds::of(one));
            self.tally.pass += t.pass;
            self.tally.fail += t.fail;
            self.tally.could_not_check += t.could_not_check;
            self.kinds.records += k.records;
            self.kinds.files += k.files;
            self.kinds.pages += k.pages;
            self.kinds.shown += k.shown;
            if self.keep_passing || r.status != Status::Pass {
                self.receipts.push(r);
            }
        }
    }
}

/// The root's files against the root rendered again from its shards' facts:
/// its page byte for byte, its assets against the copies this binary ships,
/// and no file it would not make.
fn check_rendering(dir: &Path, shards: &[ShardFacts]) -> Vec<Receipt> {
    let theme = Theme::embedded();
    let expected = match root_files(shards, &theme) {
        Ok(files) => files,
        Err(e) => {
            return vec![Receipt::new(
                ROOT_PAGE,
                RENDERED,
                "the page the shards render",
                format!("could not be rendered: {e:#}"),
                false,
            )]
        }
    };
    let mut receipts = Vec::new();
    let mut on_disk = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        match entry {
            Ok(e) if !e.file_type().is_dir() => on_disk.push(display_path(dir, e.path())),
            Ok(_) => {}
            Err(e) => receipts.push(Receipt::new(
                ".",
                "a file of the root site",
                "readable",
                e.to_string(),
                false,
            )),
        }
    }
    for path in &on_disk {
        // The manifests are held to their digests by the root's checks.
        if path == SUMS || path == SHARDS {
            continue;
        }
        let Some(want) = expected.get(path) else {
            receipts.push(Receipt::new(
                path,
                "made by receipts root",
                "not a file of the root site",
                "a file no shard renders",
                false,
            ));
            continue;
        };
        let found = read_site_file(dir, path).map(|b| sha256_hex(&b));
        let want = sha256_hex(want);
        let claim = if path == ROOT_PAGE {
            RENDERED.to_string()
        } else {
            format!("the copy receipts {} ships", env!("CARGO_PKG_VERSION"))
        };
        match found {
            Ok(found) => {
                let holds = found == want;
                receipts.push(Receipt::new(path, claim, &found, &want, holds));
            }
            Err(e) => receipts.push(Receipt::new(path, claim, e, &want, false)),
        }
    }
    if !on_disk.iter().any(|p| p == ROOT_PAGE) {
        receipts.push(Receipt::new(
            ROOT_PAGE,
            RENDERED,
            "the root's page",
            "the file is missing",
            false,
        ));
    }
    receipts
}
