//! How a file of a built site differs from what its records render to:
//! the first differing line of each, shortened around the first differing
//! byte. `receipts verify` and the browser's page check report the same.

/// A file of a built site that is not what rendering its records gives.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Difference {
    /// Relative to the site, `/`-separated.
    pub path: String,
    /// What the site holds there.
    pub found: String,
    /// What rendering the records gives.
    pub expected: String,
}

impl Difference {
    /// The difference between `found` (the site's file at `path`) and
    /// `expected` (what the records render to), which differ.
    pub fn between(path: &str, found: &[u8], expected: &[u8]) -> Difference {
        let (line, a, b) = first_difference(found, expected);
        Difference {
            path: path.to_string(),
            found: format!("line {line}: {a}"),
            expected: format!("line {line}: {b}"),
        }
    }
}

/// The first line (1-based) at which `found` and `expected` differ, and that
/// line of each, shortened around the first differing byte.
pub fn first_difference(found: &[u8], expected: &[u8]) -> (usize, String, String) {
    let at = found
        .iter()
        .zip(expected)
        .position(|(a, b)| a != b)
        .unwrap_or(found.len().min(expected.len()));
    let line = found[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let start = found[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let excerpt = |bytes: &[u8]| {
        let end = bytes[start.min(bytes.len())..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p);
        let text = String::from_utf8_lossy(&bytes[start.min(bytes.len())..end]);
        shorten(&text, at - start)
    };
    if at >= found.len() && found.len() < expected.len() {
        return (line, "(the file ends here)".to_string(), excerpt(expected));
    }
    if at >= expected.len() && expected.len() < found.len() {
        return (line, excerpt(found), "(the file ends here)".to_string());
    }
    (line, excerpt(found), excerpt(expected))
}

/// `text` cut to about 160 characters around byte `at`.
fn shorten(text: &str, at: usize) -> String {
    const SPAN: usize = 80;
    let mut from = at.saturating_sub(SPAN);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (at + SPAN).min(text.len());
    while !text.is_char_boundary(to) {
        to += 1;
    }
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    out.push_str(&text[from..to]);
    if to < text.len() {
        out.push('…');
    }
    out
}
