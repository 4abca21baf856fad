//! How Inspect AI's built-in scorers read a sample in the version that gave
//! its score. The verifier recomputes the newest behaviour and each older
//! one that differs from it; where an older version read text by rules the
//! verifier does not recompute (Unicode digits and fractions as numbers
//! before 0.3.221, `infinity` in `exact` and `f1`), the score is left as
//! could not be checked, naming why, never passed or failed on another
//! version's reading.
//!
//! Each boundary below is the first release with the newer behaviour, read
//! from Inspect's released sources.

use super::version::Version;

/// The scorer behaviour of one Inspect AI version; a log that does not say
/// which version wrote it is read with the newest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Era(pub Option<Version>);

impl Era {
    fn at_least(&self, minor: u32, patch: u32) -> bool {
        self.0.is_none_or(|v| v >= Version(0, minor, patch))
    }

    /// Whether this is release 0.3.`patch` or later.
    pub fn since(&self, patch: u32) -> bool {
        self.at_least(3, patch)
    }

    /// `casefold()` for case-insensitive comparison (0.3.43), not `lower()`.
    pub fn casefolds(&self) -> bool {
        self.at_least(3, 43)
    }

    /// `includes()` records the folded completion as its answer and tests
    /// containment (0.3.43); before, the completion as it was.
    pub fn includes_answer_folded(&self) -> bool {
        self.at_least(3, 43)
    }

    /// The value `pattern()` and `answer()` give when the pattern does not
    /// match: `N` from 0.3.206 to 0.3.260, `I` before and after.
    pub fn no_match_value(&self) -> &'static str {
        if self.at_least(3, 206) && !self.at_least(3, 261) {
            "N"
        } else {
            "I"
        }
    }

    /// A pattern without groups is judged on its whole match (0.3.262);
    /// before, it found no group to compare.
    pub fn whole_match_without_groups(&self) -> bool {
        self.at_least(3, 262)
    }

    /// With `match_all` and no group that matched, the score is `I` (0.3.245);
    /// before, `C` with the targets as the answer.
    pub fn match_all_needs_a_group(&self) -> bool {
        self.at_least(3, 245)
    }

    /// The option of `answer()` naming the kind: `pattern` from 0.3.63, `type` before.
    pub fn answer_option(&self) -> &'static str {
        if self.at_least(3, 63) {
            "pattern"
        } else {
            "type"
        }
    }

    /// `answer("word")` reads any run of non-space characters to a line's
    /// end (0.3.206); before, word characters.
    pub fn word_is_any_run(&self) -> bool {
        self.at_least(3, 206)
    }

    /// `answer("letter")` and `answer("word")` read the last `ANSWER:` (0.3.221).
    pub fn reads_last_answer(&self) -> bool {
        self.at_least(3, 221)
    }

    /// `answer("line")` must end the output (0.3.160).
    pub fn line_ends_output(&self) -> bool {
        self.at_least(3, 160)
    }

    /// Numbers keep their point when only punctuation at their ends is
    /// removed, and `exact` compares the normalized texts (0.3.253); before,
    /// every punctuation mark went and `exact` compared sets of words.
    pub fn exact_compares_text(&self) -> bool {
        self.at_least(3, 253)
    }

    /// `f1` counts repeated words (0.3.270); before, each word once.
    pub fn f1_counts_repeats(&self) -> bool {
        self.at_least(3, 270)
    }

    /// Targets that normalize to nothing are skipped (0.3.277).
    pub fn skips_empty_targets(&self) -> bool {
        self.at_least(3, 277)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_match_value_was_n_from_0_3_206_to_0_3_260() {
        let at = |p| Era(Some(Version(0, 3, p))).no_match_value();
        assert_eq!([at(205), at(206), at(260), at(261)], ["I", "N", "N", "I"]);
        assert_eq!(Era(None).no_match_value(), "I");
    }
}
