//! The input parser: any bytes, as each record kind and as a results table,
//! must give a value or an error naming the place, never a panic. Bytes that
//! parse as a run are also verified against a small task.
#![no_main]

use libfuzzer_sys::fuzz_target;
use receipts::parse;
use receipts_verifier::model::{Experiment, Report, ResultRow, Run, Showcase, Summary, Task};

fuzz_target!(|data: &[u8]| {
    let _ = parse::json::<Experiment>("f.json", data);
    let _ = parse::json::<Task>("f.json", data);
    let _ = parse::json::<Summary>("f.json", data);
    let _ = parse::json::<Showcase>("f.json", data);
    let _ = parse::csv_rows::<ResultRow>("f.csv", data);
    let _ = parse::utf8("f.md", data.to_vec());
    if let Ok(report) = parse::json::<Report>("f.json", data) {
        let _ = receipts_verifier::verify::verify_report(&report);
    }
    if let Ok(run) = parse::json::<Run>("f.json", data) {
        let files =
            std::collections::BTreeMap::from([(format!("E/runs/{}.json", run.id), data.to_vec())]);
        let _ =
            receipts_verifier::verify::verify_files(&files, &receipts_verifier::verify::Scope::All);
    }
});
