//! How long each simulated edit takes from the edit to its verdict: the
//! replays run one after another, each given the same time, with the judge
//! calls' own latencies on top. The times are spread as the source's sweep
//! measured them, a mean of 99.5 s and a 95th percentile of 161.6 s over
//! its labelled edits, in the order of the times the script would take at
//! an even pace (an edit with more replays and judge calls takes longer).

/// When an edit's replays run: the first this long after the edit, each
/// next one this long after the one before (its judge calls besides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pace {
    pub(super) delay_ms: i64,
    pub(super) gap_ms: i64,
}

/// The even pace the times are mapped from: 20 s to the first replay, 12 s
/// from each to the next.
pub(super) const EVEN: Pace = Pace {
    delay_ms: 20_000,
    gap_ms: 12_000,
};

/// The source's mean time to a verdict, in milliseconds.
const MEAN_MS: f64 = 99_500.0;
/// The source's 95th percentile (nearest rank), in milliseconds.
const P95_MS: i64 = 161_600;
/// The least time a replay takes.
const LEAST_GAP_MS: i64 = 2_000;

/// The pace of each edit, from what each takes without any (its judge
/// calls' time, `judging_ms`) and its number of replays.
pub(super) fn paces(edits: &[(i64, usize)]) -> Vec<Pace> {
    let even: Vec<i64> = edits
        .iter()
        .map(|&(judging, n)| judging + EVEN.delay_ms + EVEN.gap_ms * n as i64)
        .collect();
    // The edits from the quickest at an even pace to the slowest.
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (even[i], i));
    let targets = spread(edits.len());
    let mut paces = vec![EVEN; edits.len()];
    for (rank, &i) in order.iter().enumerate() {
        let (judging, n) = edits[i];
        let target = targets[rank];
        let gap_ms = (target - judging - EVEN.delay_ms).div_euclid(n.max(1) as i64);
        assert!(
            gap_ms >= LEAST_GAP_MS,
            "a replay would take {gap_ms} ms (target {target} ms)"
        );
        paces[i] = Pace {
            delay_ms: target - judging - gap_ms * n as i64,
            gap_ms,
        };
    }
    paces
}

/// `n` times to a verdict, quickest first, spread as latencies are (the
/// quantiles of an exponential distribution, shifted and scaled) so that
/// their mean and their nearest-rank 95th percentile are the source's.
fn spread(n: usize) -> Vec<i64> {
    let q: Vec<f64> = (0..n)
        .map(|r| -(1.0 - (r as f64 + 0.5) / n as f64).ln())
        .collect();
    let rank = (95 * n).div_ceil(100).max(1) - 1;
    let mean_q = q.iter().sum::<f64>() / n.max(1) as f64;
    let scale = (P95_MS as f64 - MEAN_MS) / (q[rank] - mean_q);
    let shift = MEAN_MS - scale * mean_q;
    let mut times: Vec<i64> = q
        .iter()
        .map(|q| (shift + scale * q).round() as i64)
        .collect();
    times[rank] = P95_MS;
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_times_have_the_source_s_mean_and_95th_percentile_in_their_order() {
        // What each edit's judging takes, and its replays.
        let edits: Vec<(i64, usize)> = (0..35)
            .map(|k| ((k * 7_919 % 23_000) as i64, 2 + k % 4))
            .collect();
        let paces = paces(&edits);
        let times: Vec<i64> = edits
            .iter()
            .zip(&paces)
            .map(|(&(j, n), p)| j + p.delay_ms + p.gap_ms * n as i64)
            .collect();
        let mean = times.iter().sum::<i64>() as f64 / 35.0 / 1000.0;
        assert_eq!(format!("{mean:.1}"), "99.5");
        let mut sorted = times.clone();
        sorted.sort_unstable();
        assert_eq!(sorted[33], 161_600);
        // The order of length is kept.
        let even: Vec<i64> = edits
            .iter()
            .map(|&(j, n)| j + EVEN.delay_ms + EVEN.gap_ms * n as i64)
            .collect();
        for a in 0..35 {
            for b in 0..35 {
                if even[a] < even[b] {
                    assert!(times[a] <= times[b], "{a} {b}");
                }
            }
        }
    }
}
