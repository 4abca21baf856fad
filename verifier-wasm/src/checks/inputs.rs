//! The inputs-unchanged check: the agent left every input as it found it.

use super::{from_evidence, CheckContext, Evidence, Verdict};

pub(super) fn unchanged(ctx: &CheckContext<'_>) -> Verdict {
    let evidence = ctx
        .task
        .inputs
        .iter()
        .map(|input| {
            let item = format!("input `{}`", input.path);
            match ctx.recorded_inputs.iter().find(|r| r.path == input.path) {
                None => Evidence::new(item, false, &input.sha256, "no digests recorded"),
                Some(r) => {
                    let same = r.sha256_before == input.sha256 && r.sha256_after == input.sha256;
                    let got = if r.sha256_before == r.sha256_after {
                        r.sha256_after.clone()
                    } else {
                        format!("{} → {}", r.sha256_before, r.sha256_after)
                    };
                    Evidence::new(item, same, &input.sha256, got)
                }
            }
        })
        .collect();
    from_evidence("inputs", evidence)
}
