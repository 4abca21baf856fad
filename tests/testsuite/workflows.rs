//! The GitHub Actions workflows parse, run on the right events, use only
//! official actions, and every command they run exists in this repository.

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
}

fn workflow(name: &str) -> yaml_serde::Value {
    let path = repo().join(".github/workflows").join(name);
    yaml_serde::from_str(&std::fs::read_to_string(&path).expect("workflow")).expect("valid YAML")
}

/// Every `run:` script and `uses:` action of every job.
fn steps(w: &yaml_serde::Value) -> (Vec<String>, Vec<String>) {
    let (mut runs, mut uses) = (Vec::new(), Vec::new());
    for (_, job) in w["jobs"].as_mapping().expect("jobs") {
        for step in job["steps"].as_sequence().expect("steps") {
            if let Some(r) = step["run"].as_str() {
                runs.push(r.to_string());
            }
            if let Some(u) = step["uses"].as_str() {
                uses.push(u.to_string());
            }
        }
    }
    (runs, uses)
}

/// Checks each command line of a `run:` script against the repository;
/// `built_release` carries over from the job's earlier steps.
fn commands_exist(script: &str, built_release: &mut bool) {
    let packages = ["receipts", "receipts-verifier"];
    for line in script
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[0] {
            "cargo" => {
                if let Some(i) = words.iter().position(|w| *w == "-p") {
                    assert!(
                        packages.contains(&words[i + 1]),
                        "no package {} in the workspace: {line}",
                        words[i + 1]
                    );
                }
                *built_release |= words.contains(&"--release") && words.contains(&"build");
            }
            "target/release/receipts" => {
                assert!(
                    *built_release,
                    "{line}: the binary is not built before it runs"
                );
                let sub = words[1];
                assert!(
                    ["build", "verify", "export", "serve", "simulate", "schema"].contains(&sub),
                    "no subcommand {sub}"
                );
            }
            script if script.starts_with("scripts/") => {
                let path = repo().join(script);
                assert!(path.is_file(), "{script} does not exist");
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
                    assert!(mode & 0o111 != 0, "{script} is not executable");
                }
            }
            other => panic!("unexpected command `{other}` in a workflow: {line}"),
        }
    }
}

const OFFICIAL: [&str; 7] = [
    "actions/attest-build-provenance@",
    "actions/checkout@",
    "actions/cache@",
    "actions/setup-node@",
    "actions/configure-pages@",
    "actions/upload-pages-artifact@",
    "actions/deploy-pages@",
];

#[test]
fn the_pages_workflow_builds_verifies_and_deploys_when_an_experiment_lands() {
    let w = workflow("pages.yml");
    let paths: Vec<&str> = w["on"]["push"]["paths"]
        .as_sequence()
        .expect("paths")
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    for needed in [
        "experiments/**",
        "showcase/**",
        "docs/**",
        "generator/**",
        "verifier-wasm/**",
    ] {
        assert!(
            paths.contains(&needed),
            "pushes touching {needed} rebuild the site"
        );
    }
    let (runs, uses) = steps(&w);
    let mut built_release = false;
    for r in &runs {
        commands_exist(r, &mut built_release);
    }
    let all = runs.join("\n");
    assert!(
        all.contains("receipts build --strict"),
        "a failing receipt fails the build"
    );
    assert!(
        all.contains("receipts verify site"),
        "the built site is verified"
    );
    for u in &uses {
        assert!(
            OFFICIAL.iter().any(|o| u.starts_with(o)),
            "not an official action: {u}"
        );
    }
    assert!(uses.iter().any(|u| u.starts_with("actions/deploy-pages@")));
    assert!(uses
        .iter()
        .any(|u| u.starts_with("actions/upload-pages-artifact@")));
    assert!(uses.iter().any(|u| u.starts_with("actions/cache@")));
    assert_eq!(w["permissions"]["pages"].as_str(), Some("write"));
    // The root digest leaves the site: job summary and tag, and an attestation.
    assert!(
        all.contains("scripts/publish-root site --tag"),
        "the root digest is published"
    );
    assert!(uses
        .iter()
        .any(|u| u.starts_with("actions/attest-build-provenance@")));
    assert_eq!(w["permissions"]["attestations"].as_str(), Some("write"));
    assert_eq!(w["permissions"]["contents"].as_str(), Some("write"));
}

#[test]
fn publish_root_writes_the_digest_the_build_printed_into_the_job_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["experiments", "showcase", "docs"] {
        copy(&repo().join(sub), &dir.path().join(sub));
    }
    let build = std::process::Command::new(env!("CARGO_BIN_EXE_receipts"))
        .arg("build")
        .current_dir(dir.path())
        .output()
        .expect("build");
    assert!(build.status.success());
    let printed = String::from_utf8_lossy(&build.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("root digest "))
        .and_then(|l| l.split_whitespace().next())
        .expect("the build prints the root digest")
        .to_string();
    let summary = dir.path().join("summary.md");
    let out = std::process::Command::new(repo().join("scripts/publish-root"))
        .arg(dir.path().join("site"))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .expect("publish-root");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), printed);
    let text = std::fs::read_to_string(&summary).expect("summary");
    assert!(text.contains(&format!("`{printed}`")), "{text}");
    assert!(text.contains(&format!("--expect-root {printed}")), "{text}");
}

fn copy(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_test_workflow_runs_the_readme_test_command_on_pull_requests() {
    let w = workflow("test.yml");
    assert!(w["on"].get("pull_request").is_some());
    let (runs, uses) = steps(&w);
    let mut built_release = false;
    for r in &runs {
        commands_exist(r, &mut built_release);
    }
    assert!(runs.iter().any(|r| r.trim() == "scripts/test"));
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README");
    assert!(
        readme.contains("scripts/test "),
        "the README names the same test command"
    );
    let ci = std::fs::read_to_string(repo().join(".ci/run")).expect(".ci/run");
    assert!(
        ci.contains("exec scripts/test"),
        ".ci/run calls the README's test command"
    );
    for u in &uses {
        assert!(
            OFFICIAL.iter().any(|o| u.starts_with(o)),
            "not an official action: {u}"
        );
    }
    let cache = w["jobs"]["test"]["steps"]
        .as_sequence()
        .expect("steps")
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .expect("a cache step");
    assert!(
        cache["with"]["path"]
            .as_str()
            .expect("paths")
            .contains("wasm-bindgen"),
        "the wasm tool install is cached"
    );
}
