//! Stage 5, render: the minijinja templates from `site-templates/`, embedded
//! in the binary, turned into pages. Templates escape every value by default
//! (`.html` autoescape) and a missing value is an error, not an empty string.
//! Every page carries a strict Content-Security-Policy and loads its script
//! with Subresource Integrity; the verifier's worker, glue and wasm are
//! fetched with integrity values the page names.

use minijinja::{AutoEscape, Environment, Error, Output, State, UndefinedBehavior, Value};
use serde::Serialize;

use receipts_verifier::verify::Scope;

use crate::site::{Origin, SiteInfo};

/// Why templates could not be read or turned into pages.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template or page asset of a templates directory could not be read.
    #[error(transparent)]
    Read(#[from] crate::error::FileError),
    /// A template does not parse: its name and minijinja's account.
    #[error("template {name}: {reason:#}")]
    Template {
        name: String,
        reason: minijinja::Error,
    },
    /// A built-in page asset that must be text is not UTF-8.
    #[error("{0} is not UTF-8 text")]
    NotText(&'static str),
    /// A page could not be rendered: its path, its template and why.
    #[error("rendering {page} with {template}: {reason:#}")]
    Page {
        page: String,
        template: String,
        reason: minijinja::Error,
    },
}

type Result<T, E = RenderError> = std::result::Result<T, E>;

/// Each template, by name, as shipped in `site-templates/`.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../site-templates/base.html")),
    ("head.html", include_str!("../../site-templates/head.html")),
    (
        "macros.html",
        include_str!("../../site-templates/macros.html"),
    ),
    (
        "index.html",
        include_str!("../../site-templates/index.html"),
    ),
    (
        "experiment.html",
        include_str!("../../site-templates/experiment.html"),
    ),
    ("runs.html", include_str!("../../site-templates/runs.html")),
    ("run.html", include_str!("../../site-templates/run.html")),
    (
        "inspect.html",
        include_str!("../../site-templates/inspect.html"),
    ),
    ("otel.html", include_str!("../../site-templates/otel.html")),
    (
        "harness.html",
        include_str!("../../site-templates/harness.html"),
    ),
    (
        "harness-run.html",
        include_str!("../../site-templates/harness-run.html"),
    ),
    (
        "regressions.html",
        include_str!("../../site-templates/regressions.html"),
    ),
    (
        "skill-edit.html",
        include_str!("../../site-templates/skill-edit.html"),
    ),
    (
        "golden.html",
        include_str!("../../site-templates/golden.html"),
    ),
    ("week.html", include_str!("../../site-templates/week.html")),
    (
        "showcase.html",
        include_str!("../../site-templates/showcase.html"),
    ),
    ("doc.html", include_str!("../../site-templates/doc.html")),
    ("docs.html", include_str!("../../site-templates/docs.html")),
    (
        "verify.html",
        include_str!("../../site-templates/verify.html"),
    ),
    (
        "compare.html",
        include_str!("../../site-templates/compare.html"),
    ),
    ("root.html", include_str!("../../site-templates/root.html")),
];

pub const VERIFY_JS: &str = "assets/verify.js";
pub const RUNS_JS: &str = "assets/runs.js";
pub const COMPARE_JS: &str = "assets/compare.js";
pub const REPLAY_JS: &str = "assets/replay.js";
pub const WORKER_JS: &str = "assets/verify-worker.js";
/// The core verifier: the manifest checks and SHA-256, which every page's
/// Verify loads first, with its own glue (global `receipts_core`).
pub const CORE_GLUE_JS: &str = "assets/receipts_verifier_core.js";
pub const CORE_WASM: &str = "assets/receipts_verifier_core_bg.wasm";
/// The lean verifier: the core's checks and the receipts recomputed from
/// the records, loaded only by a Verify that has records to recompute.
pub const GLUE_JS: &str = "assets/receipts_verifier.js";
pub const WASM: &str = "assets/receipts_verifier_bg.wasm";
/// The full verifier: the lean one's checks, and imported records
/// recomputed and RFC 3161 time stamps verified; the same glue loads it.
pub const FULL_WASM: &str = "assets/receipts_verifier_full_bg.wasm";
pub const RENDER_GLUE_JS: &str = "assets/receipts_render.js";
pub const RENDER_WASM: &str = "assets/receipts_render_bg.wasm";

/// Static assets copied into the site as they are.
#[cfg(feature = "cli")]
pub const ASSETS: &[(&str, &[u8])] = &[
    (
        "assets/style.css",
        include_bytes!("../../site-templates/assets/style.css"),
    ),
    (
        "assets/favicon.svg",
        include_bytes!("../../site-templates/assets/favicon.svg"),
    ),
    (
        VERIFY_JS,
        include_bytes!("../../site-templates/assets/verify.js"),
    ),
    (
        RUNS_JS,
        include_bytes!("../../site-templates/assets/runs.js"),
    ),
    (
        COMPARE_JS,
        include_bytes!("../../site-templates/assets/compare.js"),
    ),
    (
        REPLAY_JS,
        include_bytes!("../../site-templates/assets/replay.js"),
    ),
    (
        WORKER_JS,
        include_bytes!("../../site-templates/assets/verify-worker.js"),
    ),
    // The verifier, built from verifier-wasm/ by scripts/build-wasm; the test
    // run checks that these bytes equal a fresh build of the source.
    (
        CORE_GLUE_JS,
        include_bytes!("../../verifier-wasm/pkg/receipts_verifier_core.js"),
    ),
    (
        CORE_WASM,
        include_bytes!("../../verifier-wasm/pkg/receipts_verifier_core_bg.wasm"),
    ),
    (
        GLUE_JS,
        include_bytes!("../../verifier-wasm/pkg/receipts_verifier.js"),
    ),
    (
        WASM,
        include_bytes!("../../verifier-wasm/pkg/receipts_verifier_bg.wasm"),
    ),
    (
        FULL_WASM,
        include_bytes!("../../verifier-wasm/pkg/receipts_verifier_full_bg.wasm"),
    ),
    // The page check, built from render-wasm/ by the same script; loaded
    // only to verify a whole site.
    (
        RENDER_GLUE_JS,
        include_bytes!("../../render-wasm/pkg/receipts_render.js"),
    ),
    (
        RENDER_WASM,
        include_bytes!("../../render-wasm/pkg/receipts_render_bg.wasm"),
    ),
];

/// The templates and assets a site is rendered with: those embedded in the
/// binary, or (while previewing) those in a `site-templates/` directory, so
/// edits show without rebuilding `receipts`. The verifier's wasm and glue are
/// always the embedded ones.
pub struct Theme {
    templates: Vec<(String, String)>,
    pub assets: Vec<(String, Vec<u8>)>,
}

impl Theme {
    /// The embedded templates with `assets`, the files of a built site's
    /// `assets/`: the browser's page check renders with the assets the site
    /// serves, which its manifest checks hold to the shipped ones.
    pub fn with_assets(assets: Vec<(String, Vec<u8>)>) -> Theme {
        Theme {
            templates: embedded_templates(),
            assets,
        }
    }

    #[cfg(feature = "cli")]
    pub fn embedded() -> Theme {
        let mut theme = Theme {
            templates: embedded_templates(),
            assets: ASSETS
                .iter()
                .map(|(p, b)| (p.to_string(), b.to_vec()))
                .collect(),
        };
        theme.seal_modules();
        theme
    }

    /// Writes into `assets/verify.js`, ahead of its code, where the
    /// verifier's modules are and their Subresource Integrity values: a
    /// page pins `verify.js` by its own integrity value, and through it
    /// every module its Verify loads, instead of naming each one itself.
    #[cfg(feature = "cli")]
    fn seal_modules(&mut self) {
        let modules: std::collections::BTreeMap<&str, serde_json::Value> = [
            ("worker", WORKER_JS),
            ("coreGlue", CORE_GLUE_JS),
            ("core", CORE_WASM),
            ("glue", GLUE_JS),
            ("lean", WASM),
            ("full", FULL_WASM),
            ("renderGlue", RENDER_GLUE_JS),
            ("renderWasm", RENDER_WASM),
        ]
        .into_iter()
        .map(|(name, path)| {
            let module = serde_json::json!({ "src": path, "sri": self.integrity(path) });
            (name, module)
        })
        .collect();
        let table = serde_json::to_string(&modules).unwrap_or_default();
        if let Some((_, bytes)) = self.assets.iter_mut().find(|(p, _)| p == VERIFY_JS) {
            let head = format!(
                "// The verifier's modules, relative to the site's root, with their\n\
                 // Subresource Integrity values (written by the build).\n\
                 var RECEIPTS_MODULES = {table};\n"
            );
            *bytes = [head.as_bytes(), bytes.as_slice()].concat();
        }
    }

    /// Templates and page assets read from `dir` (laid out as `site-templates/`).
    #[cfg(feature = "cli")]
    pub fn from_dir(dir: &std::path::Path) -> Result<Theme> {
        use crate::error::Doing;
        let mut theme = Theme::embedded();
        for (name, source) in &mut theme.templates {
            let path = dir.join(name.as_str());
            *source =
                std::fs::read_to_string(&path).doing(|| format!("reading {}", path.display()))?;
        }
        for (path, bytes) in &mut theme.assets {
            if [
                CORE_GLUE_JS,
                CORE_WASM,
                GLUE_JS,
                WASM,
                FULL_WASM,
                RENDER_GLUE_JS,
                RENDER_WASM,
            ]
            .contains(&path.as_str())
            {
                continue;
            }
            let file = dir.join(path.as_str());
            *bytes = std::fs::read(&file).doing(|| format!("reading {}", file.display()))?;
        }
        theme.seal_modules();
        Ok(theme)
    }

    /// The SHA-256 of every template and asset, names included.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        let named = self
            .templates
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_bytes()))
            .chain(self.assets.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
        for (name, bytes) in named {
            for part in [name.as_bytes(), bytes] {
                hash.update((part.len() as u64).to_le_bytes());
                hash.update(part);
            }
        }
        format!("{:x}", hash.finalize())
    }

    /// The Subresource Integrity value of an asset: `sha384-<base64>`.
    pub fn integrity(&self, path: &str) -> String {
        use base64::Engine;
        use sha2::{Digest, Sha384};
        let bytes = self
            .assets
            .iter()
            .find(|(p, _)| p == path)
            .map_or(&[][..], |(_, b)| b.as_slice());
        format!(
            "sha384-{}",
            base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes))
        )
    }
}

fn embedded_templates() -> Vec<(String, String)> {
    TEMPLATES
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect()
}

/// What the Verify control of a page checks.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyScope {
    /// The scope handed to the verifier, as JSON (`{"scope":"run",…}`).
    pub scope: String,
    /// The files to fetch, relative to the site root, space-separated; empty
    /// for "every file the scope needs".
    pub files: String,
    /// The record whose digest the page states beside the root digest, if any.
    pub pin: Option<Pin>,
    /// The control verifies the whole site, every page included: the page
    /// loads the page check (`render-wasm/`) too.
    pub pages: bool,
    #[serde(skip)]
    of: Scope,
    /// The records among `files`, relative to the records root.
    #[serde(skip)]
    records: Vec<String>,
}

impl VerifyScope {
    pub fn of(scope: &Scope, files: &[String]) -> VerifyScope {
        let records = files
            .iter()
            .filter_map(|f| receipts_verifier::layout::record_of(f))
            .map(|(r, _)| r.to_string())
            .collect();
        VerifyScope {
            scope: serde_json::to_string(scope).unwrap_or_default(),
            files: files.join(" "),
            pin: None,
            pages: matches!(scope, Scope::All) && files.is_empty(),
            of: scope.clone(),
            records,
        }
    }

    /// Whether the control needs the full verifier: among the records it
    /// checks (those it names, or else those of the site that may need it,
    /// `candidates`), one the lean verifier leaves out.
    fn needs_full(&self, candidates: &[String]) -> bool {
        let records = if self.files.is_empty() {
            candidates
        } else {
            &self.records
        };
        records
            .iter()
            .any(|r| receipts_verifier::verify::needs_full(&self.of, r))
    }

    /// The page states the digest of `pin` (a run page, its record's) too.
    pub fn pinned(mut self, pin: Pin) -> VerifyScope {
        self.pin = Some(pin);
        self
    }
}

/// A record whose SHA-256 a page of one record (a run, a harness run, a
/// skill edit) states in its footer, beside the root digest every page
/// states; its Verify control checks both.
#[derive(Debug, Clone, Serialize)]
pub struct Pin {
    /// The name the footer gives the digest ("Records digest").
    pub label: String,
    /// The file, relative to the site root.
    pub path: String,
    /// The SHA-256 of the file, or of what it holds when it is gzipped.
    pub digest: String,
    pub gzipped: bool,
}

/// Writes a value into a page: strings escaped for HTML text and quoted
/// attributes (`& < > " '`), everything else as minijinja writes it. `/` is
/// left alone: it means nothing in either place, and run pages carry
/// hundreds of paths.
fn escape_html(out: &mut Output, state: &State, value: &Value) -> Result<(), Error> {
    match value.as_str() {
        Some(text) if state.auto_escape() == AutoEscape::Html && !value.is_safe() => {
            crate::escape::write_html(out, text).map_err(Error::from)
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// The filters that write numbers as people read them (see `numbers`):
/// `x|sig` a metric at four significant figures (a number, or a text that is
/// one: other text is kept), `n|thousands` a count with its thousands
/// separated (`12,345`), `low|usd` or `low|usd(high)` money, and
/// `n|plural("policy")` a count with its noun (`n|plural("sample", "samples")`
/// names an irregular plural).
fn add_number_filters(env: &mut Environment<'static>) {
    use crate::numbers;
    env.add_filter("sig", |v: Value| match v.as_str() {
        Some(text) => numbers::shown(text),
        None => f64::try_from(v.clone()).map_or_else(
            |_| v.to_string(),
            |x| numbers::sig(x, numbers::METRIC_FIGURES),
        ),
    });
    env.add_filter("thousands", |n: u64| numbers::grouped(n));
    env.add_filter("usd", |low: f64, high: Option<f64>| {
        numbers::usd_range(low, high.unwrap_or(low))
    });
    env.add_filter(
        "plural",
        |n: usize, noun: String, plural: Option<String>| {
            numbers::count(n, &noun, plural.as_deref())
        },
    );
}

/// The Subresource Integrity values of the scripts pages load (`verify.js`
/// carries those of the verifier's modules).
#[derive(Debug, Clone, Serialize)]
struct Integrity {
    verify: String,
    runs: String,
    compare: String,
    replay: String,
}

pub struct Renderer {
    env: Environment<'static>,
    site: SiteInfo,
    integrity: Integrity,
}

impl Renderer {
    pub fn new(site: SiteInfo, theme: &Theme) -> Result<Renderer> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_formatter(escape_html);
        // `text|fold(n)`: the text split after about n characters (see `fold`).
        env.add_filter("fold", |text: String, at: usize| {
            Value::from_serialize(crate::fold::fold(&text, at))
        });
        // `text|code`: the text escaped, its backticked spans as `<code>`.
        env.add_filter("code", |text: String| {
            Value::from_safe_string(crate::escape::html_code_spans(&text))
        });
        add_number_filters(&mut env);
        for (name, source) in &theme.templates {
            env.add_template_owned(name.clone(), source.clone())
                .map_err(|reason| RenderError::Template {
                    name: name.clone(),
                    reason,
                })?;
        }
        let integrity = Integrity {
            verify: theme.integrity(VERIFY_JS),
            runs: theme.integrity(RUNS_JS),
            compare: theme.integrity(COMPARE_JS),
            replay: theme.integrity(REPLAY_JS),
        };
        Ok(Renderer {
            env,
            site,
            integrity,
        })
    }

    /// Renders `template` for the page at `path` (relative to the site root);
    /// its Verify control checks `verify`.
    pub fn page<C: Serialize>(
        &self,
        template: &str,
        path: &str,
        origin: Origin,
        verify: &VerifyScope,
        context: C,
    ) -> Result<String> {
        let root = "../".repeat(path.matches('/').count());
        let ctx = minijinja::context! {
            pin => Value::from_serialize(&verify.pin),
            root => root,
            page => path,
            site => Value::from_serialize(&self.site),
            integrity => Value::from_serialize(&self.integrity),
            verify => Value::from_serialize(verify),
            full_verifier => verify.needs_full(&self.site.full_records),
            origin => origin,
            ..Value::from_serialize(&context)
        };
        self.env
            .get_template(template)
            .and_then(|t| t.render(ctx))
            .map(|html| crate::anchors::anchor_headings(&html))
            .map_err(|reason| RenderError::Page {
                page: path.to_string(),
                template: template.to_string(),
                reason,
            })
    }
}

/// The page of a root site (see `shards`): the shards it lists, each with
/// its facts, and the root digest its manifest makes.
pub fn root_page<S: Serialize>(theme: &Theme, shards: &[S], root_digest: &str) -> Result<String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_formatter(escape_html);
    let name = "root.html";
    for part in [name, "head.html"] {
        let source = theme
            .templates
            .iter()
            .find(|(n, _)| n == part)
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        env.add_template_owned(part, source)
            .map_err(|reason| RenderError::Template {
                name: part.to_string(),
                reason,
            })?;
    }
    let ctx = minijinja::context! {
        shards => Value::from_serialize(shards),
        root_digest => root_digest,
        verify_integrity => theme.integrity(VERIFY_JS),
    };
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|reason| RenderError::Page {
            page: "the root's page".to_string(),
            template: name.to_string(),
            reason,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(template: &str, value: Value) -> String {
        let mut env = Environment::new();
        env.set_formatter(escape_html);
        env.add_template("t.html", template).unwrap();
        let t = env.get_template("t.html").unwrap();
        t.render(minijinja::context! { v => value }).unwrap()
    }

    #[test]
    fn strings_are_escaped_for_text_and_attributes() {
        let hostile = r#"<img src=x onerror='alert(1)'>&"a/b""#;
        assert_eq!(
            render(r#"<p title="{{ v }}">{{ v }}</p>"#, Value::from(hostile)),
            "<p title=\"&lt;img src=x onerror=&#x27;alert(1)&#x27;&gt;&amp;&quot;a/b&quot;\">\
             &lt;img src=x onerror=&#x27;alert(1)&#x27;&gt;&amp;&quot;a/b&quot;</p>"
        );
    }

    #[test]
    fn other_values_and_safe_strings_are_written_as_they_are() {
        assert_eq!(render("{{ v }}", Value::from(42)), "42");
        assert_eq!(render("{{ v }}", Value::from(true)), "True");
        assert_eq!(render("{{ v|safe }}", Value::from("<b>")), "<b>");
        assert_eq!(render("{{ v }}", Value::from("plain")), "plain");
        // Sequences go through minijinja's own escaping.
        let list = render("{{ v }}", Value::from_serialize(["<", ">"]));
        assert!(!list.contains('<') && list.contains("&lt;"), "{list}");
    }

    /// `source` rendered with the site's macros (as `m`) and number filters.
    fn with_macros(source: &str, ctx: Value) -> String {
        let mut env = Environment::new();
        env.set_formatter(escape_html);
        add_number_filters(&mut env);
        for (name, text) in embedded_templates() {
            if name == "macros.html" {
                env.add_template_owned(name, text).unwrap();
            }
        }
        env.add_template_owned("t.html", source.to_string())
            .unwrap();
        env.get_template("t.html").unwrap().render(ctx).unwrap()
    }

    /// The text of each `attr="…"` in `html`, unescaped as a browser reads it.
    fn attributes(html: &str, attr: &str) -> Vec<String> {
        html.split(&format!("{attr}=\""))
            .skip(1)
            .map(|rest| {
                let text = &rest[..rest.find('"').unwrap()];
                text.replace("&quot;", "\"").replace("&amp;", "&")
            })
            .collect()
    }

    /// A metric shown at four significant figures keeps its exact value on
    /// hover, and that value reads back to the very float the receipt holds.
    #[test]
    fn a_shortened_metric_keeps_its_exact_value_on_hover() {
        for exact in [
            0.799_999_999_999_999_9,
            2.0 / 3.0,
            0.1 + 0.2,
            0.239_356_776_939_084_53,
            1e-7 / 3.0,
            -123.456_789_012_345,
        ] {
            let text = exact.to_string();
            let cell = minijinja::context! { c => minijinja::context! {
                published => text.clone(), original => (), recomputed => text.clone(),
                status => "pass", mark => "✓", subject => "s", claim => "c",
                before => "", after => "",
            }};
            let html = with_macros(r#"{% import "macros.html" as m %}{{ m.cell(c) }}"#, cell);
            let values = attributes(&html, "value");
            let exacts = attributes(&html, "data-exact");
            assert_eq!(values.len(), 1, "{html}");
            assert_eq!(exacts.len(), 1, "{html}");
            for shown in values.iter().chain(&exacts) {
                assert_eq!(shown.parse::<f64>().unwrap(), exact, "{html}");
            }
            let short = crate::numbers::sig(exact, 4);
            assert!(html.contains(&format!(">{short}</data>")), "{html}");
            assert!(html.contains(&format!("✓ {short}</span>")), "{html}");
        }
        // A value as short as it can be said is written as it is.
        let cell = minijinja::context! { c => minijinja::context! {
            published => "0.8", original => (), recomputed => "0.8", status => "pass",
            mark => "✓", subject => "s", claim => "c", before => "", after => "",
        }};
        let html = with_macros(r#"{% import "macros.html" as m %}{{ m.cell(c) }}"#, cell);
        assert!(
            !html.contains("<data") && !html.contains("data-exact"),
            "{html}"
        );
    }

    #[test]
    fn costs_and_counts_read_as_people_write_them() {
        let cost = |low: f64, high: f64| {
            with_macros(
                r#"{% import "macros.html" as m %}{{ m.cost(c) }}"#,
                minijinja::context! { c => minijinja::context! { low => low, high => high } },
            )
        };
        assert_eq!(cost(0.000_017_4, 0.000_017_4), "$0.0000174");
        assert_eq!(cost(0.0001, 0.0001), "$0.0001");
        assert_eq!(cost(0.1 + 0.2, 0.3), "$0.30");
        assert_eq!(cost(0.0, 0.0041), "$0.00–0.0041");
        assert_eq!(
            with_macros(
                r#"{{ 1|plural("task") }} × {{ 1|plural("profile") }}; {{ 2|plural("run") }}; {{ [1, 2, 3]|length|plural("policy") }}; {{ 0.7999999999999999|sig }}; {{ "pass"|sig }}"#,
                Value::UNDEFINED
            ),
            "1 task × 1 profile; 2 runs; 3 policies; 0.8; pass"
        );
    }

    #[test]
    fn text_templates_are_not_escaped() {
        let mut env = Environment::new();
        env.set_formatter(escape_html);
        env.add_template("t.txt", "{{ v }}").unwrap();
        let out = env.get_template("t.txt").unwrap();
        assert_eq!(
            out.render(minijinja::context! { v => "<&>" }).unwrap(),
            "<&>"
        );
    }
}
