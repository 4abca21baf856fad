//! The runs index: pages of rows readable without JavaScript, and the same
//! rows as JSON in parts for filtering and sorting in the browser.

use serde::Serialize;

use super::RunRow;

/// Rows per page of the runs index.
pub const PAGE_ROWS: usize = 500;
/// Rows per part of the JSON index.
pub const PART_ROWS: usize = 2000;

/// Where page `n` (from 1) of the runs index lives.
pub fn page_href(n: usize) -> String {
    if n == 1 {
        "runs/index.html".to_string()
    } else {
        format!("runs/page-{n}.html")
    }
}

/// One page of the index.
#[derive(Debug, Clone, Serialize)]
pub struct IndexPage {
    pub number: usize,
    pub pages: usize,
    pub total: usize,
    pub first: usize,
    pub rows: Vec<RunRow>,
    pub links: Vec<PageLink>,
    /// The filter choices, for the form.
    pub experiments: Vec<String>,
    pub tasks: Vec<String>,
    pub profiles: Vec<String>,
    /// In numeric order.
    pub seeds: Vec<u64>,
    pub policies: Vec<String>,
    pub tiers: Vec<String>,
    /// The JSON parts, relative to the site root.
    pub parts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PageLink {
    pub number: usize,
    pub href: String,
    pub current: bool,
}

/// A run as a compact JSON array, in [`COLUMNS`] order.
pub type Compact = (
    String,
    String,
    String,
    String,
    u64,
    String,
    String,
    bool,
    f64,
    f64,
    f64,
    String,
    String,
    bool,
    bool,
);

/// The names of a compact row's fields, written once in the index.
pub const COLUMNS: [&str; 15] = [
    "id",
    "experiment",
    "task",
    "profile",
    "seed",
    "policy",
    "tiers",
    "passed",
    "cost_low",
    "cost_high",
    "time_s",
    "replaces",
    "verified",
    "truncated",
    "lost_usage",
];

pub fn compact(r: &RunRow) -> Compact {
    (
        r.id.clone(),
        r.experiment.clone(),
        r.task.clone(),
        r.profile.clone(),
        r.seed,
        r.policy.clone(),
        r.tiers.clone(),
        r.passed,
        to_nano_dollars(r.cost.low),
        to_nano_dollars(r.cost.high),
        r.time_s,
        r.replaces.clone(),
        r.verified.clone(),
        r.truncated,
        r.lost_usage,
    )
}

/// A cost as the index sorts and shows it (to $0.0001), kept to the
/// billionth of a dollar: a sum of per-call costs such as
/// 0.006150720000000001 is written 0.00615072.
fn to_nano_dollars(cost: f64) -> f64 {
    (cost * 1e9).round() / 1e9
}

/// Splits the rows into pages, with the choices the filters offer.
pub fn pages(rows: &[RunRow], parts: usize) -> Vec<IndexPage> {
    let sorted_unique = |f: &dyn Fn(&RunRow) -> Vec<String>| {
        let mut v: Vec<String> = rows.iter().flat_map(f).collect();
        v.sort();
        v.dedup();
        v
    };
    let experiments = sorted_unique(&|r| vec![r.experiment.clone()]);
    let tasks = sorted_unique(&|r| vec![r.task.clone()]);
    let profiles = sorted_unique(&|r| vec![r.profile.clone()]);
    let mut seeds: Vec<u64> = rows.iter().map(|r| r.seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    let policies = sorted_unique(&|r| vec![r.policy.clone()]);
    let tiers = sorted_unique(&|r| r.tiers.split(" → ").map(str::to_string).collect());
    let count = rows.len().div_ceil(PAGE_ROWS).max(1);
    (1..=count)
        .map(|n| IndexPage {
            number: n,
            pages: count,
            total: rows.len(),
            first: (n - 1) * PAGE_ROWS + 1,
            rows: rows
                .iter()
                .skip((n - 1) * PAGE_ROWS)
                .take(PAGE_ROWS)
                .cloned()
                .collect(),
            links: (1..=count)
                .map(|m| PageLink {
                    number: m,
                    href: page_href(m),
                    current: m == n,
                })
                .collect(),
            experiments: experiments.clone(),
            tasks: tasks.clone(),
            profiles: profiles.clone(),
            seeds: seeds.clone(),
            policies: policies.clone(),
            tiers: tiers.clone(),
            parts: (0..parts)
                .map(|i| format!("runs/rows-{}.json", i + 1))
                .collect(),
        })
        .collect()
}
