//! European amounts and the CSV checks: any text as an amount, and any bytes
//! as a transformed CSV checked against a fixed input, give a verdict, never a panic.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use receipts_verifier::checks::{parse_euro_cents, run_all, CheckContext};
use receipts_verifier::model::{
    ArtifactSpec, CheckSpec, FormatVersion, InputRole, Task, TaskFamily, TaskInput, TaskKind,
};

const INPUT: &str = "id,amount\nA1,\"1.234,56\"\nA2,-45\nA3,n/a\nA4,\"1.234,5\"\n";

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(cents) = parse_euro_cents(text) {
            // Something that parses has digits, and its canonical form parses back to it.
            assert!(
                text.bytes().any(|b| b.is_ascii_digit()),
                "{text:?} gave {cents}"
            );
            let sign = if cents < 0 { "-" } else { "" };
            let abs = cents.unsigned_abs();
            let canonical = format!("{sign}{},{:02}", abs / 100, abs % 100);
            assert_eq!(
                parse_euro_cents(&canonical),
                Some(cents),
                "{text:?} → {canonical}"
            );
        }
    }
    let s = |x: &str| x.to_string();
    let task = Task {
        format_version: FormatVersion,
        kind: TaskKind::Task,
        id: s("t"),
        title: s("t"),
        family: TaskFamily::FileTransformation,
        prompt: s("p"),
        inputs: vec![TaskInput {
            path: s("in.csv"),
            sha256: receipts_verifier::digest::sha256_hex(INPUT.as_bytes()),
            bytes: INPUT.len() as u64,
            media_type: s("text/csv"),
            role: InputRole::Data,
        }],
        artifact: ArtifactSpec {
            path: s("out.csv"),
            media_type: s("text/csv"),
        },
        checks: vec![
            CheckSpec::RowsPreserved {
                id: s("rows"),
                source: s("in.csv"),
                id_column: s("id"),
            },
            CheckSpec::EuroCents {
                id: s("cents"),
                source: s("in.csv"),
                id_column: s("id"),
                amount_column: s("amount"),
                cents_column: s("cents"),
                status_column: s("status"),
            },
        ],
    };
    let inputs = BTreeMap::from([(s("in.csv"), INPUT.as_bytes().to_vec())]);
    let ctx = CheckContext {
        task: &task,
        inputs: &inputs,
        recorded_inputs: &[],
        artifact: Some(data),
    };
    let _ = run_all(&ctx);
});
