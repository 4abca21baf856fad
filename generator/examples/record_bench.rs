//! What `receipts record`'s proxy adds, against the same mock provider
//! called directly, in the same run: the latency of one call (sequential
//! Chat Completions calls, not streamed), and the throughput of 50
//! concurrent streams. Prints `name value` lines for `scripts/bench`:
//!
//!     cargo run --release --example record_bench [CALLS] [ROUNDS]

#[path = "../../tests/testsuite/record/mock.rs"]
#[allow(dead_code)]
mod mock;

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use receipts::record::{Proxy, Upstreams};

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

async fn call(client: &HttpClient, url: &str, stream: bool) {
    let body = format!(
        r#"{{"model":"bench","stream":{stream},"messages":[{{"role":"user","content":"hi"}}]}}"#
    );
    let request = hyper::Request::post(url)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .expect("a request");
    let response = client.request(request).await.expect("a response");
    assert!(response.status().is_success());
    response.into_body().collect().await.expect("a body");
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median time of one call to `url`, over `calls` calls one after another.
async fn latency(client: &HttpClient, url: &str, calls: usize) -> Duration {
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        call(client, url, false).await;
        times.push(t.elapsed());
    }
    median(times)
}

/// The median time of 50 concurrent streams to `url`, over `rounds` rounds.
async fn streams(client: &HttpClient, url: &str, rounds: usize) -> Duration {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let (client, url) = (client.clone(), url.to_string());
                tokio::spawn(async move { call(&client, &url, true).await })
            })
            .collect();
        for task in tasks {
            task.await.expect("a stream");
        }
        times.push(t.elapsed());
    }
    median(times)
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let mock = mock::Mock::start_with_delay(Duration::ZERO).await;
    let proxy = Proxy::start(Upstreams::new(Some(&mock.url())).expect("an upstream"))
        .await
        .expect("the proxy");
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let direct = format!("{}/v1/chat/completions", mock.url());
    let proxied = format!("http://{}/openai/v1/chat/completions", proxy.addr);
    // Warm both paths' connections.
    latency(&client, &direct, 20).await;
    latency(&client, &proxied, 20).await;
    let d = latency(&client, &direct, calls).await;
    let p = latency(&client, &proxied, calls).await;
    let ds = streams(&client, &direct, rounds).await;
    let ps = streams(&client, &proxied, rounds).await;
    let kept = proxy.finish().await;
    assert_eq!(kept.exchanges.len(), 20 + calls + 50 * rounds);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!("record_calls {calls}");
    println!("record_direct_call_us {:.0}", us(d));
    println!("record_proxy_call_us {:.0}", us(p));
    println!("record_stream_rounds {rounds}");
    println!("record_direct_streams_per_s {:.0}", 50.0 / ds.as_secs_f64());
    println!("record_proxy_streams_per_s {:.0}", 50.0 / ps.as_secs_f64());
}
