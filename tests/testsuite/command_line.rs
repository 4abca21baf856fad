//! The command line's manners: output into a pipe whose reader went away
//! (`receipts verify --json | head`) ends quietly instead of a panic, for
//! every command that prints; `--quiet` keeps status lines back and still
//! prints what was asked for.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{assert_exit, built, receipts, stderr, stdout};

/// Runs `receipts` with its standard output a pipe already closed at the
/// reading end, so its first write fails as `| head` makes it fail.
// The tests build with the current toolchain; the crate's MSRV is for users.
#[allow(clippy::incompatible_msrv)]
fn into_closed_pipe(dir: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the receipts binary runs");
    child.wait_with_output().expect("it ends")
}

#[test]
fn no_command_panics_on_a_closed_pipe() {
    let dir = built();
    let root = dir.path();
    let commands: &[&[&str]] = &[
        &["verify", "site", "--json"],
        &["verify", "site"],
        &["verify", "site", "--records-only", "--json"],
        &["verify", "site", "--records-only"],
        &["build", "--out", "site-2"],
        &["schema", "run"],
        &["schema", "--out", "schemas"],
        &["verifier", "--out", "verifier"],
        &[
            "export",
            "E02-release-brief-fast-s1-always-medium",
            "--out",
            "-",
        ],
        &["anchor", "E01"],
        &["simulate", "--out", "simulated"],
    ];
    for args in commands {
        let out = into_closed_pipe(root, args);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "receipts {args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "receipts {args:?}: {err}");
        assert_exit(&out, 0, &format!("receipts {args:?} into a closed pipe"));
    }
    // The work was done even though nobody read what it said.
    assert!(root.join("site-2/index.html").is_file());
    assert!(root.join("verifier/index.html").is_file());
    assert!(root.join("schemas/run.schema.json").is_file());
}

#[test]
fn quiet_keeps_status_lines_back_and_prints_what_was_asked_for() {
    let dir = built();
    let root = dir.path();
    // Before or after the subcommand, --quiet and -q are the same flag.
    let silent: &[&[&str]] = &[
        &["--quiet", "verify", "site"],
        &["verify", "site", "-q"],
        &["build", "--out", "site-2", "--quiet"],
        &["-q", "verifier", "--out", "verifier"],
        &["schema", "--out", "schemas", "--quiet"],
        &["anchor", "E01", "--quiet"],
    ];
    for args in silent {
        let out = receipts(root, args);
        assert_exit(&out, 0, &format!("receipts {args:?}"));
        assert_eq!(stdout(&out), "", "receipts {args:?} printed with --quiet");
    }
    let loud = receipts(root, &["verify", "site"]);
    assert!(stdout(&loud).contains("verified"), "{}", stdout(&loud));

    // Asked-for output is printed all the same.
    let json = receipts(root, &["verify", "site", "--json", "--quiet"]);
    assert_exit(&json, 0, "verify --json --quiet");
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("JSON");
    assert_eq!(value["status"], "verified");
    let schema = receipts(root, &["schema", "run", "-q"]);
    assert!(
        stdout(&schema).contains("\"$schema\""),
        "{}",
        stdout(&schema)
    );

    // A failure still says so on standard error, and in the exit code.
    let sums = root.join("site/SHA256SUMS");
    let text = std::fs::read_to_string(&sums).expect("SHA256SUMS");
    std::fs::write(
        &sums,
        format!("{text}{}  data/extra.json\n", "0".repeat(64)),
    )
    .expect("write");
    let failed = receipts(root, &["verify", "site", "--quiet"]);
    assert_eq!(stdout(&failed), "");
    assert_ne!(failed.status.code(), Some(0));
    assert!(
        stderr(&failed).starts_with("error: "),
        "{}",
        stderr(&failed)
    );
}
