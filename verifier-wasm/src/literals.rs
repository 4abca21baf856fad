//! Published numbers as they were written. Parsing a number into a float
//! forgets how it was written: `71`, `71.0` and `71.00` become the same value,
//! though they claim ±0.5, ±0.05 and ±0.005. The precision a figure claims is
//! the text, so agreement is judged on the text; this module finds it.

use std::collections::BTreeMap;

/// The text of every number in a JSON document, by JSON Pointer (RFC 6901,
/// e.g. `/primary/policies/0/pass_rate_pct`). `None` when the document is
/// not JSON (the caller's typed parse reports why).
pub fn json_number_literals(json: &[u8]) -> Option<BTreeMap<String, String>> {
    let spans = json_number_spans(json)?;
    Some(crate::btree::map(spans.into_iter().map(
        |(pointer, range)| {
            let text = String::from_utf8_lossy(&json[range]).into_owned();
            (pointer, text)
        },
    )))
}

/// Where every number of a JSON document is written: its JSON Pointer and
/// its byte range, in document order. `None` when the document is not JSON.
pub fn json_number_spans(json: &[u8]) -> Option<Vec<(String, std::ops::Range<usize>)>> {
    let mut scan = Scan {
        bytes: json,
        at: 0,
        out: Vec::new(),
    };
    let mut pointer = String::new();
    scan.value(&mut pointer, 0)?;
    scan.space();
    (scan.at == json.len()).then_some(scan.out)
}

/// Nesting deeper than this is refused (the records nest a few levels).
const MAX_DEPTH: usize = 128;

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    out: Vec<(String, std::ops::Range<usize>)>,
}

impl Scan<'_> {
    fn space(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.space();
        (self.bytes.get(self.at) == Some(&byte)).then(|| self.at += 1)
    }

    fn value(&mut self, pointer: &mut String, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                if self.eat(b'}').is_some() {
                    return Some(());
                }
                loop {
                    self.space();
                    let key = self.string()?;
                    self.eat(b':')?;
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    self.value(pointer, depth + 1)?;
                    pointer.truncate(len);
                    if self.eat(b',').is_none() {
                        return self.eat(b'}');
                    }
                }
            }
            b'[' => {
                self.at += 1;
                if self.eat(b']').is_some() {
                    return Some(());
                }
                let mut index = 0usize;
                loop {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                    self.value(pointer, depth + 1)?;
                    pointer.truncate(len);
                    index += 1;
                    if self.eat(b',').is_none() {
                        return self.eat(b']');
                    }
                }
            }
            b'"' => self.string().map(|_| ()),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            _ => {
                let start = self.at;
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.at += 1;
                }
                if self.at == start {
                    return None;
                }
                self.out.push((pointer.clone(), start..self.at));
                Some(())
            }
        }
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end) == Some(word)).then(|| self.at = end)
    }

    /// A string at the cursor, unescaped as far as keys need (`\"`, `\\`,
    /// `\/` and `\uXXXX`, surrogate pairs included).
    fn string(&mut self) -> Option<String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.bytes.get(self.at)?;
                    self.at += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let first = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&first) {
                                self.word(b"\\u")?;
                                let second = self.hex4()?;
                                0x10000 + ((first - 0xD800) << 10) + (second.checked_sub(0xDC00)?)
                            } else {
                                first
                            };
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let text = std::str::from_utf8(self.bytes.get(self.at..self.at + 4)?).ok()?;
        self.at += 4;
        u32::from_str_radix(text, 16).ok()
    }
}

/// The decimals a number literal is written with: `71` has 0, `71.0` has 1,
/// `7.10e-3` has 5, and `1.6e2` has -1 (it claims tens). `None` when the
/// text is not a number.
pub fn decimals(literal: &str) -> Option<i32> {
    let (mantissa, exponent) = match literal.find(['e', 'E']) {
        Some(i) => (&literal[..i], literal[i + 1..].parse::<i32>().ok()?),
        None => (literal, 0),
    };
    let digits = mantissa.strip_prefix('-').unwrap_or(mantissa);
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let frac = i32::try_from(frac.len()).unwrap_or(i32::MAX);
    Some(frac.saturating_sub(exponent))
}

/// Whether a literal is written as a whole number (no fraction, no exponent).
pub fn is_integer(literal: &str) -> bool {
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_is_kept_as_written_by_its_pointer() {
        let json = br#"{"a": 71.0, "b": [71, {"c/d": 7.10e-3}], "s": "1.0", "t": true, "n": null,
            "e\u0073c": -0.50}"#;
        let literals = json_number_literals(json).expect("json");
        assert_eq!(literals["/a"], "71.0");
        assert_eq!(literals["/b/0"], "71");
        assert_eq!(literals["/b/1/c~1d"], "7.10e-3");
        assert_eq!(literals["/esc"], "-0.50");
        assert_eq!(literals.len(), 4);
    }

    #[test]
    fn text_that_is_not_json_gives_none() {
        assert!(json_number_literals(b"{\"a\": 1").is_none());
        assert!(json_number_literals(b"{\"a\": 1} x").is_none());
        assert!(json_number_literals(b"[").is_none());
        let deep = "[".repeat(500) + &"]".repeat(500);
        assert!(json_number_literals(deep.as_bytes()).is_none());
    }

    #[test]
    fn decimals_are_read_from_the_text() {
        assert_eq!(decimals("71"), Some(0));
        assert_eq!(decimals("71.0"), Some(1));
        assert_eq!(decimals("71.00"), Some(2));
        assert_eq!(decimals("0.003964"), Some(6));
        assert_eq!(decimals("7.10e-3"), Some(5));
        assert_eq!(decimals("1e2"), Some(-2));
        assert_eq!(decimals("1.6e2"), Some(-1));
        assert_eq!(decimals("160e0"), Some(0));
        assert_eq!(decimals("-0.5"), Some(1));
        assert_eq!(decimals("x"), None);
        assert!(is_integer("18"));
        assert!(!is_integer("18.0"));
        assert!(!is_integer("1e1"));
    }
}
