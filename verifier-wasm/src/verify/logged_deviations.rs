//! The deviations the log tells, held to `deviations.json`: a reader reads
//! the log's words, the verifier the record's, so the two must say the same.
//!
//! After the pre-registration's end marker, the log's `## Deviations`
//! section lists each deviation as `- <logged_at>: <reason>`, as
//! `deviations.json` records it; a deviation the log leaves out, words the
//! log gives a deviation that the record does not, or a bullet that is no
//! recorded deviation, fails.

use crate::model::{Deviations, Experiment};
use crate::plural::count;

use super::Receipt;

/// The heading the log lists its deviations under.
const HEADING: &str = "## Deviations";

/// The receipt that the log lists exactly the deviations `deviations.json`
/// records; none for an experiment not pre-registered (its log has no
/// appended part) or one with neither deviations nor a section listing any.
pub(super) fn logged_deviations(
    dir: &str,
    experiment: &Experiment,
    log: &str,
    deviations: Option<&Deviations>,
) -> Option<Receipt> {
    let p = experiment.preregistration.as_ref()?;
    let appended =
        crate::prereg::preregistered_part(log, &p.end_marker).map_or("", |part| &log[part.len()..]);
    let bullets = section_bullets(appended);
    let recorded: Vec<String> = deviations
        .map(|d| {
            d.deviations
                .iter()
                .map(|d| format!("{}: {}", d.logged_at, d.reason))
                .collect()
        })
        .unwrap_or_default();
    if bullets.is_empty() && recorded.is_empty() {
        return None;
    }
    let subject = format!("{dir}/{}", p.log);
    let claim = "deviations as deviations.json records them";
    let shown = format!("{} listed", count(bullets.len(), "deviation", None));
    let missing = deviations
        .into_iter()
        .flat_map(|d| &d.deviations)
        .find(|d| {
            let line = format!("{}: {}", d.logged_at, d.reason);
            !bullets.contains(&line.as_str())
        });
    let problem = if let Some(d) = missing {
        Some(format!(
            "deviations.json records {} ({}), which the log's `{HEADING}` does not list as `- {}: <its reason>` with its reason as recorded",
            d.id, d.logged_at, d.logged_at
        ))
    } else {
        bullets
            .iter()
            .find(|b| !recorded.iter().any(|r| r == *b))
            .map(|b| {
                format!(
                    "the log lists `{}`, which is no deviation deviations.json records",
                    cut(b)
                )
            })
    };
    Some(match problem {
        None => Receipt::new(
            &subject,
            claim,
            shown,
            format!("each of the {} recorded, word for word", recorded.len()),
            true,
        ),
        Some(why) => Receipt::new(&subject, claim, shown, why, false),
    })
}

/// The bullets (`- …`, the marker dropped) of the `## Deviations` section
/// of `text`: from its heading to the next heading of its level or above.
fn section_bullets(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim_end() == HEADING {
            inside = true;
            continue;
        }
        if inside && (line.starts_with("# ") || line.starts_with("## ")) {
            inside = false;
        }
        if let Some(bullet) = line.strip_prefix("- ").filter(|_| inside) {
            out.push(bullet.trim_end());
        }
    }
    out
}

/// `text` cut to 80 characters, for a message.
fn cut(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Status;

    const MARKER: &str = "<!-- end of pre-registration: deviations are appended below -->";

    fn experiment() -> Experiment {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../experiments/E02/experiment.json");
        serde_json::from_slice(&std::fs::read(path).expect("experiment")).expect("parses")
    }

    fn deviations() -> Deviations {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../experiments/E02/deviations.json");
        serde_json::from_slice(&std::fs::read(path).expect("deviations")).expect("parses")
    }

    fn log() -> String {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/E02/LOG.md");
        std::fs::read_to_string(path).expect("log")
    }

    fn judged(log: &str, d: Option<&Deviations>) -> Option<Receipt> {
        logged_deviations("E02", &experiment(), log, d)
    }

    #[test]
    fn the_sample_lists_its_deviations_word_for_word() {
        let r = judged(&log(), Some(&deviations())).expect("a receipt");
        assert_eq!(r.status, Status::Pass, "{}", r.recomputed);
        assert_eq!(r.recorded, "2 deviations listed");
    }

    #[test]
    fn a_log_that_tells_a_deviation_otherwise_leaves_one_out_or_adds_one_fails() {
        // The reader's version softened; the record's left as it was.
        let softened = log().replace(
            "The token ledger stopped run `E02-shipping-rule-careful-s1-always-large`",
            "A routine restart of run `E02-shipping-rule-careful-s1-always-large`",
        );
        let r = judged(&softened, Some(&deviations())).expect("a receipt");
        assert_eq!(r.status, Status::Fail);
        assert!(
            r.recomputed.starts_with("deviations.json records D1"),
            "{}",
            r.recomputed
        );
        // One left out of the log.
        let text = log();
        let first = text
            .lines()
            .find(|l| {
                l.starts_with("- 2026-")
                    && l.contains("`E02-shipping-rule-careful-s1-always-large`")
            })
            .expect("a bullet");
        let dropped = text.replace(&format!("{first}\n"), "");
        let r = judged(&dropped, Some(&deviations())).expect("a receipt");
        assert!(
            r.recomputed.starts_with("deviations.json records D1"),
            "{}",
            r.recomputed
        );
        // One the record does not hold, or a log that lists deviations of
        // an experiment that records none.
        let added = format!("{text}- 2026-10-28T14:00:00Z: nothing to see\n");
        let r = judged(&added, Some(&deviations())).expect("a receipt");
        assert!(
            r.recomputed
                .starts_with("the log lists `2026-10-28T14:00:00Z: nothing to see`"),
            "{}",
            r.recomputed
        );
        let r = judged(&text, None).expect("a receipt");
        assert_eq!(r.status, Status::Fail);
        // A deviation written before the marker is not in the appended part.
        let moved = text.replacen(
            MARKER,
            &format!("## Deviations\n\n- {first}\n\n{MARKER}"),
            1,
        );
        let moved = moved.replace(&format!("{first}\n"), "");
        assert!(judged(&moved, Some(&deviations())).is_some_and(|r| r.status == Status::Fail));
        // No deviations, and no section: nothing to hold.
        let bare = &text[..text.find(MARKER).expect("marker") + MARKER.len() + 1];
        assert!(judged(bare, None).is_none());
    }
}
