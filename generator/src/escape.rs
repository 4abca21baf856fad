//! The one HTML escaper: text made safe for HTML text and quoted attribute
//! values (`& < > " '`). Templates write every value through it, the charts
//! their labels, and `receipts serve` the build errors it shows.

use std::fmt::Write;

/// Writes `text` escaped into `out`. `/` is left alone: it means nothing in
/// text or quoted attributes, and run pages carry hundreds of paths.
pub fn write_html<W: Write + ?Sized>(out: &mut W, text: &str) -> std::fmt::Result {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
        out.write_str(&rest[..at])?;
        out.write_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#x27;",
        })?;
        rest = &rest[at + 1..];
    }
    out.write_str(rest)
}

/// `text` escaped for HTML.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Writing into a String cannot fail.
    let _ = write_html(&mut out, text);
    out
}

/// `text` escaped for HTML, each span between a pair of backticks set as
/// `<code>` (the backticks dropped), as Markdown sets inline code. A
/// backtick left without a partner stays as it is.
pub fn html_code_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some((before, after)) = rest.split_once('`') {
        let Some((code, next)) = after.split_once('`') else {
            break;
        };
        out.push_str(&html(before));
        out.push_str("<code>");
        out.push_str(&html(code));
        out.push_str("</code>");
        rest = next;
    }
    out.push_str(&html(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticked_spans_are_code_and_every_character_stays_escaped() {
        assert_eq!(
            html_code_spans("policy `single` <b>"),
            "policy <code>single</code> &lt;b&gt;"
        );
        assert_eq!(
            html_code_spans("`<script>` & a lone ` left"),
            "<code>&lt;script&gt;</code> &amp; a lone ` left"
        );
        assert_eq!(html_code_spans("no code"), "no code");
        assert_eq!(
            html_code_spans("a `b` c `d`"),
            "a <code>b</code> c <code>d</code>"
        );
    }

    #[test]
    fn every_character_that_matters_is_escaped() {
        assert_eq!(
            html(r#"<a href="x" title='y'>&</a>/"#),
            "&lt;a href=&quot;x&quot; title=&#x27;y&#x27;&gt;&amp;&lt;/a&gt;/"
        );
        assert_eq!(html("plain ünïcode"), "plain ünïcode");
    }
}
