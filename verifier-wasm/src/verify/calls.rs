//! Provider calls on record once, and runs that are not copies of another:
//! the keys a run's calls leave ([`prints`]) and the index that finds a key
//! two runs both hold ([`CallIndex`]), within an experiment, across a
//! site's experiments and across the shards of a root.
//!
//! What the provider gave a call names it: its request id and, for a call
//! recorded on the wire and answered, its response body by digest. Each is
//! on record once. A copy that renames every id and shifts every time still
//! keeps what the calls did: [`STRETCH`] calls in a row with the same usage
//! and latency, call for call, or an attempt with the same artifact,
//! transcript and calls (each with its usage, latency and offset from the
//! attempt's start, in an attempt of the same duration). Two runs that hold
//! one such key are one run recorded twice.
//!
//! Every key is the first 16 bytes of a SHA-256, domain-separated by what
//! it holds, of which the index keeps 10 with its run and place (16 bytes
//! an entry): the index of a million runs holds fixed-size entries and one
//! name per run, not a string per call.

use crate::model::{Attempt, Run, Usage};
use crate::time;

use super::Receipt;

/// How many calls in a row, each with the same usage and latency as a
/// call of another run, make a run a copy of it. Docs/TRUST.md says why three.
pub const STRETCH: usize = 3;

/// The claim of a call on record twice.
pub const ONCE: &str = "calls on record once";

/// The claim of a run that repeats what another run's calls did.
pub const NOT_A_COPY: &str = "not a copy of another run";

/// What a key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Held {
    /// A call's request id.
    Request,
    /// An answered call's response body, by digest (a call recorded on the wire).
    Response,
    /// [`STRETCH`] calls in a row, each its usage and latency.
    Stretch,
    /// An attempt's artifact, transcript and calls, each call with its
    /// usage, latency and offset from the attempt's start, and its duration.
    Attempt,
}

impl Held {
    const ALL: [Held; 4] = [Held::Request, Held::Response, Held::Stretch, Held::Attempt];

    fn code(self) -> u32 {
        match self {
            Held::Request => 0,
            Held::Response => 1,
            Held::Stretch => 2,
            Held::Attempt => 3,
        }
    }

    fn tag(self) -> &'static [u8] {
        match self {
            Held::Request => b"request\0",
            Held::Response => b"response\0",
            Held::Stretch => b"stretch\0",
            Held::Attempt => b"attempt\0",
        }
    }
}

/// One key a run holds: what it holds, where (a call's place among the
/// run's calls, from 0, or an attempt's), and its 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Print {
    /// What the key holds.
    pub held: Held,
    /// The call (or, for [`Held::Attempt`], the attempt) it starts at, from 0.
    pub at: u32,
    /// The first 16 bytes of the SHA-256 of what it holds.
    pub key: [u8; 16],
}

/// The keys of a run's calls, and how many calls it has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prints {
    /// How many provider calls the run made.
    pub calls: u32,
    /// Its keys, in the order of its calls, then its stretches and attempts.
    pub keys: Vec<Print>,
}

fn digest(held: Held, bytes: &[u8]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(held.tag());
    hash.update(bytes);
    let digest = hash.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    out
}

fn print(held: Held, at: usize, value: &impl serde::Serialize) -> Print {
    Print {
        held,
        at: u32::try_from(at).unwrap_or(u32::MAX),
        // A tuple serializes as a JSON array, with no value tree built.
        key: digest(held, &serde_json::to_vec(value).unwrap_or_default()),
    }
}

/// What an answered call did that a copy keeps: every counter of its
/// usage, and its latency.
type Did = ([Option<u64>; 6], u64);

/// Every counter of a call's usage.
fn counters(u: &Usage) -> [Option<u64>; 6] {
    [
        Some(u.prompt_tokens),
        Some(u.completion_tokens),
        u.reasoning_tokens,
        u.cache_hit_tokens,
        u.cache_miss_tokens,
        u.cache_write_tokens,
    ]
}

/// An attempt as a copy keeps it with every id renamed and every time
/// shifted: its artifact and files, its transcript (the messages and
/// turns, without the request ids they name), each call's usage, latency,
/// finish and offset from the attempt's start, and its duration.
fn attempt_key(a: &Attempt) -> impl serde::Serialize + '_ {
    let start = time::parse(&a.started_at).ok();
    let calls: Vec<_> = a
        .calls
        .iter()
        .map(|c| {
            let offset = match (start, time::parse(&c.started_at).ok()) {
                (Some(s), Some(t)) => Some(t.0 - s.0),
                _ => None,
            };
            (
                offset,
                c.latency_ms,
                c.usage.as_ref().map(counters),
                &c.finish_reason,
                c.status,
            )
        })
        .collect();
    let messages: Vec<_> = a
        .messages
        .iter()
        .map(|m| (&m.role, &m.text, &m.sha256, &m.reasoning, m.turn))
        .collect();
    let turns: Vec<_> = a
        .turns
        .iter()
        .map(|t| (&t.action, &t.permission, &t.result))
        .collect();
    (
        a.artifact.as_ref().map(|f| &f.sha256),
        a.files.iter().map(|f| &f.sha256).collect::<Vec<_>>(),
        messages,
        turns,
        calls,
        a.duration_ms,
    )
}

/// The keys of `run`'s calls: each call's request id; each answered call's
/// response body, for a call recorded on the wire; each [`STRETCH`] calls
/// in a row that reported usage, by their usage and latency; and each
/// attempt that has a call with usage, by its artifact, transcript and calls.
pub fn prints(run: &Run) -> Prints {
    let mut keys = Vec::new();
    // What each answered call did that a copy keeps: its usage and latency.
    let mut answered: Vec<(usize, Did)> = Vec::new();
    for (i, call) in run.calls().enumerate() {
        keys.push(print(Held::Request, i, &call.request_id));
        // A refusal's body is alike from call to call: only an answer's names it.
        let Some(usage) = &call.usage else {
            continue;
        };
        if let Some(body) = call.wire.as_ref().and_then(|w| w.response_sha256.as_ref()) {
            keys.push(print(Held::Response, i, body));
        }
        answered.push((i, (counters(usage), call.latency_ms)));
    }
    // Calls that lost their usage (timed out, refused) are left out: two
    // runs' timeouts look alike.
    for window in answered.windows(STRETCH) {
        let did: Vec<_> = window.iter().map(|(_, did)| did).collect();
        keys.push(print(Held::Stretch, window[0].0, &did));
    }
    for (i, a) in run.attempts.iter().enumerate() {
        if a.calls.iter().any(|c| c.usage.is_some()) {
            keys.push(print(Held::Attempt, i, &attempt_key(a)));
        }
    }
    Prints {
        calls: u32::try_from(run.calls().count()).unwrap_or(u32::MAX),
        keys,
    }
}

/// How many bytes of a key the index keeps: 80 bits, so that two of the
/// 25 million keys of a million runs agree by chance about once in four
/// billion such studies.
const KEPT: usize = 10;

/// One key of an indexed run: 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    key: [u8; KEPT],
    /// The run, by its place in [`CallIndex::runs`].
    run: u32,
    /// What it holds (top two bits) and where (the rest; a place past
    /// [`AT_MAX`] is named as that place).
    held_at: u16,
}

const AT_BITS: u32 = 14;
const AT_MAX: u32 = (1 << AT_BITS) - 1;

impl Entry {
    fn of(run: u32, p: &Print) -> Entry {
        let mut key = [0u8; KEPT];
        key.copy_from_slice(&p.key[..KEPT]);
        let held_at = (p.held.code() << AT_BITS) | p.at.min(AT_MAX);
        Entry {
            key,
            run,
            held_at: u16::try_from(held_at).unwrap_or(u16::MAX),
        }
    }

    fn held(self) -> Held {
        Held::ALL[usize::from(self.held_at >> AT_BITS)]
    }

    fn at(self) -> u32 {
        u32::from(self.held_at) & AT_MAX
    }
}

/// An indexed run: its group (an experiment's directory, or a shard), where
/// its name ends in [`CallIndex::names`], and how many calls it made.
#[derive(Debug, Clone, Copy)]
struct Indexed {
    group: u32,
    name_end: u32,
    calls: u32,
}

/// The keys of many runs, each run named once; which key two runs both
/// hold is found by [`CallIndex::finish`]. Each key costs 16 bytes, each
/// run its name and 12 bytes; [`CallIndex::seal`] lets the keys added so
/// far go at their size, so a root of many shards holds no spare capacity.
#[derive(Debug, Default)]
pub struct CallIndex {
    groups: Vec<String>,
    runs: Vec<Indexed>,
    names: String,
    entries: Vec<Entry>,
    sealed: Vec<Box<[Entry]>>,
}

impl CallIndex {
    /// Adds the run named `name` (the path a receipt names it by) of group
    /// `group`, with its prints.
    pub fn add(&mut self, group: &str, name: &str, prints: &Prints) {
        let group = match self.groups.iter().position(|g| g == group) {
            Some(i) => i,
            None => {
                self.groups.push(group.to_string());
                self.groups.len() - 1
            }
        };
        let run = u32::try_from(self.runs.len()).unwrap_or(u32::MAX);
        self.names.push_str(name);
        self.runs.push(Indexed {
            group: u32::try_from(group).unwrap_or(u32::MAX),
            name_end: u32::try_from(self.names.len()).unwrap_or(u32::MAX),
            calls: prints.calls,
        });
        self.entries
            .extend(prints.keys.iter().map(|p| Entry::of(run, p)));
    }

    /// Keeps the keys added so far at their size (a shard's, say), before
    /// more are added.
    pub fn seal(&mut self) {
        if !self.entries.is_empty() {
            let mut block = std::mem::take(&mut self.entries);
            block.sort_unstable();
            self.sealed.push(block.into_boxed_slice());
        }
    }

    /// How many keys are indexed.
    pub fn len(&self) -> usize {
        self.entries.len() + self.sealed.iter().map(|b| b.len()).sum::<usize>()
    }

    /// Whether no key is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the index holds: its keys, its runs and their names.
    pub fn bytes(&self) -> usize {
        let entries = self.entries.capacity() + self.sealed.iter().map(|b| b.len()).sum::<usize>();
        entries * std::mem::size_of::<Entry>()
            + self.runs.capacity() * std::mem::size_of::<Indexed>()
            + self.names.capacity()
    }

    fn name(&self, run: u32) -> &str {
        let at = run as usize;
        let start = if at == 0 {
            0
        } else {
            self.runs[at - 1].name_end as usize
        };
        &self.names[start..self.runs[at].name_end as usize]
    }

    /// One failing receipt for each run that holds a key another run holds
    /// too, when `report(the earlier's group, the later's group)` (in the
    /// order they were added), naming the other: the first such key by what
    /// it holds, then by place. Sorted by the order the runs were added.
    pub fn finish(mut self, report: impl Fn(&str, &str) -> bool) -> Vec<Receipt> {
        use std::cmp::Reverse;
        self.seal();
        // The sealed blocks, each sorted, merged: every key's entries come
        // together, the earliest run first, with no second copy of the keys.
        let mut next = vec![0usize; self.sealed.len()];
        let mut heap: std::collections::BinaryHeap<Reverse<(Entry, usize)>> = self
            .sealed
            .iter()
            .enumerate()
            .filter_map(|(b, block)| block.first().map(|e| Reverse((*e, b))))
            .collect();
        // For each run, the first key it repeats: (held, at, first run, first's at).
        let mut found: Vec<Option<(Held, u32, u32, u32)>> = vec![None; self.runs.len()];
        let mut first: Option<Entry> = None;
        while let Some(Reverse((e, b))) = heap.pop() {
            next[b] += 1;
            if let Some(more) = self.sealed[b].get(next[b]) {
                heap.push(Reverse((*more, b)));
            }
            let f = match first {
                Some(f) if f.key == e.key => f,
                _ => {
                    first = Some(e);
                    continue;
                }
            };
            if e.run == f.run {
                continue;
            }
            let (g, h) = (
                self.runs[f.run as usize].group,
                self.runs[e.run as usize].group,
            );
            if !report(&self.groups[g as usize], &self.groups[h as usize]) {
                continue;
            }
            // Which of the two is the copy the records cannot say: each is
            // named, with the other.
            for hit in [
                (e.run, (e.held(), e.at(), f.run, f.at())),
                (f.run, (f.held(), f.at(), e.run, e.at())),
            ] {
                let slot = &mut found[hit.0 as usize];
                if slot.is_none_or(|old| (hit.1 .0, hit.1 .1) < (old.0, old.1)) {
                    *slot = Some(hit.1);
                }
            }
        }
        found
            .iter()
            .enumerate()
            .filter_map(|(run, hit)| hit.map(|h| (run, h)))
            .map(|(run, (held, at, first, first_at))| {
                let run = u32::try_from(run).unwrap_or(u32::MAX);
                self.receipt(run, held, at, first, first_at)
            })
            .collect()
    }

    fn receipt(&self, run: u32, held: Held, at: u32, first: u32, first_at: u32) -> Receipt {
        let subject = self.name(run);
        let other = self.name(first);
        let calls = self.runs[run as usize].calls;
        let call = |at: u32| format!("call {} of {calls}", at + 1);
        match held {
            Held::Request => Receipt::new(
                subject,
                ONCE,
                call(at),
                format!("same request id as a call of {other}"),
                false,
            ),
            Held::Response => Receipt::new(
                subject,
                ONCE,
                call(at),
                format!("same response body (its SHA-256) as a call of {other}"),
                false,
            ),
            Held::Stretch => Receipt::new(
                subject,
                NOT_A_COPY,
                format!("calls {} to {} of {calls}", at + 1, at as usize + STRETCH),
                format!(
                    "one run recorded twice, here and as {other}: {STRETCH} calls in a row with the same usage and latency, call for call, as its calls from call {}",
                    first_at + 1
                ),
                false,
            ),
            Held::Attempt => Receipt::new(
                subject,
                NOT_A_COPY,
                format!("attempt {}", at + 1),
                format!(
                    "one run recorded twice, here and as {other}: the same artifact, transcript, usage and latencies as its attempt {}",
                    first_at + 1
                ),
                false,
            ),
        }
    }
}

/// Provider calls recorded more than once among `runs` (of one experiment,
/// in directory `dir`), and runs that copy another's calls: one failing
/// receipt per run that shares a call with another, naming it.
pub fn reused_calls<'a>(
    dir: &str,
    runs: impl Iterator<Item = &'a crate::facts::RunFacts>,
) -> Vec<Receipt> {
    let mut index = CallIndex::default();
    for run in runs {
        index.add(
            dir,
            &crate::layout::run_path(dir, &run.place.id),
            &run.prints,
        );
    }
    index.finish(|_, _| true)
}

/// Provider calls recorded in runs of two experiments: one failing receipt
/// per run that shares a call (or what its calls did) with another
/// experiment's run, naming it (repeats within an experiment are its own
/// grid's receipts).
pub fn reused_across<'a>(
    experiments: impl IntoIterator<Item = (&'a str, Vec<&'a crate::facts::RunFacts>)>,
) -> Vec<Receipt> {
    let mut index = CallIndex::default();
    for (dir, runs) in experiments {
        for run in runs {
            index.add(
                dir,
                &crate::layout::run_path(dir, &run.place.id),
                &run.prints,
            );
        }
    }
    index.finish(|first, then| first != then)
}

/// The prints of a site's runs, for the root that lists it: each run's
/// record path (under `data/`) with its prints, as bytes that cross from
/// one verification to another (in the browser, from a shard's `Bundle`
/// to the root's checks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitePrints {
    /// Each run's record path and prints.
    pub runs: Vec<(String, Prints)>,
}

impl SitePrints {
    /// The prints as bytes: for each run, its path's length and bytes, its
    /// calls, its keys' count, then each key (what and where, 4 bytes; the
    /// key, 16), integers little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
        for (path, prints) in &self.runs {
            out.extend(u32_of(path.len()));
            out.extend(path.as_bytes());
            out.extend(prints.calls.to_le_bytes());
            out.extend(u32_of(prints.keys.len()));
            for p in &prints.keys {
                out.extend(((p.held.code() << 30) | p.at.min((1 << 30) - 1)).to_le_bytes());
                out.extend(p.key);
            }
        }
        out
    }

    /// Reads what [`Self::to_bytes`] wrote; why not, for bytes it did not.
    pub fn from_bytes(bytes: &[u8]) -> Result<SitePrints, String> {
        let mut r = Reader { bytes, at: 0 };
        let mut runs = Vec::new();
        while r.at < bytes.len() {
            let len = r.u32()? as usize;
            let path = std::str::from_utf8(r.take(len)?)
                .map_err(|_| format!("a run's path is not UTF-8, {} bytes in", r.at))?
                .to_string();
            let calls = r.u32()?;
            let count = r.u32()? as usize;
            let mut keys = Vec::with_capacity(count.min(r.bytes.len() / 20));
            for _ in 0..count {
                let held_at = r.u32()?;
                let mut key = [0u8; 16];
                key.copy_from_slice(r.take(16)?);
                keys.push(Print {
                    held: Held::ALL[(held_at >> 30) as usize],
                    at: held_at & ((1 << 30) - 1),
                    key,
                });
            }
            runs.push((path, Prints { calls, keys }));
        }
        Ok(SitePrints { runs })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| format!("the prints end early, {} bytes in", self.at))?;
        let head = &self.bytes[self.at..end];
        self.at = end;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.take(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[cfg(test)]
mod tests;
