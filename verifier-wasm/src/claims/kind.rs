//! What a figure is a figure of (a rate, a cost, a time, a count, tokens),
//! and the kind each direction word can describe: `faster` says a time went
//! down, so bound to a pass rate it claims something the figure is not.

use super::syntax::Target;

/// What a figure measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A rate in percent (`pass_rate_pct`), and differences of rates.
    Rate,
    /// A cost in USD (`cost_per_task_usd`, `study.total_cost_usd`).
    Cost,
    /// A time in seconds (`mean_time_s`).
    Time,
    /// A count of things (runs, calls, truncations, timeouts).
    Count,
    /// Tokens: a count of tokens (`study.output_tokens`) or a throughput in
    /// tokens per second (`throughput_tps`), which rises as time falls.
    Tokens,
}

impl Kind {
    /// The kind of a field or study figure, by its name's suffix.
    pub fn of_name(name: &str) -> Kind {
        if name.ends_with("_pct") {
            Kind::Rate
        } else if name.ends_with("_usd") {
            Kind::Cost
        } else if name.ends_with("_tps") || name.ends_with("tokens") {
            Kind::Tokens
        } else if name.ends_with("_s") {
            Kind::Time
        } else {
            Kind::Count
        }
    }

    /// The kind of a target: a change, a difference or a ratio is of the
    /// kind of the figure it compares (its first).
    pub fn of_target(target: &Target, kind: impl Fn(&super::Figure) -> Kind) -> Kind {
        match target {
            Target::Figure(f) | Target::Change(f, _) | Target::Diff(f, _) | Target::Ratio(f, _) => {
                kind(f)
            }
        }
    }

    /// The kind in words, as a message names it (`a rate`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rate => "a rate",
            Kind::Cost => "a cost",
            Kind::Time => "a time",
            Kind::Count => "a count",
            Kind::Tokens => "tokens (a count or a throughput)",
        }
    }
}

/// The direction words that describe one kind only; every other direction
/// word (`more`, `fewer`, `higher`, `lower`, `up`, `down`, `larger`,
/// `smaller`, `less`) describes any.
const DESCRIBE: [(&str, Kind); 5] = [
    ("faster", Kind::Time),
    ("slower", Kind::Time),
    ("cheaper", Kind::Cost),
    ("dearer", Kind::Cost),
    ("costlier", Kind::Cost),
];

/// The kind direction word `word` (lowercase) can describe, or `None` when
/// it describes any kind (or is no direction word).
pub fn described_by(word: &str) -> Option<Kind> {
    DESCRIBE.iter().find(|(w, _)| *w == word).map(|(_, k)| *k)
}

/// Whether every direction word of claim `text` can describe a figure of
/// `kind`; `Err` names the first that cannot, and the figure's kind.
pub fn describes(text: &str, kind: Kind) -> Result<(), String> {
    let lower = text.to_lowercase();
    for word in lower.split(|c: char| !c.is_alphabetic()) {
        if let Some(k) = described_by(word) {
            if k != kind {
                return Err(format!(
                    "`{word}` describes {}, but the figure is {}",
                    k.name(),
                    kind.name()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::syntax::parse_target;

    #[test]
    fn each_figure_has_a_kind_and_a_comparison_keeps_it() {
        assert_eq!(Kind::of_name("pass_rate_pct"), Kind::Rate);
        assert_eq!(Kind::of_name("cost_per_task_usd"), Kind::Cost);
        assert_eq!(Kind::of_name("median_time_s"), Kind::Time);
        assert_eq!(Kind::of_name("throughput_tps"), Kind::Tokens);
        assert_eq!(Kind::of_name("output_tokens"), Kind::Tokens);
        assert_eq!(Kind::of_name("timeouts"), Kind::Count);
        let target =
            parse_target("change(E02.ladder.pass_rate_pct,E02.always-large.pass_rate_pct)")
                .expect("target");
        let kind = |f: &super::super::Figure| match f {
            super::super::Figure::Policy(p) => Kind::of_name(&p.field),
            super::super::Figure::Study(n) => Kind::of_name(n),
        };
        assert_eq!(Kind::of_target(&target, kind), Kind::Rate);
    }

    #[test]
    fn a_direction_word_describes_its_kind_or_any() {
        assert!(describes("faster", Kind::Time).is_ok());
        assert!(describes("3.2% cheaper", Kind::Cost).is_ok());
        assert!(describes("5.6 points more", Kind::Rate).is_ok());
        assert!(describes("higher", Kind::Tokens).is_ok());
        assert_eq!(
            describes("Faster", Kind::Rate),
            Err("`faster` describes a time, but the figure is a rate".to_string())
        );
        assert_eq!(
            describes("12% dearer", Kind::Time),
            Err("`dearer` describes a cost, but the figure is a time".to_string())
        );
        // A throughput rises as time falls: `faster` would read it backwards.
        assert!(describes("faster", Kind::Tokens).is_err());
    }
}
