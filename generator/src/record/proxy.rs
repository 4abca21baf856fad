//! The recording proxy: HTTP/1 on 127.0.0.1, each request forwarded
//! unchanged to its upstream and its response passed back frame by frame as
//! it arrives, while both are kept for the capture.
//!
//! The proxy never answers for the upstream: an upstream it cannot reach
//! closes the agent's connection without a response, and a response cut
//! mid-way is cut at the same byte for the agent. Only a request for no
//! known upstream is answered by the proxy itself (404, never recorded).
//!
//! An exchange ends when its response ends, when the upstream cuts it, or
//! when the agent closes its connection (its relay stops at once). When
//! the agent's command has exited, the proxy waits a grace period for the
//! exchanges still under way and keeps any left as the agent's leaving.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use receipts_verifier::digest::sha256_hex;
use receipts_verifier::wire::{self, Api, Body, Exchange, ExchangeEnd, REDACTED};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::upstream::Upstreams;

/// The body the proxy hands the agent: the upstream's frames as they come.
type Relayed = StreamBody<tokio_stream::wrappers::ReceiverStream<Result<Frame<Bytes>, Cut>>>;

/// Why a relayed response stopped early; the agent's connection is cut.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Cut(String);

type HttpsClient = Client<
    hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
    Full<Bytes>,
>;

/// What the proxy kept: every exchange, and every body by digest.
#[derive(Default)]
pub struct Kept {
    pub exchanges: Vec<Exchange>,
    pub objects: BTreeMap<String, Bytes>,
}

/// What was kept, and the exchanges under way as they stand.
#[derive(Default)]
struct Ledger {
    kept: Kept,
    /// Exchanges under way by sequence number, with when each was sent.
    pending: BTreeMap<u32, (Exchange, Instant)>,
}

struct State {
    upstreams: Upstreams,
    client: HttpsClient,
    next: AtomicU32,
    ledger: Mutex<Ledger>,
    /// How many exchanges are under way; the proxy is done when none is.
    open: tokio::sync::watch::Sender<usize>,
}

impl State {
    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// How long the proxy waits, once the agent's command has exited, for the
/// exchanges still under way to end.
pub const GRACE: Duration = Duration::from_secs(5);

/// A running proxy.
pub struct Proxy {
    pub addr: SocketAddr,
    state: Arc<State>,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl Proxy {
    /// Listens on 127.0.0.1 at a free port and forwards to `upstreams`.
    pub async fn start(upstreams: Upstreams) -> Result<Proxy, super::RecordError> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(super::RecordError::Listen)?;
        let addr = listener.local_addr().map_err(super::RecordError::Listen)?;
        // Small writes go out at once: a request's head and body, or an
        // event of a stream, are not held back for an acknowledgement.
        let mut http = hyper_util::client::legacy::connect::HttpConnector::new();
        http.set_nodelay(true);
        http.enforce_http(false);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let state = Arc::new(State {
            upstreams,
            client: Client::builder(TokioExecutor::new()).build(connector),
            next: AtomicU32::new(0),
            ledger: Mutex::new(Ledger::default()),
            open: tokio::sync::watch::channel(0).0,
        });
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let accepting = state.clone();
        tokio::spawn(async move {
            loop {
                let stream = tokio::select! {
                    _ = &mut stopped => break,
                    accepted = listener.accept() => match accepted {
                        Ok((stream, _)) => stream,
                        Err(_) => continue,
                    },
                };
                let _ = stream.set_nodelay(true);
                let state = accepting.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| {
                        let state = state.clone();
                        async move { state.forward(req).await }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Proxy { addr, state, stop })
    }

    /// Stops accepting, waits up to [`GRACE`] for the exchanges under way
    /// to end, and returns what was kept, exchanges in the order sent,
    /// retries marked.
    pub async fn finish(self) -> Kept {
        self.finish_within(GRACE).await
    }

    /// [`Proxy::finish`], waiting up to `grace`. An exchange still under
    /// way after it is kept as it stands, ended by the agent's leaving:
    /// the command that made it has exited.
    pub async fn finish_within(self, grace: Duration) -> Kept {
        let _ = self.stop.send(());
        let mut open = self.state.open.subscribe();
        let _ = tokio::time::timeout(grace, open.wait_for(|n| *n == 0)).await;
        let mut ledger = std::mem::take(&mut *self.state.ledger());
        for (_, (mut exchange, t0)) in std::mem::take(&mut ledger.pending) {
            exchange.done_ms = ms(t0);
            exchange.end = ExchangeEnd::ClientGone;
            exchange.error = Some(format!(
                "still under way {} s after the agent's command exited; kept as it stood",
                grace.as_secs_f64()
            ));
            ledger.kept.exchanges.push(exchange);
        }
        let mut kept = ledger.kept;
        kept.exchanges.sort_by_key(|e| e.seq);
        mark_retries(&mut kept.exchanges);
        kept
    }
}

/// Marks each exchange that repeats an earlier one
/// ([`wire::derive::retries`]).
fn mark_retries(exchanges: &mut [Exchange]) {
    let retries = wire::derive::retries(exchanges);
    for (e, retry_of) in exchanges.iter_mut().zip(retries) {
        e.retry_of = retry_of;
    }
}

/// Headers that belong to one connection, not to the message: never
/// forwarded (RFC 9110 §7.6.1).
const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

fn forwarded(headers: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        if !HOP_BY_HOP.contains(&name.as_str()) && name != hyper::header::HOST {
            out.append(name.clone(), value.clone());
        }
    }
    out
}

/// Headers as the capture keeps them: names lowercase, secrets redacted.
fn recorded(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = if wire::is_secret_header(name.as_str()) {
                REDACTED.to_string()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name.as_str().to_string(), value)
        })
        .collect()
}

/// A path and query with the values of secret query parameters
/// (`?key=…`) redacted.
fn redacted_target(path_and_query: &str) -> String {
    let Some((path, query)) = path_and_query.split_once('?') else {
        return path_and_query.to_string();
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if wire::is_secret_header(name) => format!("{name}={REDACTED}"),
            _ => pair.to_string(),
        })
        .collect();
    format!("{path}?{}", query.join("&"))
}

/// Milliseconds since `t0`.
fn ms(t0: Instant) -> u64 {
    t0.elapsed().as_millis().try_into().unwrap_or(u64::MAX)
}

/// The time now (UTC, milliseconds).
pub fn now() -> String {
    let ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    receipts_verifier::time::format(receipts_verifier::time::UnixMillis(
        ms.try_into().unwrap_or(i64::MAX),
    ))
}

/// The message an exchange the agent left is kept with.
const CLIENT_GONE: &str = "the agent closed its connection before the response ended";

/// An exchange being recorded: counted open and listed as pending until it
/// is kept. One dropped unkept (the agent's connection closed while the
/// upstream had not yet answered) is kept as the agent's leaving.
struct Open {
    state: Arc<State>,
    exchange: Exchange,
    t0: Instant,
    kept: bool,
}

impl Open {
    fn new(state: Arc<State>, exchange: Exchange) -> Open {
        let t0 = Instant::now();
        state
            .ledger()
            .pending
            .insert(exchange.seq, (exchange.clone(), t0));
        state.open.send_modify(|n| *n += 1);
        Open {
            state,
            exchange,
            t0,
            kept: false,
        }
    }

    /// Notes the response's head: kept with the exchange even if the
    /// proxy finishes before the response ends.
    fn answered(&mut self, status: u16, headers: Vec<(String, String)>) {
        self.exchange.status = Some(status);
        self.exchange.response_headers = headers;
        if let Some((pending, _)) = self.state.ledger().pending.get_mut(&self.exchange.seq) {
            pending.status = self.exchange.status;
            pending.response_headers = self.exchange.response_headers.clone();
        }
    }

    fn keep(&mut self, end: ExchangeEnd, error: Option<String>, response: Option<Bytes>) {
        if std::mem::replace(&mut self.kept, true) {
            return;
        }
        self.exchange.done_ms = ms(self.t0);
        self.exchange.end = end;
        self.exchange.error = error;
        let mut ledger = self.state.ledger();
        // An exchange the proxy finished without was kept as it stood.
        if ledger.pending.remove(&self.exchange.seq).is_some() {
            if let Some(bytes) = response {
                let sha256 = sha256_hex(&bytes);
                self.exchange.response = Some(Body {
                    sha256: sha256.clone(),
                    bytes: bytes.len() as u64,
                });
                ledger.kept.objects.entry(sha256).or_insert(bytes);
            }
            ledger.kept.exchanges.push(self.exchange.clone());
        }
        drop(ledger);
        self.state.open.send_modify(|n| *n -= 1);
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.keep(ExchangeEnd::ClientGone, Some(CLIENT_GONE.into()), None);
    }
}

impl State {
    async fn forward(
        self: Arc<Self>,
        req: Request<Incoming>,
    ) -> Result<Response<http_body_util::Either<Relayed, Full<Bytes>>>, Cut> {
        let path_and_query = req
            .uri()
            .path_and_query()
            .map_or_else(|| "/".to_string(), |p| p.as_str().to_string());
        let Some((origin, target)) = self.upstreams.route(&path_and_query) else {
            let message = format!(
                "receipts record: no upstream for {}; paths start with {}\n",
                req.uri().path(),
                self.upstreams.prefixes()
            );
            eprint!("{message}");
            let mut response = Response::new(http_body_util::Either::Right(Full::new(
                Bytes::from(message),
            )));
            *response.status_mut() = StatusCode::NOT_FOUND;
            return Ok(response);
        };
        let (parts, body) = req.into_parts();
        // A request body that does not arrive whole is not forwarded.
        let body = body
            .collect()
            .await
            .map_err(|e| Cut(format!("the request body did not arrive: {e}")))?
            .to_bytes();
        let method = parts.method.as_str().to_string();
        let api = Api::of(&method, target.split('?').next().unwrap_or(&target));
        let mut headers = forwarded(&parts.headers);
        // Bodies are kept as they are read: uncompressed.
        headers.insert(
            hyper::header::ACCEPT_ENCODING,
            HeaderValue::from_static("identity"),
        );
        let request_sha256 = sha256_hex(&body);
        let uri: Uri = format!("{origin}{target}")
            .parse()
            .map_err(|e| Cut(format!("{origin}{target} is not a URL: {e}")))?;
        let mut upstream = Request::builder().method(parts.method).uri(uri);
        *upstream.headers_mut().expect("a request builder") = headers;
        let upstream = upstream
            .body(Full::new(body.clone()))
            .map_err(|e| Cut(e.to_string()))?;
        let seq = self.next.fetch_add(1, Ordering::SeqCst);
        let exchange = Exchange {
            seq,
            method,
            upstream: origin.clone(),
            target: redacted_target(&target),
            api: api.as_str().to_string(),
            request_headers: recorded(upstream.headers()),
            request: Body {
                sha256: request_sha256.clone(),
                bytes: body.len() as u64,
            },
            sent_at: now(),
            first_byte_ms: None,
            done_ms: 0,
            status: None,
            response_headers: Vec::new(),
            response: None,
            end: ExchangeEnd::Complete,
            error: None,
            retry_of: None,
        };
        self.ledger()
            .kept
            .objects
            .entry(request_sha256)
            .or_insert(body);
        let mut open = Open::new(self.clone(), exchange);
        let response = match self.client.request(upstream).await {
            Ok(response) => response,
            Err(e) => {
                let error = crate::error::report(&e);
                open.keep(ExchangeEnd::Unreachable, Some(error.clone()), None);
                return Err(Cut(error));
            }
        };
        let (parts, mut body) = response.into_parts();
        open.answered(parts.status.as_u16(), recorded(&parts.headers));
        let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, Cut>>(16);
        tokio::spawn(async move {
            let mut kept = Vec::new();
            loop {
                // The agent's leaving ends the relay at once, even while
                // the upstream holds its next frame back.
                let frame = tokio::select! {
                    biased;
                    frame = body.frame() => frame,
                    () = tx.closed() => {
                        open.keep(ExchangeEnd::ClientGone, Some(CLIENT_GONE.into()), Some(kept.into()));
                        return;
                    }
                };
                match frame {
                    None => {
                        if open.exchange.first_byte_ms.is_none() {
                            open.exchange.first_byte_ms = Some(ms(open.t0));
                        }
                        open.keep(ExchangeEnd::Complete, None, Some(kept.into()));
                        return;
                    }
                    Some(Ok(frame)) => {
                        if let Some(data) = frame.data_ref() {
                            if open.exchange.first_byte_ms.is_none() && !data.is_empty() {
                                open.exchange.first_byte_ms = Some(ms(open.t0));
                            }
                            kept.extend_from_slice(data);
                        }
                        if tx.send(Ok(frame)).await.is_err() {
                            open.keep(
                                ExchangeEnd::ClientGone,
                                Some(CLIENT_GONE.into()),
                                Some(kept.into()),
                            );
                            return;
                        }
                    }
                    Some(Err(e)) => {
                        let error = format!(
                            "the upstream's response was cut: {}",
                            crate::error::report(&e)
                        );
                        let _ = tx.send(Err(Cut(error.clone()))).await;
                        open.keep(ExchangeEnd::Cut, Some(error), Some(kept.into()));
                        return;
                    }
                }
            }
        });
        let mut response = Response::new(http_body_util::Either::Left(StreamBody::new(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )));
        *response.status_mut() = parts.status;
        *response.headers_mut() = forwarded(&parts.headers);
        Ok(response)
    }
}
