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

/// What unit a claim's text writes, where it writes one.
fn written(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '%' && c != '$' && c != '×')
        .collect();
    let has = |w: &str| {
        words.iter().any(|x| {
            x.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',') == w
        })
    };
    if text.contains('$') || has("usd") {
        Some("$")
    } else if text.contains('%') || has("points") || has("pp") {
        Some("%")
    } else if text.contains('×') || has("x") || has("times") || has("half") || has("halved") {
        Some("×")
    } else if has("s") || has("seconds") || has("min") || has("minutes") {
        Some("s")
    } else {
        None
    }
}

/// Whether `text` writes a number of `unit`; `Err` says what it writes instead.
pub fn agrees(text: &str, unit: Unit) -> Result<(), String> {
    let Some(w) = written(text) else {
        return Ok(());
    };
    let fits = match w {
        "$" => unit == Unit::Usd,
        "%" => matches!(unit, Unit::Percent | Unit::Points | Unit::Change),
        "×" => unit == Unit::Ratio,
        _ => unit == Unit::Seconds,
    };
    if fits {
        Ok(())
    } else {
        let as_written = match w {
            "$" => "a cost",
            "%" => "a percentage",
            "×" => "a ratio",
            _ => "a time",
        };
        Err(format!(
            "`{text}` is written as {as_written}, but the figure is {}",
            unit.name()
        ))
    }
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
        assert!(agrees("5.5 points", Unit::Percent).is_ok());
        assert!(agrees("71.0 s", Unit::Seconds).is_ok());
        assert!(agrees("2.1×", Unit::Ratio).is_ok());
        assert!(agrees("18", Unit::Count).is_ok());
        assert!(agrees("$18", Unit::Count).is_err());
        assert!(agrees("18 s", Unit::Percent).is_err());
    }
}
