//! A small deterministic random source for the simulator: SplitMix64 seeded
//! from the SHA-256 of a key, so the same key gives the same stream on every
//! machine.

use sha2::{Digest, Sha256};

pub struct Rng(u64);

impl Rng {
    /// A stream determined by `key` alone.
    pub fn from_key(key: &str) -> Rng {
        let d = Sha256::digest(key.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        Rng(u64::from_le_bytes(first))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform value in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A uniform integer in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

/// 16 hex characters derived from `key`, for request ids.
pub fn short_id(key: &str) -> String {
    receipts_verifier::digest::sha256_hex(key.as_bytes())[..16].to_string()
}
