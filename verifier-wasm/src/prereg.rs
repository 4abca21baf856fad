//! The pre-registered part of an experiment log: everything before the first
//! line equal to the end marker. Its SHA-256 is what was committed before the
//! first provider call; deviations are appended after the marker.

use crate::digest::sha256_hex;

/// The pre-registered part of `log`: its bytes up to (not including) the first
/// line equal to `end_marker`, or `None` when no line is.
pub fn preregistered_part<'a>(log: &'a str, end_marker: &str) -> Option<&'a str> {
    let mut offset = 0;
    for line in log.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        if bare == end_marker {
            return Some(&log[..offset]);
        }
        offset += line.len();
    }
    None
}

/// The SHA-256 of the pre-registered part, or `None` when the marker is missing.
pub fn preregistration_digest(log: &str, end_marker: &str) -> Option<String> {
    preregistered_part(log, end_marker).map(|part| sha256_hex(part.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_the_first_marker_line() {
        let log = "# Log\nH1: x\n<!-- end -->\nDeviation\n<!-- end -->\n";
        assert_eq!(
            preregistered_part(log, "<!-- end -->"),
            Some("# Log\nH1: x\n")
        );
    }

    #[test]
    fn marker_must_be_a_whole_line() {
        assert_eq!(preregistered_part("a <!-- end -->\n", "<!-- end -->"), None);
        assert_eq!(
            preregistered_part("a\r\n<!-- end -->\r\n", "<!-- end -->"),
            Some("a\r\n")
        );
    }
}
