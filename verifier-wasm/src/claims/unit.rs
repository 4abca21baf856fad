//! What a figure measures, and whether a claim's text writes it so: a cost
//! written as a percentage is a claim about something else.

use super::syntax::Target;

/// The unit of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A rate in percent (`pass_rate_pct`); its differences are points.
    Percent,
    /// US dollars (`cost_per_task_usd`, `study.total_cost_usd`).
    Usd,
    /// Seconds (`mean_time_s`).
    Seconds,
    /// Tokens per second.
    PerSecond,
    /// A count (runs, calls, tokens, truncations).
    Count,
    /// A difference of two rates, in percentage points (`diff(a,b)` of rates).
    Points,
    /// A relative change, in percent (`change(a,b)`).
    Change,
    /// A ratio of two figures (`ratio(a,b)`).
    Ratio,
}

impl Unit {
    /// The unit of a field or study figure, by its name's suffix.
    pub fn of_name(name: &str) -> Unit {
        if name.ends_with("_pct") {
            Unit::Percent
        } else if name.ends_with("_usd") {
            Unit::Usd
        } else if name.ends_with("_tps") {
            Unit::PerSecond
        } else if name.ends_with("_s") {
            Unit::Seconds
        } else {
            Unit::Count
        }
    }

    /// The unit in words, as an error message names it (`a cost in USD`).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Percent => "a rate in percent",
            Unit::Usd => "a cost in USD",
            Unit::Seconds => "a time in seconds",
            Unit::PerSecond => "tokens per second",
            Unit::Count => "a count",
            Unit::Points => "a difference in percentage points",
            Unit::Change => "a relative change in percent",
            Unit::Ratio => "a ratio",
        }
    }

    /// The unit of a target, from the units of its figures: a difference
    /// of rates is in points, a ratio of a figure to a count (a cost per
    /// run) keeps the figure's unit, any other ratio has none.
    pub fn of_target(target: &Target, unit: impl Fn(&super::Figure) -> Unit) -> Unit {
        match target {
            Target::Figure(f) => unit(f),
            Target::Change(..) => Unit::Change,
            Target::Diff(a, _) => match unit(a) {
                Unit::Percent | Unit::Points => Unit::Points,
                u => u,
            },
            Target::Ratio(a, b) => match (unit(a), unit(b)) {
                (Unit::Count, _) | (_, Unit::Ratio) => Unit::Ratio,
                (u, Unit::Count) => u,
                _ => Unit::Ratio,
            },
        }
    }
}

/// A unit a claim's text can write: `$`, `%`, points, `×`, seconds or
/// tokens per second; or a unit no figure has (minutes, cents, per mille).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Usd,
    Percent,
    Points,
    Times,
    Seconds,
    PerSecond,
    Foreign(&'static str),
}

/// Words that name a unit no figure is recomputed in.
const FOREIGN: [&str; 16] = [
    "ms", "min", "mins", "minute", "minutes", "h", "hr", "hour", "hours", "cent", "cents", "per",
    "k", "m", "bn", "eur",
];

/// The units a claim's text writes.
fn written(text: &str) -> Vec<Written> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    let mut push = |w: Written| {
        if !out.contains(&w) {
            out.push(w);
        }
    };
    if lower.contains('$') {
        push(Written::Usd);
    }
    if lower.contains('%') {
        push(Written::Percent);
    }
    if lower.contains('‰') || lower.contains('％') {
        push(Written::Foreign("per mille or a full-width percent"));
    }
    if lower.contains('×') {
        push(Written::Times);
    }
    let per_second = ["tokens/s", "tok/s", "/s"]
        .iter()
        .any(|p| lower.contains(p));
    if per_second {
        push(Written::PerSecond);
    }
    // Words, with a unit glued to a number (`71.0s`, `2x`, `18k`) split off.
    for word in lower.split(|c: char| !c.is_alphanumeric()) {
        let word = word.trim_start_matches(|c: char| c.is_ascii_digit());
        match word {
            "usd" => push(Written::Usd),
            "point" | "points" | "pp" => push(Written::Points),
            "x" | "times" | "half" | "halved" | "double" | "doubled" => push(Written::Times),
            "s" | "sec" | "secs" | "second" | "seconds" if !per_second => push(Written::Seconds),
            "tps" => push(Written::PerSecond),
            w => {
                if let Some(f) = FOREIGN.iter().find(|f| **f == w) {
                    push(Written::Foreign(f));
                }
            }
        }
    }
    out
}

/// Whether `text` writes a number of `unit`; `Err` says what it writes
/// instead. A rate and a relative change are written with `%`, a difference
/// of rates in points, a cost with `$` or USD, a time in seconds, a ratio
/// with `×` or `times`; a text that writes no unit claims the figure's.
pub fn agrees(text: &str, unit: Unit) -> Result<(), String> {
    for w in written(text) {
        let fits = match w {
            Written::Usd => unit == Unit::Usd,
            Written::Percent => matches!(unit, Unit::Percent | Unit::Change),
            Written::Points => unit == Unit::Points,
            Written::Times => unit == Unit::Ratio,
            Written::Seconds => unit == Unit::Seconds,
            Written::PerSecond => unit == Unit::PerSecond,
            Written::Foreign(_) => false,
        };
        if !fits {
            let as_written = match w {
                Written::Usd => "a cost".to_string(),
                Written::Percent => "a percentage".to_string(),
                Written::Points => "percentage points".to_string(),
                Written::Times => "a ratio".to_string(),
                Written::Seconds => "a time in seconds".to_string(),
                Written::PerSecond => "tokens per second".to_string(),
                Written::Foreign(f) => format!("`{f}`, a unit no figure has"),
            };
            return Err(format!(
                "`{text}` is written as {as_written}, but the figure is {}",
                unit.name()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_writes_the_unit_its_figure_has() {
        assert!(agrees("83.3%", Unit::Percent).is_ok());
        assert!(agrees("$0.0058", Unit::Usd).is_ok());
        assert!(agrees("0.58%", Unit::Usd).is_err());
        assert!(agrees("1.5–5.5% lower", Unit::Change).is_ok());
        assert!(agrees("5.5 points", Unit::Points).is_ok());
        assert!(agrees("5.5 points", Unit::Percent).is_err());
        assert!(agrees("5.5%", Unit::Points).is_err());
        for foreign in [
            "54.1 minutes",
            "54.1 ms",
            "0.58 cents",
            "0.58 per cent",
            "83.3‰",
            "18k",
        ] {
            assert!(
                agrees(foreign, Unit::Seconds).is_err() && agrees(foreign, Unit::Usd).is_err(),
                "{foreign}"
            );
        }
        assert!(agrees("150 tokens/s", Unit::PerSecond).is_ok());
        assert!(agrees("71.0s", Unit::Seconds).is_ok());
        assert!(agrees("71.0 s", Unit::Seconds).is_ok());
        assert!(agrees("2.1×", Unit::Ratio).is_ok());
        assert!(agrees("18", Unit::Count).is_ok());
        assert!(agrees("$18", Unit::Count).is_err());
        assert!(agrees("18 s", Unit::Percent).is_err());
        assert!(agrees("18 runs", Unit::Count).is_ok());
    }
}
