//! Where the records manifest lists a run record: in a chunk manifest beside
//! it once an experiment has many runs, so that verifying one run reads a
//! manifest of a few hundred lines rather than one line per run of the study.
//!
//! `data/SHA256SUMS` lists every record that is not a run (tasks, objects,
//! an experiment's own files). An experiment directory `<dir>` of at most
//! [`RUNS_PER_CHUNK`] runs has its run records listed there too; a larger
//! one has them listed in chunk manifests `<dir>/runs/SHA256SUMS-<hex>`,
//! each listed (and so sealed) in `data/SHA256SUMS`. A chunk lists run
//! records by their file name in `<dir>/runs/`, so `sha256sum -c` reads it
//! from there. A run's chunk is not a choice: `<hex>` is the first `width`
//! hex digits of the SHA-256 of the run's file name, and `width` is the
//! smallest that keeps at most [`RUNS_PER_CHUNK`] runs a chunk on average
//! for the experiment's run count. A record listed anywhere else is not
//! found where a verifier looks for it, and fails.

use std::collections::BTreeMap;

use crate::digest::sha256_hex;
use crate::layout::RUNS_DIR;

use super::{format_sums, SUMS};

/// At most how many runs a chunk lists on average (and how many runs an
/// experiment has before its runs are listed in chunks at all).
pub const RUNS_PER_CHUNK: usize = 512;

/// The widest chunk name: 16^4 chunks hold 33 million runs at the average.
pub const MAX_WIDTH: usize = 4;

/// The hex digits a chunk name takes for an experiment of `runs` runs: the
/// smallest width whose 16^width chunks hold at most [`RUNS_PER_CHUNK`]
/// runs each on average; 0 (no chunks) up to [`RUNS_PER_CHUNK`] runs.
pub fn width(runs: usize) -> usize {
    (0..MAX_WIDTH)
        .find(|&w| runs <= RUNS_PER_CHUNK << (4 * w))
        .unwrap_or(MAX_WIDTH)
}

/// The chunk manifest, as a path under `data/`, that lists the run record
/// `<dir>/runs/<file>` when its experiment has chunks of `width` hex digits;
/// `None` at width 0, where `data/SHA256SUMS` lists it.
pub fn chunk_of(dir: &str, file: &str, width: usize) -> Option<String> {
    (width > 0).then(|| {
        format!(
            "{dir}/{RUNS_DIR}/{SUMS}-{}",
            &sha256_hex(file.as_bytes())[..width.min(MAX_WIDTH)]
        )
    })
}

pub use crate::layout::run_record;

/// For a path under `data/` naming a chunk manifest: its experiment
/// directory and its width (`E01/runs/SHA256SUMS-3f` → `("E01", 2)`).
pub fn chunk_place(path: &str) -> Option<(&str, usize)> {
    let (dir, name) = path.rsplit_once("/runs/")?;
    let hex = name.strip_prefix(SUMS)?.strip_prefix('-')?;
    let ok = !dir.is_empty()
        && (1..=MAX_WIDTH).contains(&hex.len())
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some((dir, hex.len()))
}

/// Whether `path` (under `data/`) names a chunk manifest of some width.
pub fn is_chunk(path: &str) -> bool {
    chunk_place(path).is_some()
}

/// The records manifests of a site: `data/SHA256SUMS` and the chunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordsManifests {
    /// The text of `data/SHA256SUMS`, whose SHA-256 is the records digest.
    pub top: String,
    /// Each chunk manifest's text, by its path under `data/`.
    pub chunks: BTreeMap<String, String>,
}

impl RecordsManifests {
    /// The manifests listing `records` (path under `data/` → SHA-256),
    /// each run record in the place [`chunk_of`] names.
    pub fn of(records: &BTreeMap<String, String>) -> RecordsManifests {
        let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
        for path in records.keys() {
            if let Some((dir, _)) = run_record(path) {
                *runs.entry(dir).or_default() += 1;
            }
        }
        let mut top = BTreeMap::new();
        let mut chunks: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (path, digest) in records {
            let chunk = run_record(path)
                .and_then(|(dir, file)| Some((chunk_of(dir, file, width(runs[dir]))?, file)));
            match chunk {
                Some((chunk, file)) => {
                    chunks
                        .entry(chunk)
                        .or_default()
                        .insert(file.to_string(), digest.clone());
                }
                None => {
                    top.insert(path.clone(), digest.clone());
                }
            }
        }
        let chunks: BTreeMap<String, String> = chunks
            .into_iter()
            .map(|(path, runs)| (path, format_sums(&runs)))
            .collect();
        for (path, text) in &chunks {
            top.insert(path.clone(), sha256_hex(text.as_bytes()));
        }
        RecordsManifests {
            top: format_sums(&top),
            chunks,
        }
    }

    /// The records digest: the SHA-256 of `data/SHA256SUMS`.
    pub fn digest(&self) -> String {
        sha256_hex(self.top.as_bytes())
    }
}

/// The width of the chunks `top` (the parsed `data/SHA256SUMS`) lists for
/// each experiment directory that has any, or why they disagree.
pub fn widths(top: &BTreeMap<String, String>) -> Result<BTreeMap<String, usize>, String> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    for path in top.keys() {
        if let Some((dir, w)) = chunk_place(path) {
            if *out.entry(dir.to_string()).or_insert(w) != w {
                return Err(format!(
                    "{dir}/{RUNS_DIR}/ has chunk manifests of two widths ({} and {w} hex digits)",
                    out[dir]
                ));
            }
        }
    }
    Ok(out)
}

/// The chunk manifest (path under `data/`) in which `top` (the parsed
/// `data/SHA256SUMS`) has record `rel` listed, or `None` when `top` lists it.
pub fn chunk_for(top: &BTreeMap<String, String>, rel: &str) -> Option<String> {
    let (dir, file) = run_record(rel)?;
    let prefix = format!("{dir}/{RUNS_DIR}/{SUMS}-");
    let w = top
        .range(prefix.clone()..)
        .next()
        .and_then(|(p, _)| chunk_place(p).filter(|(d, _)| *d == dir))
        .map(|(_, w)| w)?;
    chunk_of(dir, file, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_sums;

    #[test]
    fn the_width_keeps_at_most_512_runs_a_chunk() {
        assert_eq!(width(0), 0);
        assert_eq!(width(512), 0);
        assert_eq!(width(513), 1);
        assert_eq!(width(8_192), 1);
        assert_eq!(width(8_193), 2);
        assert_eq!(width(100_000), 2);
        assert_eq!(width(1_000_000), 3);
        assert_eq!(width(usize::MAX), MAX_WIDTH);
    }

    #[test]
    fn a_run_is_listed_in_the_chunk_its_name_hashes_to() {
        assert_eq!(chunk_of("E01", "E01-a.json", 0), None);
        let hex = sha256_hex(b"E01-a.json");
        let chunk = chunk_of("E01", "E01-a.json", 2).unwrap();
        assert_eq!(chunk, format!("E01/runs/SHA256SUMS-{}", &hex[..2]));
        assert_eq!(chunk_place(&chunk), Some(("E01", 2)));
        for not in [
            "SHA256SUMS",
            "/runs/SHA256SUMS-ab",
            "E01/runs/SHA256SUMS",
            "E01/runs/SHA256SUMS-",
            "E01/runs/SHA256SUMS-ABC",
            "E01/runs/SHA256SUMS-12345",
            "E01/runs/SHA256SUMSx",
            "E01/runs/E01-a.json",
        ] {
            assert!(!is_chunk(not), "{not}");
        }
    }

    #[test]
    fn the_manifests_list_every_record_once_and_seal_each_chunk() {
        let mut records = BTreeMap::new();
        records.insert("tasks/t.json".to_string(), "1".repeat(64));
        records.insert("E01/experiment.json".to_string(), "2".repeat(64));
        for i in 0..2_500 {
            records.insert(format!("E01/runs/E01-{i}.json"), format!("{i:064}"));
        }
        records.insert("E02/runs/E02-0.json".to_string(), "3".repeat(64));
        let m = RecordsManifests::of(&records);
        let top = parse_sums(&m.top).unwrap();
        assert_eq!(m.chunks.len(), 16, "2,500 runs take one hex digit");
        assert_eq!(top.len(), 3 + 16, "three records and the chunks");
        assert!(top.contains_key("E02/runs/E02-0.json"));
        assert_eq!(widths(&top).unwrap()["E01"], 1);
        let mut listed = 0;
        for (chunk, text) in &m.chunks {
            assert_eq!(top[chunk], sha256_hex(text.as_bytes()));
            for (file, digest) in parse_sums(text).unwrap() {
                let rel = format!("E01/runs/{file}");
                assert_eq!(chunk_for(&top, &rel).as_ref(), Some(chunk));
                assert_eq!(&records[&rel], &digest);
                listed += 1;
            }
        }
        assert_eq!(listed, 2_500);
        assert_eq!(chunk_for(&top, "E02/runs/E02-0.json"), None);
        assert_eq!(chunk_for(&top, "tasks/t.json"), None);
        // Fewer runs, one manifest, as before chunks.
        records.retain(|p, _| !p.starts_with("E01/runs/E01-1"));
        let small: BTreeMap<_, _> = records.into_iter().take(400).collect();
        let m = RecordsManifests::of(&small);
        assert!(m.chunks.is_empty());
        assert_eq!(m.top, format_sums(&small));
    }

    #[test]
    fn chunks_of_two_widths_are_refused() {
        let d = "0".repeat(64);
        let top = parse_sums(&format!(
            "{d}  E01/runs/SHA256SUMS-a\n{d}  E01/runs/SHA256SUMS-ab\n"
        ))
        .unwrap();
        assert!(widths(&top).unwrap_err().contains("two widths"));
    }
}
