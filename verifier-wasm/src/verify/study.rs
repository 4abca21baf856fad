//! The study's receipts, once every experiment has its figures: each
//! experiment concluded over the whole study's figures (hypotheses that
//! read another experiment, claims that name one), the study's totals and
//! named derived figures recomputed, and every memo's claims.

use std::collections::BTreeMap;

use crate::claims::check::TOTALS;
use crate::claims::{claim_receipts, memo_receipts, show, syntax, Bound, Figures};
use crate::model::{Study, STUDY_FILE};

use super::{ExperimentCheck, ExperimentVerification, Receipt};

/// A Markdown memo whose numbers are claims: its path under the records
/// root (`docs/memos/<name>.md`) and its text.
pub struct Memo<'a> {
    /// The memo's path under the records root, its receipts' subject.
    pub subject: &'a str,
    /// The memo's Markdown text.
    pub text: &'a str,
}

/// Where a document is a memo: under `memos/` of the documents.
pub const MEMOS_DIR: &str = "memos/";

/// A claim shown outside a summary and the memos: its file (its receipts'
/// subject), its place in it and its text.
pub struct Prose<'a> {
    /// The file, under the records root.
    pub subject: &'a str,
    /// Where in it: `runs[2].note`.
    pub place: String,
    /// The claim.
    pub text: &'a str,
}

/// The showcase's record, under the records root.
pub const SHOWCASE_FILE: &str = "showcase/showcase.json";

/// The showcase's notes, each a claim (its narrative is read as a memo,
/// by the path [`showcase_narrative`] gives).
pub fn showcase_claims(showcase: &crate::model::Showcase) -> Vec<Prose<'_>> {
    showcase
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| Prose {
            subject: SHOWCASE_FILE,
            place: format!("runs[{i}].note"),
            text: &r.note,
        })
        .collect()
}

/// The showcase's narrative, under the records root.
pub fn showcase_narrative(showcase: &crate::model::Showcase) -> String {
    format!("showcase/{}", showcase.narrative)
}

/// The study's totals over its verified experiments: runs, provider calls,
/// output tokens (of calls whose usage is known) and the total cost (a
/// bound where usage was lost).
pub fn totals<'a>(
    experiments: impl IntoIterator<Item = &'a ExperimentVerification>,
) -> BTreeMap<String, Result<Bound, String>> {
    let (mut runs, mut calls, mut tokens) = (0u64, 0u64, 0u64);
    let mut cost: Result<Bound, String> = Ok(Bound::exact(0.0));
    for v in experiments {
        for r in &v.runs {
            runs += 1;
            calls += u64::from(r.facts.prints.calls);
            tokens += r
                .facts
                .attempts
                .iter()
                .map(|a| a.completion_tokens)
                .sum::<u64>();
            cost = match (cost, r.facts.cost()) {
                (Ok(sum), Ok(c)) => Ok(Bound {
                    low: sum.low + c.low,
                    high: sum.high + c.high,
                }),
                (Err(e), _) => Err(e),
                (_, Err(missing)) => Err(format!(
                    "{} has no price for {}",
                    r.facts.place.id, missing.0
                )),
            };
        }
    }
    BTreeMap::from([
        ("runs".to_string(), Ok(Bound::exact(runs as f64))),
        ("calls".to_string(), Ok(Bound::exact(calls as f64))),
        ("output_tokens".to_string(), Ok(Bound::exact(tokens as f64))),
        ("total_cost_usd".to_string(), cost),
    ])
}

/// The figures of a study: every experiment's, the totals and the named
/// figures; a named figure that does not parse is a failing receipt.
pub fn study_figures<'a>(
    experiments: &[(&'a str, &'a ExperimentVerification)],
    study: Option<&Study>,
) -> (Figures<'a>, Vec<Receipt>) {
    let mut figures = Figures::default();
    for (dir, v) in experiments {
        figures.add(dir, v.figures());
    }
    figures.set_totals(totals(experiments.iter().map(|(_, v)| *v)));
    let mut receipts = Vec::new();
    let mut targets = BTreeMap::new();
    for (name, named) in study.map(|s| &s.figures).into_iter().flatten() {
        match syntax::parse_target(&named.of) {
            Ok(target) => {
                targets.insert(name.clone(), target);
            }
            Err(why) => receipts.push(Receipt::new(
                STUDY_FILE,
                format!("figures[{name}]"),
                &named.of,
                why,
                false,
            )),
        }
    }
    figures.set_named(&targets);
    (figures, receipts)
}

/// What concluding a study found besides each experiment's conclusion.
#[derive(Debug, Clone, Default)]
pub struct StudyVerification {
    /// Each named figure's and each memo's receipts.
    pub receipts: Vec<Receipt>,
}

/// Which of the study's named figures are receipts of what is verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedFigures {
    /// Every one: the whole study is verified, so a figure reading an
    /// experiment that is not there fails.
    All,
    /// Those that read only the experiments verified: a page verifying some
    /// experiments does not recompute a figure of the others (its own
    /// claims that read a named figure are receipts either way).
    OfLoaded,
}

/// Concludes every experiment over the study's figures (see
/// [`ExperimentCheck::conclude`]), then recomputes the study's named
/// figures (those `named` asks for) and checks each memo's claims and each
/// other claim of `prose`; the named figures' labels are claims too, when
/// the whole study is verified. `checks` and `verified` are in the same
/// order.
pub fn conclude_study(
    checks: &[ExperimentCheck<'_>],
    verified: &mut [ExperimentVerification],
    study: Option<&Study>,
    (memos, prose): (&[Memo<'_>], &[Prose<'_>]),
    named: NamedFigures,
) -> StudyVerification {
    let (conclusions, receipts) = {
        let experiments: Vec<(&str, &ExperimentVerification)> =
            checks.iter().map(|c| c.dir).zip(verified.iter()).collect();
        let (figures, mut receipts) = study_figures(&experiments, study);
        let conclusions: Vec<_> = checks
            .iter()
            .zip(verified.iter())
            .map(|(c, v)| c.conclude(v, &figures))
            .collect();
        let loaded = |name: &str| {
            let reads = Reads::of_named(name, study);
            !reads.all
                && reads
                    .experiments
                    .iter()
                    .all(|e| checks.iter().any(|c| c.dir == e))
        };
        for (name, figure) in study.map(|s| &s.figures).into_iter().flatten() {
            if named == NamedFigures::OfLoaded && !loaded(name) {
                continue;
            }
            if syntax::parse_target(&figure.of).is_ok() {
                let claim = format!("figures[{name}]");
                let value = if TOTALS.contains(&name.as_str()) {
                    Err(format!(
                        "`study.{name}` is a total; a named figure cannot take its name"
                    ))
                } else {
                    figures.figure(&syntax::Figure::Study(name.clone()))
                };
                receipts.push(match value {
                    Ok(b) => Receipt::new(STUDY_FILE, claim, &figure.of, show(b), true),
                    Err(why) => Receipt::new(STUDY_FILE, claim, &figure.of, why, false),
                });
            }
        }
        if named == NamedFigures::All {
            for (name, figure) in study.map(|s| &s.figures).into_iter().flatten() {
                let place = format!("figures[{name}].label");
                receipts.extend(claim_receipts(STUDY_FILE, &place, &figure.label, &figures));
            }
        }
        for memo in memos {
            receipts.extend(memo_receipts(memo.subject, memo.text, &figures));
        }
        for p in prose {
            receipts.extend(claim_receipts(p.subject, &p.place, p.text, &figures));
        }
        (conclusions, receipts)
    };
    for (v, c) in verified.iter_mut().zip(conclusions) {
        v.conclude(c);
    }
    StudyVerification { receipts }
}

/// The experiments a page's claims and rules read figures of.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// Every experiment: a study total is read.
    pub all: bool,
    /// The experiments a figure read names, by id.
    pub experiments: std::collections::BTreeSet<String>,
}

impl Reads {
    /// What the claims of `texts` read (each bound number's figures, a
    /// named study figure's through its definition).
    pub fn of_texts<'t>(texts: impl IntoIterator<Item = &'t str>, study: Option<&Study>) -> Reads {
        let mut reads = Reads::default();
        let mut seen = std::collections::BTreeSet::new();
        for text in texts {
            for segment in syntax::parse(text).unwrap_or_default() {
                if let syntax::Segment::Bound { target, .. } = segment {
                    for figure in target.figures() {
                        reads.figure(figure, study, &mut seen);
                    }
                }
            }
        }
        reads
    }

    /// What an experiment's hypotheses and its summary's claims read.
    pub fn of_experiment(
        experiment: &crate::model::Experiment,
        summary: Option<&crate::model::Summary>,
        study: Option<&Study>,
    ) -> Reads {
        let texts = summary
            .into_iter()
            .flat_map(super::summary_claims)
            .map(|(_, text)| text);
        let mut reads = Reads::of_texts(texts, study);
        for h in &experiment.hypotheses {
            for (other, _) in super::rule_policies(&h.rule) {
                if let Some(id) = other {
                    reads.experiments.insert(id.to_string());
                }
            }
        }
        reads
    }

    /// What the study's named figure `name` reads.
    pub fn of_named(name: &str, study: Option<&Study>) -> Reads {
        let mut reads = Reads::default();
        let figure = syntax::Figure::Study(name.to_string());
        reads.figure(&figure, study, &mut std::collections::BTreeSet::new());
        reads
    }

    /// What a memo's claims read.
    pub fn of_memo(markdown: &str, study: Option<&Study>) -> Reads {
        let lines = syntax::memo_prose(markdown);
        Reads::of_texts(lines.iter().map(String::as_str), study)
    }

    /// Adds what `figure` reads; `seen` holds the named figures already
    /// followed, so each is followed once.
    fn figure(
        &mut self,
        figure: &syntax::Figure,
        study: Option<&Study>,
        seen: &mut std::collections::BTreeSet<String>,
    ) {
        match figure {
            syntax::Figure::Policy(p) => {
                self.experiments.insert(p.experiment.clone());
            }
            syntax::Figure::Study(name) => {
                if TOTALS.contains(&name.as_str()) {
                    self.all = true;
                    return;
                }
                if !seen.insert(name.clone()) {
                    return;
                }
                let named = study.and_then(|s| s.figures.get(name));
                match named.and_then(|n| syntax::parse_target(&n.of).ok()) {
                    Some(target) => {
                        for f in target.figures() {
                            self.figure(f, study, seen);
                        }
                    }
                    // An unknown name, which fails anyway.
                    None => self.all = true,
                }
            }
        }
    }
}
