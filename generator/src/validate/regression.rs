//! Regression suites, their edits and benchmarks: ids are safe file names,
//! timestamps parse, every judge's model has a price, tiers are the suite's
//! and each judge calls its tier's model, a benchmark gives a class once,
//! confidences lie between 0 and 1, outcomes name a place in the cascade,
//! skill digests name objects, and a label class means one thing.

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::model::SkillEdit;
use receipts_verifier::verify::{CONTROL, DRIFT, LEVEL0};

use super::{digest_ref, safe_id, timestamp};
use crate::error::InputError;
use crate::load::{Corpus, LoadedRegressions};

pub(super) fn suite(corpus: &Corpus, loaded: &LoadedRegressions) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.suite_path());
    let s = &loaded.suite;
    safe_id(&file, "id", &s.id)?;
    if s.judges.is_empty() {
        return Err(InputError::at(
            &file,
            "judges",
            "a cascade needs at least one judge",
        ));
    }
    let mut tiers = BTreeSet::new();
    for (i, j) in s.judges.iter().enumerate() {
        let field = format!("judges[{i}].tier");
        safe_id(&file, &field, &j.tier)?;
        if [LEVEL0, CONTROL, DRIFT].contains(&j.tier.as_str()) {
            return Err(InputError::at(
                &file,
                field,
                format!("`{}` names a step of the cascade, not a judge", j.tier),
            ));
        }
        if !tiers.insert(j.tier.as_str()) {
            return Err(InputError::at(
                &file,
                field,
                format!("duplicate tier `{}`", j.tier),
            ));
        }
        if !s.prices.models.contains_key(&j.model) {
            return Err(InputError::at(
                &file,
                "prices.models",
                format!(
                    "no price for `{}`, the model of judge `{}`",
                    j.model, j.tier
                ),
            ));
        }
    }
    confidence(&file, "pass_confidence", s.pass_confidence)?;
    let mut classes: BTreeMap<&str, (bool, &str)> = BTreeMap::new();
    for e in &loaded.edits {
        edit(corpus, loaded, &tiers, e)?;
        if let Some(label) = &e.label {
            let first = classes
                .entry(&label.class)
                .or_insert((label.regression, &e.id));
            if first.0 != label.regression {
                return Err(InputError::at(
                    format!("experiments/{}", loaded.edit_path(&e.id)),
                    "label.regression",
                    format!(
                        "class `{}` is {} here but not in edit {}",
                        label.class,
                        if label.regression {
                            "a regression"
                        } else {
                            "a control"
                        },
                        first.1
                    ),
                ));
            }
        }
    }
    if let Some(b) = &loaded.benchmark {
        let file = format!("experiments/{}", loaded.benchmark_path());
        timestamp(&file, "published_at", &b.published_at)?;
        let mut seen = BTreeSet::new();
        for (i, c) in b.classes.iter().enumerate() {
            if !seen.insert(c.class.as_str()) {
                return Err(InputError::at(
                    &file,
                    format!("classes[{i}].class"),
                    format!("duplicate class `{}`", c.class),
                ));
            }
        }
    }
    Ok(())
}

fn confidence(file: &str, field: &str, value: f64) -> Result<(), InputError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(InputError::at(
            file,
            field,
            format!("{value} is not between 0 and 1"),
        ))
    }
}

fn edit(
    corpus: &Corpus,
    loaded: &LoadedRegressions,
    tiers: &BTreeSet<&str>,
    e: &SkillEdit,
) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.edit_path(&e.id));
    safe_id(&file, "id", &e.id)?;
    timestamp(&file, "edited_at", &e.edited_at)?;
    digest_ref(corpus, &file, "skill.before_sha256", &e.skill.before_sha256)?;
    digest_ref(corpus, &file, "skill.after_sha256", &e.skill.after_sha256)?;
    for (i, r) in e.replays.iter().enumerate() {
        let at = |f: &str| format!("replays[{i}].{f}");
        timestamp(&file, &at("golden.recorded_at"), &r.golden.recorded_at)?;
        timestamp(&file, &at("replay.recorded_at"), &r.replay.recorded_at)?;
        if let Some(c) = &r.control {
            timestamp(&file, &at("control.recorded_at"), &c.recorded_at)?;
        }
        if let Some(d) = &r.drift {
            timestamp(&file, &at("drift.observed_at"), &d.observed_at)?;
        }
        for (k, j) in r.judges.iter().enumerate() {
            let judge = |f: &str| at(&format!("judges[{k}].{f}"));
            if !tiers.contains(j.tier.as_str()) {
                return Err(InputError::at(
                    &file,
                    judge("tier"),
                    format!("`{}` is not a judge of suite {}", j.tier, loaded.suite.id),
                ));
            }
            confidence(&file, &judge("confidence"), j.confidence)?;
            timestamp(&file, &judge("call.started_at"), &j.call.started_at)?;
            // Each tier's model has a price (checked above), and each judge calls it.
            let model = loaded.suite.judges.iter().find(|t| t.tier == j.tier);
            if let Some(t) = model.filter(|t| t.model != j.call.model_requested) {
                return Err(InputError::at(
                    &file,
                    judge("call.model_requested"),
                    format!(
                        "`{}`, but the suite's {} judge is `{}`",
                        j.call.model_requested, j.tier, t.model
                    ),
                ));
            }
        }
        let by = r.outcome.decided_by.as_str();
        if ![LEVEL0, CONTROL, DRIFT].contains(&by) && !tiers.contains(by) {
            return Err(InputError::at(
                &file,
                at("outcome.decided_by"),
                format!("`{by}` is neither level0, control, drift nor a judge's tier"),
            ));
        }
    }
    Ok(())
}
