//! The rule-cases check: run the agent's rule program on every case.
//!
//! A rule program is JSON: `{"language": "receipts-rules/1", "expr": "<expression>"}`,
//! the expression in the restricted language of [`super::expr`].

use std::collections::BTreeMap;

use serde::Deserialize;

use super::expr::{Program, Value};
use super::{artifact_text, from_evidence, unreadable, CheckContext, Evidence, Verdict};
use crate::model::RuleCase;

/// The language tag a rule program must carry.
pub const RULES_LANGUAGE: &str = "receipts-rules/1";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleProgram {
    language: String,
    expr: String,
}

pub(super) fn rule_cases(
    ctx: &CheckContext<'_>,
    variables: &[String],
    cases: &[RuleCase],
) -> Verdict {
    let text = match artifact_text(ctx) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let program: RuleProgram = match serde_json::from_slice(text.as_bytes()) {
        Ok(p) => p,
        Err(e) => return unreadable(format!("the rule program is not valid: {e}")),
    };
    if program.language != RULES_LANGUAGE {
        return unreadable(format!(
            "the rule program's language is `{}`, not `{RULES_LANGUAGE}`",
            program.language
        ));
    }
    let parsed = match Program::parse(&program.expr) {
        Ok(p) => p,
        Err(e) => return unreadable(format!("the rule program does not parse: {e}")),
    };
    let unknown: Vec<String> = parsed
        .variables()
        .into_iter()
        .filter(|v| !variables.contains(v))
        .collect();
    if !unknown.is_empty() {
        return unreadable(format!(
            "the rule program reads unknown variables: {}",
            unknown.join(", ")
        ));
    }
    let evidence = cases
        .iter()
        .map(|case| {
            let env: BTreeMap<String, i64> = case.vars.clone();
            let got = match parsed.eval(&env) {
                Ok(Value::Int(n)) => Ok(n),
                Ok(other) => Err(format!("{other} (not an integer)")),
                Err(e) => Err(format!("error: {e}")),
            };
            let label = if case.held_out {
                "held-out case"
            } else {
                "case"
            };
            let item = format!(
                "{label} `{}` ({}) {}",
                case.id,
                case.group,
                describe_vars(&case.vars)
            );
            match got {
                Ok(n) => Evidence::new(
                    item,
                    n == case.expected,
                    case.expected.to_string(),
                    n.to_string(),
                ),
                Err(why) => Evidence::new(item, false, case.expected.to_string(), why),
            }
        })
        .collect();
    from_evidence("cases", evidence)
}

fn describe_vars(vars: &BTreeMap<String, i64>) -> String {
    let parts: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(", ")
}
