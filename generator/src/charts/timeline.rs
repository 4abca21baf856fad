//! A run's timeline: one row per attempt on one time axis from the run's
//! start, each provider call a bar at its time and as long as it took,
//! linked to the turn it produced. The gaps between bars are the agent's
//! own time: tools running, checks, waiting.

use std::fmt::Write;

use super::{range, Frame};
use crate::escape::html as esc;

/// One attempt on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    /// The row's label, as short as "Attempt 2".
    pub label: String,
    /// What the row is, in words, for the chart's description.
    pub title: String,
    /// Seconds from the run's start to the attempt's.
    pub start_s: f64,
    pub duration_s: f64,
    pub calls: Vec<TimelineCall>,
}

/// One provider call on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineCall {
    /// Seconds from the attempt's start.
    pub start_s: f64,
    pub seconds: f64,
    /// The fragment of the row in the turns table that shows the call.
    pub anchor: String,
    /// The turn and call in words: the bar's accessible name and tooltip.
    pub label: String,
    pub failed: bool,
}

/// The narrowest a bar is drawn, in chart units, so a fast call stays visible and clickable.
const MIN_BAR: f64 = 3.0;

/// The timeline of a run's attempts; `None` when no call has a time.
pub fn run_timeline(id: &str, rows: &[TimelineRow]) -> Option<String> {
    if rows.iter().all(|r| r.calls.is_empty()) {
        return None;
    }
    let ends = rows.iter().flat_map(|r| {
        let calls = r.calls.iter().map(|c| r.start_s + c.start_s + c.seconds);
        calls.chain([r.start_s + r.duration_s])
    });
    let f = Frame::rows(rows.len(), 80.0, range(ends, true));
    let desc: Vec<String> = rows
        .iter()
        .map(|r| {
            let failed = r.calls.iter().filter(|c| c.failed).count();
            format!(
                "{}: from +{:.1} s for {:.1} s, {} call{}{}",
                r.title,
                r.start_s,
                r.duration_s,
                r.calls.len(),
                if r.calls.len() == 1 { "" } else { "s" },
                if failed > 0 {
                    format!(", {failed} failed")
                } else {
                    String::new()
                }
            )
        })
        .collect();
    // Not an image: each bar is a link to its turn.
    let mut out = format!(
        "<svg class=\"chart timeline\" viewBox=\"0 0 {w} {h}\" role=\"group\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{t}</title><desc id=\"{id}-d\">{d}</desc>",
        w = f.width,
        h = f.height,
        t = "Each attempt's provider calls at their time from the run's start",
        d = esc(&desc.join("; "))
    );
    f.axes(&mut out, "seconds from the run's start", "", false);
    for (i, r) in rows.iter().enumerate() {
        let y = f.py(rows.len() as f64 - i as f64 - 0.5);
        let (x0, x1) = (f.px(r.start_s), f.px(r.start_s + r.duration_s));
        let _ = write!(
            out,
            "<g class=\"attempt\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect class=\"span\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"4\"/>",
            f.left - 8.0,
            y + 4.0,
            esc(&r.label),
            y - 2.0,
            (x1 - x0).max(0.0)
        );
        for c in &r.calls {
            let start = r.start_s + c.start_s;
            let (a, b) = (f.px(start), f.px(start + c.seconds));
            let _ = write!(
                out,
                "<a href=\"#{}\" aria-label=\"{label}\"><title>{label}</title><rect class=\"call{}\" x=\"{a:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"18\"/></a>",
                esc(&c.anchor),
                if c.failed { " fail" } else { "" },
                y - 9.0,
                (b - a).max(MIN_BAR),
                label = esc(&c.label),
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(start_s: f64, seconds: f64, anchor: &str, failed: bool) -> TimelineCall {
        TimelineCall {
            start_s,
            seconds,
            anchor: anchor.to_string(),
            label: format!("call at {start_s} <b>"),
            failed,
        }
    }

    fn row(label: &str, start_s: f64, duration_s: f64, calls: Vec<TimelineCall>) -> TimelineRow {
        TimelineRow {
            label: label.to_string(),
            title: format!("{label} on tier <x>"),
            start_s,
            duration_s,
            calls,
        }
    }

    /// The x of each bar, in the order drawn.
    fn bars(svg: &str) -> Vec<f64> {
        svg.split("<rect class=\"call")
            .skip(1)
            .map(|s| {
                let x = s.split("x=\"").nth(1).unwrap();
                x[..x.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    #[test]
    fn no_call_no_timeline() {
        assert_eq!(
            run_timeline("t", &[row("Attempt 1", 0.0, 5.0, vec![])]),
            None
        );
        assert_eq!(run_timeline("t", &[]), None);
    }

    #[test]
    fn bars_sit_at_their_time_from_the_run_start_and_link_to_their_turn() {
        let svg = run_timeline(
            "t",
            &[
                row(
                    "Attempt 1",
                    0.0,
                    10.0,
                    vec![
                        call(0.0, 2.0, "turn-1", false),
                        call(5.0, 1.0, "turn-2", true),
                    ],
                ),
                row(
                    "Attempt 2",
                    10.0,
                    10.0,
                    vec![call(5.0, 1.0, "attempt-2-turn-1", false)],
                ),
            ],
        )
        .unwrap();
        let x = bars(&svg);
        assert_eq!(x.len(), 3);
        // The second attempt's call at +5 s of an attempt starting at +10 s
        // sits at +15 s: three times as far from the axis as +5 s.
        let origin = x[0];
        assert!(
            ((x[2] - origin) - 3.0 * (x[1] - origin)).abs() < 0.2,
            "{x:?}"
        );
        assert!(svg.contains("href=\"#turn-2\""));
        assert!(svg.contains("href=\"#attempt-2-turn-1\""));
        assert_eq!(svg.matches("class=\"call fail\"").count(), 1);
        assert!(svg.contains("Attempt 2 on tier &lt;x&gt;: from +10.0 s for 10.0 s, 1 call"));
        assert!(svg.contains("2 calls, 1 failed"));
    }

    #[test]
    fn untrusted_labels_stay_inert() {
        let svg = run_timeline(
            "t",
            &[row("<i>", 0.0, 1.0, vec![call(0.0, 0.5, "a\"b", false)])],
        )
        .unwrap();
        assert!(!svg.contains("<b>") && !svg.contains("<i>") && !svg.contains("a\"b"));
        assert!(svg.contains("&lt;b&gt;") && svg.contains("&lt;i&gt;"));
    }

    #[test]
    fn a_fast_call_stays_wide_enough_to_click() {
        let svg = run_timeline(
            "t",
            &[row(
                "Attempt 1",
                0.0,
                1000.0,
                vec![call(1.0, 0.001, "turn-1", false)],
            )],
        )
        .unwrap();
        assert!(
            svg.contains(&format!("width=\"{MIN_BAR:.1}\" height=\"18\"")),
            "{svg}"
        );
    }
}
