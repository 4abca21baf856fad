//! Stage 2, validate: the references between records hold. Every run names an
//! experiment cell that exists, every digest names an object whose bytes hash
//! to it, ids are unique and safe to use as file names, timestamps parse.
//! Run records are checked by [`run`] as each is read again to be verified
//! (the corpus holds only their heads); after these checks the later stages
//! may index without checking.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use receipts_verifier::digest::{is_sha256_hex, sha256_hex};
use receipts_verifier::layout;
use receipts_verifier::model::{Experiment, Run, Task};
use receipts_verifier::time;

mod claims;
mod harness;
mod regression;
mod transcript;

use crate::error::InputError;
use crate::load::{relative_name, Corpus, LoadedExperiment, OBJECTS_DIR, TASKS_DIR};

/// Checks the whole corpus; the first problem found is returned.
pub fn validate(corpus: &Corpus) -> Result<(), InputError> {
    validate_with(corpus, true)
}

/// Checks published records (a site's `data/`) for `receipts verify`: as
/// [`validate`], except that an object whose bytes do not match its name is
/// left to verification, which reports it as a failing receipt and still
/// recomputes everything else.
pub fn validate_published(corpus: &Corpus) -> Result<(), InputError> {
    validate_with(corpus, false)
}

/// Checks one harness suite and its runs as [`validate`] does (for
/// `receipts import runreport`, before anything is written).
#[cfg(feature = "cli")]
pub fn harness_suite(loaded: &crate::load::LoadedSuite) -> Result<(), InputError> {
    harness::suite(loaded)
}

fn validate_with(corpus: &Corpus, object_names: bool) -> Result<(), InputError> {
    named_in(corpus, validate_records(corpus, object_names))?;
    named_in(corpus, documents(corpus))?;
    named_in(corpus, claims::claims(corpus))
}

/// Every Markdown text the site renders nests no deeper than the renderer accepts.
fn documents(corpus: &Corpus) -> Result<(), InputError> {
    let logs = corpus.experiments.iter().filter_map(|e| {
        let p = e.experiment.preregistration.as_ref()?;
        Some((format!("experiments/{}/{}", e.dir, p.log), e.log.as_str()))
    });
    let narrative = corpus.showcase.iter().map(|s| {
        (
            format!("showcase/{}", s.showcase.narrative),
            s.narrative.as_str(),
        )
    });
    let docs = corpus
        .docs
        .iter()
        .map(|d| (format!("docs/{}", d.path), d.markdown.as_str()));
    for (file, text) in logs.chain(narrative).chain(docs) {
        if let Some(line) = crate::markdown::too_deep(text) {
            return Err(InputError::at(
                file,
                format!("line {line}"),
                format!(
                    "Markdown nested more than {} levels deep (block quotes, lists or emphasis); flatten it",
                    crate::markdown::MAX_NESTING
                ),
            ));
        }
    }
    Ok(())
}

/// Messages name files under `experiments/`; records elsewhere (a site's
/// `data/`) are named by their own directory.
fn named_in(corpus: &Corpus, result: Result<(), InputError>) -> Result<(), InputError> {
    result.map_err(|mut e| {
        if let Some(rest) = e.file.strip_prefix("experiments/") {
            e.file = format!("{}/{rest}", corpus.records_name);
        }
        e
    })
}

fn validate_records(corpus: &Corpus, object_names: bool) -> Result<(), InputError> {
    if object_names {
        objects(corpus)?;
    }
    for task in corpus.tasks.values() {
        task_refs(corpus, task)?;
    }
    let mut run_ids: BTreeMap<&str, &str> = BTreeMap::new();
    for loaded in &corpus.experiments {
        let file = format!("experiments/{}/experiment.json", loaded.dir);
        experiment(corpus, &file, &loaded.experiment)?;
        for run in &loaded.runs {
            if let Some(other) = run_ids.insert(&run.place.id, &loaded.dir) {
                return Err(InputError::at(
                    format!("experiments/{}", loaded.run_path(&run.place.id)),
                    "id",
                    format!(
                        "duplicate run id `{}` (also in experiments/{other})",
                        run.place.id
                    ),
                ));
            }
        }
        published(loaded)?;
    }
    for loaded in &corpus.imports {
        for (name, traces) in &loaded.traces {
            for (at, source) in std::iter::once(("source.sha256".to_string(), &traces.source))
                .chain(
                    traces
                        .events
                        .iter()
                        .enumerate()
                        .map(|(i, s)| (format!("events[{i}].sha256"), s)),
                )
            {
                if !corpus.objects.contains_key(&source.sha256) {
                    return Err(InputError::at(
                        format!("experiments/{}", loaded.traces_path(name)),
                        at,
                        format!(
                            "the imported export `{}` is not kept: no object {} in experiments/objects/ (import it again with `receipts import`)",
                            source.file, source.sha256
                        ),
                    ));
                }
            }
        }
        for (name, eval) in &loaded.evals {
            if !corpus.objects.contains_key(&eval.source.sha256) {
                return Err(InputError::at(
                    format!("experiments/{}", loaded.record_path(name)),
                    "source.sha256",
                    format!(
                        "the imported log `{}` is not kept: no object {} in experiments/objects/ (import it again with `receipts import`)",
                        eval.source.file, eval.source.sha256
                    ),
                ));
            }
        }
    }
    for loaded in &corpus.harness {
        harness::suite(loaded)?;
    }
    for loaded in &corpus.regressions {
        regression::suite(corpus, loaded)?;
    }
    if let Some(showcase) = &corpus.showcase {
        for (i, entry) in showcase.showcase.runs.iter().enumerate() {
            if !run_ids.contains_key(entry.run.as_str()) {
                return Err(InputError::at(
                    "showcase/showcase.json",
                    format!("runs[{i}].run"),
                    format!("no run has the id `{}`", entry.run),
                ));
            }
        }
    }
    Ok(())
}

/// Checks one run record against the corpus: what [`validate`] checks of
/// the rest, for a run read again when it is verified. `ids` holds the ids
/// of the experiment's runs.
pub fn run(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    ids: &BTreeSet<&str>,
    run: &Run,
) -> Result<(), InputError> {
    named_in(corpus, run_refs(corpus, loaded, ids, run))
}

fn run_file(loaded: &LoadedExperiment, run: &Run) -> String {
    format!("experiments/{}", loaded.run_path(&run.id))
}

/// Ids become file names and URL parts: letters, digits, `.`, `_`, `-`.
fn safe_id(file: &str, field: &str, id: &str) -> Result<(), InputError> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(InputError::at(
            file,
            field,
            format!("`{id}` is not a valid id: use 1–128 letters, digits, `.`, `_` or `-`, not starting with `.`"),
        ))
    }
}

fn timestamp(file: &str, field: &str, value: &str) -> Result<(), InputError> {
    time::parse(value)
        .map(|_| ())
        .map_err(|e| InputError::at(file, field, e.to_string()))
}

fn digest_ref(corpus: &Corpus, file: &str, field: &str, digest: &str) -> Result<(), InputError> {
    if !is_sha256_hex(digest) {
        return Err(InputError::at(
            file,
            field,
            format!("`{digest}` is not a SHA-256 digest (64 lowercase hex characters)"),
        ));
    }
    if !corpus.objects.contains_key(digest) {
        return Err(InputError::at(
            file,
            field,
            format!(
                "no object `experiments/{OBJECTS_DIR}/{digest}` holds the bytes this digest names"
            ),
        ));
    }
    Ok(())
}

/// Every object's name is the digest of its bytes.
fn objects(corpus: &Corpus) -> Result<(), InputError> {
    let bad = corpus.objects.par_iter().find_first(|(name, bytes)| {
        let recorded = corpus.record_digests.get(&layout::object_path(name));
        recorded.map_or_else(|| sha256_hex(bytes) != **name, |d| d != *name)
    });
    match bad {
        None => Ok(()),
        Some((name, bytes)) => Err(InputError::new(
            format!("experiments/{}", layout::object_path(name)),
            format!(
                "the file's SHA-256 is {}, not the digest it is named by",
                sha256_hex(bytes)
            ),
        )),
    }
}

fn task_refs(corpus: &Corpus, task: &Task) -> Result<(), InputError> {
    let file = format!("experiments/{}", layout::task_path(&task.id));
    safe_id(&file, "id", &task.id)?;
    if task.family.as_str().trim().is_empty() {
        return Err(InputError::at(
            &file,
            "family",
            "empty: a task's family names what kind of task it is",
        ));
    }
    let mut paths = BTreeSet::new();
    relative_name(&file, "artifact.path", &task.artifact.path)?;
    for (i, input) in task.inputs.iter().enumerate() {
        relative_name(&file, &format!("inputs[{i}].path"), &input.path)?;
        digest_ref(corpus, &file, &format!("inputs[{i}].sha256"), &input.sha256)?;
        let actual = corpus.objects[&input.sha256].len() as u64;
        if actual != input.bytes {
            return Err(InputError::at(
                &file,
                format!("inputs[{i}].bytes"),
                format!("says {}, the object has {actual}", input.bytes),
            ));
        }
        if !paths.insert(input.path.as_str()) {
            return Err(InputError::at(
                &file,
                format!("inputs[{i}].path"),
                format!("duplicate input `{}`", input.path),
            ));
        }
    }
    let mut ids = BTreeSet::new();
    for (i, check) in task.checks.iter().enumerate() {
        if !ids.insert(check.id()) {
            return Err(InputError::at(
                &file,
                format!("checks[{i}].id"),
                format!("duplicate check id `{}`", check.id()),
            ));
        }
    }
    Ok(())
}

fn experiment(corpus: &Corpus, file: &str, e: &Experiment) -> Result<(), InputError> {
    safe_id(file, "id", &e.id)?;
    if let Some(p) = &e.preregistration {
        timestamp(file, "preregistration.registered_at", &p.registered_at)?;
        if !is_sha256_hex(&p.sha256) {
            return Err(InputError::at(
                file,
                "preregistration.sha256",
                "not a SHA-256 digest (64 lowercase hex characters)",
            ));
        }
    }
    let mut tiers: BTreeSet<&str> = BTreeSet::new();
    for (i, tier) in e.tiers.iter().enumerate() {
        safe_id(file, &format!("tiers[{i}].id"), &tier.id)?;
        if !tiers.insert(&tier.id) {
            return Err(InputError::at(
                file,
                format!("tiers[{i}].id"),
                format!("duplicate tier `{}`", tier.id),
            ));
        }
        if !e.prices.models.contains_key(&tier.model) {
            return Err(InputError::at(
                file,
                "prices.models",
                format!(
                    "no price for `{}`, the model of tier `{}`",
                    tier.model, tier.id
                ),
            ));
        }
    }
    let mut policies: BTreeSet<&str> = BTreeSet::new();
    for (i, policy) in e.policies.iter().enumerate() {
        safe_id(file, &format!("policies[{i}].id"), &policy.id)?;
        if !policies.insert(&policy.id) {
            return Err(InputError::at(
                file,
                format!("policies[{i}].id"),
                format!("duplicate policy `{}`", policy.id),
            ));
        }
        if policy.tiers.is_empty() {
            return Err(InputError::at(
                file,
                format!("policies[{i}].tiers"),
                "a policy needs at least one tier",
            ));
        }
        if policy.kind == receipts_verifier::model::PolicyKind::Speculative
            && policy.tiers.len() < 2
        {
            return Err(InputError::at(
                file,
                format!("policies[{i}].tiers"),
                "a speculative ladder calls two tiers together: it needs at least two",
            ));
        }
        for (j, t) in policy.tiers.iter().enumerate() {
            if !tiers.contains(t.as_str()) {
                return Err(InputError::at(
                    file,
                    format!("policies[{i}].tiers[{j}]"),
                    format!("no tier `{t}`"),
                ));
            }
        }
    }
    for (i, t) in e.grid.tasks.iter().enumerate() {
        if !corpus.tasks.contains_key(t) {
            return Err(InputError::at(
                file,
                format!("grid.tasks[{i}]"),
                format!("no task `{t}` in experiments/{TASKS_DIR}"),
            ));
        }
    }
    for (i, p) in e.grid.policies.iter().enumerate() {
        if !policies.contains(p.as_str()) {
            return Err(InputError::at(
                file,
                format!("grid.policies[{i}]"),
                format!("no policy `{p}`"),
            ));
        }
        if e.policies.iter().any(|q| q.id == *p && q.composed) {
            return Err(InputError::at(
                file,
                format!("grid.policies[{i}]"),
                format!("`{p}` is composed from the runs of its tiers: no run is made under it, so the grid does not list it"),
            ));
        }
    }
    for (i, policy) in e.policies.iter().enumerate() {
        composed_policy(file, e, i, policy)?;
    }
    for (i, h) in e.hypotheses.iter().enumerate() {
        rule_refs(
            corpus,
            file,
            &format!("hypotheses[{i}].rule"),
            &h.rule,
            &policies,
        )?;
    }
    Ok(())
}

/// A composed policy is a ladder, a speculative ladder or tier memory, and
/// the grid runs a single-tier policy on each of its tiers.
fn composed_policy(
    file: &str,
    e: &receipts_verifier::model::Experiment,
    i: usize,
    policy: &receipts_verifier::model::Policy,
) -> Result<(), InputError> {
    use receipts_verifier::model::PolicyKind;
    if !policy.composed {
        return Ok(());
    }
    if !matches!(
        policy.kind,
        PolicyKind::Ladder | PolicyKind::Speculative | PolicyKind::TierMemory
    ) {
        return Err(InputError::at(
            file,
            format!("policies[{i}].composed"),
            format!(
                "a `{}` policy cannot be composed: only a ladder, a speculative ladder or tier memory is composed from the runs of its tiers",
                policy.kind.as_str()
            ),
        ));
    }
    for (j, tier) in policy.tiers.iter().enumerate() {
        if receipts_verifier::numbers::compose::tier_policy(e, tier).is_none() {
            return Err(InputError::at(
                file,
                format!("policies[{i}].tiers[{j}]"),
                format!(
                    "policy `{}` is composed, but the grid runs no single-tier policy on `{tier}` to compose it from",
                    policy.id
                ),
            ));
        }
    }
    Ok(())
}

fn rule_refs(
    corpus: &Corpus,
    file: &str,
    field: &str,
    rule: &receipts_verifier::model::Rule,
    policies: &BTreeSet<&str>,
) -> Result<(), InputError> {
    use receipts_verifier::model::{Operand, Rule};
    match rule {
        Rule::All(rules) | Rule::Any(rules) => {
            if rules.is_empty() {
                return Err(InputError::at(
                    file,
                    field,
                    "an `all` or `any` rule needs at least one rule",
                ));
            }
            for (i, r) in rules.iter().enumerate() {
                rule_refs(corpus, file, &format!("{field}[{i}]"), r, policies)?;
            }
        }
        Rule::Compare { left, right, .. } => {
            let mut named = vec![(format!("{field}.left"), left)];
            if let Operand::Metric(m) = right {
                named.push((format!("{field}.right"), m));
            }
            for (place, m) in named {
                let policy = &m.policy;
                let Some(other) = &m.experiment else {
                    if !policies.contains(policy.as_str()) {
                        return Err(InputError::at(
                            file,
                            format!("{place}.policy"),
                            format!("no policy `{policy}`"),
                        ));
                    }
                    continue;
                };
                let Some(e) = corpus
                    .experiments
                    .iter()
                    .find(|e| e.experiment.id == *other)
                else {
                    return Err(InputError::at(
                        file,
                        format!("{place}.experiment"),
                        format!(
                            "no experiment `{other}` in the study ({})",
                            receipts_verifier::claims::nearest(
                                other,
                                corpus.experiments.iter().map(|e| e.experiment.id.as_str())
                            )
                        ),
                    ));
                };
                if !e.experiment.policies.iter().any(|p| p.id == *policy) {
                    return Err(InputError::at(
                        file,
                        format!("{place}.policy"),
                        format!("no policy `{policy}` in experiment `{other}`"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn run_refs(
    corpus: &Corpus,
    loaded: &LoadedExperiment,
    ids: &BTreeSet<&str>,
    run: &Run,
) -> Result<(), InputError> {
    let file = run_file(loaded, run);
    let e = &loaded.experiment;
    safe_id(&file, "id", &run.id)?;
    if run.experiment != e.id {
        return Err(InputError::at(
            &file,
            "experiment",
            format!(
                "`{}` but the run is stored under experiments/{}",
                run.experiment, loaded.dir
            ),
        ));
    }
    if !e.grid.tasks.contains(&run.task) {
        return Err(InputError::at(
            &file,
            "task",
            format!("`{}` is not a task of experiment {}", run.task, e.id),
        ));
    }
    if !e.grid.profiles.contains(&run.profile) {
        return Err(InputError::at(
            &file,
            "profile",
            format!("`{}` is not a profile of experiment {}", run.profile, e.id),
        ));
    }
    if !e.grid.seeds.contains(&run.seed) {
        return Err(InputError::at(
            &file,
            "seed",
            format!("{} is not a seed of experiment {}", run.seed, e.id),
        ));
    }
    let Some(policy) = e.policies.iter().find(|p| p.id == run.policy) else {
        return Err(InputError::at(
            &file,
            "policy",
            format!("`{}` is not a policy of experiment {}", run.policy, e.id),
        ));
    };
    if policy.composed {
        return Err(InputError::at(
            &file,
            "policy",
            format!(
                "`{}` is composed from the runs of its tiers in experiment {}: no run is recorded under it",
                run.policy, e.id
            ),
        ));
    }
    if run.provenance != e.provenance {
        return Err(InputError::at(
            &file,
            "provenance",
            format!(
                "`{}` but experiment {} is registered {}: an experiment's runs are all recorded or all simulated",
                run.provenance.as_str(),
                e.id,
                e.provenance.as_str()
            ),
        ));
    }
    if let Some(old) = &run.replaces {
        if !ids.contains(old.as_str()) || *old == run.id {
            return Err(InputError::at(
                &file,
                "replaces",
                format!("no other run `{old}` in experiment {}", e.id),
            ));
        }
    }
    timestamp(&file, "started_at", &run.started_at)?;
    if let Some(source) = &run.source {
        for (field, value) in [
            ("tool", &source.tool),
            ("version", &source.version),
            ("file", &source.file),
            ("format", &source.format),
        ] {
            if value.trim().is_empty() {
                return Err(InputError::at(
                    &file,
                    format!("source.{field}"),
                    "empty: a source names the tool, its version, the original file and its format",
                ));
            }
        }
        digest_ref(corpus, &file, "source.sha256", &source.sha256)?;
    }
    let task = &corpus.tasks[&run.task];
    for (i, a) in run.attempts.iter().enumerate() {
        let at = |f: &str| format!("attempts[{i}].{f}");
        if !policy.tiers.contains(&a.tier) {
            return Err(InputError::at(
                &file,
                at("tier"),
                format!("`{}` is not a tier of policy `{}`", a.tier, policy.id),
            ));
        }
        timestamp(&file, &at("started_at"), &a.started_at)?;
        let mut request_ids = BTreeSet::new();
        for (j, c) in a.calls.iter().enumerate() {
            timestamp(&file, &at(&format!("calls[{j}].started_at")), &c.started_at)?;
            if !e.prices.models.contains_key(&c.model_requested) {
                return Err(InputError::at(
                    &file,
                    at(&format!("calls[{j}].model_requested")),
                    format!("no price for model `{}`", c.model_requested),
                ));
            }
            if c.request_id.trim().is_empty() {
                return Err(InputError::at(
                    &file,
                    at(&format!("calls[{j}].request_id")),
                    "empty: a call's request id is the provider's id for it (the response's id or request-id header), and turns name their call by it",
                ));
            }
            request_ids.insert(c.request_id.as_str());
        }
        for (j, t) in a.turns.iter().enumerate() {
            if t.action.tool.as_str().trim().is_empty() {
                return Err(InputError::at(
                    &file,
                    at(&format!("turns[{j}].action.tool")),
                    "empty: an action names the tool it called (`read`, `write`, or any tool of the agent's own)",
                ));
            }
            if !request_ids.contains(t.call.as_str()) {
                return Err(InputError::at(
                    &file,
                    at(&format!("turns[{j}].call")),
                    format!("no call `{}` in this attempt", t.call),
                ));
            }
            if let Some(d) = &t.result.sha256 {
                digest_ref(corpus, &file, &at(&format!("turns[{j}].result.sha256")), d)?;
            }
        }
        transcript::messages(corpus, &file, i, &a.messages)?;
        let kept = a.artifact.iter().map(|f| ("artifact".to_string(), f));
        let others = a
            .files
            .iter()
            .enumerate()
            .map(|(j, f)| (format!("files[{j}]"), f));
        for (field, kept) in kept.chain(others) {
            relative_name(&file, &at(&format!("{field}.path")), &kept.path)?;
            digest_ref(corpus, &file, &at(&format!("{field}.sha256")), &kept.sha256)?;
            let actual = corpus.objects[&kept.sha256].len() as u64;
            if actual != kept.bytes {
                return Err(InputError::at(
                    &file,
                    at(&format!("{field}.bytes")),
                    format!("says {}, the object has {actual}", kept.bytes),
                ));
            }
        }
        for (j, input) in a.inputs.iter().enumerate() {
            relative_name(&file, &at(&format!("inputs[{j}].path")), &input.path)?;
            for (f, d) in [
                ("sha256_before", &input.sha256_before),
                ("sha256_after", &input.sha256_after),
            ] {
                if !is_sha256_hex(d) {
                    return Err(InputError::at(
                        &file,
                        at(&format!("inputs[{j}].{f}")),
                        format!("`{d}` is not a SHA-256 digest"),
                    ));
                }
            }
        }
        for (j, c) in a.checks.iter().enumerate() {
            if !task.checks.iter().any(|spec| spec.id() == c.check) {
                return Err(InputError::at(
                    &file,
                    at(&format!("checks[{j}].check")),
                    format!("task `{}` has no check `{}`", task.id, c.check),
                ));
            }
        }
    }
    Ok(())
}

/// The published summary belongs to this experiment. Whether its numbers
/// and the results table agree with the runs is for verification to say.
fn published(loaded: &LoadedExperiment) -> Result<(), InputError> {
    let e = &loaded.experiment;
    if let Some(summary) = &loaded.summary {
        let file = format!("experiments/{}/summary.json", loaded.dir);
        if summary.experiment != e.id {
            return Err(InputError::at(
                &file,
                "experiment",
                format!("`{}`, not `{}`", summary.experiment, e.id),
            ));
        }
        timestamp(&file, "published_at", &summary.published_at)?;
        for (i, p) in summary.primary.policies.iter().enumerate() {
            if !e.policies.iter().any(|q| q.id == p.policy) {
                return Err(InputError::at(
                    &file,
                    format!("primary.policies[{i}].policy"),
                    format!("no policy `{}`", p.policy),
                ));
            }
        }
        for (i, h) in summary.hypotheses.iter().enumerate() {
            if !e.hypotheses.iter().any(|x| x.id == h.id) {
                return Err(InputError::at(
                    &file,
                    format!("hypotheses[{i}].id"),
                    format!("no hypothesis `{}`", h.id),
                ));
            }
        }
        for (i, c) in summary.corrections.iter().enumerate() {
            timestamp(
                &file,
                &format!("corrections[{i}].corrected_at"),
                &c.corrected_at,
            )?;
        }
    }
    Ok(())
}
