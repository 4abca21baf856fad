//! The figures a claim can name: every experiment's recomputed analyses,
//! the study's totals and the study's named derived figures, each as a
//! [`Bound`] with its [`Unit`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::decide::Analyses;
use crate::model::Analysis;

use super::judge::Bound;
use super::kind::Kind;
use super::syntax::{Figure, FigurePath, Target};
use super::unit::Unit;

/// The analysis a figure path names to claim a figure of the cells that
/// ran, where a stopped study did not run them all: the primary analysis,
/// which a path naming no analysis may not cite for a policy whose cells
/// did not all run (it would pass part of the grid off as the whole).
pub const AS_RUN: &str = "as-run";

/// One experiment's recomputed analyses.
#[derive(Debug, Clone, Copy)]
pub struct ExperimentFigures<'a> {
    /// The primary analysis, the one a figure path naming none reads.
    pub primary: &'a Analysis,
    /// The secondary analyses, by the id a figure path names them by.
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
    /// The study's named derived figures, each resolved once: its value
    /// (or why it has none), its unit and its kind.
    named: BTreeMap<String, Resolved>,
    /// The named figures defined as a change or a difference (directly or
    /// through another name): a claim may say which way they go.
    derived: BTreeSet<String>,
}

/// How deep named figures may refer to each other (a chain deeper than
/// this is refused rather than followed).
const MAX_DEPTH: usize = 64;

/// A named figure resolved: its value (or why it has none), unit and kind.
type Resolved = (Result<Bound, String>, Unit, Kind);

/// A named figure while the names are resolved.
enum Slot {
    Visiting,
    Done(Resolved),
}

impl<'a> Figures<'a> {
    /// Adds the figures of the experiment a figure path names `experiment`.
    pub fn add(&mut self, experiment: &'a str, figures: ExperimentFigures<'a>) {
        self.experiments.insert(experiment, figures);
    }

    /// Sets the study's totals.
    pub fn set_totals(&mut self, totals: BTreeMap<String, Result<Bound, String>>) {
        self.totals = totals;
    }

    /// Names the study's derived figures, `study.<name>`, and resolves each
    /// once (after the experiments and the totals are set): a name defined
    /// through itself, or taking a total's name, has no value.
    pub fn set_named(&mut self, named: &BTreeMap<String, Target>) {
        let mut slots: BTreeMap<&str, Slot> = BTreeMap::new();
        for name in named.keys() {
            // Each name's slot records its value.
            let _ = self.resolve(name, named, &mut slots, 0);
        }
        self.derived = named
            .keys()
            .filter(|name| derived_name(name, named, 0))
            .cloned()
            .collect();
        self.named = slots
            .into_iter()
            .filter_map(|(name, slot)| match slot {
                Slot::Done(resolved) => Some((name.to_string(), resolved)),
                Slot::Visiting => None,
            })
            .collect();
    }

    fn resolve<'n>(
        &self,
        name: &'n str,
        named: &'n BTreeMap<String, Target>,
        slots: &mut BTreeMap<&'n str, Slot>,
        depth: usize,
    ) -> Resolved {
        match slots.get(name) {
            Some(Slot::Done(resolved)) => return resolved.clone(),
            Some(Slot::Visiting) => {
                return (
                    Err(format!("`study.{name}` is defined through itself")),
                    Unit::Count,
                    Kind::Count,
                )
            }
            None => {}
        }
        let Some((key, target)) = named.get_key_value(name) else {
            return (
                Err(format!("no study figure `{name}`")),
                Unit::of_name(name),
                Kind::of_name(name),
            );
        };
        if self.totals.contains_key(name) {
            let done = (
                Err(format!(
                    "`study.{name}` is a total; a named figure cannot take its name"
                )),
                Unit::of_name(name),
                Kind::of_name(name),
            );
            slots.insert(key, Slot::Done(done.clone()));
            return done;
        }
        if depth >= MAX_DEPTH {
            return (
                Err(format!(
                    "`study.{name}` is defined more than {MAX_DEPTH} names deep"
                )),
                Unit::Count,
                Kind::Count,
            );
        }
        slots.insert(key, Slot::Visiting);
        let mut values: Vec<Result<Bound, String>> = Vec::new();
        let mut units: Vec<Unit> = Vec::new();
        let mut kinds: Vec<Kind> = Vec::new();
        for f in target.figures() {
            let (v, u, k) = match f {
                Figure::Study(other) if !self.totals.contains_key(other) => {
                    self.resolve(other, named, slots, depth + 1)
                }
                other => (self.figure(other), self.unit(other), self.kind(other)),
            };
            values.push(v);
            units.push(u);
            kinds.push(k);
        }
        // A target's kind is its first figure's.
        let kind = kinds.first().copied().unwrap_or(Kind::Count);
        let unit = Unit::of_target(target, |f| {
            let i = target.figures().iter().position(|g| *g == f).unwrap_or(0);
            units.get(i).copied().unwrap_or(Unit::Count)
        });
        let value = (|| {
            let mut it = values.into_iter();
            let a = it.next().unwrap_or_else(|| Err("no figure".into()))?;
            Ok(match target {
                Target::Figure(_) => a,
                Target::Change(..) => {
                    Bound::change(a, it.next().unwrap_or_else(|| Err("no figure".into()))?)?
                }
                Target::Diff(..) => {
                    Bound::diff(a, it.next().unwrap_or_else(|| Err("no figure".into()))?)
                }
                Target::Ratio(..) => {
                    Bound::ratio(a, it.next().unwrap_or_else(|| Err("no figure".into()))?)?
                }
            })
        })();
        slots.insert(key, Slot::Done((value.clone(), unit, kind)));
        (value, unit, kind)
    }

    /// The figures of the experiment named `id`, if they were added.
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
        let (analysis, as_run) = match path.analysis.as_deref() {
            None => (e.primary, false),
            Some(AS_RUN) => (e.primary, true),
            Some(id) => (
                e.secondary.get(id).ok_or_else(|| {
                    format!(
                        "no analysis `{id}` in {} ({})",
                        path.experiment,
                        nearest(id, e.secondary.keys().map(String::as_str).chain([AS_RUN]))
                    )
                })?,
                false,
            ),
        };
        if !as_run && e.incomplete.contains(&path.policy) {
            return Err(format!(
                "`{}` did not run all its cells in {}: its figures stand for part of the grid",
                path.policy, path.experiment
            ));
        }
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
        match figure {
            Figure::Policy(p) => self.get(p),
            Figure::Study(name) => {
                if let Some(total) = self.totals.get(name) {
                    return total.clone();
                }
                match self.named.get(name) {
                    Some((value, _, _)) => value.clone(),
                    None => Err(format!(
                        "no study figure `{name}` ({})",
                        nearest(name, self.study_names().into_iter())
                    )),
                }
            }
        }
    }

    /// The value a target names.
    pub fn evaluate(&self, target: &Target) -> Result<Bound, String> {
        let get = |f: &Figure| self.figure(f);
        match target {
            Target::Figure(f) => get(f),
            Target::Change(a, b) => Bound::change(get(a)?, get(b)?),
            Target::Diff(a, b) => Ok(Bound::diff(get(a)?, get(b)?)),
            Target::Ratio(a, b) => Bound::ratio(get(a)?, get(b)?),
        }
    }

    /// The unit of a figure (a named one's from its definition).
    pub fn unit(&self, figure: &Figure) -> Unit {
        match figure {
            Figure::Policy(p) => Unit::of_name(&p.field),
            Figure::Study(name) if self.totals.contains_key(name) => Unit::of_name(name),
            Figure::Study(name) => self
                .named
                .get(name)
                .map_or_else(|| Unit::of_name(name), |(_, unit, _)| *unit),
        }
    }

    /// The kind of a figure (a named one's from its definition).
    pub fn kind(&self, figure: &Figure) -> Kind {
        match figure {
            Figure::Policy(p) => Kind::of_name(&p.field),
            Figure::Study(name) if self.totals.contains_key(name) => Kind::of_name(name),
            Figure::Study(name) => self
                .named
                .get(name)
                .map_or_else(|| Kind::of_name(name), |(_, _, kind)| *kind),
        }
    }

    /// The kind of a target.
    pub fn target_kind(&self, target: &Target) -> Kind {
        Kind::of_target(target, |f| self.kind(f))
    }

    /// Whether a target is a change or a difference: a derived figure, or a
    /// named figure defined as one.
    pub fn is_derived(&self, target: &Target) -> bool {
        match target {
            Target::Change(..) | Target::Diff(..) => true,
            Target::Figure(Figure::Study(name)) => self.derived.contains(name),
            _ => false,
        }
    }

    /// The unit of a target.
    pub fn target_unit(&self, target: &Target) -> Unit {
        Unit::of_target(target, |f| self.unit(f))
    }
}

/// Whether named figure `name` is defined as a change or a difference,
/// directly or through other names (not followed past [`MAX_DEPTH`]).
fn derived_name(name: &str, named: &BTreeMap<String, Target>, depth: usize) -> bool {
    match named.get(name) {
        Some(Target::Change(..) | Target::Diff(..)) => true,
        Some(Target::Figure(Figure::Study(other))) if depth < MAX_DEPTH => {
            derived_name(other, named, depth + 1)
        }
        _ => false,
    }
}

/// A rule's view of the study: its own experiment's primary analysis, and
/// the others' by id.
pub struct Within<'f, 'a> {
    /// The study's figures, for the other experiments.
    pub figures: &'f Figures<'a>,
    /// The primary analysis of the rule's own experiment.
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
