//! `receipts serve`: build, serve the site on 127.0.0.1, rebuild when the
//! input or the templates change, and reload open pages (server-sent events).
//! A failed rebuild keeps the last good site and shows its error on every page.
//! A rebuild changes the site it wrote before in place: only the files
//! whose bytes changed are written (see [`crate::write::in_place`]).

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use notify::RecursiveMode;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};
use tower_http::services::ServeDir;

use crate::build::{build, describe, BuildOptions};
use crate::write::in_place::InPlace;

/// The directories whose changes trigger a rebuild, relative to the root.
pub const WATCHED: [&str; 4] = ["experiments", "showcase", "docs", "site-templates"];

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub build: BuildOptions,
    pub host: String,
    pub port: u16,
    pub open: bool,
}

/// What pages and scripts learn after each rebuild.
#[derive(Debug, Clone)]
enum Notice {
    Rebuilt,
    Failed(String),
}

struct Shared {
    out: PathBuf,
    /// Held by each request while it reads the site, and by a rebuild while
    /// it changes the site in place: no page is served half-changed.
    serving: Arc<tokio::sync::RwLock<()>>,
    /// The error of the last build, when it failed.
    error: RwLock<Option<String>>,
    notices: broadcast::Sender<Notice>,
}

impl Shared {
    fn rebuild(&self, options: &BuildOptions) {
        let started = Instant::now();
        match build(options) {
            Ok(report) => {
                *self
                    .error
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
                eprintln!(
                    "{} (rebuilt in {} ms)",
                    describe(&report, &options.out),
                    started.elapsed().as_millis()
                );
                let _ = self.notices.send(Notice::Rebuilt);
            }
            Err(e) => {
                let message = crate::error::report(&e);
                eprintln!("error: {message} (serving the last good site)");
                *self
                    .error
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(message.clone());
                let _ = self.notices.send(Notice::Failed(message));
            }
        }
    }

    fn error(&self) -> Option<String> {
        self.error
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

use crate::escape::html as escape;

const RELOAD_JS: &str = r#"// Reloads the page when the site is rebuilt; shows a failed rebuild's error.
(function () {
  "use strict";
  if (!window.EventSource) return;
  var events = new EventSource("/_receipts/events");
  events.addEventListener("reload", function () { window.location.reload(); });
  events.addEventListener("failed", function (e) {
    var box = document.getElementById("receipts-build-error");
    if (!box) {
      box = document.createElement("div");
      box.id = "receipts-build-error";
      box.setAttribute("role", "alert");
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent = "The last rebuild failed; this is the last good site. " + e.data;
  });
})();
"#;

/// Whether a request opens a page in a browsing context (a tab, a frame),
/// not fetches it as data: only such a page gets the reload script. The
/// page check and the standalone verifier fetch pages to compare their
/// bytes with what the records render to, and must be served the file
/// itself, as a plain static host serves it. Browsers say which with
/// `Sec-Fetch-Dest`; a client that does not is taken to open a page when
/// it asks for HTML.
pub fn opens_page(headers: &axum::http::HeaderMap) -> bool {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match value("sec-fetch-dest") {
        Some(dest) => matches!(dest, "document" | "iframe" | "frame"),
        None => value("accept").is_some_and(|a| a.contains("text/html")),
    }
}

/// Adds the reload script to every HTML page a browser opens, and the last
/// build error when there is one.
async fn inject(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    // A page is read whole under the lock; other files are replaced by
    // renaming, so a reader holds either the old file or the new.
    let _reading = shared.serving.read().await;
    let opens = opens_page(request.headers());
    let response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !html || !opens {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 256 * 1024 * 1024).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let mut page = String::from_utf8_lossy(&bytes).into_owned();
    if let Some(error) = shared.error() {
        let banner = format!(
            "<div id=\"receipts-build-error\" role=\"alert\"><strong>The last rebuild failed; this is the last good site.</strong><pre>{}</pre></div>",
            escape(&error)
        );
        page = match page.find("<body>") {
            Some(i) => format!("{}{banner}{}", &page[..i + 6], &page[i + 6..]),
            None => format!("{banner}{page}"),
        };
    }
    let script = "<script src=\"/_receipts/reload.js\"></script>";
    page = match page.rfind("</body>") {
        Some(i) => format!("{}{script}{}", &page[..i], &page[i..]),
        None => format!("{page}{script}"),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(page))
}

/// What the browser is told after each rebuild.
async fn events(
    State(shared): State<Arc<Shared>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream =
        BroadcastStream::new(shared.notices.subscribe()).filter_map(|notice| match notice {
            Ok(Notice::Rebuilt) => Some(Ok(Event::default().event("reload").data("rebuilt"))),
            Ok(Notice::Failed(message)) => Some(Ok(Event::default()
                .event("failed")
                .data(message.replace('\r', "")))),
            Err(_) => None,
        });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// When no site was ever built, every page is the error.
async fn not_found(State(shared): State<Arc<Shared>>) -> Response {
    match shared.error() {
        Some(error) => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            format!("<!doctype html><title>Build failed</title><body><h1>The build failed</h1><pre>{}</pre></body>", escape(&error)),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

fn app(shared: Arc<Shared>) -> Router {
    let files = ServeDir::new(&shared.out).append_index_html_on_directories(true);
    Router::new()
        .route(
            "/_receipts/reload.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    RELOAD_JS,
                )
            }),
        )
        .route("/_receipts/events", get(events))
        .route(
            "/_receipts/status",
            get(|State(shared): State<Arc<Shared>>| async move {
                axum::Json(serde_json::json!({ "error": shared.error() }))
            }),
        )
        .fallback_service(files.not_found_service(get(not_found).with_state(shared.clone())))
        .layer(middleware::from_fn_with_state(shared.clone(), inject))
        .layer(middleware::from_fn(check_host))
        .with_state(shared)
}

/// Whether a request's `Host` names this machine by address or as
/// `localhost`. A web page on another site can make a browser send requests
/// to a name it controls that resolves to 127.0.0.1 (DNS rebinding); such a
/// request carries that name, and is refused.
pub fn host_allowed(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        // [v6]:port
        Some(rest) => match rest.split_once(']') {
            Some((v6, port)) => {
                return v6.parse::<std::net::Ipv6Addr>().is_ok()
                    && (port.is_empty() || port.strip_prefix(':').is_some_and(is_port))
            }
            None => return false,
        },
        None => match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        },
    };
    let name = name.to_ascii_lowercase();
    name.parse::<std::net::Ipv4Addr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
}

fn is_port(port: &str) -> bool {
    !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit())
}

/// Refuses requests whose `Host` is not this machine's address or `localhost`.
async fn check_host(request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(hyper::http::uri::Authority::as_str)
        });
    match host {
        Some(host) if host_allowed(host) => next.run(request).await,
        _ => (
            StatusCode::MISDIRECTED_REQUEST,
            "receipts serve answers only requests for localhost or an IP address\n",
        )
            .into_response(),
    }
}

/// Whether a file-system event changes content (reads, which the build
/// itself makes, do not).
fn changes_content(event: &notify::Event) -> bool {
    use notify::event::ModifyKind;
    use notify::EventKind;
    match event.kind {
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(_) => true,
        _ => false,
    }
}

/// Watches the input and rebuilds on change, once the changed files have
/// been quiet for 150 ms (notify's debouncer), for as long as the process
/// runs.
fn watch(root: &Path, shared: Arc<Shared>, options: BuildOptions) -> Result<(), ServeError> {
    use notify_debouncer_full::{new_debouncer_opt, DebounceEventResult, NoCache};
    let (tx, rx) = std::sync::mpsc::channel::<DebounceEventResult>();
    // No file-id cache: telling renames apart needs a scan of every
    // watched file first, and any change rebuilds alike.
    let mut debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, NoCache>(
        Duration::from_millis(150),
        None,
        tx,
        NoCache,
        notify::Config::default(),
    )
    .map_err(ServeError::Watcher)?;
    for dir in WATCHED.iter().map(|d| root.join(d)).filter(|d| d.is_dir()) {
        debouncer
            .watch(&dir, RecursiveMode::Recursive)
            .map_err(|source| ServeError::Watch {
                dir: dir.clone(),
                source,
            })?;
    }
    std::thread::spawn(move || {
        let _keep = debouncer;
        for events in rx {
            if events.is_ok_and(|events| events.iter().any(|e| changes_content(e))) {
                shared.rebuild(&options);
            }
        }
    });
    Ok(())
}

/// Why the preview server stopped or could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("starting the file watcher")]
    Watcher(#[source] notify::Error),
    #[error("watching {}", .dir.display())]
    Watch {
        dir: PathBuf,
        #[source]
        source: notify::Error,
    },
    #[error("starting the server")]
    Start(#[source] std::io::Error),
    #[error("listening on {host}:{port} (another port: --port N, or --port 0 for a free one)")]
    Listen {
        host: String,
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("serving")]
    Serve(#[source] std::io::Error),
}

pub fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let root = options.build.root.clone();
    let mut build_options = options.build.clone();
    let templates = root.join("site-templates");
    if build_options.templates.is_none() && templates.join("base.html").is_file() {
        build_options.templates = Some(templates);
    }
    let serving = Arc::new(tokio::sync::RwLock::new(()));
    let lock = serving.clone();
    build_options.in_place = Some(Arc::new(InPlace::new(Some(Arc::new(move || {
        // Requests are short: wait for those under way, then keep new ones out.
        loop {
            if let Ok(guard) = lock.clone().try_write_owned() {
                return Box::new(guard) as Box<dyn std::any::Any>;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    })))));
    // The address is taken before the first build, so a port in use is
    // said at once, not after building the whole site.
    let listener = std::net::TcpListener::bind((options.host.as_str(), options.port))
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|source| ServeError::Listen {
            host: options.host.clone(),
            port: options.port,
            source,
        })?;
    let (notices, _) = broadcast::channel(16);
    let shared = Arc::new(Shared {
        serving,
        out: build_options.out.clone(),
        error: RwLock::new(None),
        notices,
    });
    shared.rebuild(&build_options);
    watch(&root, shared.clone(), build_options)?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Start)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(ServeError::Start)?;
        let address = listener.local_addr().map_err(ServeError::Start)?;
        let url = format!("http://{address}/");
        println!("serving {} on {url} (Ctrl-C to stop)", shared.out.display());
        if options.open {
            let opener = if cfg!(target_os = "macos") {
                "open"
            } else {
                "xdg-open"
            };
            if std::process::Command::new(opener)
                .arg(&url)
                .spawn()
                .is_err()
            {
                eprintln!("could not start {opener}; open {url} yourself");
            }
        }
        axum::serve(listener, app(shared))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(ServeError::Serve)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_and_addresses_are_answered() {
        for ok in [
            "127.0.0.1:8000",
            "127.0.0.1",
            "localhost:8000",
            "LOCALHOST",
            "app.localhost:1",
            "[::1]:8000",
            "[::1]",
            "192.168.1.5:8000",
        ] {
            assert!(host_allowed(ok), "{ok}");
        }
        for bad in [
            "evil.example:8000",
            "evil.example",
            "localhost.evil.example",
            "127.0.0.1.nip.io:8000",
            "[::1",
            "[::1]x",
            "localhost:80a",
            "",
        ] {
            assert!(!host_allowed(bad), "{bad}");
        }
    }
}
