//! Counts as people write them: `1 task`, `2 policies`, one wording for
//! the verifier's receipts and the site's pages alike.

/// `n` and its noun, singular for one: `1 task`, `2 tasks`, `3 policies`.
/// `plural` names an irregular plural.
pub fn count(n: usize, noun: &str, plural: Option<&str>) -> String {
    if n == 1 {
        return format!("{n} {noun}");
    }
    match plural {
        Some(p) => format!("{n} {p}"),
        None => format!("{n} {}", plural_of(noun)),
    }
}

/// `noun` in the plural by the regular rules: `policy` → `policies`,
/// `box` → `boxes`, `run` → `runs` (`epoch` → `epochs`: a plural the rules
/// would miss, `match` → `matches`, is named by the caller). Of several
/// words the last is.
pub fn plural_of(noun: &str) -> String {
    let vowel_before_y = noun
        .strip_suffix('y')
        .and_then(|stem| stem.chars().last())
        .is_some_and(|c| "aeiou".contains(c));
    if let Some(stem) = noun.strip_suffix('y').filter(|_| !vowel_before_y) {
        format!("{stem}ies")
    } else if ["s", "x", "z", "sh"].iter().any(|e| noun.ends_with(e)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_their_noun_in_the_right_number() {
        assert_eq!(count(1, "task", None), "1 task");
        assert_eq!(count(0, "task", None), "0 tasks");
        assert_eq!(count(2, "policy", None), "2 policies");
        assert_eq!(count(1, "policy", None), "1 policy");
        assert_eq!(count(3, "day", None), "3 days");
        assert_eq!(count(2, "epoch", None), "2 epochs");
        assert_eq!(count(2, "match", Some("matches")), "2 matches");
        assert_eq!(count(2, "model call", None), "2 model calls");
        assert_eq!(count(2, "sample-epoch", None), "2 sample-epochs");
    }
}
