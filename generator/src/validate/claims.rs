//! Claims name figures that exist, in the unit they write, and the study's
//! named figures are not defined through themselves: a summary's claims (its
//! headline, findings, secondary analyses' descriptions, corrections'
//! reasons), a memo, the showcase's notes and narrative or `study.json`
//! (its figures and their labels) that fails this is bad input, named by file, line
//! and reference, with the nearest names that exist.

use receipts_verifier::claims::check::{cycle, Names, TOTALS};
use receipts_verifier::claims::syntax;
use receipts_verifier::model::STUDY_FILE;
use receipts_verifier::verify::{showcase_narrative, summary_claims, MEMOS_DIR};

use crate::error::InputError;
use crate::load::Corpus;

/// The most figures `study.json` may name.
const MAX_NAMED: usize = 1_000;

/// The line of `needle`'s first occurrence in `text`, if it occurs.
fn line_of(text: &[u8], needle: &str) -> Option<usize> {
    let at = text
        .windows(needle.len().max(1))
        .position(|w| w == needle.as_bytes())?;
    Some(text[..at].iter().filter(|&&b| b == b'\n').count() + 1)
}

fn place(text: Option<&[u8]>, needle: &str, field: &str) -> String {
    match text.and_then(|t| line_of(t, needle)) {
        Some(line) => format!("line {line}, {field}"),
        None => field.to_string(),
    }
}

pub fn claims(corpus: &Corpus) -> Result<(), InputError> {
    let study = corpus.study.as_ref();
    let names = Names::new(
        corpus.experiments.iter().map(|e| &e.experiment),
        study.map(|(s, _)| s),
    );
    if let Some((study, bytes)) = study {
        let file = format!("experiments/{STUDY_FILE}");
        if study.figures.len() > MAX_NAMED {
            return Err(InputError::at(
                &file,
                "figures",
                format!(
                    "{} named figures; the limit is {MAX_NAMED}",
                    study.figures.len()
                ),
            ));
        }
        for (name, figure) in &study.figures {
            let field = format!("figures.{name}.of");
            let at = place(Some(bytes), &format!("\"{name}\""), &field);
            if TOTALS.contains(&name.as_str()) {
                return Err(InputError::at(
                    &file,
                    at,
                    format!("`study.{name}` is a total; name the figure otherwise"),
                ));
            }
            if !syntax::is_name(name) {
                return Err(InputError::at(
                    &file,
                    at,
                    format!("`{name}` is not a name: letters, digits, `-` and `_`"),
                ));
            }
            let target =
                syntax::parse_target(&figure.of).map_err(|why| InputError::at(&file, &at, why))?;
            names
                .check_target("", &target)
                .map_err(|why| InputError::at(&file, &at, format!("`{}`: {why}", figure.of)))?;
        }
        if let Some(chain) = cycle(study) {
            return Err(InputError::at(
                &file,
                "figures",
                format!("a named figure is defined through itself: {chain}"),
            ));
        }
    }
    for e in &corpus.experiments {
        let Some(summary) = &e.summary else {
            continue;
        };
        let file = format!("experiments/{}/summary.json", e.dir);
        for (field, text) in summary_claims(summary) {
            if let Err((reference, why)) = names.check_claim(text) {
                return Err(InputError::at(
                    &file,
                    place(e.summary_text.as_deref(), &reference, &field),
                    format!("{reference}: {why}"),
                ));
            }
        }
    }
    if let Some((study, bytes)) = study {
        for (name, figure) in &study.figures {
            if let Err((reference, why)) = names.check_claim(&figure.label) {
                let field = format!("figures.{name}.label");
                return Err(InputError::at(
                    format!("experiments/{STUDY_FILE}"),
                    place(Some(bytes), &reference, &field),
                    format!("{reference}: {why}"),
                ));
            }
        }
    }
    let mut markdown: Vec<(String, &str)> = corpus
        .docs
        .iter()
        .filter(|d| d.path.starts_with(MEMOS_DIR))
        .map(|d| (format!("docs/{}", d.path), d.markdown.as_str()))
        .collect();
    if let Some(showcase) = &corpus.showcase {
        for (i, run) in showcase.showcase.runs.iter().enumerate() {
            if let Err((reference, why)) = names.check_claim(&run.note) {
                return Err(InputError::at(
                    "showcase/showcase.json",
                    format!("runs[{i}].note"),
                    format!("{reference}: {why}"),
                ));
            }
        }
        markdown.push((
            showcase_narrative(&showcase.showcase),
            showcase.narrative.as_str(),
        ));
    }
    for (file, text) in markdown {
        for (i, line) in syntax::memo_prose(text).iter().enumerate() {
            if let Err((reference, why)) = names.check_claim(line) {
                return Err(InputError::at(
                    &file,
                    format!("line {}", i + 1),
                    format!("{reference}: {why}"),
                ));
            }
        }
    }
    Ok(())
}
