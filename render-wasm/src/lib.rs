//! The browser's page check, compiled to WebAssembly and loaded apart from
//! the verifier (`verifier-wasm/`): a page's worker hands it a site's
//! `data/` and `assets/` (after the verifier's manifest checks have held
//! them to `SHA256SUMS`), it renders every page the records make, exactly
//! as `receipts build` did (`receipts::browser`), and compares each page
//! the site serves with it. Natively this crate is empty: the tests run
//! `receipts::browser` directly.

#[cfg(target_arch = "wasm32")]
mod wasm;
