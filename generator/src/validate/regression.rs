//! Regression suites, their edits, benchmarks, action histories and
//! ablations: ids are safe file names, timestamps parse, every judge's model
//! has a price, tiers are the suite's and each judge calls its tier's
//! model, a benchmark gives a class once, confidences lie between 0 and 1,
//! outcomes name a place in the cascade, skill digests name objects, a label
//! class means one thing, an action names an edit of the suite (a re-bless
//! also a task and a digest), and an ablation keeps at least one judge.

use std::collections::{BTreeMap, BTreeSet};

use receipts_verifier::model::{ActionKind, RegressionAblation, RegressionActions, SkillEdit};
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
    if let Some(a) = &loaded.actions {
        actions(loaded, a)?;
    }
    for a in &loaded.ablations {
        ablation(loaded, &tiers, a)?;
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

/// An action history: unique safe ids, times that parse, edits of the
/// suite, and a re-bless's task and digest.
fn actions(loaded: &LoadedRegressions, a: &RegressionActions) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.actions_path());
    let edits: BTreeSet<&str> = loaded.edits.iter().map(|e| e.id.as_str()).collect();
    let mut ids = BTreeSet::new();
    for (i, action) in a.actions.iter().enumerate() {
        let at = |f: &str| format!("actions[{i}].{f}");
        safe_id(&file, &at("id"), &action.id)?;
        if !ids.insert(action.id.as_str()) {
            return Err(InputError::at(
                &file,
                at("id"),
                format!("duplicate action id `{}`", action.id),
            ));
        }
        timestamp(&file, &at("at"), &action.at)?;
        if !edits.contains(action.edit.as_str()) {
            return Err(InputError::at(
                &file,
                at("edit"),
                format!(
                    "`{}` is not an edit of suite {}",
                    action.edit, loaded.suite.id
                ),
            ));
        }
        if action.action == ActionKind::Rebless {
            if action.task.is_none() {
                return Err(InputError::at(
                    &file,
                    at("task"),
                    "a re-bless names its task",
                ));
            }
            match &action.golden_sha256 {
                Some(d) if is_sha256(d) => {}
                _ => {
                    return Err(InputError::at(
                        &file,
                        at("golden_sha256"),
                        "a re-bless names the new golden trace by its SHA-256 (64 lowercase hex digits)",
                    ))
                }
            }
        }
    }
    Ok(())
}

/// An ablation: a safe id, at least one judge tier, judges of the suite's
/// tiers calling their tier's model, confidences in range, times that parse.
fn ablation(
    loaded: &LoadedRegressions,
    tiers: &BTreeSet<&str>,
    a: &RegressionAblation,
) -> Result<(), InputError> {
    let file = format!("experiments/{}", loaded.ablation_path(&a.id));
    safe_id(&file, "id", &a.id)?;
    if a.rules.judges.is_empty() {
        return Err(InputError::at(
            &file,
            "rules.judges",
            "an ablation keeps at least one judge",
        ));
    }
    for (i, t) in a.rules.judges.iter().enumerate() {
        if !tiers.contains(t.as_str()) {
            return Err(InputError::at(
                &file,
                format!("rules.judges[{i}]"),
                format!("`{t}` is not a judge of suite {}", loaded.suite.id),
            ));
        }
    }
    for (e, edit) in a.edits.iter().enumerate() {
        for (r, replay) in edit.replays.iter().enumerate() {
            for (k, j) in replay.judges.iter().enumerate() {
                let field = |f: &str| format!("edits[{e}].replays[{r}].judges[{k}].{f}");
                if !tiers.contains(j.tier.as_str()) {
                    return Err(InputError::at(
                        &file,
                        field("tier"),
                        format!("`{}` is not a judge of suite {}", j.tier, loaded.suite.id),
                    ));
                }
                confidence(&file, &field("confidence"), j.confidence)?;
                timestamp(&file, &field("call.started_at"), &j.call.started_at)?;
            }
        }
    }
    Ok(())
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
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
