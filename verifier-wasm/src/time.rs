//! Timestamps as RFC 3339 writes them: `YYYY-MM-DDTHH:MM:SS`, an optional
//! fraction of any length, and `Z` or an offset (`+02:00`). Each is read as
//! its instant in UTC, to the millisecond (further digits are cut, toward
//! the past), so two timestamps always compare by their instant; the
//! record keeps the text as written and pages show it so.

/// Milliseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixMillis(pub i64);

/// Why a timestamp was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an RFC 3339 timestamp: YYYY-MM-DDTHH:MM:SS, an optional fraction, then Z or an offset such as +02:00")]
pub struct TimestampError(pub String);

/// Parses `2026-10-28T12:35:00Z`, `2026-10-28T12:35:00.250Z`,
/// `2026-10-28T14:35:00.123456+02:00` (the same instant as
/// `2026-10-28T12:35:00.123Z`) or `2026-10-28t12:35:00z`.
pub fn parse(s: &str) -> Result<UnixMillis, TimestampError> {
    let err = || TimestampError(s.to_string());
    let b = s.as_bytes();
    if b.len() < 20 || !s.is_ascii() {
        return Err(err());
    }
    let num = |range: std::ops::Range<usize>| -> Result<i64, TimestampError> {
        let part = s.get(range).ok_or_else(err)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return Err(err());
        }
        part.parse::<i64>().map_err(|_| err())
    };
    if b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(err());
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // The fraction: every digit after the point, the first three kept.
    let mut at = 19;
    let mut millis = 0;
    if b[at] == b'.' {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(err());
        }
        let kept = &s[at + 1..at + 1 + digits.min(3)];
        millis = kept.parse::<i64>().map_err(|_| err())? * 10i64.pow(3 - kept.len() as u32);
        at += 1 + digits;
    }
    let offset_minutes = match &b[at..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (h, m) = (num(at + 1..at + 3)?, num(at + 4..at + 6)?);
            if h > 23 || m > 59 {
                return Err(err());
            }
            if *sign == b'+' {
                h * 60 + m
            } else {
                -(h * 60 + m)
            }
        }
        _ => return Err(err()),
    };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err(err());
    }
    let days = days_from_civil(year, month, day);
    Ok(UnixMillis(
        ((days * 24 + hour) * 60 + minute - offset_minutes) * 60_000 + second * 1000 + millis,
    ))
}

/// Formats an instant as `YYYY-MM-DDTHH:MM:SSZ`, with `.fff` when it has milliseconds.
pub fn format(t: UnixMillis) -> String {
    let ms = t.0.rem_euclid(1000);
    let secs = t.0.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let base = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
    if ms == 0 {
        format!("{base}Z")
    } else {
        format!("{base}.{ms:03}Z")
    }
}

/// The ISO 8601 week of a time (UTC): its week-numbering year and week,
/// 1 to 53. A week starts on Monday, and week 1 holds the year's first Thursday.
pub fn iso_week(t: UnixMillis) -> (i64, i64) {
    let days = t.0.div_euclid(86_400_000);
    // 1970-01-01 was a Thursday: Monday is 0.
    let weekday = (days + 3).rem_euclid(7);
    let thursday = days - weekday + 3;
    let (year, _, _) = civil_from_days(thursday);
    (year, (thursday - days_from_civil(year, 1, 1)) / 7 + 1)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's civil-date algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_weeks_match_the_calendar() {
        let week = |s: &str| iso_week(parse(s).expect("a time"));
        // A Monday starts its week; the Sunday before ends the one before.
        assert_eq!(week("2026-11-02T00:00:00Z"), (2026, 45));
        assert_eq!(week("2026-11-01T23:59:59Z"), (2026, 44));
        // Years whose first days belong to the year before, or whose last to the next.
        assert_eq!(week("2021-01-03T12:00:00Z"), (2020, 53));
        assert_eq!(week("2024-12-30T00:00:00Z"), (2025, 1));
        assert_eq!(week("2026-01-01T00:00:00Z"), (2026, 1));
        assert_eq!(week("1969-12-31T00:00:00Z"), (1970, 1));
    }

    #[test]
    fn round_trips() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2026-10-28T12:35:00Z",
            "2024-02-29T23:59:59.250Z",
            "2000-12-31T00:00:01.001Z",
        ] {
            assert_eq!(format(parse(s).unwrap()), s);
        }
        assert_eq!(parse("1970-01-01T00:00:01Z").unwrap(), UnixMillis(1000));
        assert_eq!(
            parse("1970-01-02T00:00:00.5Z").unwrap(),
            UnixMillis(86_400_500)
        );
    }

    #[test]
    fn offsets_and_long_fractions_read_as_their_instant() {
        let utc = parse("2026-10-28T12:35:00.123Z").unwrap();
        for same in [
            "2026-10-28T14:35:00.123+02:00",
            "2026-10-28T07:05:00.123456789-05:30",
            "2026-10-28t12:35:00.1239z",
            "2026-10-28T12:35:00.123+00:00",
        ] {
            assert_eq!(parse(same).unwrap(), utc, "{same}");
        }
        // Across midnight and a year.
        assert_eq!(
            parse("2027-01-01T01:00:00+02:00").unwrap(),
            parse("2026-12-31T23:00:00Z").unwrap()
        );
    }

    #[test]
    fn rejects_malformed() {
        for s in [
            "",
            "2026-10-28",
            "2026-10-28T12:35:00",
            "2026-10-28T12:35:00+0100",
            "2026-10-28T12:35:00+24:00",
            "2026-10-28T12:35:00+01:60",
            "2026-10-28T12:35:00.Z",
            "2026-10-28 12:35:00Z",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-10-28T24:00:00Z",
            "2026-10-28T12:35:60Z",
            "2026-1a-28T12:35:00Z",
            "2026-10-28T12:35:00Z ",
        ] {
            assert!(parse(s).is_err(), "{s} should be rejected");
        }
    }
}
