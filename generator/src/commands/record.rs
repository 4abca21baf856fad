//! `receipts record --into experiments/NAME [--run ID] [--task ID] … --
//! COMMAND ARGS…`: runs an agent's command with its provider base URLs
//! pointed at a recording proxy, and makes its calls a run of the
//! experiment (see [`crate::record`]).

use std::path::PathBuf;

use receipts_verifier::verify::{Status, Tally};

use super::{Failure, Out};
use crate::error::{report, EXIT_INPUT};
use crate::numbers::count;
use crate::record::run::{self, Placement};
use crate::record::{record_command, Upstreams};

#[derive(Debug, clap::Args)]
#[command(trailing_var_arg = true)]
pub struct Args {
    /// The experiment the run belongs to, e.g. experiments/agent: its
    /// experiment.json names the grid, tiers and prices.
    #[arg(long)]
    pub into: PathBuf,
    /// The run's id (default: EXPERIMENT-TASK-PROFILE-sSEED-POLICY, or
    /// RUN-rerun for a rerun of RUN).
    #[arg(long)]
    pub run: Option<String>,
    /// Record another run of the cell of run RUN as a declared rerun: the
    /// run replaces RUN, and a `rerun` deviation declaring it is logged
    /// before the command starts (deviations.json, and the log of a
    /// pre-registered experiment).
    #[arg(long, value_name = "RUN")]
    pub rerun_of: Option<String>,
    /// Why the rerun is made, in one line (with --rerun-of).
    #[arg(long, requires = "rerun_of")]
    pub reason: Option<String>,
    /// The task of the grid the run is a cell of (needed when the grid has several).
    #[arg(long)]
    pub task: Option<String>,
    /// The profile (needed when the grid has several).
    #[arg(long)]
    pub profile: Option<String>,
    /// The seed (needed when the grid has several).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The policy (needed when the experiment has several).
    #[arg(long)]
    pub policy: Option<String>,
    /// The policy's tier the run used (default: the one whose model the calls asked for).
    #[arg(long)]
    pub tier: Option<String>,
    /// Where every call is forwarded, e.g. http://127.0.0.1:9000 (default:
    /// OpenAI's and Anthropic's own APIs, by the base URL the call used).
    #[arg(long)]
    pub upstream: Option<String>,
    /// A file the agent wrote, kept by digest; give it once per file. The
    /// first is the artifact the task's checks read (default: the task's
    /// artifact path, when it exists); the others are kept under their
    /// own names.
    #[arg(long = "artifact", value_name = "PATH")]
    pub artifacts: Vec<PathBuf>,
    /// Exit 0 rather than 3 when nothing failed but something could not be
    /// checked, as `receipts verify --allow-unchecked` does.
    #[arg(long)]
    pub allow_unchecked: bool,
    /// The agent's command and its arguments, after `--`.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
    pub command: Vec<String>,
}

fn input(message: impl std::fmt::Display) -> Failure {
    Failure {
        message: message.to_string(),
        code: EXIT_INPUT as u8,
    }
}

pub fn run(args: Args, out: Out) -> Result<(), Failure> {
    let upstreams = Upstreams::new(args.upstream.as_deref()).map_err(input)?;
    let placement = Placement {
        run: args.run,
        task: args.task,
        profile: args.profile,
        seed: args.seed,
        policy: args.policy,
        tier: args.tier,
        artifacts: args.artifacts,
        rerun_of: args.rerun_of,
        reason: args.reason,
    };
    // Everything that can be known before the command runs is checked first.
    let declared = run::check(&args.into, &placement).map_err(|e| input(report(&e)))?;
    let before = run::witness_inputs(&args.into, &placement).map_err(|e| input(report(&e)))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::from(anyhow::Error::from(e)))?;
    let recording = runtime.block_on(record_command(&args.command, upstreams))?;
    let made = match run::make(&args.into, &recording, &placement, &before, declared) {
        Ok(made) => made,
        Err(e) => {
            // Nothing recorded is lost: the capture and its bodies are kept.
            let kept = run::keep_capture(&args.into, &recording)?;
            return Err(input(format!(
                "{}\nthe capture is kept as {} with every body it names",
                report(&e),
                kept.display()
            )));
        }
    };
    let receipts = run::verify(&args.into, &made)?;
    run::write(&args.into, &made)?;
    let tally = Tally::of(&receipts);
    for r in receipts.iter().filter(|r| r.status != Status::Pass) {
        out.result(super::not_passing_line(r))?;
    }
    let attempt = &made.run.attempts[0];
    out.status(format_args!(
        "recorded {} as {}: {}, {}; {}, {} pass, {} fail, {} could not be checked",
        args.command.join(" "),
        made.path.display(),
        count(attempt.calls.len(), "provider call", None),
        match &attempt.end.message {
            None => "the command exited with status 0".to_string(),
            Some(m) => m.clone(),
        },
        count(tally.total(), "receipt", None),
        tally.pass,
        tally.fail,
        tally.could_not_check
    ))?;
    if let (Some(declared), Some(old)) = (&made.declared, &made.run.replaces) {
        out.status(format_args!(
            "declared a rerun of {old} by deviation {} in {}",
            declared.deviation.id,
            args.into.join("deviations.json").display()
        ))?;
    }
    if tally.fail > 0 {
        return Err(Failure {
            message: format!(
                "the recorded run is written, and fails {} of its receipts (listed above), as its page will show",
                tally.fail
            ),
            code: 1,
        });
    }
    // Could-not-check exits as `receipts verify` does on the same state.
    super::verify::outcome(tally, args.allow_unchecked)
}
