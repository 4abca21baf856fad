//! Figures as bounds, the figures derived from two of them, and a claim's
//! text judged against its figure.

/// A figure's value: `low == high` unless some of it is unknown (a cost
/// with lost usage), when the truth lies between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub low: f64,
    pub high: f64,
}

impl Bound {
    pub fn exact(v: f64) -> Bound {
        Bound { low: v, high: v }
    }

    /// `a − b`: every difference the bounds allow.
    pub fn diff(a: Bound, b: Bound) -> Bound {
        Bound {
            low: a.low - b.high,
            high: a.high - b.low,
        }
    }

    /// `a / b` for positive `b`, or why it has none.
    pub fn ratio(a: Bound, b: Bound) -> Result<Bound, String> {
        if b.low <= 0.0 || a.low < 0.0 {
            return Err("a ratio needs a positive divisor and a non-negative figure".into());
        }
        Ok(Bound {
            low: a.low / b.high,
            high: a.high / b.low,
        })
    }

    /// The relative change from `b` to `a`, in percent: `(a / b − 1) × 100`.
    pub fn change(a: Bound, b: Bound) -> Result<Bound, String> {
        let r = Bound::ratio(a, b)?;
        Ok(Bound {
            low: (r.low - 1.0) * 100.0,
            high: (r.high - 1.0) * 100.0,
        })
    }
}

/// What a claim's text says: one number or a range, signed by its words.
#[derive(Debug, Clone, PartialEq)]
pub struct Claimed {
    pub low: f64,
    pub high: f64,
    /// Half a unit of the last decimal written.
    pub half_unit: f64,
}

/// Words that give a change or a difference its sign.
const DOWN: [&str; 7] = [
    "lower", "cheaper", "less", "fewer", "faster", "down", "smaller",
];
const UP: [&str; 7] = [
    "higher", "dearer", "more", "slower", "up", "larger", "costlier",
];

/// The direction a claim's words give, `-1.0` (lower, cheaper, …), `1.0`
/// (higher, dearer, …) or `None`; an error when they give both.
pub fn direction(text: &str) -> Result<Option<f64>, String> {
    let lower = text.to_lowercase();
    let word = |w: &str| lower.split(|c: char| !c.is_alphabetic()).any(|x| x == w);
    match (DOWN.iter().any(|w| word(w)), UP.iter().any(|w| word(w))) {
        (true, false) => Ok(Some(-1.0)),
        (false, true) => Ok(Some(1.0)),
        (true, true) => Err(format!("`{text}` says both more and less")),
        (false, false) => Ok(None),
    }
}

/// Whether a claim of a direction alone (`cheaper`, `slower`) holds: the
/// whole bound of the change or difference lies on that side of zero.
pub fn holds_direction(sign: f64, figure: Bound) -> Result<(), String> {
    let holds = if sign < 0.0 {
        figure.high < 0.0
    } else {
        figure.low > 0.0
    };
    if holds {
        Ok(())
    } else {
        Err(format!(
            "the figure lies between {} and {}, not wholly {} zero",
            figure.low,
            figure.high,
            if sign < 0.0 { "below" } else { "above" }
        ))
    }
}

/// Reads the numbers of a claim's text: `83.3%`, `$0.0058–0.0060`,
/// `1.5–5.5% lower`, `32% dearer`, `71.0 s`. A signed word (`lower`,
/// `dearer`, …) makes the numbers negative or positive changes; the
/// coarsest number written sets the precision.
pub fn read(text: &str) -> Result<Claimed, String> {
    let mut numbers: Vec<(f64, i32)> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, numbers: &mut Vec<(f64, i32)>| -> Result<(), String> {
        if current.is_empty() {
            return Ok(());
        }
        let digits: String = current.chars().filter(|c| *c != ',').collect();
        let value: f64 = digits
            .parse()
            .map_err(|_| format!("`{current}` is not a number"))?;
        let decimals = digits.split_once('.').map_or(0, |(_, f)| f.len() as i32);
        numbers.push((value, decimals));
        current.clear();
        Ok(())
    };
    // A minus is a sign where no number ends just before it (`−4.2% to
    // −2.3%`), and a range's dash where one does (`0.0058-0.0060`).
    let mut after_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() || c == '.' || (c == ',' && !current.is_empty()) {
            current.push(c);
            after_number = true;
            continue;
        }
        if (c == '-' || c == '−') && current.is_empty() && !after_number {
            current.push('-');
        } else {
            if current == "-" {
                current.clear();
            }
            flush(&mut current, &mut numbers)?;
            after_number = !c.is_whitespace() && after_number && matches!(c, '%' | '$');
        }
    }
    flush(&mut current, &mut numbers)?;
    let sign = direction(text)?.unwrap_or(1.0);
    let (low, high, decimals) = match numbers.as_slice() {
        [(v, d)] => (*v, *v, *d),
        [(a, da), (b, db)] => (*a, *b, (*da).min(*db)),
        [] => return Err(format!("`{text}` holds no number")),
        _ => return Err(format!("`{text}` holds more than two numbers")),
    };
    let (low, high) = if sign < 0.0 {
        (-high.abs(), -low.abs())
    } else {
        (low, high)
    };
    Ok(Claimed {
        low: low.min(high),
        high: low.max(high),
        half_unit: 0.5 * 10f64.powi(-decimals),
    })
}

/// Whether the claim agrees with the figure: each end of the figure's bound
/// rounds to the claim's end (one number claims both ends). `Err` says how
/// they differ.
pub fn agrees(claimed: &Claimed, figure: Bound) -> Result<(), String> {
    let near = |c: f64, v: f64| (c - v).abs() <= claimed.half_unit * (1.0 + 1e-9);
    if near(claimed.low, figure.low) && near(claimed.high, figure.high) {
        Ok(())
    } else if figure.low == figure.high {
        Err(format!("the figure is {}", figure.low))
    } else {
        Err(format!(
            "the figure lies between {} and {}",
            figure.low, figure.high
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_propagate_low_high_in_low_high_out() {
        let ladder = Bound {
            low: 0.0058,
            high: 0.0060,
        };
        let large = Bound::exact(0.0061);
        let change = Bound::change(ladder, large).expect("change");
        assert!((change.low - (-4.918)).abs() < 1e-3 && (change.high - (-1.639)).abs() < 1e-3);
        let diff = Bound::diff(Bound::exact(83.3), Bound::exact(77.8));
        assert!((diff.low - 5.5).abs() < 1e-9);
        assert!(Bound::ratio(ladder, Bound::exact(0.0)).is_err());
    }

    #[test]
    fn a_claim_reads_its_numbers_sign_and_precision() {
        let c = read("1.5–5.5% lower").expect("claim");
        assert_eq!((c.low, c.high, c.half_unit), (-5.5, -1.5, 0.05));
        let c = read("$0.0058–0.0060").expect("claim");
        assert_eq!((c.low, c.high), (0.0058, 0.0060));
        assert_eq!(read("32% dearer").expect("claim").low, 32.0);
        assert_eq!(read("8,192").expect("claim").low, 8192.0);
        let c = read("−4.2% to −2.3%").expect("claim");
        assert_eq!((c.low, c.high), (-4.2, -2.3));
        let c = read("0.0058-0.0060").expect("claim");
        assert_eq!((c.low, c.high), (0.0058, 0.0060));
        let c = read("-1.0 to 1.0").expect("claim");
        assert_eq!((c.low, c.high), (-1.0, 1.0));
        assert!(read("more or less 3").is_err());
        assert!(read("no number").is_err());
    }

    #[test]
    fn the_sources_first_headline_disagrees_with_the_corrected_figures() {
        // "89% … at 33% lower cost": the primary pass rate is 83.3, and the
        // cost change lies between −4.9% and −1.6%.
        assert!(agrees(&read("89%").expect("claim"), Bound::exact(83.33)).is_err());
        let change = Bound::change(
            Bound {
                low: 0.0058,
                high: 0.0060,
            },
            Bound::exact(0.0061),
        )
        .expect("change");
        assert!(agrees(&read("33% lower").expect("claim"), change).is_err());
        assert!(agrees(&read("83.3%").expect("claim"), Bound::exact(83.33)).is_ok());
        assert!(agrees(&read("1.6–4.9% lower").expect("claim"), change).is_ok());
    }
}
