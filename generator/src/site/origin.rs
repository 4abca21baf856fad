//! Where the records a page shows came from, as its banner says: made up by
//! the simulator, answered by a tool's mock model or a server on the
//! recording machine, or recorded from a provider (no banner). A page of
//! many records says what they share, or that some are marked.

use serde::{Deserialize, Serialize};

use receipts_verifier::inspect::ImportedEval;
use receipts_verifier::otel::ImportedTraces;

use crate::head::RunHead;
use crate::load::{Corpus, LoadedExperiment};

use super::{regressions_simulated, suite_simulated};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Recorded from a provider's answers: the page carries no banner.
    #[default]
    Recorded,
    /// Written by the receipts simulator: no model was called.
    Simulator,
    /// An evaluation run against Inspect AI's mock model (`mockllm/…`).
    MockModel,
    /// Calls answered by a server on the recording machine (`localhost`).
    LocalServer,
    /// Records of more than one origin, some of them not a provider's.
    Mixed,
}

impl Origin {
    /// The simulator's when `simulated`, else recorded.
    pub fn simulator_if(simulated: bool) -> Origin {
        if simulated {
            Origin::Simulator
        } else {
            Origin::Recorded
        }
    }

    /// What records of these origins share: their one origin, or `Mixed`
    /// when they differ and any is not recorded (`Recorded` for none).
    pub fn of_all(origins: impl IntoIterator<Item = Origin>) -> Origin {
        let mut origins = origins.into_iter();
        let Some(first) = origins.next() else {
            return Origin::Recorded;
        };
        origins.fold(first, |shared, next| {
            if shared == next {
                shared
            } else {
                Origin::Mixed
            }
        })
    }
}

/// An imported evaluation's origin: Inspect's mock model, or recorded.
pub fn eval_origin(eval: &ImportedEval) -> Origin {
    if eval.model.starts_with("mockllm/") {
        Origin::MockModel
    } else {
        Origin::Recorded
    }
}

/// An OpenTelemetry export's origin: a local server when every call it
/// holds went to one, or recorded.
pub fn traces_origin(traces: &ImportedTraces) -> Origin {
    if super::traces_local(traces) {
        Origin::LocalServer
    } else {
        Origin::Recorded
    }
}

/// A run's origin: the simulator's when its record says so; a local
/// server's when it was recorded on the wire and every call its capture
/// holds was forwarded to a loopback address (a mock of the provider's
/// API); recorded otherwise.
pub fn run_origin(corpus: &Corpus, head: &RunHead) -> Origin {
    if head.simulated {
        return Origin::Simulator;
    }
    let upstreams = head
        .capture
        .as_ref()
        .and_then(|sha256| corpus.objects.get(sha256))
        .and_then(|bytes| serde_json::from_slice::<Upstreams>(bytes).ok());
    match upstreams {
        Some(u) if !u.calls.is_empty() && u.calls.iter().all(|c| loopback(&c.upstream)) => {
            Origin::LocalServer
        }
        _ => Origin::Recorded,
    }
}

/// Where each call of a wire capture was forwarded, and nothing else of it.
#[derive(Deserialize)]
struct Upstreams {
    calls: Vec<Upstream>,
}

#[derive(Deserialize)]
struct Upstream {
    upstream: String,
}

/// Whether `address` (a host, `host:port`, or an origin such as
/// `http://127.0.0.1:8080`) names this machine: `localhost`, an address in
/// 127.0.0.0/8, `::1`, or the unspecified address (`0.0.0.0`, `::`), which a
/// connection takes to this machine.
pub fn loopback(address: &str) -> bool {
    let rest = address.split_once("://").map_or(address, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split_once(']').map_or(v6, |(h, _)| h)
    } else if authority.matches(':').count() > 1 {
        authority
    } else {
        authority.split_once(':').map_or(authority, |(h, _)| h)
    };
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback() || ip.is_unspecified(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// An experiment's origin: the simulator's when the experiment says so,
/// else what its runs share ([`run_origin`]).
pub fn experiment_origin(corpus: &Corpus, loaded: &LoadedExperiment) -> Origin {
    if loaded.experiment.provenance.is_simulated() {
        return Origin::Simulator;
    }
    Origin::of_all(loaded.runs.iter().map(|r| run_origin(corpus, r)))
}

/// The origin of the experiments' runs alone (the runs index, the compare
/// page and the showcase show nothing else).
pub fn experiments_origin(corpus: &Corpus) -> Origin {
    Origin::of_all(
        corpus
            .experiments
            .iter()
            .map(|e| experiment_origin(corpus, e)),
    )
}

/// The origin of every record of a site (its index, its Verify page, its memos).
pub fn site_origin(corpus: &Corpus) -> Origin {
    let imports = corpus.imports.iter().flat_map(|i| {
        let evals = i.evals.iter().map(|(_, e)| eval_origin(e));
        evals.chain(i.traces.iter().map(|(_, t)| traces_origin(t)))
    });
    let experiments = corpus
        .experiments
        .iter()
        .map(|e| experiment_origin(corpus, e));
    let suites = corpus.harness.iter().map(suite_simulated);
    let regressions = corpus.regressions.iter().map(regressions_simulated);
    Origin::of_all(
        experiments
            .chain(imports)
            .chain(suites.chain(regressions).map(Origin::simulator_if)),
    )
}

#[cfg(test)]
mod tests {
    use super::Origin::{self, *};

    #[test]
    fn records_of_one_origin_share_it_and_of_several_are_mixed() {
        assert_eq!(Origin::of_all([]), Recorded);
        assert_eq!(Origin::of_all([Simulator, Simulator]), Simulator);
        assert_eq!(Origin::of_all([MockModel]), MockModel);
        assert_eq!(Origin::of_all([Recorded, Recorded]), Recorded);
        assert_eq!(Origin::of_all([Recorded, Simulator]), Mixed);
        assert_eq!(Origin::of_all([MockModel, Simulator, Recorded]), Mixed);
        assert_eq!(Origin::of_all([Simulator, MockModel]), Mixed);
    }

    #[test]
    fn loopback_addresses_are_this_machine_and_others_are_not() {
        for local in [
            "http://127.0.0.1:8123",
            "http://127.8.9.10",
            "http://localhost:9000/v1",
            "https://LOCALHOST",
            "http://[::1]:8080",
            "::1",
            "[::1]",
            "127.0.0.1:4318",
            "localhost",
            "http://user@127.0.0.1:80/",
            "http://0.0.0.0:8000",
        ] {
            assert!(super::loopback(local), "{local}");
        }
        for remote in [
            "https://api.openai.com",
            "http://10.0.0.2:8000",
            "http://localhost.example.com",
            "http://127.0.0.1.example.com",
            "http://[2001:db8::1]:443",
            "",
            "http://evil.com@",
        ] {
            assert!(!super::loopback(remote), "{remote}");
        }
    }
}
