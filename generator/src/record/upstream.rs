//! Where the proxy forwards each request: by the first segment of its path.
//!
//! The agent's command is given base URLs on the proxy whose first path
//! segment names the provider (`/openai/v1`, `/anthropic`), or, for any
//! other API, the generic `/upstream`; the rest of the path is the
//! provider's own.

use super::RecordError;

/// The base-URL variables the command is given, each with the prefix it
/// points to and the path the provider's SDK expects after the origin.
pub const VARIABLES: [(&str, &str, &str); 3] = [
    ("OPENAI_BASE_URL", "openai", "/v1"),
    ("ANTHROPIC_BASE_URL", "anthropic", ""),
    ("RECEIPTS_UPSTREAM_URL", "upstream", ""),
];

/// The providers' own origins, used when no `--upstream` is given.
const OPENAI: &str = "https://api.openai.com";
const ANTHROPIC: &str = "https://api.anthropic.com";

/// The upstream of each prefix.
#[derive(Debug, Clone)]
pub struct Upstreams {
    /// `(prefix, origin, base path)`: a request to `/prefix/rest` goes to
    /// `origin` + `base path` + `/rest`.
    routes: Vec<(&'static str, String, String)>,
}

impl Upstreams {
    /// Every request to `upstream` (a URL, e.g. `http://127.0.0.1:9000` or
    /// `https://gateway.example/v2`), whatever its prefix; without one,
    /// OpenAI's and Anthropic's own APIs, and no generic upstream.
    pub fn new(upstream: Option<&str>) -> Result<Upstreams, RecordError> {
        let routes = match upstream {
            Some(url) => {
                let (origin, base) = split_url(url)?;
                VARIABLES
                    .iter()
                    .map(|(_, prefix, _)| (*prefix, origin.clone(), base.clone()))
                    .collect()
            }
            None => vec![
                ("openai", OPENAI.to_string(), String::new()),
                ("anthropic", ANTHROPIC.to_string(), String::new()),
            ],
        };
        Ok(Upstreams { routes })
    }

    /// The origin and the path and query to forward a request for
    /// `path_and_query` to; `None` for a path under no known prefix.
    pub fn route(&self, path_and_query: &str) -> Option<(String, String)> {
        let rest = path_and_query.strip_prefix('/')?;
        let (first, rest) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let (_, origin, base) = self.routes.iter().find(|(p, _, _)| *p == first)?;
        let rest = if rest.is_empty() || rest.starts_with('?') {
            format!("/{rest}")
        } else {
            rest.to_string()
        };
        let target = format!("{base}{rest}");
        Some((origin.clone(), target))
    }

    /// The prefixes routed, for an error message.
    pub fn prefixes(&self) -> String {
        let names: Vec<String> = self
            .routes
            .iter()
            .map(|(p, _, _)| format!("/{p}"))
            .collect();
        names.join(", ")
    }

    /// The environment variables that point the command at the proxy on
    /// `addr`: only those whose prefix is routed.
    pub fn variables(&self, addr: std::net::SocketAddr) -> Vec<(&'static str, String)> {
        VARIABLES
            .iter()
            .filter(|(_, prefix, _)| self.routes.iter().any(|(p, _, _)| p == prefix))
            .map(|(name, prefix, path)| (*name, format!("http://{addr}/{prefix}{path}")))
            .collect()
    }
}

/// `scheme://authority` and the path (without a trailing `/`) of an
/// `http` or `https` URL with no query.
fn split_url(url: &str) -> Result<(String, String), RecordError> {
    let refuse = || RecordError::NotAnUpstream(url.to_string());
    let (scheme, rest) = url.split_once("://").ok_or_else(refuse)?;
    if !(scheme == "http" || scheme == "https") || rest.contains(['?', '#']) {
        return Err(refuse());
    }
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(refuse());
    }
    Ok((
        format!("{scheme}://{authority}"),
        path.trim_end_matches('/').to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_goes_to_the_upstream_of_its_prefix() {
        let up = Upstreams::new(None).expect("defaults");
        assert_eq!(
            up.route("/openai/v1/chat/completions"),
            Some((OPENAI.into(), "/v1/chat/completions".into()))
        );
        assert_eq!(
            up.route("/anthropic/v1/messages?beta=true"),
            Some((ANTHROPIC.into(), "/v1/messages?beta=true".into()))
        );
        assert_eq!(up.route("/upstream/x"), None, "no generic upstream given");
        assert_eq!(up.route("/openaiv1/x"), None);
        assert_eq!(up.route("/v1/chat/completions"), None);

        let up = Upstreams::new(Some("http://127.0.0.1:9000/base/")).expect("a URL");
        assert_eq!(
            up.route("/openai/v1/responses"),
            Some(("http://127.0.0.1:9000".into(), "/base/v1/responses".into()))
        );
        assert_eq!(
            up.route("/upstream"),
            Some(("http://127.0.0.1:9000".into(), "/base/".into()))
        );
        let addr: std::net::SocketAddr = "127.0.0.1:5000".parse().expect("addr");
        assert_eq!(
            up.variables(addr),
            vec![
                (
                    "OPENAI_BASE_URL",
                    "http://127.0.0.1:5000/openai/v1".to_string()
                ),
                (
                    "ANTHROPIC_BASE_URL",
                    "http://127.0.0.1:5000/anthropic".to_string()
                ),
                (
                    "RECEIPTS_UPSTREAM_URL",
                    "http://127.0.0.1:5000/upstream".to_string()
                ),
            ]
        );
    }

    #[test]
    fn an_upstream_is_an_http_url_without_credentials() {
        for bad in [
            "127.0.0.1:9000",
            "ftp://x",
            "http://user:pw@host",
            "http://host/?q",
            "http://",
        ] {
            assert!(Upstreams::new(Some(bad)).is_err(), "{bad}");
        }
    }
}
