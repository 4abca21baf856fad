//! The sample study's memos beside the corrections: its limitations (what
//! a cost figure is and is not) and its feedback to the provider. Every
//! measured number in them is a claim bound to the figure it names, shown
//! as recomputed; numbers nobody measures (a budget) are marked so.

/// `docs/memos/limitations.md`.
pub const LIMITATIONS: &str = "# Memo: limitations of the sample study

> Simulated data: this memo belongs to the sample study produced by the receipts simulator. No model was called.

Every measured number below is bound to the figure it claims and recomputed from the runs when the site is built and again in the reader's browser.

## A cost is an estimate, not an invoice

A cost on these pages is the token usage each provider call reported, priced with the table the experiment registered before its runs, summed per run and averaged per task. It is not what a provider would bill: billing may round, charge minimums, discount cached or batched input in ways the registered table does not list, and include calls that no record holds.

When a call's usage was lost (it timed out, or the run's time limit cut it), its cost is neither left out nor guessed. It is carried as a bound, from no output at all to the whole output budget at the prompt the harness reserved, so a figure that includes it is a range: the ladder in E02 cost [](#E02.ladder.cost_per_task_usd) per task, and the study as a whole cost [](#study.total_cost_usd).

## How far the figures reach

- The [3](#registered) fixture tasks are evidence about those tasks, not a ranking of models. Each policy of E02 ran [](#E02.ladder.runs) cells; across seeds, the pass rate of always-large, [](#E02.always-large.pass_rate_pct), has a standard deviation of [](#E02.always-large.pass_rate_sd_pct).
- The runs are simulated: the figures describe the simulator's scripted agent and provider, calibrated to the shape of a real study, not any real model.
- Throughput is output tokens over each call's whole latency, and it changes during a day: the small tier slows as the simulated day goes on, so a latency figure holds for the hours it was measured in. E02's ladder, which starts on the small tier, ran at [](#E02.ladder.throughput_tps).
- E03 did not finish. The small tier's calls had slowed over the day: its median call was served at [](#E03/as-run.always-small.median_tps), where E02's had been served at [](#E02.always-small.median_tps) earlier that day, and [](#E03/as-run.always-small.timeouts) of its calls passed the registered [45 s](#registered) call timeout. Each lost its usage, and the token ledger failed closed and stopped the study; it was resumed where it stopped, with a fresh ledger, and stopped again. Only [](#E03/as-run.speculative.runs) of its [18](#registered) cells hold a run of every tier, and its hypotheses are not decided: on those cells the speculative ladder answered in [](#E03/as-run.speculative.mean_time_s) on average, within the [30 s](#registered) registered, but cost [](#E03/as-run.speculative.cost_per_task_usd) a task against always-large's [](#E03/as-run.always-large.cost_per_task_usd), a range on both sides of it. Tier memory never applied there: the small tier passed the first time each task came, so it started where the ladder did.
- Seeds vary the scripted provider's answers. With a real provider at temperature [0](#registered) they would measure its nondeterminism; sampling variety would need an experiment of its own.
";

/// `docs/memos/provider-feedback.md`.
pub const FEEDBACK: &str = "# Memo: feedback to the provider

> Simulated data: this memo belongs to the sample study produced by the receipts simulator. No model was called; the provider is the simulator's scripted one, and the memo shows what such feedback looks like when every number in it is recomputed.

What we tried, what happened, and what we ask for, the most important first.

## What happened

- A run that reached its time limit during a call got no usage back for that call, so its cost became a bound: in E02 the ladder's cost per task is [](#E02.ladder.cost_per_task_usd), a range instead of a figure.
- Reasoning spends the output budget. With E01's budget of [2,048](#registered) output tokens, the small tier's calls stopped on their budget [](#E01.always-small.truncations) times in [](#E01.always-small.runs) runs, and it passed [](#E01.always-small.pass_rate_pct) of tasks (the large tier's, [](#E01.always-large.truncations) times); with E02's budget of [8,192](#registered) output tokens, [](#E02.always-small.truncations) times in [](#E02.always-small.runs) runs, and it passed [](#E02.always-small.pass_rate_pct).
- Throughput differs by tier: in E02, always-medium's calls ran at [](#E02.always-medium.throughput_tps) and always-large's at [](#E02.always-large.throughput_tps). Call by call, the median small-tier call was served at [](#E02.always-small.median_tps), the median medium-tier call at [](#E02.always-medium.median_tps) and the median large-tier call at [](#E02.always-large.median_tps).
- Throughput changed within the day. The median small-tier call, served at [](#E02.always-small.median_tps) in E02, was served at [](#E03/as-run.always-small.median_tps) in E03 that afternoon; the medium tier's went from [](#E02.always-medium.median_tps) to [](#E03/as-run.always-medium.median_tps), and the large tier's held at [](#E03/as-run.always-large.median_tps). At that speed a long call no longer fit E03's fixed [45 s](#registered) call timeout: [](#E03/as-run.always-small.timeouts) calls passed it and returned no usage, and each stopped the study behind the token ledger.
- The large tier reports no prompt-cache counters, so the cache use of its calls is shown as not reported, never as none.

## What we ask for

1. Return the usage a call consumed even when it times out or is aborted: a bound is honest, a figure is better.
2. Report reasoning and prompt-cache counters on every tier, under the same names.
3. Publish each model's throughput over the day, so that a latency can be read against the conditions it was measured in.
";
