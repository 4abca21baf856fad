//! `receipts serve`: serves the site, rebuilds when an input changes, and
//! keeps serving the last good site, with the error shown, when a rebuild fails.

use crate::common;

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::sample_copy;

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// What a browser opening a page in a tab sends.
const OPEN: &str = "Accept: text/html\r\nSec-Fetch-Dest: document\r\n";
/// What a script fetching a page as data sends (the page check does).
const FETCH: &str = "Accept: */*\r\nSec-Fetch-Dest: empty\r\n";

/// `GET path` over HTTP/1.0, as a browser opens a page; returns the status
/// code and the body.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    request(port, path, "127.0.0.1", OPEN)
}

/// `GET path` with `Host: host`.
fn get_as(port: u16, path: &str, host: &str) -> Option<(u16, String)> {
    request(port, path, host, OPEN)
}

/// `GET path` with `Host: host` and the `headers` (lines ending in CRLF).
fn request(port: u16, path: &str, host: &str, headers: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host}\r\n{headers}\r\n"
    )
    .ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).ok()?;
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// Polls `path` until `pred` holds for the body, for at most `seconds`.
fn wait_for(port: u16, path: &str, seconds: u64, pred: impl Fn(u16, &str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut last = String::new();
    while Instant::now() < deadline {
        if let Some((status, body)) = get(port, path) {
            if pred(status, &body) {
                return body;
            }
            last = body;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{path} did not become as expected within {seconds} s; last body:\n{}",
        &last[..last.len().min(2000)]
    );
}

#[test]
fn serves_rebuilds_on_change_and_keeps_the_last_good_site() {
    let dir = sample_copy();
    let root = dir.path();
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(["serve", "--port", &port.to_string()])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("receipts serve starts");
    let _server = Server(child);

    let first = wait_for(port, "/showcase.html", 60, |s, b| {
        s == 200 && b.contains("Five runs worth a look")
    });
    assert!(
        first.contains("/_receipts/reload.js"),
        "pages get the reload script"
    );
    // A page fetched by a script (the page check, the standalone verifier)
    // is the file itself, as a plain static host serves it: what Verify
    // compares is what the build wrote.
    let on_disk = fs::read_to_string(root.join("site/showcase.html")).expect("page");
    for headers in [FETCH, "Accept: */*\r\n", ""] {
        let (status, body) = request(port, "/showcase.html", "127.0.0.1", headers).expect("page");
        assert_eq!(status, 200);
        assert!(
            body == on_disk,
            "served as written to a fetch with {headers:?}"
        );
    }
    let (status, _) = get(port, "/assets/receipts_verifier_bg.wasm").expect("wasm");
    assert_eq!(status, 200);
    // A name that is not this machine's (DNS rebinding) is refused.
    let (status, _) = get_as(port, "/showcase.html", "evil.example").expect("answer");
    assert_eq!(status, 421);
    let (status, _) = get_as(port, "/showcase.html", &format!("localhost:{port}")).expect("answer");
    assert_eq!(status, 200);

    // An input changes: the served page follows within a few seconds.
    let showcase = root.join("showcase/showcase.json");
    let text = fs::read_to_string(&showcase).expect("showcase");
    fs::write(
        &showcase,
        text.replace("Five runs worth a look", "Five runs to replay"),
    )
    .expect("write");
    let changed = Instant::now();
    wait_for(port, "/showcase.html", 10, |s, b| {
        s == 200 && b.contains("Five runs to replay")
    });
    assert!(changed.elapsed() < Duration::from_secs(10));

    // A broken input: the last good site stays served, with the error on the page.
    let run = root.join("experiments/E04/runs/E04-release-brief-fast-s2-ladder.json");
    let json = fs::read_to_string(&run).expect("run");
    fs::write(&run, &json[..json.len() / 2]).expect("truncate");
    let page = wait_for(port, "/showcase.html", 10, |_, b| {
        b.contains("receipts-build-error")
    });
    assert!(
        page.contains("Five runs to replay"),
        "the last good site is still served"
    );
    assert!(
        page.contains("E04-release-brief-fast-s2-ladder.json"),
        "the error names the file"
    );
    let (_, status) = get(port, "/_receipts/status").expect("status");
    assert!(status.contains("EOF while parsing"), "{status}");

    // Fixed again: the error goes away.
    fs::write(&run, json).expect("restore");
    wait_for(port, "/showcase.html", 10, |_, b| {
        !b.contains("receipts-build-error")
    });

    // Paths outside the site are refused.
    let (status, body) = get(port, "/../Cargo.toml").expect("response");
    assert_ne!(status, 200, "{body}");
    let (status, _) = get(port, "/%2e%2e/experiments/E01/experiment.json").expect("response");
    assert_ne!(status, 200);
}

#[test]
fn a_port_in_use_is_said_at_once_before_any_build() {
    let dir = sample_copy();
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("addr").port().to_string();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_receipts"))
        .args(["serve", "--port", &port])
        .current_dir(dir.path())
        .output()
        .expect("receipts serve runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    assert!(stderr.contains("--port 0"), "{stderr}");
    assert!(
        !dir.path().join("site").exists(),
        "nothing was built before the port was tried"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
