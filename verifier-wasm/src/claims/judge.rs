//! Figures as bounds, the figures derived from two of them, and a claim's
//! text judged against its figure.

/// A figure's value: `low == high` unless some of it is unknown (a cost
/// with lost usage), when the truth lies between them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The least the figure can be.
    pub low: f64,
    /// The most the figure can be.
    pub high: f64,
}

impl Bound {
    /// A figure known exactly: `v` at both ends.
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
    /// The lower number written (the only one, for one number), signed by
    /// the words.
    pub low: f64,
    /// The higher number written (the only one, for one number), signed by
    /// the words.
    pub high: f64,
    /// Half a unit of the last decimal written, for the low end.
    pub half_low: f64,
    /// Half a unit of the last decimal written, for the high end.
    pub half_high: f64,
    /// The sign its words give (`lower` −1, `higher` +1), if any.
    pub sign: Option<f64>,
    /// Whether a number is written with its sign (`−4.2%`, `+5.6 points`).
    pub explicit_sign: bool,
    /// `within X`: the figure lies in −X…X.
    pub within: bool,
}

/// Words that give a change or a difference its sign: these go down…
pub(crate) const DOWN: [&str; 7] = [
    "lower", "cheaper", "less", "fewer", "faster", "down", "smaller",
];
/// …and these up.
pub(crate) const UP: [&str; 7] = [
    "higher", "dearer", "more", "slower", "up", "larger", "costlier",
];

/// Words that bound a figure instead of stating it: a claim states the
/// figure (`within` is the one bound read, as −X…X).
const BOUNDING: [&str; 16] = [
    "over",
    "under",
    "above",
    "below",
    "about",
    "around",
    "approximately",
    "roughly",
    "nearly",
    "almost",
    "least",
    "most",
    "than",
    "exceeds",
    "circa",
    "some",
];

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The direction a claim's words give, `-1.0` (lower, cheaper, …), `1.0`
/// (higher, dearer, …) or `None`; an error when they give both.
pub fn direction(text: &str) -> Result<Option<f64>, String> {
    let words = words(text);
    let word = |w: &str| words.iter().any(|x| x == w);
    match (DOWN.iter().any(|w| word(w)), UP.iter().any(|w| word(w))) {
        (true, false) => Ok(Some(-1.0)),
        (false, true) => Ok(Some(1.0)),
        (true, true) => Err(format!("`{text}` says both more and less")),
        (false, false) => Ok(None),
    }
}

/// A figure as a reader compares it with a claim: one decimal more than the
/// claim wrote (`half` is half a unit of its last decimal), or, with no
/// claimed precision, six significant digits; trailing zeros dropped.
fn show(v: f64, half: f64) -> String {
    let decimals = if half > 0.0 {
        (-(2.0 * half).log10()).round().max(0.0) as usize + 1
    } else {
        let magnitude = if v == 0.0 {
            0.0
        } else {
            v.abs().log10().floor()
        };
        (5.0 - magnitude).clamp(0.0, 12.0) as usize
    };
    let text = format!("{v:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    if text == "-0" {
        "0".to_string()
    } else {
        text
    }
}

/// Whether a claim of a direction (`cheaper`, `2.3–4.2% lower`) holds: the
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
            show(figure.low, 0.0),
            show(figure.high, 0.0),
            if sign < 0.0 { "below" } else { "above" }
        ))
    }
}

/// Reads the numbers of a claim's text: `83.3%`, `$0.0058–0.0060`,
/// `1.5–5.5% lower`, `32% dearer`, `71.0 s`, `−4.2% to −2.3%`, `within 5
/// points`. A sign word (`lower`, `dearer`, …) makes the numbers negative
/// or positive changes; each end keeps its own precision. A text that
/// bounds the figure rather than stating it (`over`, `<`, `about`), writes
/// a fraction, or writes digits other than ASCII ones is refused.
pub fn read(text: &str) -> Result<Claimed, String> {
    if text.chars().any(|c| c.is_numeric() && !c.is_ascii_digit()) {
        return Err(format!(
            "`{text}` writes a number in other than ASCII digits"
        ));
    }
    if text.contains(['<', '>', '≤', '≥', '~', '≈', '±']) {
        return Err(format!("`{text}` bounds the figure instead of stating it"));
    }
    let all = words(text);
    if let Some(w) = all.iter().find(|w| BOUNDING.contains(&w.as_str())) {
        return Err(format!(
            "`{text}` says `{w}`: a claim states the figure (a range if it is a bound)"
        ));
    }
    let within = all.iter().any(|w| w == "within");
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
    let mut explicit_sign = None;
    let mut previous = ' ';
    for c in text.chars() {
        if c.is_ascii_digit() || c == '.' || (c == ',' && !current.is_empty()) {
            if previous == '/' && c.is_ascii_digit() {
                return Err(format!("`{text}` writes a fraction: write the figure"));
            }
            current.push(c);
            after_number = true;
            previous = c;
            continue;
        }
        if (c == '-' || c == '−') && current.is_empty() && !after_number {
            current.push('-');
            explicit_sign = Some(-1.0);
        } else if c == '+' && current.is_empty() && !after_number {
            explicit_sign = Some(1.0);
        } else {
            if current == "-" {
                current.clear();
            }
            flush(&mut current, &mut numbers)?;
            after_number = !c.is_whitespace() && after_number && matches!(c, '%' | '$');
        }
        previous = c;
    }
    flush(&mut current, &mut numbers)?;
    let sign = direction(text)?;
    if let (Some(word), Some(written)) = (sign, explicit_sign) {
        if word != written {
            return Err(format!("`{text}` writes a sign its words contradict"));
        }
    }
    let ((low, dl), (high, dh)) = match numbers.as_slice() {
        [one] => (*one, *one),
        [a, b] => (*a, *b),
        [] => return Err(format!("`{text}` holds no number")),
        _ => return Err(format!("`{text}` holds more than two numbers")),
    };
    let half = |d: i32| 0.5 * 10f64.powi(-d);
    let (mut low, mut high, mut hl, mut hh) = (low, high, half(dl), half(dh));
    if sign == Some(-1.0) && explicit_sign.is_none() {
        // `2.3–4.2% lower`: the ends are −4.2 and −2.3.
        (low, high, hl, hh) = (-high.abs(), -low.abs(), hh, hl);
    }
    if low > high {
        (low, high, hl, hh) = (high, low, hh, hl);
    }
    Ok(Claimed {
        low,
        high,
        half_low: hl,
        half_high: hh,
        sign,
        explicit_sign: explicit_sign.is_some(),
        within,
    })
}

/// Whether the claim agrees with the figure: each end of the figure's bound
/// rounds to the claim's end (one number claims both ends), written precisely
/// enough (half a unit of its last decimal within 5% of the figure, unless
/// it is the figure exactly), and, where its words give a direction, the
/// whole bound lies on that side of zero. `within X` holds when the whole
/// bound lies in −X…X. `Err` says how they differ.
pub fn agrees(claimed: &Claimed, figure: Bound) -> Result<(), String> {
    if claimed.within {
        let x = claimed.high.abs();
        return if figure.low >= -x && figure.high <= x {
            Ok(())
        } else {
            Err(format!(
                "the figure lies between {} and {}, not within ±{x}",
                show(figure.low, claimed.half_high),
                show(figure.high, claimed.half_high)
            ))
        };
    }
    if let Some(sign) = claimed.sign {
        holds_direction(sign, figure)?;
    }
    let near = |c: f64, half: f64, v: f64| (c - v).abs() <= half * (1.0 + 1e-9);
    let fine = |c: f64, half: f64, v: f64| c == v || half <= 0.05 * v.abs();
    let differs = || {
        if figure.low == figure.high {
            format!("the figure is {}", show(figure.low, claimed.half_low))
        } else {
            format!(
                "the figure lies between {} and {}",
                show(figure.low, claimed.half_low),
                show(figure.high, claimed.half_high)
            )
        }
    };
    if !(near(claimed.low, claimed.half_low, figure.low)
        && near(claimed.high, claimed.half_high, figure.high))
    {
        return Err(differs());
    }
    if !(fine(claimed.low, claimed.half_low, figure.low)
        && fine(claimed.high, claimed.half_high, figure.high))
    {
        return Err(format!(
            "{}: written too coarsely to tell (write more decimals)",
            differs()
        ));
    }
    Ok(())
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
    fn a_differing_figure_is_shown_one_decimal_finer_than_the_claim() {
        let claimed = read("88.9%").expect("claim");
        assert_eq!(
            agrees(&claimed, Bound::exact(250.0 / 3.0)),
            Err("the figure is 83.33".to_string())
        );
        let claimed = read("33% lower").expect("claim");
        assert_eq!(
            agrees(
                &claimed,
                Bound {
                    low: -4.2081,
                    high: -2.3004
                }
            ),
            Err("the figure lies between -4.2 and -2.3".to_string())
        );
        assert_eq!(show(0.005831234, 0.0), "0.00583123");
        assert_eq!(show(-0.0, 0.0), "0");
        assert_eq!(show(1234.5678, 0.0), "1234.57");
    }

    #[test]
    fn a_claim_reads_its_numbers_sign_and_precision() {
        let c = read("1.5–5.5% lower").expect("claim");
        assert_eq!((c.low, c.high, c.half_low), (-5.5, -1.5, 0.05));
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
        assert!(agrees(
            &c,
            Bound {
                low: -1.0,
                high: 1.0
            }
        )
        .is_ok());
        assert!(read("more or less 3").is_err());
        assert!(read("no number").is_err());
        for refused in [
            "> $1",
            "over 80%",
            "about 83%",
            "2/4 cheaper",
            "−4.2% higher",
            "８９%",
            "1, 2 and 3",
        ] {
            assert!(read(refused).is_err(), "{refused}");
        }
        let c = read("within 5 points").expect("claim");
        assert!(
            c.within
                && agrees(
                    &c,
                    Bound {
                        low: -4.0,
                        high: 3.0
                    }
                )
                .is_ok()
        );
        assert!(agrees(
            &c,
            Bound {
                low: -6.0,
                high: 3.0
            }
        )
        .is_err());
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
        // Too coarse to tell: $0 or $0.01 for $0.0058.
        assert!(agrees(&read("$0").expect("claim"), Bound::exact(0.0058)).is_err());
        assert!(agrees(&read("$0.01").expect("claim"), Bound::exact(0.0058)).is_err());
        assert!(agrees(&read("3").expect("claim"), Bound::exact(3.0)).is_ok());
        // A direction the bound does not wholly carry: 0–5% lower of −4.96…+0.45.
        let mixed = Bound {
            low: -4.96,
            high: 0.45,
        };
        assert!(agrees(&read("0–5% lower").expect("claim"), mixed).is_err());
        // Each end keeps its own precision: 2–4.6% lower is not −4.2…−2.3.
        let c = Bound {
            low: -4.2,
            high: -2.3,
        };
        assert!(agrees(&read("2–4.6% lower").expect("claim"), c).is_err());
    }
}
