//! Stage 1, load: read the input tree into records. Every file is parsed here
//! and nowhere else; errors name the file and the place in it.
//!
//! Layout (see `docs/FORMAT.md`):
//! ```text
//! experiments/tasks/<task>.json        tasks, shared by experiments
//! experiments/objects/<sha256>         input and artifact bytes, stored once by digest
//! experiments/<id>/experiment.json     an experiment
//! experiments/<id>/<log>.md            its pre-registered log
//! experiments/<id>/summary.json        what was published (optional)
//! experiments/<id>/results.csv         the published per-run table (optional)
//! experiments/<id>/deviations.json     deviations from the registration (optional)
//! experiments/<id>/registration.tsr    an RFC 3161 time stamp of the registration (optional,
//! experiments/<id>/registration.tsa.pem  with the TSA's certificate)
//! experiments/<id>/registration.git.json the commit that first held the registration
//!                                      (written by the build inside a git checkout; see [`git`])
//! experiments/<id>/runs/<run>.json     one file per run
//! experiments/<dir>/inspect/<log>.json evaluations imported from Inspect AI logs (see [`import`])
//! experiments/harness/<suite>/…        harness suites and their runs (see [`harness`])
//! experiments/regressions/<suite>/…    regression suites and their edits (see [`regression`])
//! showcase/showcase.json               a selection of runs (optional)
//! docs/**/*.md                         documents rendered as pages (optional)
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use receipts_verifier::layout;
use receipts_verifier::model::{Showcase, Study, Task, STUDY_FILE};

use crate::gzip;

mod experiment;
mod files;
#[cfg(feature = "cli")]
pub mod git;
mod harness;
mod import;
mod regression;
mod sources;
mod suite;
pub use experiment::{read_run, LoadedAnchors, LoadedExperiment};
pub use files::{Disk, FileStamp, Files, Kind, Memory};
pub use harness::LoadedSuite;
pub use import::LoadedImport;
pub use receipts_verifier::model::{HARNESS_DIR, REGRESSIONS_DIR};
pub use regression::LoadedRegressions;
pub use sources::Sources;

use crate::error::{display_path, InputError};
use crate::head::RunHead;
use crate::parse;

/// The largest input file accepted, in bytes.
pub const MAX_FILE_BYTES: u64 = receipts_verifier::layout::MAX_RECORD_BYTES;

/// Directory names inside `experiments/` that are not experiments.
pub use receipts_verifier::layout::{OBJECTS_DIR, TASKS_DIR};

/// The directory of a project that holds its experiments and imports.
pub const EXPERIMENTS_DIR: &str = "experiments";
/// Where a site publishes the showcase and the documents, inside `data/`;
/// reserved as names of experiments.
pub const SHOWCASE_DIR: &str = "showcase";
pub const DOCS_DIR: &str = "docs";

/// Everything the input holds, parsed.
#[derive(Debug)]
pub struct Corpus {
    /// What it was read from.
    pub files: Arc<dyn Files>,
    /// Where in `files` it was read from.
    pub sources: Sources,
    /// The records directory (`experiments/`, or `data/` in a built site).
    pub records_dir: PathBuf,
    /// How messages name the records directory, e.g. `experiments`.
    pub records_name: String,
    /// Tasks by id.
    pub tasks: BTreeMap<String, Task>,
    /// Experiments sorted by id.
    pub experiments: Vec<LoadedExperiment>,
    /// Object bytes by the digest their file is named with.
    pub objects: BTreeMap<String, Vec<u8>>,
    /// Directories of imported evaluations, sorted.
    pub imports: Vec<LoadedImport>,
    /// Harness suites sorted by directory.
    pub harness: Vec<LoadedSuite>,
    /// Regression suites sorted by directory.
    pub regressions: Vec<LoadedRegressions>,
    pub showcase: Option<LoadedShowcase>,
    /// `study.json`: the study's named derived figures, with its bytes.
    pub study: Option<(Study, Vec<u8>)>,
    /// Markdown documents sorted by path.
    pub docs: Vec<Document>,
    /// The SHA-256 of every file the site publishes under `data/` (the
    /// records, the showcase and the documents), by that path.
    pub record_digests: BTreeMap<String, String>,
}

#[derive(Debug)]
pub struct LoadedShowcase {
    pub showcase: Showcase,
    pub narrative: String,
}

#[derive(Debug)]
pub struct Document {
    /// Path under `docs/`, `/`-separated, e.g. `FORMAT.md`.
    pub path: String,
    pub markdown: String,
}

/// Reads the input under `root`.
pub fn load(root: &Path) -> Result<Corpus, InputError> {
    load_with(root, None)
}

/// [`load`], taking each run's head from `heads` when its record is the
/// one it was made from (`receipts serve`), and keeping them there.
pub fn load_with(root: &Path, heads: Option<&HeadCache>) -> Result<Corpus, InputError> {
    let experiments = root.join(EXPERIMENTS_DIR);
    for reserved in [SHOWCASE_DIR, DOCS_DIR] {
        let dir = experiments.join(reserved);
        if !matches!(Disk.kind(&dir), Ok(Kind::Missing)) {
            return Err(InputError::new(
                display_path(root, &dir),
                format!("`{reserved}` is reserved inside experiments/ (a site publishes {reserved}/ there); rename the directory"),
            ));
        }
    }
    let sources = Sources {
        showcase: root.join(SHOWCASE_DIR),
        docs: root.join(DOCS_DIR),
        experiments,
    };
    let mut reader = Reader::new(Arc::new(Disk), root, &sources);
    reader.heads = heads.map(|h| (h, Mutex::new(HashMap::new())));
    if !reader.is_dir(&sources.experiments)? {
        return Err(InputError::new(
            display_path(root, &sources.experiments),
            "no experiments directory: nothing to build (run `receipts simulate` to write the sample)",
        ));
    }
    #[allow(unused_mut)]
    let mut corpus = reader.everything(sources)?;
    #[cfg(feature = "cli")]
    git::find_anchors(&mut corpus);
    Ok(corpus)
}

/// Reads what a built site was made from: the records, the showcase and the
/// documents under `site/data/` in `files`, as [`load`] reads a project;
/// messages name files relative to `site`. `receipts verify` renders the site
/// again from it, and so does the browser's page check.
pub fn load_site(files: Arc<dyn Files>, site: &Path) -> Result<Corpus, InputError> {
    let data = site.join(receipts_verifier::manifest::DATA_DIR);
    let sources = Sources {
        showcase: data.join(SHOWCASE_DIR),
        docs: data.join(DOCS_DIR),
        experiments: data,
    };
    let reader = Reader::new(files, site, &sources);
    if !reader.is_dir(&sources.experiments)? {
        return Err(InputError::new(
            display_path(site, &sources.experiments),
            "no records directory",
        ));
    }
    reader.everything(sources)
}

struct Reader<'a> {
    files: Arc<dyn Files>,
    root: &'a Path,
    experiments: PathBuf,
    sources: Sources,
    /// Digests of the files a site publishes under `data/`, by that path,
    /// recorded as they are read.
    digests: Mutex<BTreeMap<String, String>>,
    /// The heads kept from the last load, and those of this one.
    heads: Option<(&'a HeadCache, Mutex<HashMap<PathBuf, KeptHead>>)>,
}

/// Run heads kept from one load to the next (see [`load_with`]).
#[derive(Debug, Default)]
pub struct HeadCache {
    last: Mutex<Arc<HashMap<PathBuf, KeptHead>>>,
}

/// A run's head, with what it was made from.
#[derive(Debug, Clone)]
struct KeptHead {
    /// The record's SHA-256.
    digest: String,
    /// The record file's stamp, taken before it was read, when it told
    /// something: while the file keeps it, it holds the same bytes.
    stamp: Option<FileStamp>,
    /// The experiment's tiers, which number the head's series.
    tiers: Vec<String>,
    head: RunHead,
}

impl HeadCache {
    /// The head kept for the record at `path` when it holds `digest`, or
    /// else when its file still has `stamp`.
    fn get(
        &self,
        path: &Path,
        digest: Option<&str>,
        stamp: Option<&FileStamp>,
        tiers: &[String],
    ) -> Option<KeptHead> {
        let last = self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        last.get(path)
            .filter(|k| match digest {
                Some(digest) => k.digest == digest,
                None => stamp.is_some() && k.stamp.as_ref() == stamp,
            })
            .filter(|k| k.tiers == tiers)
            .cloned()
    }

    fn keep(&self, heads: HashMap<PathBuf, KeptHead>) {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(heads);
    }
}

impl<'a> Reader<'a> {
    fn new(files: Arc<dyn Files>, root: &'a Path, sources: &Sources) -> Reader<'a> {
        Reader {
            files,
            root,
            experiments: sources.experiments.clone(),
            sources: sources.clone(),
            digests: Mutex::new(BTreeMap::new()),
            heads: None,
        }
    }

    fn take_digests(self) -> BTreeMap<String, String> {
        self.digests
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The records, the showcase and the documents.
    fn everything(self, sources: Sources) -> Result<Corpus, InputError> {
        let mut corpus = self.records()?;
        let showcase_file = sources.showcase.join("showcase.json");
        if self.is_dir(&sources.showcase)? && self.files.is_file(&showcase_file) {
            corpus.showcase = Some(self.showcase(&showcase_file)?);
        }
        corpus.docs = self.docs(&sources.docs)?;
        corpus.sources = sources;
        if let Some((cache, heads)) = &self.heads {
            cache.keep(std::mem::take(
                &mut *heads
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            ));
        }
        corpus.record_digests = self.take_digests();
        Ok(corpus)
    }
    fn name(&self, path: &Path) -> String {
        display_path(self.root, path)
    }

    /// Reads a file, refusing symbolic links, non-files and files over the size limit.
    fn read(&self, path: &Path) -> Result<Vec<u8>, InputError> {
        self.read_digested(path).map(|(bytes, _)| bytes)
    }

    /// [`Reader::read`], with the file's SHA-256 when the site publishes it.
    fn read_digested(&self, path: &Path) -> Result<(Vec<u8>, Option<String>), InputError> {
        let kind = self
            .files
            .kind(path)
            .map_err(|e| InputError::new(self.name(path), e.to_string()))?;
        match kind {
            Kind::Link => {
                return Err(InputError::new(
                    self.name(path),
                    "symbolic links are not followed in the input",
                ))
            }
            Kind::Dir | Kind::Other => {
                return Err(InputError::new(self.name(path), "expected a regular file"))
            }
            Kind::File(len) if len > MAX_FILE_BYTES => {
                return Err(InputError::new(
                    self.name(path),
                    format!("the file has {len} bytes; the limit is {MAX_FILE_BYTES}"),
                ))
            }
            // A missing file: the read below says so, as the source puts it.
            Kind::File(_) | Kind::Missing => {}
        }
        let mut bytes = self
            .files
            .read(path)
            .map_err(|e| InputError::new(self.name(path), e.to_string()))?;
        // Only a file standing for a run record under its own name is read as gzip.
        let gzipped = self
            .sources
            .published(path)
            .is_some_and(|rel| layout::record_in(&rel).1);
        if gzipped {
            bytes = gzip::decompress(&bytes, MAX_FILE_BYTES)
                .map_err(|e| InputError::new(self.name(path), e))?;
        }
        let digest = self
            .sources
            .published(path)
            .map(|_| receipts_verifier::digest::sha256_hex(&bytes));
        if let Some(digest) = &digest {
            self.published(path, digest.clone());
        }
        Ok((bytes, digest))
    }

    /// Notes the digest of a file the site publishes.
    fn published(&self, path: &Path, digest: String) {
        if let Some(rel) = self.sources.published(path) {
            let rel = layout::record_in(&rel).0.to_string();
            self.digests
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(rel, digest);
        }
    }

    /// Whether `path` is a directory; a symbolic link is an error, so the
    /// input cannot reach outside its root through one.
    fn is_dir(&self, path: &Path) -> Result<bool, InputError> {
        match self.files.kind(path) {
            Err(e) => Err(InputError::new(self.name(path), e.to_string())),
            Ok(Kind::Link) => Err(InputError::new(
                self.name(path),
                "symbolic links are not followed in the input",
            )),
            Ok(kind) => Ok(kind == Kind::Dir),
        }
    }

    /// Whether `path` names a regular file.
    fn is_file(&self, path: &Path) -> bool {
        self.files.is_file(path)
    }

    /// Tasks, objects and experiments under the records directory.
    fn records(&self) -> Result<Corpus, InputError> {
        let dir = &self.experiments;
        let tasks = self.tasks(&dir.join(TASKS_DIR))?;
        let objects = self.objects(&dir.join(OBJECTS_DIR))?;
        let mut experiments = Vec::new();
        let mut imports = Vec::new();
        for sub in self.subdirs(dir)? {
            let name = file_name(&sub);
            if [
                TASKS_DIR,
                OBJECTS_DIR,
                HARNESS_DIR,
                REGRESSIONS_DIR,
                SHOWCASE_DIR,
                DOCS_DIR,
            ]
            .contains(&name.as_str())
            {
                continue;
            }
            if self.is_import(&sub)? {
                imports.push(self.import(&sub)?);
                continue;
            }
            experiments.push(self.experiment(&sub)?);
        }
        let harness = self.suites(&dir.join(HARNESS_DIR))?;
        let regressions = self.regressions(&dir.join(REGRESSIONS_DIR))?;
        let study_file = dir.join(STUDY_FILE);
        let study = if self.is_file(&study_file) {
            let bytes = self.read(&study_file)?;
            let study: Study = parse::json(&self.name(&study_file), &bytes)?;
            Some((study, bytes))
        } else {
            None
        };
        Ok(Corpus {
            files: self.files.clone(),
            sources: self.sources.clone(),
            records_dir: dir.clone(),
            records_name: self.name(dir),
            tasks,
            experiments,
            objects,
            imports,
            harness,
            regressions,
            showcase: None,
            study,
            docs: Vec::new(),
            record_digests: BTreeMap::new(),
        })
    }

    fn read_text(&self, path: &Path) -> Result<String, InputError> {
        parse::utf8(&self.name(path), self.read(path)?)
    }

    fn json<T: serde::de::DeserializeOwned>(&self, path: &Path) -> Result<T, InputError> {
        parse::json(&self.name(path), &self.read(path)?)
    }

    /// The entries of a directory, sorted by name so every build sees one order.
    fn entries(&self, dir: &Path) -> Result<Vec<PathBuf>, InputError> {
        let mut out = self
            .files
            .entries(dir)
            .map_err(|e| InputError::new(self.name(dir), e.to_string()))?;
        out.retain(|path| !file_name(path).starts_with('.'));
        out.sort();
        Ok(out)
    }

    fn subdirs(&self, dir: &Path) -> Result<Vec<PathBuf>, InputError> {
        let mut dirs = Vec::new();
        for path in self.entries(dir)? {
            if self.is_dir(&path)? {
                dirs.push(path);
            }
        }
        Ok(dirs)
    }

    /// The `*.<ext>` files of a directory, sorted.
    fn files_with_ext(&self, dir: &Path, ext: &str) -> Result<Vec<PathBuf>, InputError> {
        Ok(self
            .entries(dir)?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect())
    }

    /// The tasks, none when there is no tasks directory: a project of imports
    /// or reports alone needs none, and an experiment naming a task that is not
    /// there fails by that name.
    fn tasks(&self, dir: &Path) -> Result<BTreeMap<String, Task>, InputError> {
        if !self.is_dir(dir)? {
            return Ok(BTreeMap::new());
        }
        let mut tasks = BTreeMap::new();
        for path in self.files_with_ext(dir, "json")? {
            let task: Task = self.json(&path)?;
            expect_stem(&self.name(&path), &path, &task.id)?;
            tasks.insert(task.id.clone(), task);
        }
        Ok(tasks)
    }

    fn objects(&self, dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, InputError> {
        if !self.is_dir(dir)? {
            return Ok(BTreeMap::new());
        }
        let paths = self.entries(dir)?;
        // An object is named by its SHA-256, and by nothing else.
        if let Some(p) = paths
            .iter()
            .find(|p| !receipts_verifier::digest::is_sha256_hex(&file_name(p)))
        {
            return Err(InputError::new(
                self.name(p),
                "an object's file name must be its SHA-256 (64 lowercase hex digits)",
            ));
        }
        let loaded: Vec<Result<(String, Vec<u8>), InputError>> = paths
            .par_iter()
            .map(|p| Ok((file_name(p), self.read(p)?)))
            .collect();
        // Collected in order first, so the error reported is the first by name.
        loaded.into_iter().collect()
    }

    fn showcase(&self, file: &Path) -> Result<LoadedShowcase, InputError> {
        let showcase: Showcase = self.json(file)?;
        let dir = file.parent().unwrap_or(self.root);
        let narrative_path = safe_join(&self.name(file), "narrative", dir, &showcase.narrative)?;
        let narrative = self.read_text(&narrative_path)?;
        Ok(LoadedShowcase {
            showcase,
            narrative,
        })
    }

    fn docs(&self, dir: &Path) -> Result<Vec<Document>, InputError> {
        let mut docs = Vec::new();
        if self.is_dir(dir)? {
            self.docs_under(dir, dir, &mut docs)?;
        }
        Ok(docs)
    }

    /// The `*.md` files under `sub`, depth first in name order, named relative to `dir`.
    fn docs_under(
        &self,
        dir: &Path,
        sub: &Path,
        docs: &mut Vec<Document>,
    ) -> Result<(), InputError> {
        for path in self.entries(sub)? {
            if self.is_dir(&path)? {
                self.docs_under(dir, &path, docs)?;
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = display_path(dir, &path);
                // Published as data/docs/<rel>, a manifest line and a page address.
                if let Err(why) = receipts_verifier::manifest::check_path(&rel) {
                    return Err(InputError::new(
                        self.name(&path),
                        format!("cannot be published under this name: {why}"),
                    ));
                }
                docs.push(Document {
                    markdown: self.read_text(&path)?,
                    path: rel,
                });
            }
        }
        Ok(())
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A record's id must equal its file name, so links and files agree.
fn expect_stem(file: &str, path: &Path, id: &str) -> Result<(), InputError> {
    let name = file_name(path);
    let stem = name
        .strip_suffix(gzip::SUFFIX)
        .filter(|_| gzip::is_gzipped(path))
        .unwrap_or(&name)
        .strip_suffix(".json")
        .unwrap_or(&name)
        .to_string();
    if stem == id {
        Ok(())
    } else {
        Err(InputError::at(
            file,
            "id",
            format!("the id `{id}` differs from the file name `{stem}.json`"),
        ))
    }
}

/// Joins a relative path named inside a record to `dir`, refusing absolute
/// paths and `..` so a record cannot point outside the input.
pub fn safe_join(file: &str, field: &str, dir: &Path, rel: &str) -> Result<PathBuf, InputError> {
    relative_name(file, field, rel)?;
    Ok(dir.join(rel))
}

/// A file name inside a record (an input as the agent saw it, an artifact,
/// a log) must be relative, `/`-separated, without `.`, `..`, empty parts,
/// backslashes, `%`, `?`, `#` or control characters.
pub fn relative_name(file: &str, field: &str, rel: &str) -> Result<(), InputError> {
    // Such a file is published under its name: one canonical spelling only.
    if receipts_verifier::manifest::check_path(rel).is_err() {
        return Err(InputError::at(
            file,
            field,
            format!(
                "`{}` must be a relative path inside the input, without `..`",
                rel.escape_debug()
            ),
        ));
    }
    Ok(())
}
