//! Where a field path (`attempts[0].calls[1].started_at`) lies in a JSON
//! file's text, as a line and column, so an error found after parsing
//! still points at the place a person would edit.

/// The 1-based line and column (in characters) of the value at `path`
/// in `text`, when `text` is JSON and the path names a value in it.
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    let steps = steps(path)?;
    let mut at = Cursor {
        text: text.as_bytes(),
        pos: 0,
    };
    at.skip_ws();
    for step in &steps {
        match step {
            Step::Key(key) => at.enter_key(key)?,
            Step::Index(i) => at.enter_index(*i)?,
        }
    }
    let before = &text[..at.pos];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Some((line, column))
}

enum Step {
    Key(String),
    Index(usize),
}

/// `a.b[2][0].c` as steps; `None` for a path of another shape.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if key.is_empty() && out.is_empty() && rest.is_empty() {
            return None;
        }
        if !key.is_empty() {
            out.push(Step::Key(key.to_string()));
        }
        if !rest.is_empty() {
            for index in format!("[{rest}").split('[').skip(1) {
                out.push(Step::Index(index.strip_suffix(']')?.parse().ok()?));
            }
        }
    }
    Some(out)
}

struct Cursor<'t> {
    text: &'t [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_ws();
        (self.peek() == Some(byte)).then(|| self.pos += 1)
    }

    /// A string's text, escapes undone (enough to compare keys).
    fn string(&mut self) -> Option<String> {
        self.eat(b'"')?;
        let start = self.pos;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.pos += 2,
                b'"' => {
                    let raw = std::str::from_utf8(&self.text[start..self.pos]).ok()?;
                    self.pos += 1;
                    return serde_json::from_str(&format!("\"{raw}\"")).ok();
                }
                _ => self.pos += 1,
            }
        }
        None
    }

    /// Skips one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some(close) {
                    self.pos += 1;
                    return Some(());
                }
                loop {
                    if open == b'{' {
                        self.string()?;
                        self.eat(b':')?;
                    }
                    self.skip_value()?;
                    self.skip_ws();
                    match self.peek()? {
                        b',' => self.pos += 1,
                        b if b == close => {
                            self.pos += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
                ) {
                    self.pos += 1;
                }
                Some(())
            }
        }
    }

    /// Moves to the value of `key` in the object here.
    fn enter_key(&mut self, key: &str) -> Option<()> {
        self.eat(b'{')?;
        loop {
            self.skip_ws();
            if self.peek()? == b'}' {
                return None;
            }
            let name = self.string()?;
            self.eat(b':')?;
            self.skip_ws();
            if name == key {
                return Some(());
            }
            self.skip_value()?;
            self.skip_ws();
            if self.peek()? == b',' {
                self.pos += 1;
            }
        }
    }

    /// Moves to item `index` of the array here.
    fn enter_index(&mut self, index: usize) -> Option<()> {
        self.eat(b'[')?;
        for _ in 0..index {
            self.skip_value()?;
            self.eat(b',')?;
        }
        self.skip_ws();
        (self.peek()? != b']').then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn a_path_is_found_where_a_person_would_edit_it() {
        let text = "{\n  \"id\": \"r\",\n  \"attempts\": [\n    {\"calls\": []},\n    {\"x\": {\"a\": [1, {\"b\": 2}]},\n     \"calls\": [{\"started_at\": \"2026x\"}]}\n  ]\n}\n";
        assert_eq!(locate(text, "id"), Some((2, 9)));
        assert_eq!(
            locate(text, "attempts[1].calls[0].started_at"),
            Some((6, 31))
        );
        assert_eq!(locate(text, "attempts[1].x.a[1].b"), Some((5, 27)));
        assert_eq!(locate(text, "attempts[2]"), None);
        assert_eq!(locate(text, "missing"), None);
        assert_eq!(locate("not json", "id"), None);
        // Keys with escapes and values with brackets inside strings.
        let text = "{\"s\": \"]}\\\"\", \"k\\u0065y\": 5}";
        assert_eq!(locate(text, "key"), Some((1, 27)));
    }
}
