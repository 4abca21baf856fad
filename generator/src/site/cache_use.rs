//! How much of the prompt the provider read from its cache: the share of
//! prompt tokens its calls reported as cache hits, over the calls that
//! report one (a provider that reports none is "not reported", not 0%).

use serde::Serialize;

use receipts_verifier::model::Usage;

/// Cache hits over the calls that report them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CacheUse {
    /// Prompt tokens read from the cache.
    pub hit: u64,
    /// Every prompt token of the calls that report cache hits.
    pub prompt: u64,
    /// How many calls report cache hits.
    pub calls: usize,
    /// How many calls do not.
    pub unreported: usize,
    /// `hit` as a percentage of `prompt` (0 when `prompt` is).
    pub pct: f64,
}

impl CacheUse {
    /// The cache use of calls with these usages; `None` when no call
    /// reports its cache hits.
    pub fn of<'a>(usages: impl IntoIterator<Item = &'a Usage>) -> Option<CacheUse> {
        Self::of_counts(
            usages
                .into_iter()
                .map(|u| (u.prompt_tokens, u.cache_hit_tokens)),
        )
    }

    /// As [`CacheUse::of`], from each call's prompt tokens and cache hits.
    pub fn of_counts(counts: impl IntoIterator<Item = (u64, Option<u64>)>) -> Option<CacheUse> {
        let (mut hit, mut prompt, mut calls, mut unreported) = (0u64, 0u64, 0usize, 0usize);
        for (p, h) in counts {
            let Some(h) = h else {
                unreported += 1;
                continue;
            };
            hit = hit.saturating_add(h);
            prompt = prompt.saturating_add(p);
            calls += 1;
        }
        (calls > 0).then(|| CacheUse {
            hit,
            prompt,
            calls,
            unreported,
            pct: if prompt == 0 {
                0.0
            } else {
                hit as f64 * 100.0 / prompt as f64
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(prompt: u64, hit: Option<u64>) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: 1,
            reasoning_tokens: None,
            cache_hit_tokens: hit,
            cache_miss_tokens: hit.map(|h| prompt - h),
            cache_write_tokens: None,
        }
    }

    #[test]
    fn the_share_counts_only_calls_that_report_their_cache() {
        let calls = [
            usage(1000, Some(250)),
            usage(3000, None),
            usage(1000, Some(0)),
        ];
        let c = CacheUse::of(&calls).expect("two calls report");
        assert_eq!((c.hit, c.prompt, c.calls, c.unreported), (250, 2000, 2, 1));
        assert!((c.pct - 12.5).abs() < 1e-12);
        assert_eq!(
            CacheUse::of(&[usage(10, None)]),
            None,
            "not reported is not 0%"
        );
        assert_eq!(CacheUse::of(&[]), None);
    }
}
