//! A span's attributes as the conventions read them. A read marks its key
//! when the record's fields then hold all the attribute says; whatever no
//! read marked is kept in the record as it is ([`Attrs::unread`]), so an
//! attribute the importer does not know is shown, never dropped.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::otlp::Span;

/// One attribute of a span, its value as plain JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Attribute {
    /// The attribute's key, as written.
    pub key: String,
    /// Its value: a string, number, boolean, array or object.
    pub value: Value,
}

/// The attributes of one span, with the keys read so far.
pub struct Attrs<'s> {
    map: &'s Map<String, Value>,
    read: BTreeSet<&'s str>,
}

impl<'s> Attrs<'s> {
    /// The attributes of `span`, none read yet.
    pub fn new(span: &'s Span) -> Attrs<'s> {
        Attrs {
            map: &span.attributes,
            read: BTreeSet::new(),
        }
    }

    /// Whether the span carries `key`.
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The value of `key` without marking it read: an attribute the
    /// record holds only part of (a request's JSON, of which it keeps the
    /// model) stays in the record as it is.
    pub fn peek(&self, key: &str) -> Option<&'s Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// Marks `key` read.
    pub fn mark(&mut self, key: &str) {
        if let Some((k, _)) = self.map.get_key_value(key) {
            self.read.insert(k);
        }
    }

    /// The value of `key`, marked read.
    pub fn value(&mut self, key: &str) -> Option<&'s Value> {
        let v = self.peek(key)?;
        self.mark(key);
        Some(v)
    }

    /// `key` as text, marked read when it is a string.
    pub fn text(&mut self, key: &str) -> Option<String> {
        let s = self.peek(key)?.as_str()?.to_string();
        self.mark(key);
        Some(s)
    }

    /// `key` as a count, marked read when it is a non-negative integer.
    pub fn count(&mut self, key: &str) -> Option<u64> {
        let n = self.peek(key)?.as_u64()?;
        self.mark(key);
        Some(n)
    }

    /// The first of `keys` the span carries as a count, marked read.
    pub fn first_count(&mut self, keys: &[&str]) -> Option<u64> {
        keys.iter().find_map(|k| self.count(k))
    }

    /// The first of `keys` the span carries as text, marked read.
    pub fn first_text(&mut self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| self.text(k))
    }

    /// `key` as text, marked read: a string as it is, any other value as
    /// JSON.
    pub fn as_text(&mut self, key: &str) -> Option<String> {
        let text = match self.value(key)? {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Some(text)
    }

    /// The indexes `N` of the keys `prefix.N.…` the span carries, ascending.
    pub fn indexes(&self, prefix: &str) -> Vec<usize> {
        let dotted = format!("{prefix}.");
        let found: BTreeSet<usize> = self
            .map
            .keys()
            .filter_map(|k| k.strip_prefix(&dotted)?.split('.').next()?.parse().ok())
            .collect();
        found.into_iter().collect()
    }

    /// Every attribute no read marked, by key.
    pub fn unread(&self) -> Vec<Attribute> {
        self.map
            .iter()
            .filter(|(k, _)| !self.read.contains(k.as_str()))
            .map(|(k, v)| Attribute {
                key: k.clone(),
                value: v.clone(),
            })
            .collect()
    }
}

/// Sets `slot` from `read` when it is still empty: the first convention
/// to name a fact gives it, and a later one does not read (nor mark) its
/// own attribute for it.
pub fn fill<T>(slot: &mut Option<T>, read: impl FnOnce() -> Option<T>) {
    if slot.is_none() {
        *slot = read();
    }
}
