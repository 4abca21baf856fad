//! Stage 4, render: the minijinja templates from `site-templates/`, embedded
//! in the binary, turned into pages. Templates escape every value by default
//! (`.html` autoescape) and a missing value is an error, not an empty string.

use anyhow::{Context, Result};
use minijinja::{Environment, UndefinedBehavior, Value};
use serde::Serialize;

use crate::site::SiteInfo;

/// Each template, by name, as shipped in `site-templates/`.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../site-templates/base.html")),
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
        "showcase.html",
        include_str!("../../site-templates/showcase.html"),
    ),
    ("doc.html", include_str!("../../site-templates/doc.html")),
    ("docs.html", include_str!("../../site-templates/docs.html")),
];

/// Static assets copied into the site as they are.
pub const ASSETS: &[(&str, &str)] = &[(
    "assets/style.css",
    include_str!("../../site-templates/assets/style.css"),
)];

pub struct Renderer {
    env: Environment<'static>,
    site: SiteInfo,
}

impl Renderer {
    pub fn new(site: SiteInfo) -> Result<Renderer> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        for (name, source) in TEMPLATES {
            env.add_template(name, source)
                .with_context(|| format!("template {name}"))?;
        }
        Ok(Renderer { env, site })
    }

    /// Renders `template` for the page at `path` (relative to the site root).
    pub fn page<C: Serialize>(
        &self,
        template: &str,
        path: &str,
        simulated: bool,
        context: C,
    ) -> Result<String> {
        let root = "../".repeat(path.matches('/').count());
        let ctx = minijinja::context! {
            root => root,
            site => Value::from_serialize(&self.site),
            simulated => simulated,
            ..Value::from_serialize(&context)
        };
        self.env
            .get_template(template)
            .and_then(|t| t.render(ctx))
            .map_err(|e| anyhow::anyhow!("rendering {path} with {template}: {e:#}"))
    }
}
