//! The figures a claim can name: every experiment's recomputed analyses,
//! the study's totals and the study's named derived figures, each as a
//! [`Bound`] with its [`Unit`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::decide::Analyses;
use crate::model::Analysis;

use super::judge::Bound;
use super::syntax::{Figure, FigurePath, Target};
use super::unit::Unit;

/// One experiment's recomputed analyses.
#[derive(Debug, Clone, Copy)]
pub struct ExperimentFigures<'a> {
    pub primary: &'a Analysis,
    pub secondary: &'a BTreeMap<String, Analysis>,
    /// Policies whose cells did not all run: a rule over them is not decided.
    pub incomplete: &'a BTreeSet<String>,
}

/// The figures of a study.
#[derive(Debug, Default)]
pub struct Figures<'a> {
    experiments: BTreeMap<&'a str, ExperimentFigures<'a>>,
    /// The study's totals, recomputed.
    totals: BTreeMap<String, Result<Bound, String>>,
    /// The study's named derived figures, as declared.
    named: BTreeMap<String, Target>,
}

/// How deep named figures may refer to each other before the chain is a cycle.
const MAX_DEPTH: usize = 32;

impl<'a> Figures<'a> {
    pub fn add(&mut self, experiment: &'a str, figures: ExperimentFigures<'a>) {
        self.experiments.insert(experiment, figures);
    }

    /// Sets the study's totals.
    pub fn set_totals(&mut self, totals: BTreeMap<String, Result<Bound, String>>) {
        self.totals = totals;
    }

    /// Names a derived figure, `study.<name>`.
    pub fn name(&mut self, name: &str, target: Target) {
        self.named.insert(name.to_string(), target);
    }

    pub fn experiment(&self, id: &str) -> Option<&ExperimentFigures<'a>> {
        self.experiments.get(id)
    }

    /// The study's figure names, totals first.
    pub fn study_names(&self) -> Vec<&str> {
        self.totals
            .keys()
            .chain(self.named.keys())
            .map(String::as_str)
            .collect()
    }

    /// The figure at `path`, or why there is none (with the names nearby).
    pub fn get(&self, path: &FigurePath) -> Result<Bound, String> {
        let e = self
            .experiments
            .get(path.experiment.as_str())
            .ok_or_else(|| {
                format!(
                    "no experiment `{}` ({})",
                    path.experiment,
                    nearest(&path.experiment, self.experiments.keys().copied())
                )
            })?;
        let analysis = match &path.analysis {
            None => e.primary,
            Some(id) => e.secondary.get(id).ok_or_else(|| {
                format!(
                    "no analysis `{id}` in {} ({})",
                    path.experiment,
                    nearest(id, e.secondary.keys().map(String::as_str))
                )
            })?,
        };
        let numbers = analysis
            .policies
            .iter()
            .find(|p| p.policy == path.policy)
            .ok_or_else(|| {
                format!(
                    "no policy `{}` in {} ({})",
                    path.policy,
                    path.experiment,
                    nearest(
                        &path.policy,
                        analysis.policies.iter().map(|p| p.policy.as_str())
                    )
                )
            })?;
        let value = serde_json::to_value(numbers).unwrap_or(Value::Null);
        let field = value.get(&path.field).ok_or_else(|| {
            let fields: Vec<&str> = value
                .as_object()
                .map(|m| {
                    m.keys()
                        .map(String::as_str)
                        .filter(|k| *k != "policy")
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "no figure `{}` ({})",
                path.field,
                nearest(&path.field, fields.into_iter())
            )
        })?;
        match field {
            Value::Number(n) => n.as_f64().map(Bound::exact),
            Value::Object(m) => match (
                m.get("low").and_then(Value::as_f64),
                m.get("high").and_then(Value::as_f64),
            ) {
                (Some(low), Some(high)) => Some(Bound { low, high }),
                _ => None,
            },
            _ => None,
        }
        .ok_or_else(|| format!("`{path}` is not a number"))
    }

    /// The value of a figure.
    pub fn figure(&self, figure: &Figure) -> Result<Bound, String> {
        self.figure_at(figure, 0)
    }

    fn figure_at(&self, figure: &Figure, depth: usize) -> Result<Bound, String> {
        match figure {
            Figure::Policy(p) => self.get(p),
            Figure::Study(name) => {
                if let Some(total) = self.totals.get(name) {
                    return total.clone();
                }
                let target = self.named.get(name).ok_or_else(|| {
                    format!(
                        "no study figure `{name}` ({})",
                        nearest(name, self.study_names().into_iter())
                    )
                })?;
                if depth >= MAX_DEPTH {
                    return Err(format!("`study.{name}` is defined through itself"));
                }
                self.evaluate_at(target, depth + 1)
            }
        }
    }

    /// The value a target names.
    pub fn evaluate(&self, target: &Target) -> Result<Bound, String> {
        self.evaluate_at(target, 0)
    }

    fn evaluate_at(&self, target: &Target, depth: usize) -> Result<Bound, String> {
        let get = |f: &Figure| self.figure_at(f, depth);
        match target {
            Target::Figure(f) => get(f),
            Target::Change(a, b) => Bound::change(get(a)?, get(b)?),
            Target::Diff(a, b) => Ok(Bound::diff(get(a)?, get(b)?)),
            Target::Ratio(a, b) => Bound::ratio(get(a)?, get(b)?),
        }
    }

    /// The unit of a figure (a named one's from its definition).
    pub fn unit(&self, figure: &Figure) -> Unit {
        self.unit_at(figure, 0)
    }

    fn unit_at(&self, figure: &Figure, depth: usize) -> Unit {
        match figure {
            Figure::Policy(p) => Unit::of_name(&p.field),
            Figure::Study(name) => match self.named.get(name) {
                Some(t) if depth < MAX_DEPTH => Unit::of_target(t, |f| self.unit_at(f, depth + 1)),
                _ => Unit::of_name(name),
            },
        }
    }

    /// The unit of a target.
    pub fn target_unit(&self, target: &Target) -> Unit {
        Unit::of_target(target, |f| self.unit(f))
    }
}

/// A rule's view of the study: its own experiment's primary analysis, and
/// the others' by id.
pub struct Within<'f, 'a> {
    pub figures: &'f Figures<'a>,
    pub own: &'f Analysis,
}

impl Analyses for Within<'_, '_> {
    fn analysis(&self, experiment: Option<&str>) -> Option<&Analysis> {
        match experiment {
            None => Some(self.own),
            Some(id) => self.figures.experiment(id).map(|e| e.primary),
        }
    }
}

/// The names nearest `name` among `names` (by edit distance), or all of
/// them when there are few, for an error message.
pub fn nearest<'s>(name: &str, names: impl Iterator<Item = &'s str>) -> String {
    let mut names: Vec<(usize, &str)> = names.map(|n| (distance(name, n), n)).collect();
    if names.is_empty() {
        return "there are none".to_string();
    }
    names.sort();
    let best = names[0].0;
    let near: Vec<String> = names
        .iter()
        .filter(|(d, _)| *d == best)
        .take(5)
        .map(|(_, n)| format!("`{n}`"))
        .collect();
    format!("did you mean {}?", near.join(", "))
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_names_are_suggested() {
        let names = ["pass_rate_pct", "pass_rate_sd_pct", "runs", "mean_time_s"];
        assert_eq!(
            nearest("pass_rate", names.into_iter()),
            "did you mean `pass_rate_pct`?"
        );
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
