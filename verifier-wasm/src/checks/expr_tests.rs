//! Tests of the rule-expression language.
use super::ExprError::*;
use super::*;

fn env(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn run_with(source: &str, pairs: &[(&str, i64)]) -> Result<Value, ExprError> {
    Program::parse(source)?.eval(&env(pairs))
}

fn run(source: &str) -> Result<Value, ExprError> {
    run_with(source, &[])
}

fn int(source: &str) -> i64 {
    match run(source) {
        Ok(Value::Int(n)) => n,
        other => panic!("{source}: expected an int, got {other:?}"),
    }
}

fn boolean(source: &str) -> bool {
    match run(source) {
        Ok(Value::Bool(b)) => b,
        other => panic!("{source}: expected a bool, got {other:?}"),
    }
}

fn parse_err(source: &str) -> ExprError {
    Program::parse(source).expect_err(source)
}

fn nested_parens(n: usize) -> String {
    format!("{}1{}", "(".repeat(n), ")".repeat(n))
}

#[test]
fn precedence_and_associativity() {
    let ints = [
        ("2 + 3 * 4", 14),
        ("(2 + 3) * 4", 20),
        ("10 - 3 - 2", 5),
        ("20 / 2 / 5", 2),
        ("2 * 3 % 4", 2),
        ("100 % 7 * 2", 4),
        ("-2 - 3", -5),
        ("- - 3", 3),
        ("-(2 + 3) * 2", -10),
        ("\t1\n+\r\n 1", 2),
    ];
    for (src, expected) in ints {
        assert_eq!(int(src), expected, "{src}");
    }
    for src in [
        "2 + 3 * 4 == 14",
        "1 + 2 < 4 == true",
        "true || false && false",
        "!(!false && false)",
        "true == false == false",
        "(1 < 2) == (2 < 3)",
        "1 < 2 == 2 < 3",
        "true != false",
        "3 != 4",
    ] {
        assert!(boolean(src), "{src}");
    }
}

#[test]
fn if_expressions_nest() {
    let src = "if a > 1 then if a > 5 then 3 else 2 else 1";
    for (a, expected) in [(0, 1), (3, 2), (9, 3)] {
        assert_eq!(run_with(src, &[("a", a)]), Ok(Value::Int(expected)));
    }
    assert_eq!(int("if false then 1 else if false then 2 else 3"), 3);
    assert_eq!(int("if if true then false else true then 1 else 2"), 2);
    // The else branch extends as far as possible.
    assert_eq!(int("if false then 1 else 2 + 10"), 12);
    assert_eq!(int("if true then 1 else 2 + 10"), 1);
    assert_eq!(int("1 + (if true then 2 else 3)"), 3);
    assert!(boolean("if 1 < 2 then true else false"));
}

#[test]
fn control_flow_combinations() {
    for (src, expected) in [
        ("1 + (if 1 < 2 then 10 else 20) * 2", Value::Int(21)),
        ("-(if true then 3 else 4)", Value::Int(-3)),
        ("(if true then false else true) || 1 < 2", Value::Bool(true)),
        (
            "true && (if false then true else false) || true",
            Value::Bool(true),
        ),
        ("not (true && false) and (false || true)", Value::Bool(true)),
        ("(false && true) == false", Value::Bool(true)),
        ("if true && false || true then 1 else 2", Value::Int(1)),
        (
            "if (if false then true else false) then 1 else 2",
            Value::Int(2),
        ),
        ("false || false || true && true", Value::Bool(true)),
        ("true && true && false || false", Value::Bool(false)),
    ] {
        assert_eq!(run(src), Ok(expected), "{src}");
    }
    let src = "if a > 0 && b > 0 then a * b else if a > 0 || b > 0 then a + b else 0";
    for (a, b, expected) in [(2, 3, 6), (2, 0, 2), (0, 3, 3), (0, 0, 0)] {
        assert_eq!(
            run_with(src, &[("a", a), ("b", b)]),
            Ok(Value::Int(expected))
        );
    }
}

#[test]
fn logic_and_if_short_circuit() {
    assert_eq!(run("false && (1 / 0 == 1)"), Ok(Value::Bool(false)));
    assert_eq!(run("true || (1/0 == 0)"), Ok(Value::Bool(true)));
    assert_eq!(
        run("false && nope > 0 && 1 / 0 == 0"),
        Ok(Value::Bool(false))
    );
    assert_eq!(run("if true then 1 else 1 / 0"), Ok(Value::Int(1)));
    assert_eq!(run("if false then nope else 2"), Ok(Value::Int(2)));
    assert_eq!(run("true && (1 / 0 == 1)"), Err(DivisionByZero { op: "/" }));
    assert_eq!(
        run("false || (1 % 0 == 1)"),
        Err(DivisionByZero { op: "%" })
    );
}

#[test]
fn division_and_remainder() {
    assert_eq!(run("1 / 0"), Err(DivisionByZero { op: "/" }));
    assert_eq!(run("5 % (3 - 3)"), Err(DivisionByZero { op: "%" }));
    assert!(boolean("-7 / 2 == -3"));
    assert!(boolean("-7 % 2 == -1"));
    for (src, expected) in [("7 / -2", -3), ("7 % -2", 1), ("-7 / -2", 3), ("6 / 3", 2)] {
        assert_eq!(int(src), expected, "{src}");
    }
}

#[test]
fn arithmetic_overflow_is_an_error() {
    for (src, op) in [
        ("9223372036854775807 + 1", "+"),
        ("-9223372036854775807 - 2", "-"),
        ("4611686018427387904 * 2", "*"),
        ("(-9223372036854775807 - 1) / -1", "/"),
        ("(-9223372036854775807 - 1) % -1", "%"),
        ("-(-9223372036854775807 - 1)", "-"),
    ] {
        assert_eq!(run(src), Err(Overflow { op }), "{src}");
    }
    assert_eq!(int("9223372036854775807"), i64::MAX);
    assert_eq!(int("-9223372036854775807 - 1"), i64::MIN);
}

#[test]
fn integer_literal_too_large() {
    assert_eq!(
        parse_err("9223372036854775808"),
        IntegerTooLarge { offset: 0 }
    );
    assert_eq!(
        parse_err("1 + 99999999999999999999"),
        IntegerTooLarge { offset: 4 }
    );
}

#[test]
fn type_errors() {
    let ints_or_bools = "two ints or two bools";
    for (src, op, expected, found) in [
        ("1 + true", "+", "int", "bool"),
        ("true * 2", "*", "int", "bool"),
        ("if 1 then 2 else 3", "if", "bool", "int"),
        ("!5", "!", "bool", "int"),
        ("-true", "-", "int", "bool"),
        ("1 && true", "&&", "bool", "int"),
        ("false or 1", "||", "bool", "int"),
        ("true < false", "<", "int", "bool"),
        ("1 == true", "==", ints_or_bools, "int and bool"),
        ("true != 1", "!=", ints_or_bools, "bool and int"),
    ] {
        assert_eq!(
            run(src),
            Err(TypeMismatch {
                op,
                expected,
                found
            }),
            "{src}"
        );
    }
}

#[test]
fn variables_are_looked_up() {
    assert_eq!(
        run_with("a * 2 + b", &[("a", 4), ("b", 1)]),
        Ok(Value::Int(9))
    );
    let name = "nope".to_string();
    assert_eq!(
        run_with("a + nope", &[("a", 1)]),
        Err(UnknownVariable { name })
    );
}

#[test]
fn calls_are_rejected() {
    let err = parse_err("max(1, 2)");
    assert_eq!(
        err,
        CallNotAllowed {
            name: "max".into(),
            offset: 0
        }
    );
    assert!(err.to_string().contains("calls are not allowed"), "{err}");
    let err = parse_err("1 + min (a, b)");
    assert_eq!(
        err,
        CallNotAllowed {
            name: "min".into(),
            offset: 4
        }
    );
}

#[test]
fn nesting_depth_is_limited() {
    assert_eq!(int(&nested_parens(MAX_DEPTH)), 1);
    let too_deep = TooDeep {
        offset: MAX_DEPTH,
        max: MAX_DEPTH,
    };
    assert_eq!(parse_err(&nested_parens(MAX_DEPTH + 1)), too_deep);
    assert_eq!(int(&format!("{}7", "- ".repeat(MAX_DEPTH))), 7);
    let deep = [
        format!("{}x", "-".repeat(4095)),
        format!("{}x", "not ".repeat(1000)),
        nested_parens(2000),
        "if ".repeat(1365),
        format!("{}0", "if c then 1 else ".repeat(MAX_DEPTH + 1)),
    ];
    for src in &deep {
        assert!(matches!(parse_err(src), TooDeep { .. }), "{src}");
    }
    // 10_000 levels exceed the source limit, so `parse` stops early; the
    // parser's own depth guard handles them without the length check.
    let huge = [
        nested_parens(10_000),
        format!("{}x", "-".repeat(10_000)),
        "if ".repeat(10_000),
    ];
    for src in &huge {
        assert!(matches!(parse_err(src), SourceTooLong { .. }));
        assert!(matches!(compile(src), Err(TooDeep { .. })));
    }
}

#[test]
fn worst_case_nesting_needs_little_stack() {
    // MAX_DEPTH parentheses, each passing through every precedence level.
    let mut src = String::from("x");
    for _ in 0..MAX_DEPTH {
        src = format!("(false || true && true == 1 < x + x * {src})");
    }
    assert!(src.len() <= MAX_SOURCE_BYTES);
    let worker = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let program = Program::parse(&src).unwrap();
            let result = program.clone().eval(&env(&[("x", 1)]));
            assert!(compile(&nested_parens(100_000)).is_err());
            result
        });
    let result = worker.unwrap().join().unwrap();
    let expected = TypeMismatch {
        op: "*",
        expected: "int",
        found: "bool",
    };
    assert_eq!(result, Err(expected));
}

#[test]
fn long_flat_chains_are_fine() {
    let terms = vec!["1"; 2048].join("+");
    assert_eq!(terms.len(), 4095);
    assert_eq!(int(&terms), 2048);
    assert!(boolean(&vec!["true"; 600].join("&&")));
}

#[test]
fn source_length_is_limited() {
    assert_eq!(int(&format!("1{}", " ".repeat(MAX_SOURCE_BYTES - 1))), 1);
    let over = format!("1{}", " ".repeat(MAX_SOURCE_BYTES));
    let expected = SourceTooLong {
        len: MAX_SOURCE_BYTES + 1,
        max: MAX_SOURCE_BYTES,
    };
    assert_eq!(parse_err(&over), expected);
}

// Every node takes at least one source byte and nothing is evaluated
// twice, so no program within MAX_SOURCE_BYTES can reach MAX_STEPS; the
// step counter is exercised through `eval_with_limit` instead.
#[test]
fn step_limit() {
    let empty = BTreeMap::new();
    // Nodes: 1, 2, 3, `*`, `+`.
    let p = Program::parse("1 + 2 * 3").unwrap();
    assert_eq!(p.eval_with_limit(&empty, 5), Ok(Value::Int(7)));
    assert_eq!(
        p.eval_with_limit(&empty, 4),
        Err(StepLimitExceeded { max: 4 })
    );
    // Short-circuiting skips the right operand: `false`, `&&`.
    let p = Program::parse("false && (1 / 0 == 1)").unwrap();
    assert_eq!(p.eval_with_limit(&empty, 2), Ok(Value::Bool(false)));
    let p = Program::parse(&vec!["1"; 2048].join("+")).unwrap();
    assert_eq!(p.eval_with_limit(&empty, 4095), Ok(Value::Int(2048)));
    assert_eq!(
        p.eval_with_limit(&empty, 4094),
        Err(StepLimitExceeded { max: 4094 })
    );
    assert_eq!(p.eval(&empty), Ok(Value::Int(2048)));
    // `false`, then each `&&` short-circuits in turn.
    let p = Program::parse("false && x && y").unwrap();
    assert_eq!(p.eval_with_limit(&empty, 3), Ok(Value::Bool(false)));
    assert!(p.eval_with_limit(&empty, 2).is_err());
    // Both operands and the `&&`; the check on the right one is free.
    let p = Program::parse("true && true").unwrap();
    assert_eq!(p.eval_with_limit(&empty, 3), Ok(Value::Bool(true)));
    // `true`, `if`, `1`; the else branch is skipped.
    let p = Program::parse("if true then 1 else 2 + 3 * 4").unwrap();
    assert_eq!(p.eval_with_limit(&empty, 3), Ok(Value::Int(1)));
    assert!(p.eval_with_limit(&empty, 2).is_err());
}

#[test]
fn chained_comparison_is_rejected() {
    assert_eq!(parse_err("1 < 2 < 3"), ChainedComparison { offset: 6 });
    assert_eq!(parse_err("a <= b >= c"), ChainedComparison { offset: 7 });
    assert!(boolean("(1 < 2) == true"));
}

#[test]
fn lexer_errors_report_offsets() {
    let err = parse_err("a + $b");
    assert_eq!(err, UnexpectedChar { ch: '$', offset: 4 });
    assert_eq!(err.to_string(), "unexpected character '$' at byte 4");
    for (src, ch, offset) in [
        ("a = 1", '=', 2),
        ("a & b", '&', 2),
        ("a | b", '|', 2),
        ("\"x\"", '"', 0),
        ("1 + é", 'é', 4),
        ("x;", ';', 1),
        // Errors are reported in source order.
        ("1 + $ 99999999999999999999", '$', 4),
        ("(1 $", '$', 3),
        ("1 < 2 $", '$', 6),
    ] {
        assert_eq!(parse_err(src), UnexpectedChar { ch, offset }, "{src}");
    }
    assert_eq!(parse_err("1 2 $"), parse_err("1 2"));
}

#[test]
fn parse_errors() {
    assert_eq!(parse_err(""), EmptyProgram);
    assert_eq!(parse_err(" \n\t "), EmptyProgram);
    for (src, found_expected, offset_expected) in [
        ("1 +", "end of program", 3),
        ("1 2", "integer `2`", 2),
        ("(1", "end of program", 2),
        ("1)", "`)`", 1),
        ("()", "`)`", 1),
        ("if true then 1", "end of program", 14),
        ("if true 1 else 2", "integer `1`", 8),
        ("while x", "identifier `x`", 6),
        ("1 + if true then 1 else 2", "`if`", 4),
        ("a and or b", "`or`", 6),
        ("-if true then 1 else 2", "`if`", 1),
        ("(1 2", "integer `2`", 3),
        ("if then 1 else 2", "`then`", 3),
        ("1 else 2", "`else`", 2),
        ("then", "`then`", 0),
    ] {
        match parse_err(src) {
            UnexpectedToken { found, offset, .. } => {
                assert_eq!((found.as_str(), offset), (found_expected, offset_expected));
            }
            other => panic!("{src}: {other:?}"),
        }
    }
    let err = parse_err("(1 2");
    assert_eq!(
        err.to_string(),
        "unexpected integer `2` at byte 3, expected an operator or `)`"
    );
    let err = parse_err("if a b");
    assert!(
        err.to_string().ends_with("expected an operator or `then`"),
        "{err}"
    );
    let err = parse_err("1 + * 2");
    assert_eq!(
        err.to_string(),
        "unexpected `*` at byte 4, expected an operand"
    );
}

#[test]
fn keyword_operators() {
    assert!(boolean("not false and true or false"));
    assert!(boolean("true and not (1 > 2)"));
    assert!(!boolean("false or false"));
    assert!(boolean("not false == true"));
    let expected = TypeMismatch {
        op: "||",
        expected: "bool",
        found: "int",
    };
    let src = "if not (a > 0) or b then 1 else 0";
    assert_eq!(run_with(src, &[("a", 1), ("b", 0)]), Err(expected));
    let vars = [("if_", 1), ("then_", 2), ("else1", 3)];
    assert_eq!(run_with("if_ + then_ + else1", &vars), Ok(Value::Int(6)));
}

#[test]
fn variables_are_listed() {
    let p = Program::parse("if b > a then a else c + a * (b - zed)").unwrap();
    assert_eq!(p.variables(), vec!["a", "b", "c", "zed"]);
    assert!(Program::parse("1 + 2").unwrap().variables().is_empty());
}

#[test]
fn shipping_fee_rule() {
    let rule = Program::parse(
        "if subtotal_cents >= 5000 then 0 else 499 + (if weight_g > 1000 \
         then ((weight_g - 1000 + 499) / 500) * 50 else 0)",
    )
    .unwrap();
    assert_eq!(rule.variables(), vec!["subtotal_cents", "weight_g"]);
    for (subtotal, weight, fee) in [
        (5000, 1000, 0),
        (5000, 9999, 0),
        (4999, 1000, 499),
        (4999, 1001, 549),
        (4999, 1500, 549),
        (4999, 1501, 599),
        (0, 0, 499),
    ] {
        let vars = env(&[("subtotal_cents", subtotal), ("weight_g", weight)]);
        assert_eq!(rule.eval(&vars), Ok(Value::Int(fee)), "{subtotal} {weight}");
    }
    assert_eq!(
        rule.eval(&env(&[("subtotal_cents", 6000)])),
        Ok(Value::Int(0))
    );
    let name = "weight_g".to_string();
    assert_eq!(
        rule.eval(&env(&[("subtotal_cents", 10)])),
        Err(UnknownVariable { name })
    );
}

#[test]
fn display() {
    assert_eq!(Value::Int(42).to_string(), "42");
    assert_eq!(Value::Int(-3).to_string(), "-3");
    assert_eq!(Value::Bool(true).to_string(), "true");
    let errors = [
        SourceTooLong {
            len: 5000,
            max: MAX_SOURCE_BYTES,
        },
        EmptyProgram,
        UnexpectedChar { ch: '$', offset: 3 },
        IntegerTooLarge { offset: 0 },
        CallNotAllowed {
            name: "f".into(),
            offset: 12,
        },
        ChainedComparison { offset: 6 },
        TooDeep {
            offset: 64,
            max: MAX_DEPTH,
        },
        UnknownVariable { name: "x".into() },
        TypeMismatch {
            op: "+",
            expected: "int",
            found: "bool",
        },
        Overflow { op: "*" },
        DivisionByZero { op: "%" },
        StepLimitExceeded { max: MAX_STEPS },
    ];
    for e in &errors {
        let text = e.to_string();
        assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
    }
    assert_eq!(
        errors[6].to_string(),
        "nesting deeper than 64 levels at byte 64"
    );
    assert_eq!(
        errors[4].to_string(),
        "function calls are not allowed: `f(` at byte 12"
    );
}
