//! A claim's references checked before anything is recomputed: each names
//! a figure that exists, in the unit its text writes, and the study's named
//! figures are not defined through themselves. A build refuses a claim that
//! fails these (bad input); whether its numbers agree is for its receipts.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Analysis, CostBound, Experiment, PolicyNumbers, Study};
use crate::verify::RERUNS_REPLACE;

use super::figures::{nearest, ExperimentFigures, Figures};
use super::syntax::{self, Figure, Segment, Target};
use super::unit;

/// The names a claim may use: every experiment's policies (with the same
/// figures in each analysis), the study's totals and its named figures.
pub struct Names {
    analyses: BTreeMap<String, (Analysis, BTreeMap<String, Analysis>)>,
    incomplete: BTreeSet<String>,
    named: BTreeMap<String, Target>,
}

/// The study's totals, by name.
pub const TOTALS: [&str; 4] = ["runs", "calls", "output_tokens", "total_cost_usd"];

impl Names {
    /// The names `experiments` and `study` (if any) define.
    pub fn new<'e>(
        experiments: impl IntoIterator<Item = &'e Experiment>,
        study: Option<&Study>,
    ) -> Names {
        let analyses = experiments
            .into_iter()
            .map(|e| {
                let analysis = Analysis {
                    policies: e
                        .policies
                        .iter()
                        .map(|p| PolicyNumbers {
                            policy: p.id.clone(),
                            runs: 0,
                            // Named for a composed policy only (absent when 0).
                            incomplete_cells: u64::from(p.composed),
                            pass_rate_pct: 0.0,
                            pass_rate_sd_pct: 0.0,
                            cost_per_task_usd: CostBound {
                                low: 0.0,
                                high: 0.0,
                            },
                            mean_time_s: 0.0,
                            median_time_s: 0.0,
                            truncations: 0,
                            timeouts: 0,
                            errors: 0,
                            empty_responses: 0,
                            retries: 0,
                            throughput_tps: 0.0,
                            // Named whenever a call's usage is known.
                            median_tps: Some(0.0),
                        })
                        .collect(),
                    tiers: Vec::new(),
                };
                let secondary = BTreeMap::from([(RERUNS_REPLACE.to_string(), analysis.clone())]);
                (e.id.clone(), (analysis, secondary))
            })
            .collect();
        let named = study
            .map(|s| {
                s.figures
                    .iter()
                    .filter_map(|(n, f)| Some((n.clone(), syntax::parse_target(&f.of).ok()?)))
                    .collect()
            })
            .unwrap_or_default();
        Names {
            analyses,
            incomplete: BTreeSet::new(),
            named,
        }
    }

    fn figures(&self) -> Figures<'_> {
        let mut figures = Figures::default();
        for (id, (primary, secondary)) in &self.analyses {
            figures.add(
                id,
                ExperimentFigures {
                    primary,
                    secondary,
                    incomplete: &self.incomplete,
                },
            );
        }
        figures.set_totals(
            TOTALS
                .iter()
                .map(|t| (t.to_string(), Ok(super::Bound::exact(0.0))))
                .collect(),
        );
        figures.set_named(&self.named);
        figures
    }

    /// Whether `target` names figures that exist, in the unit `text` writes.
    pub fn check_target(&self, text: &str, target: &Target) -> Result<(), String> {
        let figures = self.figures();
        for figure in target.figures() {
            match figure {
                Figure::Policy(p) => {
                    figures.get(p)?;
                }
                Figure::Study(name) => {
                    if !TOTALS.contains(&name.as_str()) && !self.named.contains_key(name) {
                        return Err(format!(
                            "no study figure `{name}` ({})",
                            nearest(name, figures.study_names().into_iter())
                        ));
                    }
                }
            }
        }
        if text.trim().is_empty() {
            return Ok(());
        }
        unit::agrees(text, figures.target_unit(target))
    }

    /// The first reference of claim `text` that does not hold: the
    /// reference as written and why.
    pub fn check_claim(&self, text: &str) -> Result<(), (String, String)> {
        let segments = syntax::parse(text).map_err(|(at, why)| {
            let rest: String = text[at..].chars().take(60).collect();
            (rest, why)
        })?;
        for segment in segments {
            if let Segment::Bound { text, target } = segment {
                self.check_target(&text, &target)
                    .map_err(|why| (format!("[{text}](#{target})"), why))?;
            }
        }
        Ok(())
    }
}

/// A named figure of the study defined through itself, as the chain of
/// names that comes back (`a → b → a`).
pub fn cycle(study: &Study) -> Option<String> {
    let defs: BTreeMap<&str, Vec<String>> = study
        .figures
        .iter()
        .map(|(n, f)| {
            let uses = syntax::parse_target(&f.of)
                .map(|t| {
                    t.figures()
                        .into_iter()
                        .filter_map(|f| match f {
                            Figure::Study(s) => Some(s.clone()),
                            Figure::Policy(_) => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            (n.as_str(), uses)
        })
        .collect();
    fn visit<'d>(
        name: &'d str,
        defs: &'d BTreeMap<&str, Vec<String>>,
        path: &mut Vec<&'d str>,
        done: &mut BTreeSet<&'d str>,
    ) -> Option<String> {
        if let Some(at) = path.iter().position(|p| *p == name) {
            let mut chain: Vec<&str> = path[at..].to_vec();
            chain.push(name);
            return Some(chain.join(" → "));
        }
        if done.contains(name) {
            return None;
        }
        path.push(name);
        for used in defs.get(name).into_iter().flatten() {
            if let Some((key, _)) = defs.get_key_value(used.as_str()) {
                if let Some(c) = visit(key, defs, path, done) {
                    return Some(c);
                }
            }
        }
        path.pop();
        done.insert(name);
        None
    }
    let mut done = BTreeSet::new();
    for name in defs.keys() {
        if let Some(c) = visit(name, &defs, &mut Vec::new(), &mut done) {
            return Some(c);
        }
    }
    None
}
