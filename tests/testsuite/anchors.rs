//! What backs a registration's time: RFC 3161 time stamps from a TSA these
//! tests make with `openssl ts` (its clock set with `faketime`, so a stamp
//! can predate the sample's runs), and the git commit that first held the
//! registration digest. Each forgery a publisher could try (reseal every
//! digest after the stamp, stamp late, swap the certificate, edit the signed
//! time, claim a commit) must fail a receipt naming the file.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use common::{assert_exit, fails_with, receipts, sample_copy, stderr, stdout};

/// Runs a command and insists it succeeds.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!(
            "{cmd:?} could not start ({e}); the anchor tests need openssl and faketime (Debian: apt-get install openssl faketime; scripts/test installs them)"
        )
    });
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `openssl ARGS` with the clock at `at` (`YYYY-MM-DD hh:mm:ss`, UTC).
fn openssl_at(dir: &Path, at: &str, args: &[&str]) -> String {
    run(Command::new("faketime")
        .arg("-f")
        .arg(format!("@{at}"))
        .arg("openssl")
        .args(args)
        .env("TZ", "UTC")
        .current_dir(dir))
}

/// A time-stamping authority of the tests' own.
struct Tsa {
    dir: PathBuf,
}

impl Tsa {
    /// A TSA whose self-signed certificate (`key`: `rsa:2048` or `ec`) is
    /// valid from 2026-09-01 for ten years.
    fn new(root: &Path, name: &str, key: &str) -> Tsa {
        let dir = root.join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(
            dir.join("tsa.cnf"),
            "[ tsa ]\ndefault_tsa = tsa1\n[ tsa1 ]\ndir = .\nserial = $dir/serial\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256\ness_cert_id_alg = sha256\n",
        )
        .expect("cnf");
        fs::write(dir.join("serial"), "01\n").expect("serial");
        let mut args = vec![
            "req",
            "-x509",
            "-nodes",
            "-days",
            "3650",
            "-set_serial",
            "7",
        ];
        if key == "ec" {
            args.extend(["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]);
        } else {
            args.extend(["-newkey", key]);
        }
        args.extend([
            "-keyout",
            "tsa.key",
            "-out",
            "tsa.pem",
            "-subj",
            "/CN=Tests TSA/O=receipts tests",
            "-addext",
            "extendedKeyUsage=critical,timeStamping",
        ]);
        openssl_at(&dir, "2026-09-01 00:00:00", &args);
        Tsa { dir }
    }

    fn certificate(&self) -> PathBuf {
        self.dir.join("tsa.pem")
    }

    /// The TSA's answer to `request` at `at`.
    fn stamp(&self, request: &Path, at: &str) -> PathBuf {
        let out = self.dir.join("response.tsr");
        openssl_at(
            &self.dir,
            at,
            &[
                "ts",
                "-reply",
                "-config",
                "tsa.cnf",
                "-queryfile",
                request.to_str().expect("path"),
                "-signer",
                "tsa.pem",
                "-inkey",
                "tsa.key",
                "-out",
                "response.tsr",
            ],
        );
        out
    }
}

/// Asks `receipts anchor` for E01's request, has `tsa` answer at `at`, and
/// keeps the answer with `receipts anchor`; returns the registration digest.
fn anchor_e01(root: &Path, tsa: &Tsa, at: &str) -> String {
    let request = root.join("request.tsq");
    let out = receipts(
        root,
        &[
            "anchor",
            "E01",
            "--request",
            request.to_str().expect("path"),
        ],
    );
    assert_exit(&out, 0, "anchor --request");
    let digest = stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("registration digest "))
        .expect("the digest is printed")
        .to_string();
    let response = tsa.stamp(&request, at);
    let out = receipts(
        root,
        &[
            "anchor",
            "E01",
            "--timestamp",
            response.to_str().expect("path"),
            "--tsa-certificate",
            tsa.certificate().to_str().expect("path"),
        ],
    );
    assert_exit(&out, 0, "anchor --timestamp");
    digest
}

/// A copy of the sample whose E01 registration a fresh TSA (`key`) stamped
/// at `at`, and the registration digest.
fn stamped(key: &str, at: &str) -> (tempfile::TempDir, String) {
    let dir = sample_copy();
    let tsa = Tsa::new(dir.path(), "tsa", key);
    let digest = anchor_e01(dir.path(), &tsa, at);
    (dir, digest)
}

fn e01_page(root: &Path) -> String {
    fs::read_to_string(root.join("site/experiments/E01.html")).expect("page")
}

#[test]
fn a_time_stamp_before_the_first_call_backs_the_registration() {
    let (dir, digest) = stamped("rsa:2048", "2026-10-27 08:40:00");
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_exit(&out, 0, "build --strict with a valid time stamp");
    let page = e01_page(dir.path());
    assert!(
        page.contains("RFC 3161 timestamp by O=receipts tests,CN=Tests TSA"),
        "the page names the TSA"
    );
    assert!(
        page.contains("registered 2026-10-27T08:30:00Z (RFC 3161 timestamp 2026-10-27T08:40:00Z)")
    );
    assert!(
        fs::metadata(dir.path().join("site/data/E01/registration.tsr")).is_ok(),
        "the token is published for the browser to check"
    );
    // E01's page verifies the token, which only the full verifier does; a
    // page whose Verify reaches no time stamp (a run's never does) loads the lean one.
    let loads = |page: &str| {
        let html = fs::read_to_string(dir.path().join("site").join(page)).expect("page");
        let at = html.find("data-verifier=\"").expect("a Verify control") + 15;
        html[at..at + html[at..].find('"').expect("quoted")].to_string()
    };
    assert_eq!(loads("experiments/E01.html"), "full");
    // E02's claims read E01's figures: its Verify verifies E01 too.
    assert_eq!(loads("experiments/E02.html"), "full");
    assert_eq!(loads("experiments/E03.html"), "lean");
    let run_page = fs::read_dir(dir.path().join("site/runs"))
        .expect("runs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("E01-"))
        .expect("an E01 run page");
    assert_eq!(loads(&format!("runs/{run_page}")), "lean");
    // A third party checks the same token offline with openssl alone.
    run(Command::new("openssl")
        .args(["ts", "-verify", "-digest", &digest, "-in"])
        .arg(dir.path().join("experiments/E01/registration.tsr"))
        .arg("-CAfile")
        .arg(dir.path().join("experiments/E01/registration.tsa.pem"))
        .arg("-attime")
        .arg("1793090000"));
}

#[test]
fn an_ecdsa_tsa_verifies_too() {
    let (dir, _) = stamped("ec", "2026-10-27 08:40:00");
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_exit(&out, 0, "build --strict with an ECDSA time stamp");
    assert!(e01_page(dir.path()).contains("RFC 3161 timestamp by"));
}

#[test]
fn a_time_stamp_after_the_first_call_fails_the_timing() {
    let (dir, _) = stamped("rsa:2048", "2026-10-27 12:00:00");
    fails_with(
        dir.path(),
        &[
            "pre-registered before the first provider call",
            "before the anchor's time",
        ],
    );
}

#[test]
fn resealing_every_digest_after_the_stamp_breaks_the_stamp() {
    let (dir, _) = stamped("rsa:2048", "2026-10-27 08:40:00");
    // Loosen a decision rule after the stamp, then reseal: the publisher
    // recomputes `covers.rules` and the registration digest from the build's
    // own hint, so every digest receipt passes again.
    let path = dir.path().join("experiments/E01/experiment.json");
    let mut e: Value =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    e["title"] = Value::String(format!("{} (revised)", e["title"].as_str().expect("title")));
    fs::write(&path, serde_json::to_string_pretty(&e).expect("json")).expect("write");
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = stdout(&out) + &stderr(&out);
    let rules = text
        .lines()
        .find(|l| l.contains("registered rules (SHA-256)"))
        .and_then(|l| {
            l.split_whitespace()
                .find(|w| w.len() == 64 && *w != e["preregistration"]["covers"]["rules"])
        })
        .expect("the rules receipt shows the new digest")
        .to_string();
    e["preregistration"]["covers"]["rules"] = Value::String(rules);
    fs::write(&path, serde_json::to_string_pretty(&e).expect("json")).expect("write");
    let out = receipts(dir.path(), &["build", "--strict"]);
    let text = stdout(&out) + &stderr(&out);
    let sealed = text
        .lines()
        .find(|l| l.contains("registration digest (SHA-256)"))
        .and_then(|l| l.split_whitespace().rev().find(|w| w.len() == 64))
        .expect("the registration receipt shows the recomputed digest")
        .to_string();
    e["preregistration"]["sha256"] = Value::String(sealed);
    fs::write(&path, serde_json::to_string_pretty(&e).expect("json")).expect("write");
    fails_with(
        dir.path(),
        &["E01/registration.tsr", "not the registration digest"],
    );
}

#[test]
fn a_certificate_of_another_key_does_not_verify_the_stamp() {
    let (dir, _) = stamped("rsa:2048", "2026-10-27 08:40:00");
    // Same subject and serial number, another key: the signer matches by
    // name, the signature does not.
    let other = Tsa::new(dir.path(), "other", "rsa:2048");
    fs::copy(
        other.certificate(),
        dir.path().join("experiments/E01/registration.tsa.pem"),
    )
    .expect("copy");
    fails_with(
        dir.path(),
        &["E01/registration.tsr", "signature does not verify"],
    );
}

#[test]
fn an_edited_signed_time_fails_the_signed_digest() {
    let (dir, _) = stamped("rsa:2048", "2026-10-27 12:00:00");
    // Move genTime (GeneralizedTime `20261027120000Z`) back to 08:00 in place.
    let path = dir.path().join("experiments/E01/registration.tsr");
    let mut bytes = fs::read(&path).expect("token");
    let at = bytes
        .windows(15)
        .position(|w| w == b"20261027120000Z")
        .expect("genTime in the token");
    bytes[at..at + 15].copy_from_slice(b"20261027080000Z");
    fs::write(&path, bytes).expect("write");
    fails_with(
        dir.path(),
        &["E01/registration.tsr", "content was changed after signing"],
    );
}

#[test]
fn a_token_without_its_certificate_fails() {
    let (dir, _) = stamped("rsa:2048", "2026-10-27 08:40:00");
    fs::remove_file(dir.path().join("experiments/E01/registration.tsa.pem")).expect("rm");
    fails_with(dir.path(), &["E01/registration.tsr", "one is missing"]);
}

#[test]
fn anchor_refuses_a_stamp_of_something_else() {
    let dir = sample_copy();
    let tsa = Tsa::new(dir.path(), "tsa", "rsa:2048");
    let request = dir.path().join("other.tsq");
    run(Command::new("openssl")
        .args(["ts", "-query", "-sha256", "-cert", "-digest"])
        .arg("00".repeat(32))
        .arg("-out")
        .arg(&request));
    let response = tsa.stamp(&request, "2026-10-27 08:40:00");
    let out = receipts(
        dir.path(),
        &[
            "anchor",
            "E01",
            "--timestamp",
            response.to_str().expect("path"),
            "--tsa-certificate",
            tsa.certificate().to_str().expect("path"),
        ],
    );
    assert_exit(&out, 2, "anchor with a stamp of another digest");
    assert!(stderr(&out).contains("response.tsr"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not the registration digest"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("experiments/E01/registration.tsr").exists());
}

/// Commits everything in `root` as a new repository, dated `at` (RFC 3339).
fn commit_all(root: &Path, at: &str) {
    let git = |args: &[&str]| {
        run(Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_AUTHOR_DATE", at)
            .env("GIT_COMMITTER_DATE", at)
            .env("GIT_AUTHOR_NAME", "Tests")
            .env("GIT_AUTHOR_EMAIL", "tests@example.org")
            .env("GIT_COMMITTER_NAME", "Tests")
            .env("GIT_COMMITTER_EMAIL", "tests@example.org"))
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "registration"]);
}

#[test]
fn a_commit_before_the_first_call_backs_the_registration() {
    let dir = sample_copy();
    commit_all(dir.path(), "2026-10-27T08:35:00Z");
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_exit(&out, 0, "build in a git checkout");
    let page = e01_page(dir.path());
    assert!(page.contains("(git commit "), "the page names the commit");
    assert!(page.contains("committed 2026-10-27T08:35:00Z by the committer"));
    let anchor: Value = serde_json::from_str(
        &fs::read_to_string(dir.path().join("site/data/E01/registration.git.json"))
            .expect("anchor"),
    )
    .expect("json");
    assert_eq!(anchor["committed_at"], "2026-10-27T08:35:00Z");
    // The site verifies from its own data, anchor included.
    let out = receipts(dir.path(), &["verify", "site"]);
    assert_exit(&out, 0, "verify the built site");
}

#[test]
fn a_commit_after_the_first_call_backs_nothing() {
    let dir = sample_copy();
    commit_all(dir.path(), "2026-11-30T10:00:00Z");
    let out = receipts(dir.path(), &["build", "--strict", "--quiet"]);
    assert_exit(&out, 0, "build in a git checkout");
    assert!(e01_page(dir.path()).contains("self-asserted: git commit "));
    assert!(e01_page(dir.path()).contains("after the first provider call"));
}

#[test]
fn a_git_anchor_naming_another_registration_fails() {
    let dir = sample_copy();
    let path = dir.path().join("experiments/E01/registration.git.json");
    fs::write(
        &path,
        format!(
            "{{\"format_version\": 1, \"kind\": \"registration_commit\", \"commit\": \"{}\", \"committed_at\": \"2026-10-01T00:00:00Z\", \"registration\": \"{}\"}}\n",
            "a".repeat(40),
            "0".repeat(64)
        ),
    )
    .expect("write");
    fails_with(
        dir.path(),
        &[
            "E01/registration.git.json",
            "the commit holds this registration's digest",
        ],
    );
}
