//! Markdown to HTML for untrusted documents: raw HTML (block and inline) is
//! escaped and shown as text, links or images with a scheme other than http,
//! https or mailto (or a relative path) lose their target, and the result is
//! sanitized again with ammonia.

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag};

/// Whether a link target is allowed: relative, fragment, http(s) or mailto.
pub fn is_safe_url(url: &str) -> bool {
    let trimmed = url.trim_start();
    // Browsers ignore ASCII control characters and whitespace inside a scheme.
    let scheme: String = trimmed
        .chars()
        .take_while(|c| *c != ':' && *c != '/' && *c != '?' && *c != '#')
        .filter(|c| !c.is_ascii_control() && !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match trimmed.find(':') {
        Some(colon) if !trimmed[..colon].contains(['/', '?', '#']) => {
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

/// How deeply Markdown may nest (block quotes, lists, emphasis, …).
/// Sanitizing HTML nested hundreds of thousands deep takes minutes; no
/// document needs more than a few levels.
pub const MAX_NESTING: usize = 100;

/// Where `markdown` first nests deeper than [`MAX_NESTING`]: its line, if it does.
pub fn too_deep(markdown: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        match event {
            Event::Start(_) => {
                depth += 1;
                if depth > MAX_NESTING {
                    let line = markdown.as_bytes()[..range.start.min(markdown.len())]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count();
                    return Some(line + 1);
                }
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES
}

/// Renders Markdown to HTML that holds no markup from the source.
pub fn render(markdown: &str) -> String {
    render_below(markdown, 0)
}

/// As [`render`], with every heading moved `levels` down (`#` becomes `<h3>`
/// for 2), for Markdown shown inside a page that has its own headings.
pub fn render_below(markdown: &str, levels: usize) -> String {
    use pulldown_cmark::{HeadingLevel, TagEnd};
    let shift = |level: HeadingLevel| {
        HeadingLevel::try_from((level as usize + levels).min(6)).unwrap_or(HeadingLevel::H6)
    };
    let events = Parser::new_ext(markdown, options()).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) if !is_safe_url(&dest_url) => Event::Start(Tag::Link {
            link_type,
            dest_url: CowStr::Borrowed("#unsafe-link-removed"),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) if !is_safe_url(&dest_url) => Event::Start(Tag::Image {
            link_type,
            dest_url: CowStr::Borrowed("#unsafe-image-removed"),
            title,
            id,
        }),
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: shift(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(shift(level))),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    scroll_tables(&sanitize(&out))
}

/// How a memo's claims are shown: [`render_memo`] hands over each link
/// whose address is `#…` (its text and address) and each run of prose.
pub trait Claims {
    /// The HTML of a bound number, or `None` when `target` is not a figure.
    fn bound(&self, text: &str, target: &str) -> Option<String>;
    /// The HTML of prose (escaped), with the numbers typed by hand marked.
    fn prose(&self, text: &str) -> String;
    /// The HTML of a number marked as not measured, or `None` when
    /// `target` is not the mark.
    fn registered(&self, text: &str, target: &str) -> Option<String>;
}

/// Renders a memo: as [`render`], with each claim link replaced by what
/// `claims` shows for it, each number typed into prose (and into a code
/// span that is not an identifier) marked, and code blocks left as they are;
/// every heading moved `levels` down, as [`render_below`] does.
pub fn render_memo(markdown: &str, claims: &dyn Claims, levels: usize) -> String {
    use pulldown_cmark::{HeadingLevel, TagEnd};
    let shift = |level: HeadingLevel| {
        HeadingLevel::try_from((level as usize + levels).min(6)).unwrap_or(HeadingLevel::H6)
    };
    let mut events: Vec<Event<'_>> = Vec::new();
    // The claim link being read: its address and its text so far.
    let mut link: Option<(String, String)> = None;
    // Inside a code block, numbers are not claims.
    let mut code = false;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            // Only an inline link is a claim, as the verifier reads them.
            Event::Start(Tag::Link {
                link_type: pulldown_cmark::LinkType::Inline,
                ref dest_url,
                ..
            }) if link.is_none() && dest_url.starts_with('#') => {
                link = Some((dest_url[1..].to_string(), String::new()));
            }
            Event::End(TagEnd::Link) if link.is_some() => {
                let (target, text) = link.take().unwrap_or_default();
                let html = claims
                    .registered(&text, &target)
                    .or_else(|| claims.bound(&text, &target));
                match html {
                    Some(html) => events.push(Event::InlineHtml(html.into())),
                    None => events.push(Event::Text(text.into())),
                }
            }
            Event::Text(t) | Event::Code(t) if link.is_some() => {
                if let Some((_, text)) = link.as_mut() {
                    text.push_str(&t);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                code = true;
                events.push(event);
            }
            Event::End(TagEnd::CodeBlock) => {
                code = false;
                events.push(event);
            }
            Event::Text(t) if !code => events.push(Event::InlineHtml(claims.prose(&t).into())),
            // A code span is prose unless it is an identifier, as the
            // verifier reads it.
            Event::Code(t) if !receipts_verifier::claims::syntax::is_identifier(&t) => {
                events.push(Event::InlineHtml(
                    format!("<code>{}</code>", claims.prose(&t)).into(),
                ));
            }
            // Raw HTML (comments included) is shown as text, and its numbers are prose.
            Event::Html(raw) | Event::InlineHtml(raw) => {
                events.push(Event::InlineHtml(claims.prose(&raw).into()));
            }
            Event::Start(Tag::Link { ref dest_url, .. }) if !is_safe_url(dest_url) => {
                if let Event::Start(Tag::Link {
                    link_type,
                    title,
                    id,
                    ..
                }) = event
                {
                    events.push(Event::Start(Tag::Link {
                        link_type,
                        dest_url: CowStr::Borrowed("#unsafe-link-removed"),
                        title,
                        id,
                    }));
                }
            }
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            _ if link.is_some() => {}
            Event::Start(Tag::Heading {
                level,
                id,
                classes,
                attrs,
            }) => events.push(Event::Start(Tag::Heading {
                level: shift(level),
                id,
                classes,
                attrs,
            })),
            Event::End(TagEnd::Heading(level)) => {
                events.push(Event::End(TagEnd::Heading(shift(level))));
            }
            other => events.push(other),
        }
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    let clean = ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        .add_tag_attributes("span", &["class"])
        .clean(&out)
        .to_string();
    scroll_tables(&clean)
}

/// Sanitizes rendered HTML: only known-safe elements and attributes, and
/// links with http, https, mailto or relative targets.
fn sanitize(html: &str) -> String {
    ammonia::Builder::default()
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(html)
        .to_string()
}

/// Each table of sanitized HTML in a container that scrolls sideways on its
/// own (and takes keyboard focus to do so), so a wide table never widens
/// the page. The source's own markup is escaped before this, so every
/// `<table>` here is one the Markdown made.
fn scroll_tables(html: &str) -> String {
    html.replace(
        "<table>",
        r#"<div class="scroll" tabindex="0" role="region" aria-label="Scrollable table"><table>"#,
    )
    .replace("</table>", "</table></div>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_html_is_escaped() {
        let html = render("<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> here");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn tables_scroll_in_their_own_container_and_raw_tables_stay_text() {
        let html =
            render("| a | b |\n|---|---|\n| 1 | 2 |\n\n<table><tr><td>raw</td></tr></table>");
        assert_eq!(
            html.matches(r#"<div class="scroll" tabindex="0""#).count(),
            1,
            "{html}"
        );
        assert!(html.contains("</table></div>"), "{html}");
        assert!(html.contains("&lt;table&gt;"), "{html}");
    }

    #[test]
    fn unsafe_links_lose_their_target() {
        let html = render("[a](javascript:alert(1)) [b](JaVa\tScript:alert(1)) [c](https://example.org) [d](page.html)");
        assert!(!html.to_lowercase().contains("javascript"), "{html}");
        assert!(html.contains("https://example.org"));
        assert!(html.contains("page.html"));
    }

    #[test]
    fn nesting_is_bounded_and_found_quickly() {
        assert_eq!(too_deep("> a\n>> b\n\n- x\n  - y\n"), None);
        let ok = format!("{} x\n", ">".repeat(MAX_NESTING - 2));
        assert_eq!(too_deep(&ok), None);
        let start = std::time::Instant::now();
        let deep = format!("# Title\n\n{} x\n", ">".repeat(200_000));
        assert_eq!(too_deep(&deep), Some(3));
        // Linear: a fraction of a second even in a debug build.
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn url_schemes() {
        assert!(is_safe_url("https://x"));
        assert!(is_safe_url("mailto:a@b"));
        assert!(is_safe_url("../runs/index.html"));
        assert!(is_safe_url("#top"));
        assert!(!is_safe_url("javascript:x"));
        assert!(!is_safe_url(" data:text/html,x"));
        assert!(!is_safe_url("vbscript:x"));
    }
}
