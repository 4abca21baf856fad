//! Anchors on a page's section headings: every `<h2>` and `<h3>` gets an id
//! (its own, or one made from its text, unique on the page) and a link to
//! itself, so a reader can cite any section by its address. Applied to
//! every page as it is rendered, natively and in the browser's page check
//! alike.

use std::collections::BTreeSet;

/// The link each heading ends with.
const LINK: &str = "class=\"anchor\" href=\"#";

/// `html` with an id and a self-link on every `<h2>` and `<h3>`.
pub fn anchor_headings(html: &str) -> String {
    let mut used = ids(html);
    let mut out = String::with_capacity(html.len() + 1024);
    let mut rest = html;
    while let Some((start, level)) = next_heading(rest) {
        let open_end = match rest[start..].find('>') {
            Some(i) => start + i + 1,
            None => break,
        };
        let close_tag = format!("</h{level}>");
        let Some(close) = rest[open_end..].find(&close_tag).map(|i| open_end + i) else {
            break;
        };
        let attrs = &rest[start + 3..open_end - 1];
        let inner = &rest[open_end..close];
        out.push_str(&rest[..start]);
        if inner.contains(LINK) {
            out.push_str(&rest[start..close]);
        } else {
            let id = match attribute(attrs, "id") {
                Some(id) => {
                    out.push_str(&rest[start..open_end]);
                    id.to_string()
                }
                None => {
                    let id = unique(slug(&text_of(inner)), &mut used);
                    out.push_str(&format!("<h{level} id=\"{id}\"{attrs}>"));
                    id
                }
            };
            out.push_str(inner);
            out.push_str(&format!(
                " <a {LINK}{id}\" aria-label=\"Link to this section\">#</a>"
            ));
        }
        out.push_str(&close_tag);
        rest = &rest[close + close_tag.len()..];
    }
    out.push_str(rest);
    out
}

/// Where the next `<h2` or `<h3` tag starts, and its level.
fn next_heading(html: &str) -> Option<(usize, char)> {
    let mut from = 0;
    while let Some(i) = html[from..].find("<h") {
        let at = from + i;
        let bytes = html.as_bytes();
        if let (Some(&l), Some(&after)) = (bytes.get(at + 2), bytes.get(at + 3)) {
            if (l == b'2' || l == b'3') && (after == b'>' || after == b' ') {
                return Some((at, l as char));
            }
        }
        from = at + 2;
    }
    None
}

/// The value of attribute `name` in a tag's attribute text.
fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = attrs.find(&key)? + key.len();
    let end = attrs[start..].find('"')?;
    Some(&attrs[start..start + end])
}

/// Every `id="…"` already on the page.
fn ids(html: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = html;
    while let Some(i) = rest.find(" id=\"") {
        rest = &rest[i + 5..];
        if let Some(end) = rest.find('"') {
            out.insert(rest[..end].to_string());
        }
    }
    out
}

/// The text of escaped HTML, without its tags.
fn text_of(inner: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// A heading's text as an id: lower-case ASCII letters and digits joined by
/// hyphens, at most 60 characters.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    // An entity (`&amp;`) is a separator, not letters.
    let mut in_entity = false;
    for c in text.chars() {
        if c == '&' {
            in_entity = true;
        } else if in_entity {
            in_entity = c != ';';
            continue;
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 60 {
            break;
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "section".to_string()
    } else {
        trimmed.to_string()
    }
}

/// `id`, or `id-2`, `id-3`… when it is taken; then taken.
fn unique(id: String, used: &mut BTreeSet<String>) -> String {
    let mut candidate = id.clone();
    let mut n = 2;
    while used.contains(&candidate) {
        candidate = format!("{id}-{n}");
        n += 1;
    }
    used.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_an_id_from_their_text_and_a_link_to_it() {
        let html = "<h1>Run</h1><h2>Rules &amp; checks</h2><p>x</p><h3 class=\"x\">Turns <code>a</code></h3>";
        assert_eq!(
            anchor_headings(html),
            "<h1>Run</h1><h2 id=\"rules-checks\">Rules &amp; checks <a class=\"anchor\" href=\"#rules-checks\" aria-label=\"Link to this section\">#</a></h2><p>x</p>\
             <h3 id=\"turns-a\" class=\"x\">Turns <code>a</code> <a class=\"anchor\" href=\"#turns-a\" aria-label=\"Link to this section\">#</a></h3>"
        );
    }

    #[test]
    fn an_existing_id_is_kept_and_no_id_is_used_twice() {
        let html =
            "<p id=\"notes\"></p><h2>Notes</h2><h2>Notes</h2><h2 id=\"mine\">Mine</h2><h2>!!</h2>";
        let out = anchor_headings(html);
        assert!(out.contains("<h2 id=\"notes-2\">"), "{out}");
        assert!(out.contains("<h2 id=\"notes-3\">"), "{out}");
        assert!(
            out.contains("<h2 id=\"mine\">Mine <a class=\"anchor\" href=\"#mine\""),
            "{out}"
        );
        assert!(out.contains("<h2 id=\"section\">"), "{out}");
    }

    #[test]
    fn a_page_anchored_twice_is_unchanged_and_other_tags_are_left_alone() {
        let html = "<header><hr><h2>A</h2><h4>B</h4></header>";
        let once = anchor_headings(html);
        assert_eq!(anchor_headings(&once), once);
        assert!(
            once.contains("<hr><h2 id=\"a\">") && once.contains("<h4>B</h4>"),
            "{once}"
        );
        // A heading left open is written as it came.
        assert_eq!(anchor_headings("<h2>open"), "<h2>open");
    }
}
