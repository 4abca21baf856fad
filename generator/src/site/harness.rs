//! Harness suites: a suite's page (its rules, a leaderboard of agents and
//! every run's report) and each run's report page (figures published beside
//! recomputed, and the events they come from).

use serde::Serialize;

use receipts_verifier::layout;
use receipts_verifier::model::{
    ArgCheck, ArgRule, CallStatus, Decision, HarnessEvent, HarnessRun, HarnessSuite,
};
use receipts_verifier::verify::{
    allowed, figures, HarnessFigures, Receipt, Status, SuiteVerification,
};

use super::{label, mark, receipt_cell as cell, worst, Cell, ReceiptView};
use crate::load::LoadedSuite;

pub fn harness_href(suite: &str) -> String {
    format!("harness/{suite}.html")
}
pub fn harness_run_href(suite: &str, run: &str) -> String {
    format!("harness/{suite}/{run}.html")
}

/// The figures of a run's report, in the order pages show them: the
/// receipt's claim and the column heading.
const REPORT: &[(&str, &str)] = &[
    ("report.total_cost_usd", "Cost (USD)"),
    ("report.latency_p50_ms", "Latency p50 (ms)"),
    ("report.latency_p95_ms", "Latency p95 (ms)"),
    ("report.tool_failures", "Tool failures"),
    ("report.egress_blocked", "Egress blocked"),
    ("report.args_refused", "Arguments refused"),
    ("report.tokens_used", "Tokens used"),
    ("report.snapshots", "Snapshots"),
    ("report.aborted_on_budget", "Stopped on budget"),
];

/// An argument rule as the suite page states it.
#[derive(Debug, Clone, Serialize)]
pub struct ArgRuleView {
    pub id: String,
    pub tool: String,
    pub arg: String,
    /// What the argument must be, in words.
    pub must: String,
}

fn arg_rule_view(rule: &ArgRule) -> ArgRuleView {
    let quoted = |items: Vec<String>| {
        items
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let must = match &rule.check {
        ArgCheck::PathUnder { prefixes } => format!(
            "a path under {}, with no `..` segment",
            quoted(prefixes.clone())
        ),
        ArgCheck::OneOf { values } => format!(
            "one of {}",
            quoted(values.iter().map(ToString::to_string).collect())
        ),
        ArgCheck::MaxChars { max } => format!("at most {max} characters"),
    };
    ArgRuleView {
        id: rule.id.clone(),
        tool: rule.tool.clone(),
        arg: rule.arg.clone(),
        must,
    }
}

/// A suite on the results page.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteSummary {
    pub id: String,
    pub title: String,
    pub href: String,
    pub simulated: bool,
    pub runs: usize,
    pub agents: usize,
    pub stopped_on_budget: usize,
    pub receipts: usize,
    pub not_passing: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuiteView {
    pub id: String,
    pub title: String,
    pub simulated: bool,
    pub token_cap: u64,
    pub egress_allowlist: Vec<String>,
    /// The argument rules, each in words.
    pub arg_rules: Vec<ArgRuleView>,
    pub prices: Vec<PriceRow>,
    /// The suite-level receipts (a suite whose id differs from its directory).
    pub suite_receipts: Vec<ReceiptView>,
    pub agents: Vec<LeaderAgent>,
    /// The runs, cheapest first by recomputed cost.
    pub runs: Vec<LeaderRow>,
    pub columns: Vec<&'static str>,
    pub receipts: usize,
    pub not_passing: Vec<ReceiptView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PriceRow {
    pub model: String,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// One agent's runs, recomputed.
#[derive(Debug, Clone, Serialize)]
pub struct LeaderAgent {
    pub rank: usize,
    pub agent: String,
    pub runs: usize,
    /// The median of the runs' recomputed costs (their lower bounds).
    pub median_cost: f64,
    /// Whether a run's cost is a bound (usage lost).
    pub cost_bounded: bool,
    /// The highest p95 latency of the agent's runs.
    pub worst_p95_ms: Option<u64>,
    pub tool_failures: u64,
    pub egress_blocked: u64,
    pub median_tokens: u64,
    pub stopped_on_budget: usize,
    /// Status of the agent's receipts: `pass`, `fail` or `could_not_check`.
    pub verified: String,
    pub mark: String,
}

/// One run on the leaderboard: each published figure with its recomputation.
#[derive(Debug, Clone, Serialize)]
pub struct LeaderRow {
    pub id: String,
    pub href: String,
    pub agent: String,
    pub cells: Vec<Cell>,
    pub verified: String,
    pub mark: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HarnessRunView {
    pub id: String,
    pub suite: String,
    pub suite_title: String,
    pub suite_href: String,
    pub agent: String,
    pub started_at: String,
    pub simulated: bool,
    pub record_href: String,
    pub figures: Vec<FigureRow>,
    pub token_cap: u64,
    /// Tokens whose usage is known.
    pub tokens: u64,
    pub usage_lost: bool,
    /// The index in `events` of the call that reached the cap.
    pub cap_reached_at: Option<usize>,
    pub egress_allowlist: Vec<String>,
    pub events: Vec<EventRow>,
    pub receipts: Vec<ReceiptView>,
    pub not_passing: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FigureRow {
    pub label: &'static str,
    pub cell: Cell,
}

/// One event as the report page's table shows it.
#[derive(Debug, Clone, Serialize)]
pub struct EventRow {
    /// The index in the record's `events`, as receipts name it.
    pub n: usize,
    pub kind: &'static str,
    pub detail: String,
    /// Shown as code: a call's request id, a tool's arguments, a digest.
    pub code: Option<String>,
    pub result: String,
    /// `pass` or `fail` (a failed tool call, a blocked or wrongly decided
    /// egress, a failed call); empty otherwise.
    pub class: &'static str,
    pub latency_ms: Option<u64>,
    /// Prompt + completion tokens, or why unknown.
    pub tokens: Option<String>,
    /// The known tokens so far, after a provider call.
    pub running_total: Option<u64>,
}

/// The lower median: the middle value, or the lower of the two middle ones.
fn median<T: Copy + PartialOrd>(values: &mut [T]) -> Option<T> {
    values.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values.get(values.len().saturating_sub(1) / 2).copied()
}

/// Whether anything of a suite is simulated: the suite or any of its runs.
pub fn suite_simulated(loaded: &LoadedSuite) -> bool {
    loaded.suite.provenance.is_simulated()
        || loaded.runs.iter().any(|r| r.provenance.is_simulated())
}

pub fn suite_summary(loaded: &LoadedSuite, verified: &SuiteVerification) -> SuiteSummary {
    let all: Vec<&Receipt> = verified.all_receipts().collect();
    let agents: std::collections::BTreeSet<&str> =
        loaded.runs.iter().map(|r| r.agent.as_str()).collect();
    SuiteSummary {
        id: loaded.suite.id.clone(),
        title: loaded.suite.title.clone(),
        href: harness_href(&loaded.dir),
        simulated: suite_simulated(loaded),
        runs: loaded.runs.len(),
        agents: agents.len(),
        stopped_on_budget: loaded
            .runs
            .iter()
            .filter(|r| figures(&loaded.suite, r).budget_abort_at.is_some())
            .count(),
        receipts: all.len(),
        not_passing: all.iter().filter(|r| r.status != Status::Pass).count(),
    }
}

pub fn suite_view(loaded: &LoadedSuite, verified: &SuiteVerification) -> SuiteView {
    let suite = &loaded.suite;
    let computed: Vec<HarnessFigures> = loaded.runs.iter().map(|r| figures(suite, r)).collect();
    let low = |f: &HarnessFigures| f.cost.as_ref().map_or(f64::INFINITY, |c| c.low);
    let mut order: Vec<usize> = (0..loaded.runs.len()).collect();
    order.sort_by(|&a, &b| {
        low(&computed[a])
            .total_cmp(&low(&computed[b]))
            .then_with(|| loaded.runs[a].id.cmp(&loaded.runs[b].id))
    });
    let runs = order
        .iter()
        .map(|&i| {
            let run = &loaded.runs[i];
            let receipts = &verified.runs[i];
            let status = worst(receipts);
            LeaderRow {
                id: run.id.clone(),
                href: harness_run_href(&loaded.dir, &run.id),
                agent: run.agent.clone(),
                cells: REPORT.iter().map(|(c, _)| cell(receipts, c)).collect(),
                verified: label(&status),
                mark: mark(status).to_string(),
            }
        })
        .collect();
    let mut names: Vec<&str> = loaded.runs.iter().map(|r| r.agent.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut agents: Vec<LeaderAgent> = names
        .into_iter()
        .map(|agent| {
            let mine: Vec<usize> = (0..loaded.runs.len())
                .filter(|&i| loaded.runs[i].agent == agent)
                .collect();
            let f = |i: &usize| &computed[*i];
            let mut costs: Vec<f64> = mine.iter().map(|i| low(f(i))).collect();
            let mut tokens: Vec<u64> = mine.iter().map(|i| f(i).tokens_known).collect();
            let status = worst(mine.iter().flat_map(|&i| &verified.runs[i]));
            LeaderAgent {
                rank: 0,
                agent: agent.to_string(),
                runs: mine.len(),
                median_cost: median(&mut costs).unwrap_or(0.0),
                cost_bounded: mine
                    .iter()
                    .any(|i| f(i).cost.as_ref().map_or(true, |c| !c.is_exact())),
                worst_p95_ms: mine.iter().filter_map(|i| f(i).latency_p95_ms).max(),
                tool_failures: mine.iter().map(|i| f(i).tool_failures).sum(),
                egress_blocked: mine.iter().map(|i| f(i).egress_blocked).sum(),
                median_tokens: median(&mut tokens).unwrap_or(0),
                stopped_on_budget: mine
                    .iter()
                    .filter(|i| f(i).budget_abort_at.is_some())
                    .count(),
                verified: label(&status),
                mark: mark(status).to_string(),
            }
        })
        .collect();
    // Fewest budget stops first, then the lowest median cost.
    agents.sort_by(|a, b| {
        a.stopped_on_budget
            .cmp(&b.stopped_on_budget)
            .then(a.median_cost.total_cmp(&b.median_cost))
            .then_with(|| a.agent.cmp(&b.agent))
    });
    for (i, a) in agents.iter_mut().enumerate() {
        a.rank = i + 1;
    }
    let all: Vec<&Receipt> = verified.all_receipts().collect();
    SuiteView {
        id: suite.id.clone(),
        title: suite.title.clone(),
        simulated: suite_simulated(loaded),
        token_cap: suite.token_cap,
        egress_allowlist: suite.egress_allowlist.clone(),
        arg_rules: suite.arg_rules.iter().map(arg_rule_view).collect(),
        prices: suite
            .prices
            .models
            .iter()
            .map(|(model, p)| PriceRow {
                model: model.clone(),
                input_per_mtok: p.input_per_mtok,
                output_per_mtok: p.output_per_mtok,
            })
            .collect(),
        suite_receipts: verified.receipts.iter().map(ReceiptView::from).collect(),
        agents,
        runs,
        columns: REPORT.iter().map(|(_, heading)| *heading).collect(),
        receipts: all.len(),
        not_passing: all
            .iter()
            .filter(|r| r.status != Status::Pass)
            .map(|r| ReceiptView::from(*r))
            .collect(),
    }
}

/// The report page of run `index` of `loaded`.
pub fn harness_run_view(
    loaded: &LoadedSuite,
    index: usize,
    verified: &SuiteVerification,
) -> HarnessRunView {
    let suite = &loaded.suite;
    let run = &loaded.runs[index];
    let receipts = &verified.runs[index];
    let f = figures(suite, run);
    HarnessRunView {
        id: run.id.clone(),
        suite: suite.id.clone(),
        suite_title: suite.title.clone(),
        suite_href: harness_href(&loaded.dir),
        agent: run.agent.clone(),
        started_at: run.started_at.clone(),
        simulated: run.provenance.is_simulated() || suite.provenance.is_simulated(),
        record_href: layout::published(&loaded.run_path(&run.id), false),
        figures: REPORT
            .iter()
            .map(|(claim, label)| FigureRow {
                label,
                cell: cell(receipts, claim),
            })
            .collect(),
        token_cap: suite.token_cap,
        tokens: f.tokens_known,
        usage_lost: !f.usage_lost.is_empty(),
        cap_reached_at: f.cap_reached.map(|c| c.at_event),
        egress_allowlist: suite.egress_allowlist.clone(),
        events: events(suite, run),
        receipts: receipts.iter().map(ReceiptView::from).collect(),
        not_passing: receipts.iter().filter(|r| r.status != Status::Pass).count(),
    }
}

fn events(suite: &HarnessSuite, run: &HarnessRun) -> Vec<EventRow> {
    let mut total = 0u64;
    run.events
        .iter()
        .enumerate()
        .map(|(i, event)| {
            let mut row = EventRow {
                n: i,
                kind: "",
                detail: String::new(),
                code: None,
                result: String::new(),
                class: "",
                latency_ms: None,
                tokens: None,
                running_total: None,
            };
            match event {
                HarnessEvent::ProviderCall(c) => {
                    row.kind = "provider call";
                    row.detail = c.model_requested.clone();
                    row.code = Some(c.request_id.clone());
                    row.result = match &c.finish_reason {
                        Some(reason) => format!("{}, {}", label(&c.status), reason.as_str()),
                        None => label(&c.status),
                    };
                    row.class = if c.status == CallStatus::Ok {
                        ""
                    } else {
                        "fail"
                    };
                    row.latency_ms = Some(c.latency_ms);
                    row.tokens = Some(match c.usage {
                        Some(u) => {
                            total = total.saturating_add(
                                u.prompt_tokens.saturating_add(u.completion_tokens),
                            );
                            format!("{} + {}", u.prompt_tokens, u.completion_tokens)
                        }
                        None => "lost".to_string(),
                    });
                    row.running_total = Some(total);
                }
                HarnessEvent::ToolCall(t) => {
                    row.kind = "tool call";
                    row.detail = t.tool.clone();
                    row.code = Some(t.args.to_string());
                    (row.result, row.class) = match (&t.ok, &t.error) {
                        (true, _) => ("ok".to_string(), ""),
                        (false, Some(e)) => (format!("failed: {e}"), "fail"),
                        (false, None) => ("failed".to_string(), "fail"),
                    };
                    if !t.vetting.is_empty() {
                        let vetted: Vec<String> = t
                            .vetting
                            .iter()
                            .map(|v| format!("{} {}", v.rule, label(&v.decision)))
                            .collect();
                        row.result
                            .push_str(&format!(" · vetted: {}", vetted.join(", ")));
                    }
                }
                HarnessEvent::Egress(g) => {
                    row.kind = "egress";
                    row.detail = g.host.clone();
                    let expected = if allowed(&suite.egress_allowlist, &g.host) {
                        Decision::Allowed
                    } else {
                        Decision::Denied
                    };
                    row.result = label(&g.decision);
                    if g.decision != expected {
                        row.result
                            .push_str(&format!(" (the allowlist says {})", label(&expected)));
                        row.class = "fail";
                    } else if g.decision == Decision::Denied {
                        row.result.push_str(" (not on the allowlist)");
                    }
                }
                HarnessEvent::Snapshot(s) => {
                    row.kind = "snapshot";
                    row.detail = s.label.clone();
                    row.code = Some(s.sha256.clone());
                }
                HarnessEvent::Abort(a) => {
                    row.kind = "abort";
                    row.result = label(&a.reason);
                }
            }
            row
        })
        .collect()
}
