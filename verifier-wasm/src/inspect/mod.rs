//! Inspect AI evaluations brought in as receipts.
//!
//! An imported evaluation is two things on disk: the original log, kept
//! byte for byte as an object named by its SHA-256, and a record derived
//! from it deterministically ([`derive`]): the task, model, scorers with
//! the metrics the log reports, and every sample × epoch with its
//! transcript, output, usage, error and scores. [`verify`] re-derives the
//! record from the kept log (an edited record fails), recomputes each
//! score of a deterministic scorer from the recorded output and target
//! ([`scorers`]), reduces every sample's epochs and recomputes every
//! metric ([`reduce`]), and compares each with what the log recorded.
//! Scores of other scorers (model-graded, custom) are recorded judgments:
//! shown, counted in the metrics, never recomputed.

mod answer;
mod archive;
mod choice;
mod eras;
pub mod log;
mod numeric_before_221;
mod pyre;
mod python_tables;
mod record;
pub mod reduce;
mod registration;
pub mod scorers;
mod shape;
pub mod text;
mod verify;
pub mod version;

pub use log::{Log, LogError};
pub use record::*;
pub use registration::{
    registration_receipts, registration_words, EvalRegistration, EvalRegistrationKind,
    RegisteredEval, SampleId, EVAL_REGISTRATION_FILE,
};
pub use verify::{verify, verify_kept};
