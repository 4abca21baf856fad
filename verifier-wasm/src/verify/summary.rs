//! Receipts of a published summary: every number and outcome against its
//! recomputation, judged by the text it is written with, and every
//! correction held to what was published before it.
//!
//! A summary keeps each number where it was first published; a correction
//! names the number by its path and says what it was (`original`) and what it
//! is now (`corrected`). Corrections of one number form a chain in the order
//! they were made: the first one's `original` is the number as the summary
//! holds it, each later one's `original` the `corrected` of the one before,
//! and the last one's `corrected` is what the summary publishes now. Where a
//! correction names the summary that first published the number
//! (`published_in`, an object), that summary must hold `original` there.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::literals::json_number_literals;
use crate::model::{Analysis, Correction, Outcome, Summary};
use crate::time;

use super::published::{
    analysis_fields, display, display_literal, display_recomputed, judge_value, published_fields,
    PublishedField, Verdict,
};
use super::{Objects, Receipt};

/// Everything the summary's receipts read.
pub struct SummaryInput<'a> {
    pub dir: &'a str,
    pub summary: &'a Summary,
    /// The summary's bytes, for the numbers as written; `None` judges them
    /// as serde_json writes them.
    pub text: Option<&'a [u8]>,
    pub primary: &'a Analysis,
    pub secondary: &'a BTreeMap<String, Analysis>,
    pub hypotheses: &'a [(String, Outcome)],
    pub objects: &'a dyn Objects,
}

/// A correction with where its values are written in the summary.
struct Link<'a> {
    index: usize,
    correction: &'a Correction,
}

pub fn summary_receipts(input: &SummaryInput<'_>) -> Vec<Receipt> {
    let SummaryInput {
        dir,
        summary,
        text,
        primary,
        secondary,
        hypotheses,
        objects,
    } = *input;
    let subject = format!("{dir}/summary.json");
    let literals = text.and_then(json_number_literals);
    let literals = literals.as_ref();
    let mut recomputed: BTreeMap<String, Value> = crate::btree::map(
        analysis_fields("primary", "/primary", primary)
            .into_iter()
            .map(|f| (f.path, f.value)),
    );
    for (id, analysis) in secondary {
        recomputed.extend(
            analysis_fields(&format!("secondary[{id}]"), "", analysis)
                .into_iter()
                .map(|f| (f.path, f.value)),
        );
    }
    for (id, outcome) in hypotheses {
        recomputed.insert(
            format!("hypotheses[{id}].outcome"),
            serde_json::to_value(outcome).unwrap_or(Value::Null),
        );
    }
    let known_secondary: BTreeSet<&str> = crate::btree::set(secondary.keys().map(String::as_str));
    let published = published_fields(summary);
    let mut chains: BTreeMap<&str, Vec<Link<'_>>> = BTreeMap::new();
    for (index, correction) in summary.corrections.iter().enumerate() {
        chains
            .entry(correction.field.as_str())
            .or_default()
            .push(Link { index, correction });
    }
    for links in chains.values_mut() {
        // Stable: corrections made at the same time keep their order.
        links.sort_by_key(|l| time::parse(&l.correction.corrected_at).ok());
    }

    let mut out = Vec::new();
    for field in &published {
        let name = field.path.rsplit('.').next().unwrap_or_default();
        let as_published = display_literal(&field.value, literals, &field.pointer);
        let chain = chains.get(field.path.as_str());
        let (effective, effective_pointer) = match chain.and_then(|c| c.last()) {
            Some(last) => (
                &last.correction.corrected,
                format!("/corrections/{}/corrected", last.index),
            ),
            None => (&field.value, field.pointer.clone()),
        };
        if let Some(links) = chain {
            out.push(chain_receipt(
                &subject, summary, field, links, literals, objects,
            ));
        }
        let recorded = match chain {
            Some(_) => format!(
                "{} (corrected from {as_published})",
                display_literal(effective, literals, &effective_pointer)
            ),
            None => as_published,
        };
        let receipt = match recomputed.get(&field.path) {
            Some(value) => {
                let shown =
                    display_recomputed(value, effective, name, literals, &effective_pointer);
                match judge_value(effective, value, name, literals, &effective_pointer) {
                    Verdict::Agrees => Receipt::new(&subject, &field.path, recorded, shown, true),
                    Verdict::Differs => Receipt::new(&subject, &field.path, recorded, shown, false),
                    Verdict::Imprecise(why) => Receipt::new(
                        &subject,
                        &field.path,
                        recorded,
                        format!("{shown} ({why})"),
                        false,
                    ),
                }
            }
            None if field.path.starts_with("secondary[")
                && !known_secondary
                    .iter()
                    .any(|id| field.path.starts_with(&format!("secondary[{id}]"))) =>
            {
                Receipt::unchecked(
                    &subject,
                    &field.path,
                    recorded,
                    "this verifier does not know how to recompute that analysis",
                )
            }
            None => Receipt::new(
                &subject,
                &field.path,
                recorded,
                "nothing to recompute it from (no such policy, tier or hypothesis with runs)",
                false,
            ),
        };
        out.push(receipt);
    }
    // What the summary leaves out: a policy, a tier or a hypothesis of the
    // primary analysis, or a figure of a secondary analysis it publishes.
    let paths: BTreeSet<&str> = crate::btree::set(published.iter().map(|f| f.path.as_str()));
    let secondary_ids: BTreeSet<String> = crate::btree::set(
        summary
            .secondary
            .iter()
            .map(|s| format!("secondary[{}].", s.id)),
    );
    // A figure added to the format after a summary was written is owed
    // only by a summary that publishes it somewhere.
    let later_left_out: Vec<&str> = LATER_FIGURES
        .iter()
        .copied()
        .filter(|name| !paths.iter().any(|p| p.ends_with(&format!(".{name}"))))
        .collect();
    for (path, value) in &recomputed {
        if later_left_out
            .iter()
            .any(|name| path.ends_with(&format!(".{name}")))
        {
            continue;
        }
        let owed = path.starts_with("primary.")
            || path.starts_with("hypotheses[")
            || secondary_ids
                .iter()
                .any(|prefix| path.starts_with(prefix.as_str()));
        if owed && !paths.contains(path.as_str()) {
            out.push(Receipt::new(
                &subject,
                path,
                "not published",
                format!(
                    "{} recomputed; a summary publishes every figure of its analyses",
                    display(value)
                ),
                false,
            ));
        }
    }
    for c in &summary.corrections {
        if !published.iter().any(|f| f.path == c.field) {
            out.push(Receipt::new(
                &subject,
                format!("correction of {}", c.field),
                display_literal(&c.corrected, None, ""),
                "the summary publishes no such number",
                false,
            ));
        }
    }
    out
}

/// Figures added to the format after summaries were first written: a
/// summary that publishes none of one is read as written before it, and
/// does not owe it (the pages still show it, recomputed).
const LATER_FIGURES: [&str; 1] = ["median_tps"];

/// One receipt for the corrections of one number: each link's `original`
/// is what stood before it, each was made after the summary was first
/// published and after the link before it, and each earlier summary it
/// names holds its `original`.
fn chain_receipt(
    subject: &str,
    summary: &Summary,
    field: &PublishedField,
    links: &[Link<'_>],
    literals: Option<&BTreeMap<String, String>>,
    objects: &dyn Objects,
) -> Receipt {
    let claim = format!("correction of {}", field.path);
    let shown: Vec<String> = links
        .iter()
        .map(|l| {
            format!(
                "{} → {} at {}",
                display_literal(
                    &l.correction.original,
                    literals,
                    &format!("/corrections/{}/original", l.index)
                ),
                display_literal(
                    &l.correction.corrected,
                    literals,
                    &format!("/corrections/{}/corrected", l.index)
                ),
                l.correction.corrected_at
            )
        })
        .collect();
    let recorded = shown.join("; ");
    let fail = |why: String| Receipt::new(subject, &claim, &recorded, why, false);
    let mut before_text = display_literal(&field.value, literals, &field.pointer);
    let mut before_time = time::parse(&summary.published_at).ok();
    let mut before_name = format!("as first published ({})", summary.published_at);
    for link in links {
        let c = link.correction;
        let original = display_literal(
            &c.original,
            literals,
            &format!("/corrections/{}/original", link.index),
        );
        if original != before_text {
            return fail(format!(
                "corrections[{}] says the number was {original}, but {before_name} it was {before_text}",
                link.index
            ));
        }
        let at = time::parse(&c.corrected_at).ok();
        if at.is_none() || before_time.is_none() || at <= before_time {
            return fail(format!(
                "corrections[{}] is dated {}, before {before_name}",
                link.index, c.corrected_at
            ));
        }
        if let Some(digest) = &c.published_in {
            if let Err(why) = earlier_summary_holds(objects, digest, summary, field, &original) {
                return fail(format!("corrections[{}]: {why}", link.index));
            }
        }
        before_text = display_literal(
            &c.corrected,
            literals,
            &format!("/corrections/{}/corrected", link.index),
        );
        before_time = at;
        before_name = format!("after corrections[{}]", link.index);
    }
    let anchored = links.iter().all(|l| l.correction.published_in.is_some());
    Receipt::new(
        subject,
        claim,
        recorded,
        if anchored {
            "each original is what stood before it, as the earlier summary it names holds"
        } else {
            "each original is what stood before it"
        },
        true,
    )
}

/// The summary object `digest` is a summary of the same experiment whose
/// number at `field` is written `original`.
fn earlier_summary_holds(
    objects: &dyn Objects,
    digest: &str,
    summary: &Summary,
    field: &PublishedField,
    original: &str,
) -> Result<(), String> {
    let bytes = objects
        .object(digest)
        .ok_or_else(|| format!("no object holds the earlier summary {digest}"))?;
    if crate::digest::sha256_hex(bytes) != digest {
        return Err(format!("the object {digest} does not hash to its name"));
    }
    let earlier: Summary = serde_json::from_slice(bytes)
        .map_err(|e| format!("the earlier summary {digest} does not parse: {e}"))?;
    if earlier.experiment != summary.experiment {
        return Err(format!(
            "the earlier summary {digest} is of experiment {}",
            earlier.experiment
        ));
    }
    let literals = json_number_literals(bytes);
    let held = published_fields(&earlier)
        .into_iter()
        .find(|f| f.path == field.path)
        .map(|f| display_literal(&f.value, literals.as_ref(), &f.pointer))
        .ok_or_else(|| format!("the earlier summary {digest} publishes no {}", field.path))?;
    if held != original {
        return Err(format!(
            "the earlier summary {digest} published {held}, not {original}"
        ));
    }
    Ok(())
}
