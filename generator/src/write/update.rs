//! Staging's side of a site changed in place (see [`super::in_place`]):
//! preparing the change, keeping and patching files as they were written,
//! and committing the changes computed.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use receipts_verifier::digest::sha256_hex;
use receipts_verifier::manifest::{STATEMENT, SUMS};

use super::in_place::{self, Change, Generation, InPlace};
use super::{Result, Staging, Target};
use crate::error::BuildError;

impl Staging {
    /// Prepares to change the site in `out` in place, when it is the site
    /// `in_place` remembers writing (its `SHA256SUMS` unchanged); `None`
    /// otherwise.
    pub fn update(out: &Path, in_place: &InPlace) -> Option<Staging> {
        let last = in_place.last()?;
        // Its bytes hashed, and its stamp as remembered: either alone would
        // do, both are cheap.
        let sums = fs::read(out.join(SUMS)).ok()?;
        if sha256_hex(&sums) != last.root_digest
            || last.holds(out, SUMS, &last.root_digest).is_none()
        {
            return None;
        }
        Some(Staging::with(Target::Update {
            out: out.to_path_buf(),
            last,
            changes: Mutex::new(Vec::new()),
            lock: in_place.lock(),
        }))
    }

    /// The site being changed in place, as it was before.
    pub fn last(&self) -> Option<&Generation> {
        match &self.target {
            Target::Update { last, .. } => Some(last),
            _ => None,
        }
    }

    /// Takes the file at `rel` as written, unchanged, when the site is
    /// changed in place and the file still holds `digest`; whether it did.
    pub fn keep(&self, rel: &str, digest: &str) -> bool {
        let Target::Update { out, last, .. } = &self.target else {
            return false;
        };
        let Some(stamp) = last.holds(out, rel, digest) else {
            return false;
        };
        self.note(rel, stamp.on_disk.size(), digest.to_string());
        true
    }

    /// Takes the file at `rel` as written with every `from` in it replaced
    /// by `to` (of the same length), when the site is changed in place and
    /// the file is as it was written; whether it did. Of a page whose tail
    /// was kept, only the tail is read and hashed.
    pub fn patch(&self, rel: &str, from: &str, to: &str) -> bool {
        let Target::Update {
            out, last, changes, ..
        } = &self.target
        else {
            return false;
        };
        if from.len() != to.len() {
            return false;
        }
        let tail = last.tail(rel);
        let from_offset = tail.map_or(0, |t| t.at);
        let Some((mut bytes, stamp)) = last.read(out, rel, from_offset) else {
            return false;
        };
        let mut at = in_place::occurrences(&bytes, from.as_bytes());
        for &i in &at {
            bytes[i..i + to.len()].copy_from_slice(to.as_bytes());
        }
        let digest = match tail {
            Some(tail) => {
                let digest = tail.digest(&bytes);
                self.tails
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(rel.to_string(), tail.clone());
                digest
            }
            None => self.digest(rel, &bytes),
        };
        for i in &mut at {
            *i += from_offset;
        }
        self.note(rel, stamp.on_disk.size(), digest);
        if !at.is_empty() {
            changes
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(Change::Patch {
                    rel: rel.to_string(),
                    at,
                    with: to.to_string(),
                });
        }
        true
    }

    /// [`Staging::commit`], the replaced site deleted before returning,
    /// then what the site now is, for `in_place` to remember: its files'
    /// stamps, its root digest, and `page_context` (see
    /// [`Generation::page_context`]). A failed commit leaves nothing
    /// remembered: the next build writes the whole site.
    pub fn commit_remembered(
        self,
        in_place: &InPlace,
        root_digest: &str,
        page_context: String,
    ) -> Result<()> {
        in_place.remember(None);
        let tails = std::mem::take(
            &mut *self
                .tails
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let root_digest = root_digest.to_string();
        let generation = match &self.target {
            Target::Update { .. } => {
                let (out, last, digests, changed) = self.commit_in_place()?;
                let last = Some((&*last, &changed));
                Generation::stamped(&out, last, &digests, &tails, root_digest, page_context)?
            }
            Target::Write { out, .. } => {
                let out = out.clone();
                let digests = self.digests();
                // Deleting the replaced site unlinks the files linked from
                // it, which changes theirs: it is done before they are stamped.
                drop(self.commit()?);
                Generation::stamped(&out, None, &digests, &tails, root_digest, page_context)?
            }
            Target::Compare { .. } => {
                return Err(BuildError::Unsupported(
                    "a site rendered to be compared is not written",
                ))
            }
        };
        in_place.remember(Some(generation));
        Ok(())
    }

    /// Applies the changes computed for a site changed in place (see
    /// [`in_place`]), deleting the files the site had that this build did
    /// not make; returns where, what it was, every file's digest now, and
    /// the files changed.
    pub(super) fn commit_in_place(self) -> Result<InPlaceCommit> {
        let Target::Update {
            out,
            last,
            changes,
            lock,
        } = self.target
        else {
            return Err(BuildError::Unsupported(
                "only a site changed in place is committed in place",
            ));
        };
        let digests = self
            .digests
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changes = changes
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed: HashSet<String> = changes.iter().map(|c| c.rel().to_string()).collect();
        let mut removed: Vec<String> = last
            .files
            .keys()
            .filter(|rel| !digests.contains_key(*rel))
            .cloned()
            .collect();
        removed.sort();
        let _guard = lock.map(|lock| lock());
        in_place::apply(&out, changes, &removed, &[STATEMENT, SUMS])?;
        Ok((out, last, digests, changed))
    }
}

/// See [`Staging::commit_in_place`].
pub(super) type InPlaceCommit = (
    PathBuf,
    Arc<Generation>,
    BTreeMap<String, String>,
    HashSet<String>,
);
