//! Unit tests of every check kind on hand-made artifacts.
