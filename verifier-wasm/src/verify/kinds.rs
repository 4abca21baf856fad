//! Receipts counted by what they hold a site to, so that every total —
//! the build's, `receipts verify`'s and the browser's — is explained the
//! same way: the build recomputes the records; verifying a site adds each
//! file's digest and the pages; the browser adds the digests a page shows.

use serde::{Deserialize, Serialize};

use super::Receipt;

/// The claim of a page (or another file rendered from the records) that is,
/// or is not, what the records render to.
pub const RENDERED: &str = "rendered from the records";

/// The claim of a file under `data/` (or a manifest) that differs from what
/// the records publish.
pub const PUBLISHED: &str = "as the records publish it";

/// What one receipt holds the site to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A claim recomputed from the records: a digest of an object, a check,
    /// an outcome, a cost, a published number, a decision.
    Record,
    /// A file's digest or listing in a manifest, the root digest, the
    /// site's code against the copy the verifier ships, or a root site's
    /// shards against its `SHARDS`.
    File,
    /// The pages (and the files published from the records) against what
    /// the records render to.
    Page,
    /// A digest a page shows, against the one recomputed (and on a root
    /// site's page, each shard shown with its run count).
    Shown,
}

impl Kind {
    /// The kind of `receipt`, from its claim.
    pub fn of(receipt: &Receipt) -> Kind {
        Kind::of_claim(&receipt.claim)
    }

    /// The kind of a receipt making `claim`.
    pub fn of_claim(c: &str) -> Kind {
        if c.ends_with(" shown on the page") {
            Kind::Shown
        } else if c == RENDERED || c == PUBLISHED {
            Kind::Page
        } else if crate::manifest::is_manifest_claim(c) {
            Kind::File
        } else {
            Kind::Record
        }
    }
}

/// Receipts counted by [`Kind`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kinds {
    /// How many receipts recompute a claim from the records ([`Kind::Record`]).
    pub records: usize,
    /// How many hold a file to a manifest ([`Kind::File`]).
    pub files: usize,
    /// How many hold the pages to what the records render to ([`Kind::Page`]).
    pub pages: usize,
    /// How many hold a digest a page shows to the one recomputed ([`Kind::Shown`]).
    pub shown: usize,
}

impl Kinds {
    /// Counts `receipts`, each by the kind of its claim.
    pub fn of<'a>(receipts: impl IntoIterator<Item = &'a Receipt>) -> Kinds {
        Kinds::of_claims(receipts.into_iter().map(|r| r.claim.as_str()))
    }

    /// Counts the receipts making `claims`.
    pub fn of_claims<'a>(claims: impl IntoIterator<Item = &'a str>) -> Kinds {
        let mut k = Kinds::default();
        for c in claims {
            match Kind::of_claim(c) {
                Kind::Record => k.records += 1,
                Kind::File => k.files += 1,
                Kind::Page => k.pages += 1,
                Kind::Shown => k.shown += 1,
            }
        }
        k
    }

    /// How many receipts were counted, of every kind.
    pub fn total(&self) -> usize {
        self.records + self.files + self.pages + self.shown
    }

    /// The counts in words, the kinds with none left out: `4,084 recomputed
    /// from the records, 341 file digests in the manifests, 1 check of the
    /// pages against the records`.
    pub fn describe(&self) -> String {
        let mut parts = vec![format!(
            "{} recomputed from the records",
            count(self.records)
        )];
        if self.files > 0 {
            parts.push(format!(
                "{} file digest{} in the manifests",
                count(self.files),
                plural(self.files)
            ));
        }
        if self.pages > 0 {
            parts.push(format!(
                "{} check{} of the pages against the records",
                count(self.pages),
                plural(self.pages)
            ));
        }
        if self.shown > 0 {
            parts.push(format!(
                "{} digest{} shown on the page",
                count(self.shown),
                plural(self.shown)
            ));
        }
        parts.join(", ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `n` with thousands separated by commas.
fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt(claim: &str) -> Receipt {
        Receipt::new("x", claim, "a", "a", true)
    }

    #[test]
    fn each_receipt_is_counted_by_what_it_holds_the_site_to() {
        let receipts = [
            receipt("outcome"),
            receipt("primary.policies[ladder].pass_rate_pct"),
            receipt("SHA-256 in SHA256SUMS"),
            receipt("SHA-256 in data/SHA256SUMS"),
            receipt("listed in data/SHA256SUMS"),
            receipt("root digest"),
            receipt(RENDERED),
            receipt("digest of SHA256SUMS shown on the page"),
        ];
        let kinds = Kinds::of(&receipts);
        assert_eq!(
            kinds,
            Kinds {
                records: 2,
                files: 4,
                pages: 1,
                shown: 1
            }
        );
        assert_eq!(kinds.total(), receipts.len());
        assert_eq!(
            kinds.describe(),
            "2 recomputed from the records, 4 file digests in the manifests, \
             1 check of the pages against the records, 1 digest shown on the page"
        );
        let many = Kinds {
            records: 1_234_567,
            ..Kinds::default()
        };
        assert_eq!(many.describe(), "1,234,567 recomputed from the records");
    }
}
