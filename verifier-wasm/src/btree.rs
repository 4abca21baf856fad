//! B-tree maps and sets built by inserting one element at a time.
//!
//! `collect()` into a `BTreeMap` or `BTreeSet` sorts the elements first, and
//! every element type instantiates a stable sort of its own: together some
//! 40 KB of the WebAssembly verifier. Inserting builds the same collection
//! (of equal keys the last value wins, as with `collect()`).

use std::collections::{BTreeMap, BTreeSet};

/// The map of `items`, as `collect()` would build it.
pub(crate) fn map<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(items);
    map
}

/// The set of `items`, as `collect()` would build it.
pub(crate) fn set<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_as_collect() {
        let items = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)];
        assert_eq!(map(items), items.into_iter().collect::<BTreeMap<_, _>>());
        let keys = items.map(|(k, _)| k);
        assert_eq!(set(keys), keys.into_iter().collect::<BTreeSet<_>>());
    }
}
