//! The rule-expression language: any source parses to a program or an error,
//! and a program evaluates to a value or an error within its limits.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use receipts_verifier::checks::expr::Program;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(program) = Program::parse(source) {
        let env: BTreeMap<String, i64> = program
            .variables()
            .into_iter()
            .enumerate()
            .map(|(i, v)| (v, [0, 1, -1, i64::MAX, i64::MIN, 4999, 5000][i % 7]))
            .collect();
        let _ = program.eval(&env);
    }
});
