//! Charts as SVG, made at build time: pass rate against cost per policy, time
//! distribution per policy, cost by tier, served throughput over time, and
//! a run's timeline of attempts and calls ([`timeline`]). Colours
//! come from the stylesheet's classes, so the charts follow light and dark
//! mode; every chart has a title and a description, and its numbers are also
//! in a table on the same page.

use std::fmt::Write;

use crate::escape::html as esc;
use crate::numbers;

mod timeline;
pub use timeline::{run_timeline, TimelineCall, TimelineRow};

/// A chart's frame: size, margins and linear scales.
struct Frame {
    width: f64,
    height: f64,
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x: (f64, f64),
    y: (f64, f64),
}

/// The height of one row of a chart drawn in rows.
const ROW_HEIGHT: f64 = 34.0;

impl Frame {
    /// A chart of `rows` rows, their labels in a `left` margin, over `x`.
    fn rows(rows: usize, left: f64, x: (f64, f64)) -> Frame {
        Frame {
            width: 640.0,
            height: 44.0 + 16.0 + ROW_HEIGHT * rows as f64,
            left,
            right: 24.0,
            top: 16.0,
            bottom: 44.0,
            x,
            y: (0.0, rows as f64),
        }
    }

    fn px(&self, x: f64) -> f64 {
        let (lo, hi) = self.x;
        let span = if hi > lo { hi - lo } else { 1.0 };
        self.left + (x - lo) / span * (self.width - self.left - self.right)
    }

    fn py(&self, y: f64) -> f64 {
        let (lo, hi) = self.y;
        let span = if hi > lo { hi - lo } else { 1.0 };
        self.height - self.bottom - (y - lo) / span * (self.height - self.top - self.bottom)
    }

    /// Opens the SVG with its accessible title and description.
    fn open(&self, id: &str, title: &str, desc: &str) -> String {
        format!(
            "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{t}</title><desc id=\"{id}-d\">{d}</desc>",
            w = self.width,
            h = self.height,
            t = esc(title),
            d = esc(desc)
        )
    }

    /// Axes with ticks and labels; `y_ticks` false for a chart whose rows
    /// are categories, which labels them itself.
    fn axes(&self, out: &mut String, x_label: &str, y_label: &str, y_ticks: bool) {
        let (x0, x1) = (self.left, self.width - self.right);
        let (y0, y1) = (self.height - self.bottom, self.top);
        let _ = write!(out, "<g class=\"axis\"><line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\"/><line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\"/>");
        let x_ticks = numbers::ticks(self.x.0, self.x.1);
        let last = x_ticks.values.len().saturating_sub(1);
        for (i, (xv, label)) in x_ticks.values.iter().zip(&x_ticks.labels).enumerate() {
            let px = self.px(*xv);
            // The end ticks' labels stay inside the axis: the first clears
            // the y axis's labels, the last the chart's right edge.
            let anchor = match i {
                0 => "start",
                i if i == last => "end",
                _ => "middle",
            };
            let _ = write!(
                out,
                "<text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>",
                y0 + 16.0,
                esc(label)
            );
        }
        let y_ticks = if y_ticks {
            numbers::ticks(self.y.0, self.y.1)
        } else {
            numbers::Ticks::default()
        };
        for (yv, label) in y_ticks.values.iter().zip(&y_ticks.labels) {
            let py = self.py(*yv);
            let _ = write!(
                out,
                "<line class=\"grid\" x1=\"{x0}\" y1=\"{py:.1}\" x2=\"{x1}\" y2=\"{py:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                x0 - 6.0,
                py + 4.0,
                esc(label)
            );
        }
        let _ = write!(
            out,
            "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text class=\"label\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text></g>",
            (x0 + x1) / 2.0,
            self.height - 6.0,
            esc(x_label),
            (y0 + y1) / 2.0,
            esc(y_label)
        );
    }
}

/// A range with round ends that covers `values` (and zero when
/// `from_zero`), each end a tick of the axis.
fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if from_zero {
        lo = lo.min(0.0);
    }
    numbers::axis_range(lo, hi)
}

/// One policy on the pass-rate-against-cost chart.
pub struct PolicyPoint {
    pub label: String,
    pub pass_rate: f64,
    pub spread: f64,
    pub cost_low: f64,
    pub cost_high: f64,
}

/// Pass rate (with its spread across seeds) against cost per task (with its bound), one point per policy.
pub fn pass_rate_against_cost(id: &str, points: &[PolicyPoint]) -> String {
    let f = Frame {
        width: 640.0,
        height: 320.0,
        left: 56.0,
        right: 24.0,
        top: 16.0,
        bottom: 44.0,
        x: range(points.iter().flat_map(|p| [p.cost_low, p.cost_high]), true),
        y: (0.0, 100.0),
    };
    let desc: Vec<String> = points
        .iter()
        .map(|p| {
            format!(
                "{}: {:.1}% ± {:.1} at {}",
                p.label,
                p.pass_rate,
                p.spread,
                numbers::usd_range(p.cost_low, p.cost_high)
            )
        })
        .collect();
    let mut out = f.open(
        id,
        "Tasks passed against cost per task, per policy",
        &desc.join("; "),
    );
    f.axes(&mut out, "cost per task (USD)", "tasks passed (%)", true);
    let centres: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (f.px((p.cost_low + p.cost_high) / 2.0), f.py(p.pass_rate)))
        .collect();
    let labels: Vec<&str> = points.iter().map(|p| p.label.as_str()).collect();
    let placed = place_labels(&centres, &labels, &f);
    for (i, p) in points.iter().enumerate() {
        let (x, y) = centres[i];
        let (lx, ly, anchor) = placed[i];
        let _ = write!(
            out,
            "<g class=\"series s{}\"><line class=\"bound\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/><line class=\"bound\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">{}</text></g>",
            i % 6,
            f.px(p.cost_low),
            f.px(p.cost_high),
            f.py((p.pass_rate - p.spread).max(0.0)),
            f.py((p.pass_rate + p.spread).min(100.0)),
            lx,
            ly,
            anchor,
            esc(&p.label)
        );
    }
    out.push_str("</svg>");
    out
}

/// The width of `text` at the charts' 11px font, overestimated a little
/// (SVG text is measured only by the browser).
fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 7.0 + 2.0
}

/// Where each point's label goes: beside its point (to the left near the
/// right edge), a line above it, or moved up or down line by line until it
/// clears the labels placed before it and stays inside the chart. Returns
/// each label's x, baseline y and `text-anchor`.
fn place_labels(
    centres: &[(f64, f64)],
    labels: &[&str],
    f: &Frame,
) -> Vec<(f64, f64, &'static str)> {
    // A line of 11px text stands about 13.5 tall as browsers measure it:
    // labels stacked 15 apart keep a gap at any scale the chart is drawn.
    const LINE: f64 = 15.0;
    let mut boxes: Vec<(f64, f64, f64, f64)> = Vec::new();
    let mut out = Vec::new();
    for (&(x, y), label) in centres.iter().zip(labels) {
        let w = text_width(label);
        let left = x > f.width * 0.7;
        let (lx, anchor, x0) = if left {
            (x - 8.0, "end", x - 8.0 - w)
        } else {
            (x + 8.0, "start", x + 8.0)
        };
        let boxed = |ly: f64| (x0, ly - 11.0, x0 + w, ly + 4.0);
        let clear = |b: &(f64, f64, f64, f64)| {
            b.1 >= 0.0
                && b.3 <= f.height
                && boxes
                    .iter()
                    .all(|o| b.2 <= o.0 || o.2 <= b.0 || b.3 <= o.1 || o.3 <= b.1)
        };
        // Above the point first, then below, then alternately further away.
        let tries = (0..12).map(|k| {
            let steps = (k / 2) as f64;
            if k % 2 == 0 {
                y - 8.0 - steps * LINE
            } else {
                y + 16.0 + steps * LINE
            }
        });
        let ly = tries
            .map(|ly| (ly, boxed(ly)))
            .find(|(_, b)| clear(b))
            .map_or(y - 8.0, |(ly, _)| ly);
        boxes.push(boxed(ly));
        out.push((lx, ly, anchor));
    }
    out
}

/// At most `max` of `items`, evenly spaced, so large experiments keep small charts.
fn thin<T>(items: &[T], max: usize) -> impl Iterator<Item = &T> {
    let step = items.len().div_ceil(max.max(1)).max(1);
    items.iter().step_by(step)
}

/// Dots drawn per row of the time chart, and points on the throughput chart.
const MAX_DOTS: usize = 300;
const MAX_POINTS: usize = 1500;

/// Each run's time, one row of dots per policy, with the median marked. A
/// row with more than a few hundred runs shows an even sample of them.
pub fn time_distribution(id: &str, rows: &[(String, Vec<f64>)]) -> String {
    let f = Frame::rows(
        rows.len(),
        150.0,
        range(rows.iter().flat_map(|(_, xs)| xs.iter().copied()), true),
    );
    let desc: Vec<String> = rows
        .iter()
        .map(|(label, xs)| {
            format!(
                "{label}: {}, median {:.1} s",
                numbers::count(xs.len(), "run", None),
                receipts_verifier::numbers::median(xs)
            )
        })
        .collect();
    let mut out = f.open(id, "Time per run, per policy", &desc.join("; "));
    f.axes(&mut out, "seconds per run", "", false);
    for (i, (label, xs)) in rows.iter().enumerate() {
        let y = f.py(rows.len() as f64 - i as f64 - 0.5);
        let _ = write!(
            out,
            "<g class=\"series s{}\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            i % 6,
            f.left - 8.0,
            y + 4.0,
            esc(label)
        );
        let mut sorted = xs.clone();
        sorted.sort_by(f64::total_cmp);
        for (j, x) in thin(&sorted, MAX_DOTS).enumerate() {
            // A small deterministic jitter keeps equal times apart.
            let jitter = ((j * 7) % 11) as f64 - 5.0;
            let _ = write!(
                out,
                "<circle class=\"dot\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"/>",
                f.px(*x),
                y + jitter
            );
        }
        let m = f.px(receipts_verifier::numbers::median(xs));
        let _ = write!(
            out,
            "<line class=\"median\" x1=\"{m:.1}\" y1=\"{:.1}\" x2=\"{m:.1}\" y2=\"{:.1}\"/></g>",
            y - 12.0,
            y + 12.0
        );
    }
    out.push_str("</svg>");
    out
}

/// Total cost per tier as bars; the part of a bound above its low end is drawn apart.
pub fn cost_by_tier(id: &str, bars: &[(String, f64, f64)]) -> String {
    let f = Frame::rows(
        bars.len(),
        150.0,
        range(bars.iter().map(|(_, _, high)| *high), true),
    );
    let desc: Vec<String> = bars
        .iter()
        .map(|(l, lo, hi)| format!("{l}: {}", numbers::usd_range(*lo, *hi)))
        .collect();
    let mut out = f.open(id, "Total cost per tier", &desc.join("; "));
    f.axes(&mut out, "total cost (USD)", "", false);
    for (i, (label, low, high)) in bars.iter().enumerate() {
        let y = f.py(bars.len() as f64 - i as f64 - 0.5);
        let (x0, xl, xh) = (f.px(0.0), f.px(*low), f.px(*high));
        let _ = write!(
            out,
            "<g class=\"series s{}\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"18\"/><rect class=\"unknown\" x=\"{xl:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"18\"/></g>",
            i % 6,
            f.left - 8.0,
            y + 4.0,
            esc(label),
            y - 9.0,
            (xl - x0).max(0.0),
            y - 9.0,
            (xh - xl).max(0.0)
        );
    }
    out.push_str("</svg>");
    out
}

/// One provider call on the throughput chart.
pub struct CallPoint {
    pub series: usize,
    pub minutes: f64,
    pub tokens_per_second: f64,
}

/// Served throughput of each call with known usage against when it started.
pub fn throughput_over_time(id: &str, series: &[String], points: &[CallPoint]) -> String {
    let f = Frame {
        width: 640.0,
        height: 320.0,
        left: 56.0,
        right: 24.0,
        top: 28.0,
        bottom: 44.0,
        x: range(points.iter().map(|p| p.minutes), true),
        y: range(points.iter().map(|p| p.tokens_per_second), true),
    };
    let mut out = f.open(
        id,
        "Served throughput of each provider call over the experiment",
        &format!(
            "{} with known usage, coloured by tier: {}",
            numbers::count(points.len(), "call", None),
            series.join(", ")
        ),
    );
    f.axes(
        &mut out,
        "minutes since the first call",
        "completion tokens per second",
        true,
    );
    for p in thin(points, MAX_POINTS) {
        let _ = write!(
            out,
            "<circle class=\"dot series s{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\"/>",
            p.series % 6,
            f.px(p.minutes),
            f.py(p.tokens_per_second)
        );
    }
    for (i, name) in series.iter().enumerate() {
        let x = f.left + 10.0 + 130.0 * i as f64;
        let _ = write!(out, "<g class=\"series s{}\"><circle cx=\"{x:.1}\" cy=\"12\" r=\"5\"/><text x=\"{:.1}\" y=\"16\">{}</text></g>", i % 6, x + 9.0, esc(name));
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped() {
        let svg = pass_rate_against_cost(
            "c",
            &[PolicyPoint {
                label: "<script>x</script>".into(),
                pass_rate: 50.0,
                spread: 5.0,
                cost_low: 0.1,
                cost_high: 0.2,
            }],
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
    }

    #[test]
    fn labels_of_close_points_do_not_overlap() {
        let f = Frame {
            width: 640.0,
            height: 320.0,
            left: 56.0,
            right: 24.0,
            top: 16.0,
            bottom: 44.0,
            x: (0.0, 1.0),
            y: (0.0, 100.0),
        };
        // Two of them on one point, as tier memory that never applied is
        // on the ladder's.
        let centres = [
            (300.0, 150.0),
            (310.0, 152.0),
            (305.0, 149.0),
            (300.0, 150.0),
        ];
        let labels = ["ladder", "speculative", "always-large", "tier-memory"];
        let placed = place_labels(&centres, &labels, &f);
        let boxes: Vec<_> = placed
            .iter()
            .zip(labels)
            .map(|(&(x, y, _), l)| (x, y - 10.0, x + text_width(l), y + 3.0))
            .collect();
        // Apart, and stacked ones with a gap between their lines of text.
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                let apart = a.2 <= b.0 || b.2 <= a.0 || a.3 + 1.5 <= b.1 || b.3 + 1.5 <= a.1;
                assert!(apart, "{a:?} overlaps {b:?}");
            }
        }
        // A lone point keeps its label just above it.
        assert_eq!(
            place_labels(&[(100.0, 100.0)], &["x"], &f),
            [(108.0, 92.0, "start")]
        );
    }

    #[test]
    fn empty_charts_do_not_panic() {
        assert!(pass_rate_against_cost("a", &[]).ends_with("</svg>"));
        assert!(time_distribution("b", &[]).ends_with("</svg>"));
        assert!(cost_by_tier("c", &[]).ends_with("</svg>"));
        assert!(throughput_over_time("d", &[], &[]).ends_with("</svg>"));
    }
}
