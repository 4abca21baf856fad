//! Where each kind of record lives, under `experiments/` in the input and
//! under `data/` in a built site (the two mirror each other), and how a
//! record is published. Every path a build writes, a verifier reads or a
//! script fetches is spelled here once; the browser's scripts ask the
//! WebAssembly core (`published`, `record_of`, `run_path`) rather than
//! spelling them again.
//!
//! - `tasks/<task>.json`: a task.
//! - `objects/<sha256>`: an object (an input, an artifact, a kept file),
//!   named by the SHA-256 of its bytes.
//! - `<experiment>/runs/<run>.json`: an experiment's run record; a site
//!   built with `--compress-records` publishes it gzipped, as
//!   `<experiment>/runs/<run>.json.gz`, and the record keeps its
//!   uncompressed path and digest.
//! - `harness/<suite>/runs/<run>.json`: a harness suite's run report,
//!   listed in chunks like a run record but never gzipped.
//! - `SHA256SUMS` under `data/` and, for an experiment of many runs,
//!   `<dir>/runs/SHA256SUMS-<hex>` (see [`crate::manifest::chunks`]).

/// Where a site publishes its records.
pub const DATA_DIR: &str = "data";
/// Where a site keeps its stylesheet, scripts and the verifier.
pub const ASSETS_DIR: &str = "assets";
/// Where a site carries a copy of the standalone verifier.
pub const VERIFIER_DIR: &str = "verifier";
/// The records manifest's path in a site.
pub const RECORDS_SUMS: &str = "data/SHA256SUMS";
/// The directory of the tasks, under the records root.
pub const TASKS_DIR: &str = "tasks";
/// The directory of the objects, under the records root.
pub const OBJECTS_DIR: &str = "objects";
/// The directory of an experiment's (or a harness suite's) runs.
pub const RUNS_DIR: &str = "runs";
/// The suffix of a run record published gzipped.
pub const GZ: &str = ".gz";

/// A task's record: `tasks/<task>.json`.
pub fn task_path(task: &str) -> String {
    format!("{TASKS_DIR}/{task}.json")
}

/// An object's record: `objects/<sha256>`.
pub fn object_path(sha256: &str) -> String {
    format!("{OBJECTS_DIR}/{sha256}")
}

/// The digest an object's record is named by (`objects/<sha256>`).
pub fn object_digest(rel: &str) -> Option<&str> {
    rel.strip_prefix(OBJECTS_DIR)?.strip_prefix('/')
}

/// Whether `rel` names a task's record (`tasks/<task>.json`).
pub fn is_task(rel: &str) -> bool {
    rel.strip_prefix(TASKS_DIR)
        .and_then(|r| r.strip_prefix('/'))
        .is_some_and(|name| name.ends_with(".json"))
}

/// Whether record `rel` is one every scope of a verification reads, whatever
/// experiment it names: a task, an object or the study's file.
pub fn is_shared(rel: &str) -> bool {
    rel == crate::model::STUDY_FILE || is_task(rel) || object_digest(rel).is_some()
}

/// A run's record in experiment directory `dir`: `<dir>/runs/<run>.json`.
pub fn run_path(dir: &str, run: &str) -> String {
    format!("{dir}/{RUNS_DIR}/{run}.json")
}

/// A run record's place, for a path under the records root: its directory
/// (an experiment's, or a harness suite's `harness/<suite>`) and its file
/// name (`E01/runs/E01-a.json` → `("E01", "E01-a.json")`); `None` for any
/// other record and for a chunk manifest.
pub fn run_record(rel: &str) -> Option<(&str, &str)> {
    let (dir, file) = rel.rsplit_once("/runs/")?;
    (!dir.is_empty() && !file.contains('/') && !file.starts_with(crate::manifest::SUMS))
        .then_some((dir, file))
}

/// Whether record `rel` is one a site may publish gzipped: an experiment's
/// run record, `<experiment>/runs/<run>.json`. No other record is, so no
/// other file can stand for a record under another name.
pub fn gzippable(rel: &str) -> bool {
    run_record(rel).is_some_and(|(dir, file)| {
        !dir.contains('/') && file.len() > ".json".len() && file.ends_with(".json")
    })
}

/// The most bytes a record may hold, gzipped records counted uncompressed:
/// a build refuses a larger input file, and a verifier stops decompressing
/// a gzipped run record past it (a small file that inflates without end
/// is refused, not followed).
pub const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// The site path that publishes record `rel`: `data/<rel>`, or
/// `data/<rel>.gz` for a run record of a site whose run records are
/// gzipped.
pub fn published(rel: &str, gzipped: bool) -> String {
    let gz = if gzipped && gzippable(rel) { GZ } else { "" };
    format!("{DATA_DIR}/{rel}{gz}")
}

/// The record a file under the records root holds (`E01/runs/a.json` for
/// `E01/runs/a.json.gz`), and whether the file holds it gzipped; any
/// other path is its own record.
pub fn record_in(rel: &str) -> (&str, bool) {
    match rel.strip_suffix(GZ) {
        Some(record) if gzippable(record) => (record, true),
        _ => (rel, false),
    }
}

/// For a site path: the record it publishes and whether gzipped (the
/// inverse of [`published`]); `None` outside `data/`.
pub fn record_of(path: &str) -> Option<(&str, bool)> {
    path.strip_prefix(DATA_DIR)?
        .strip_prefix('/')
        .map(record_in)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_published_where_it_is_read_back() {
        for rel in [
            "E01/runs/E01-a.json",
            "harness/H01/runs/h-1.json",
            "tasks/t.json",
            "objects/ab12",
            "E01/experiment.json",
            "E01/runs/SHA256SUMS-3f",
        ] {
            for gz in [false, true] {
                let path = published(rel, gz);
                assert_eq!(
                    record_of(&path),
                    Some((rel, gz && gzippable(rel))),
                    "{path}"
                );
            }
        }
        assert_eq!(
            published("E01/runs/a.json", true),
            "data/E01/runs/a.json.gz"
        );
        assert_eq!(run_path("E01", "a"), "E01/runs/a.json");
        assert_eq!(task_path("t"), "tasks/t.json");
        assert_eq!(object_path("ab"), "objects/ab");
        assert_eq!(object_digest(&object_path("ab")), Some("ab"));
        assert!(is_task(&task_path("t")));
        assert!(!is_task("tasks.json") && !is_task("E01/tasks/t.json"));
        for shared in ["study.json", "tasks/t.json", "objects/ab"] {
            assert!(is_shared(shared), "{shared}");
        }
        assert!(!is_shared("E01/experiment.json"));
    }

    #[test]
    fn only_an_experiments_run_record_is_gzipped() {
        assert!(gzippable("E01/runs/a.json"));
        for not in [
            "harness/H01/runs/a.json",
            "E01/runs/.json",
            "E01/runs/a.txt",
            "E01/runs/SHA256SUMS-ab",
            "/runs/a.json",
            "objects/abc.json",
            "E01/a.json",
        ] {
            assert!(!gzippable(not), "{not}");
            assert_eq!(
                record_in(&format!("{not}{GZ}")),
                (&*format!("{not}{GZ}"), false)
            );
        }
        assert_eq!(record_of("site/data/E01/runs/a.json.gz"), None);
        assert_eq!(
            record_of("data/E01/runs/a.json.gz"),
            Some(("E01/runs/a.json", true))
        );
    }

    #[test]
    fn only_run_records_go_to_chunks() {
        assert_eq!(
            run_record("E01/runs/E01-a.json"),
            Some(("E01", "E01-a.json"))
        );
        assert_eq!(
            run_record("harness/H01/runs/x.json"),
            Some(("harness/H01", "x.json"))
        );
        for not in [
            "E01/experiment.json",
            "objects/ab",
            "E01/runs/SHA256SUMS-ab",
            "runs/x.json",
            "/runs/a.json",
            "E01/runs/d/a.json",
        ] {
            assert_eq!(run_record(not), None, "{not}");
        }
    }
}
