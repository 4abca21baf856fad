//! UTC timestamps as the format writes them: `YYYY-MM-DDTHH:MM:SSZ`, with an
//! optional fraction of up to three digits (`.250Z`). Other offsets are not
//! accepted, so two timestamps always compare by their instant.

use std::fmt;

/// Milliseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnixMillis(pub i64);

/// Why a timestamp was not accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimestampError(pub String);

impl fmt::Display for TimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a UTC timestamp of the form YYYY-MM-DDTHH:MM:SS[.fff]Z",
            self.0
        )
    }
}

impl std::error::Error for TimestampError {}

/// Parses `2026-10-28T12:35:00Z` or `2026-10-28T12:35:00.250Z`.
pub fn parse(s: &str) -> Result<UnixMillis, TimestampError> {
    let err = || TimestampError(s.to_string());
    let b = s.as_bytes();
    if b.len() < 20 || *b.last().unwrap_or(&0) != b'Z' {
        return Err(err());
    }
    let num = |range: std::ops::Range<usize>| -> Result<i64, TimestampError> {
        let part = s.get(range).ok_or_else(err)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return Err(err());
        }
        part.parse::<i64>().map_err(|_| err())
    };
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return Err(err());
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let millis = match b.len() {
        20 => 0,
        22..=24 if b[19] == b'.' => {
            let digits = num(20..b.len() - 1)?;
            digits * 10i64.pow(3 - (b.len() - 21) as u32)
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
        ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis,
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
    fn rejects_malformed() {
        for s in [
            "",
            "2026-10-28",
            "2026-10-28T12:35:00",
            "2026-10-28T12:35:00+01:00",
            "2026-13-01T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-10-28T24:00:00Z",
            "2026-10-28T12:35:00.1234Z",
            "2026-1a-28T12:35:00Z",
        ] {
            assert!(parse(s).is_err(), "{s} should be rejected");
        }
    }
}
