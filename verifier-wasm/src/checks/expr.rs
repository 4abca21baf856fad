//! A restricted integer expression language for rule programs.
//!
//! Values are `i64` integers and booleans. An expression is one of, from
//! lowest to highest precedence:
//!
//! - `if C then A else B`, only at expression level: at the top, inside
//!   parentheses, or as a condition or branch of another `if`; the `else`
//!   branch extends as far as possible;
//! - `a || b` or `a or b`, then `a && b` or `a and b` (short-circuiting);
//! - `a == b`, `a != b` (two ints or two bools);
//! - `a < b`, `a <= b`, `a > b`, `a >= b` (non-associative: `a < b < c` is
//!   a parse error);
//! - `a + b`, `a - b`, then `a * b`, `a / b`, `a % b`;
//! - unary `-a`, `!a` or `not a`;
//! - decimal literals, `true`, `false`, variables (`[A-Za-z_][A-Za-z0-9_]*`,
//!   read from the environment) and parentheses.
//!
//! Binary operators are left-associative. Types are checked during
//! evaluation. Arithmetic is checked: overflow and division or remainder by
//! zero are errors, and `/` and `%` truncate toward zero. There are no
//! calls, loops, assignments or strings, and whitespace is insignificant.
//! `i64::MIN` has no literal form (write `-9223372036854775807 - 1`).
//!
//! Limits: at most [`MAX_SOURCE_BYTES`] bytes of source, at most
//! [`MAX_DEPTH`] nested parentheses, unary operators and `if`s, and at most
//! [`MAX_STEPS`] evaluation steps, one per literal, variable, operator and
//! `if` evaluated. Parsing and evaluation use explicit stacks rather than
//! recursion, so no input can exhaust the call stack.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Longest accepted source, in bytes.
pub const MAX_SOURCE_BYTES: usize = 4096;
/// Deepest accepted nesting of parentheses, unary operators and `if`s.
pub const MAX_DEPTH: usize = 64;
/// Most evaluation steps a program may take.
pub const MAX_STEPS: u32 = 10_000;

/// The result of evaluating a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A 64-bit signed integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Bool(_) => "bool",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Why a program could not be parsed or evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// The source is longer than [`MAX_SOURCE_BYTES`].
    #[error("the program is {len} bytes long, more than the limit of {max} bytes")]
    SourceTooLong {
        /// The source's length, in bytes.
        len: usize,
        /// The limit it exceeds, in bytes.
        max: usize,
    },
    /// The source holds nothing but whitespace.
    #[error("empty program")]
    EmptyProgram,
    /// A character that starts no token.
    #[error("unexpected character {ch:?} at byte {offset}")]
    UnexpectedChar {
        /// The offending character.
        ch: char,
        /// Its byte offset in the source.
        offset: usize,
    },
    /// A decimal literal outside the range of `i64`.
    #[error("integer literal at byte {offset} does not fit in a 64-bit signed integer")]
    IntegerTooLarge {
        /// The literal's byte offset in the source.
        offset: usize,
    },
    /// A token the grammar does not allow where it stands.
    #[error("unexpected {found} at byte {offset}, expected {expected}")]
    UnexpectedToken {
        /// The token found, described for a reader (e.g. ``identifier `x` ``).
        found: String,
        /// What the grammar allows at that point, in words.
        expected: &'static str,
        /// The token's byte offset in the source.
        offset: usize,
    },
    /// A variable name directly followed by `(`, read as a function call.
    #[error("function calls are not allowed: `{name}(` at byte {offset}")]
    CallNotAllowed {
        /// The name before the parenthesis.
        name: String,
        /// The name's byte offset in the source.
        offset: usize,
    },
    /// Two comparison operators chained without parentheses, as in `a < b < c`.
    #[error(
        "comparison operators cannot be chained (at byte {offset}); combine comparisons with `&&`"
    )]
    ChainedComparison {
        /// The second comparison operator's byte offset in the source.
        offset: usize,
    },
    /// Parentheses, unary operators and `if`s nested deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {max} levels at byte {offset}")]
    TooDeep {
        /// The byte offset of the construct that exceeds the limit.
        offset: usize,
        /// The nesting limit.
        max: usize,
    },
    /// A variable the environment does not define.
    #[error("unknown variable `{name}`")]
    UnknownVariable {
        /// The variable's name.
        name: String,
    },
    /// An operator or `if` applied to a value of the wrong type.
    #[error("type error: `{op}` expects {expected} but got {found}")]
    TypeMismatch {
        /// The operator's symbol, or `if` for a condition.
        op: &'static str,
        /// The type or types the operator accepts.
        expected: &'static str,
        /// The type or types it was given.
        found: &'static str,
    },
    /// An arithmetic result, or a negation, outside the range of `i64`.
    #[error("integer overflow in `{op}`")]
    Overflow {
        /// The operator's symbol.
        op: &'static str,
    },
    /// A `/` or `%` whose right operand is zero.
    #[error("division by zero in `{op}`")]
    DivisionByZero {
        /// The operator's symbol, `/` or `%`.
        op: &'static str,
    },
    /// Evaluation took more than the allowed number of steps.
    #[error("evaluation exceeded the limit of {max} steps")]
    StepLimitExceeded {
        /// The step limit that was exceeded.
        max: u32,
    },
}

/// A parsed program, ready to evaluate: postfix code for a value stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    code: Vec<Op>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Push(Value),
    Load(String),
    Neg,
    Not,
    Binary(BinOp),
    /// The `&&` or `||` node, after its left operand: when that operand
    /// decides the result, it stays on the stack and control jumps to the
    /// target; otherwise it is popped.
    ShortCircuit(Logic, usize),
    /// Checks that the right operand of `&&` or `||` is a bool (not a step).
    CheckBool(Logic),
    /// The `if` node, after its condition: pops it and jumps to the target
    /// (the else branch) when it is false.
    JumpIfFalse(usize),
    /// The end of a then branch, jumping past the else branch (not a step).
    Jump(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Logic {
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BinOp {
    Eq,
    Ne,
    Cmp(CmpOp),
    Arith(ArithOp),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Logic {
    fn symbol(self) -> &'static str {
        match self {
            Logic::And => "&&",
            Logic::Or => "||",
        }
    }
}

impl BinOp {
    fn symbol(self) -> &'static str {
        match self {
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Cmp(CmpOp::Lt) => "<",
            BinOp::Cmp(CmpOp::Le) => "<=",
            BinOp::Cmp(CmpOp::Gt) => ">",
            BinOp::Cmp(CmpOp::Ge) => ">=",
            BinOp::Arith(ArithOp::Add) => "+",
            BinOp::Arith(ArithOp::Sub) => "-",
            BinOp::Arith(ArithOp::Mul) => "*",
            BinOp::Arith(ArithOp::Div) => "/",
            BinOp::Arith(ArithOp::Rem) => "%",
        }
    }

    fn precedence(self) -> u8 {
        match self {
            BinOp::Eq | BinOp::Ne => 3,
            BinOp::Cmp(_) => 4,
            BinOp::Arith(ArithOp::Add | ArithOp::Sub) => 5,
            BinOp::Arith(_) => 6,
        }
    }

    fn apply(self, a: &Value, b: &Value) -> Result<Value, ExprError> {
        let op = self.symbol();
        if let BinOp::Eq | BinOp::Ne = self {
            let equal = match (a, b) {
                (Value::Int(x), Value::Int(y)) => x == y,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Int(_), _) => {
                    return Err(mismatch(op, "two ints or two bools", "int and bool"))
                }
                (Value::Bool(_), _) => {
                    return Err(mismatch(op, "two ints or two bools", "bool and int"))
                }
            };
            return Ok(Value::Bool(equal == (self == BinOp::Eq)));
        }
        let (a, b) = (expect_int(a, op)?, expect_int(b, op)?);
        let arith = match self {
            BinOp::Cmp(CmpOp::Lt) => return Ok(Value::Bool(a < b)),
            BinOp::Cmp(CmpOp::Le) => return Ok(Value::Bool(a <= b)),
            BinOp::Cmp(CmpOp::Gt) => return Ok(Value::Bool(a > b)),
            BinOp::Cmp(CmpOp::Ge) => return Ok(Value::Bool(a >= b)),
            BinOp::Arith(ArithOp::Div | ArithOp::Rem) if b == 0 => {
                return Err(ExprError::DivisionByZero { op })
            }
            BinOp::Arith(ArithOp::Add) => a.checked_add(b),
            BinOp::Arith(ArithOp::Sub) => a.checked_sub(b),
            BinOp::Arith(ArithOp::Mul) => a.checked_mul(b),
            BinOp::Arith(ArithOp::Div) => a.checked_div(b),
            BinOp::Arith(ArithOp::Rem) => a.checked_rem(b),
            BinOp::Eq | BinOp::Ne => None,
        };
        arith.map(Value::Int).ok_or(ExprError::Overflow { op })
    }
}

fn mismatch(op: &'static str, expected: &'static str, found: &'static str) -> ExprError {
    ExprError::TypeMismatch {
        op,
        expected,
        found,
    }
}

fn expect_int(value: &Value, op: &'static str) -> Result<i64, ExprError> {
    match value {
        Value::Int(n) => Ok(*n),
        other => Err(mismatch(op, "int", other.type_name())),
    }
}

fn expect_bool(value: &Value, op: &'static str) -> Result<bool, ExprError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(mismatch(op, "bool", other.type_name())),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Int(i64),
    Ident,
    True,
    False,
    If,
    Then,
    Else,
    And,
    Or,
    Not,
    Minus,
    LParen,
    RParen,
    Binary(BinOp),
    End,
}

#[derive(Debug, Clone, Copy)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

/// Splits `source` into tokens, ending with [`Tok::End`] or, at the first
/// malformed token, with its error, so that errors surface in source order.
fn lex(source: &str) -> Vec<Result<Token, ExprError>> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let next = bytes.get(i + 1).copied();
        let (tok, width) = match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'0'..=b'9' => {
                let len = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                match source[i..i + len].parse::<i64>() {
                    Ok(n) => (Tok::Int(n), len),
                    Err(_) => {
                        tokens.push(Err(ExprError::IntegerTooLarge { offset: start }));
                        return tokens;
                    }
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let len = bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                let tok = match &source[i..i + len] {
                    "true" => Tok::True,
                    "false" => Tok::False,
                    "if" => Tok::If,
                    "then" => Tok::Then,
                    "else" => Tok::Else,
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    _ => Tok::Ident,
                };
                (tok, len)
            }
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b'-' => (Tok::Minus, 1),
            b'+' => (Tok::Binary(BinOp::Arith(ArithOp::Add)), 1),
            b'*' => (Tok::Binary(BinOp::Arith(ArithOp::Mul)), 1),
            b'/' => (Tok::Binary(BinOp::Arith(ArithOp::Div)), 1),
            b'%' => (Tok::Binary(BinOp::Arith(ArithOp::Rem)), 1),
            b'=' if next == Some(b'=') => (Tok::Binary(BinOp::Eq), 2),
            b'!' if next == Some(b'=') => (Tok::Binary(BinOp::Ne), 2),
            b'!' => (Tok::Not, 1),
            b'<' if next == Some(b'=') => (Tok::Binary(BinOp::Cmp(CmpOp::Le)), 2),
            b'<' => (Tok::Binary(BinOp::Cmp(CmpOp::Lt)), 1),
            b'>' if next == Some(b'=') => (Tok::Binary(BinOp::Cmp(CmpOp::Ge)), 2),
            b'>' => (Tok::Binary(BinOp::Cmp(CmpOp::Gt)), 1),
            b'&' if next == Some(b'&') => (Tok::And, 2),
            b'|' if next == Some(b'|') => (Tok::Or, 2),
            _ => {
                // Only ASCII has been consumed so far, so `start` is a char boundary.
                let ch = source[start..].chars().next().unwrap_or('\u{FFFD}');
                tokens.push(Err(ExprError::UnexpectedChar { ch, offset: start }));
                return tokens;
            }
        };
        i += width;
        tokens.push(Ok(Token { tok, start, end: i }));
    }
    let end = source.len();
    tokens.push(Ok(Token {
        tok: Tok::End,
        start: end,
        end,
    }));
    tokens
}

/// A construct the parser has opened but not yet completed.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Paren,
    Neg,
    Not,
    Binary(BinOp),
    /// `&&` or `||`, with the index of its `ShortCircuit` op.
    Logic(Logic, usize),
    /// `if` awaiting `then`.
    IfCond,
    /// `if … then` awaiting `else`, with the index of its `JumpIfFalse`.
    IfThen(usize),
    /// `if … else`, whose else branch is open, with the index of its `Jump`.
    IfElse(usize),
}

impl Pending {
    /// Binding strength of an operator still waiting for its right side;
    /// 0 for constructs that only a closing token completes.
    fn precedence(self) -> u8 {
        match self {
            Pending::Logic(Logic::Or, _) => 1,
            Pending::Logic(Logic::And, _) => 2,
            Pending::Binary(op) => op.precedence(),
            Pending::Neg | Pending::Not => 7,
            Pending::Paren | Pending::IfCond | Pending::IfThen(_) | Pending::IfElse(_) => 0,
        }
    }
}

/// An operator-precedence parser that compiles straight to postfix code,
/// keeping open constructs on an explicit stack instead of recursing.
struct Compiler<'s> {
    source: &'s str,
    code: Vec<Op>,
    pending: Vec<Pending>,
    depth: usize,
}

/// Compiles `source` to postfix code, without the source length check.
fn compile(source: &str) -> Result<Vec<Op>, ExprError> {
    let tokens = lex(source);
    if let Some(Ok(Token { tok: Tok::End, .. })) = tokens.first() {
        return Err(ExprError::EmptyProgram);
    }
    let mut c = Compiler {
        source,
        code: Vec::new(),
        pending: Vec::new(),
        depth: 0,
    };
    let mut expect_operand = true;
    for (i, token) in tokens.iter().enumerate() {
        let token = token.clone()?;
        if expect_operand {
            // `if` may start an expression only at the top or after `(`,
            // `if`, `then` or `else`.
            let if_allowed = i == 0
                || matches!(
                    tokens[i - 1],
                    Ok(Token {
                        tok: Tok::LParen | Tok::If | Tok::Then | Tok::Else,
                        ..
                    })
                );
            match token.tok {
                Tok::Int(n) => c.code.push(Op::Push(Value::Int(n))),
                Tok::True => c.code.push(Op::Push(Value::Bool(true))),
                Tok::False => c.code.push(Op::Push(Value::Bool(false))),
                Tok::Ident => {
                    let name = c.source[token.start..token.end].to_string();
                    if let Some(Ok(Token {
                        tok: Tok::LParen, ..
                    })) = tokens.get(i + 1)
                    {
                        return Err(ExprError::CallNotAllowed {
                            name,
                            offset: token.start,
                        });
                    }
                    c.code.push(Op::Load(name));
                }
                Tok::Minus => c.open(Pending::Neg, token.start)?,
                Tok::Not => c.open(Pending::Not, token.start)?,
                Tok::LParen => c.open(Pending::Paren, token.start)?,
                Tok::If if if_allowed => c.open(Pending::IfCond, token.start)?,
                Tok::If => {
                    let expected = "an operand (put `if` expressions in parentheses)";
                    return Err(c.unexpected(token, expected));
                }
                _ => return Err(c.unexpected(token, "an operand")),
            }
            expect_operand = matches!(token.tok, Tok::Minus | Tok::Not | Tok::LParen | Tok::If);
            continue;
        }
        let infix = match token.tok {
            Tok::Or => Some(Pending::Logic(Logic::Or, 0)),
            Tok::And => Some(Pending::Logic(Logic::And, 0)),
            Tok::Minus => Some(Pending::Binary(BinOp::Arith(ArithOp::Sub))),
            Tok::Binary(op) => Some(Pending::Binary(op)),
            _ => None,
        };
        if let Some(infix) = infix {
            c.push_infix(infix, token.start)?;
            expect_operand = true;
            continue;
        }
        // Not an operator: the innermost open construct must accept it.
        match (c.close(), token.tok) {
            (None, Tok::End) => return Ok(c.code),
            (Some(Pending::Paren), Tok::RParen) => {
                c.pending.pop();
                c.depth -= 1;
            }
            (Some(Pending::IfCond), Tok::Then) => {
                c.replace_top(Pending::IfThen(c.code.len()));
                c.code.push(Op::JumpIfFalse(0));
                expect_operand = true;
            }
            (Some(Pending::IfThen(jump_if_false)), Tok::Else) => {
                c.replace_top(Pending::IfElse(c.code.len()));
                c.code.push(Op::Jump(0));
                c.patch(jump_if_false);
                expect_operand = true;
            }
            (open, _) => {
                let expected = match open {
                    Some(Pending::Paren) => "an operator or `)`",
                    Some(Pending::IfCond) => "an operator or `then`",
                    Some(Pending::IfThen(_)) => "an operator or `else`",
                    _ => "an operator or the end of the program",
                };
                return Err(c.unexpected(token, expected));
            }
        }
    }
    // Unreachable: `lex` ends with `End` or an error, both returned above.
    Err(ExprError::EmptyProgram)
}

impl Compiler<'_> {
    fn unexpected(&self, token: Token, expected: &'static str) -> ExprError {
        let text = &self.source[token.start..token.end];
        let found = match token.tok {
            Tok::End => "end of program".to_string(),
            Tok::Int(_) => format!("integer `{text}`"),
            Tok::Ident => format!("identifier `{text}`"),
            _ => format!("`{text}`"),
        };
        ExprError::UnexpectedToken {
            found,
            expected,
            offset: token.start,
        }
    }

    /// Opens a nesting construct: a parenthesis, a unary operator or an `if`.
    fn open(&mut self, construct: Pending, offset: usize) -> Result<(), ExprError> {
        if self.depth >= MAX_DEPTH {
            return Err(ExprError::TooDeep {
                offset,
                max: MAX_DEPTH,
            });
        }
        self.depth += 1;
        self.pending.push(construct);
        Ok(())
    }

    /// Completes the operators binding at least as tightly as `precedence`,
    /// then opens `infix`, whose left operand is now complete.
    fn push_infix(&mut self, infix: Pending, offset: usize) -> Result<(), ExprError> {
        let precedence = infix.precedence();
        if let Pending::Binary(BinOp::Cmp(_)) = infix {
            self.reduce(precedence + 1);
            if let Some(Pending::Binary(BinOp::Cmp(_))) = self.pending.last() {
                return Err(ExprError::ChainedComparison { offset });
            }
        } else {
            self.reduce(precedence);
        }
        let infix = match infix {
            Pending::Logic(logic, _) => {
                self.code.push(Op::ShortCircuit(logic, 0));
                Pending::Logic(logic, self.code.len() - 1)
            }
            other => other,
        };
        self.pending.push(infix);
        Ok(())
    }

    fn reduce(&mut self, precedence: u8) {
        while self
            .pending
            .last()
            .is_some_and(|p| p.precedence() >= precedence)
        {
            self.complete_top();
        }
    }

    /// Completes everything up to the innermost parenthesis or unfinished
    /// `if`, which it returns without removing.
    fn close(&mut self) -> Option<Pending> {
        while let Some(&top) = self.pending.last() {
            match top {
                Pending::Paren | Pending::IfCond | Pending::IfThen(_) => return Some(top),
                _ => self.complete_top(),
            }
        }
        None
    }

    fn complete_top(&mut self) {
        match self.pending.pop() {
            Some(Pending::Neg) => {
                self.code.push(Op::Neg);
                self.depth -= 1;
            }
            Some(Pending::Not) => {
                self.code.push(Op::Not);
                self.depth -= 1;
            }
            Some(Pending::Binary(op)) => self.code.push(Op::Binary(op)),
            Some(Pending::Logic(logic, at)) => {
                self.code.push(Op::CheckBool(logic));
                self.patch(at);
            }
            Some(Pending::IfElse(at)) => {
                self.patch(at);
                self.depth -= 1;
            }
            Some(Pending::Paren | Pending::IfCond | Pending::IfThen(_)) | None => {}
        }
    }

    fn replace_top(&mut self, construct: Pending) {
        if let Some(top) = self.pending.last_mut() {
            *top = construct;
        }
    }

    /// Points the jump at `at` to the end of the code emitted so far.
    fn patch(&mut self, at: usize) {
        let here = self.code.len();
        if let Some(Op::ShortCircuit(_, target) | Op::JumpIfFalse(target) | Op::Jump(target)) =
            self.code.get_mut(at)
        {
            *target = here;
        }
    }
}

fn pop(stack: &mut Vec<Value>) -> Value {
    stack
        .pop()
        .expect("compiled code keeps the value stack balanced")
}

impl Program {
    /// Parses `source`, enforcing the source length and nesting limits.
    pub fn parse(source: &str) -> Result<Program, ExprError> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(ExprError::SourceTooLong {
                len: source.len(),
                max: MAX_SOURCE_BYTES,
            });
        }
        compile(source).map(|code| Program { code })
    }

    /// Evaluates the program with variables read from `env`, within
    /// [`MAX_STEPS`] steps.
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Result<Value, ExprError> {
        self.eval_with_limit(env, MAX_STEPS)
    }

    /// Evaluates the program within `max_steps` steps.
    pub(crate) fn eval_with_limit(
        &self,
        env: &BTreeMap<String, i64>,
        max_steps: u32,
    ) -> Result<Value, ExprError> {
        let mut stack: Vec<Value> = Vec::new();
        let mut steps = 0u32;
        let mut pc = 0;
        while let Some(op) = self.code.get(pc) {
            pc += 1;
            if !matches!(op, Op::CheckBool(_) | Op::Jump(_)) {
                steps += 1;
                if steps > max_steps {
                    return Err(ExprError::StepLimitExceeded { max: max_steps });
                }
            }
            let value = match op {
                Op::Push(value) => value.clone(),
                Op::Load(name) => match env.get(name) {
                    Some(n) => Value::Int(*n),
                    None => return Err(ExprError::UnknownVariable { name: name.clone() }),
                },
                Op::Neg => {
                    let n = expect_int(&pop(&mut stack), "-")?;
                    Value::Int(n.checked_neg().ok_or(ExprError::Overflow { op: "-" })?)
                }
                Op::Not => Value::Bool(!expect_bool(&pop(&mut stack), "!")?),
                Op::Binary(op) => {
                    let b = pop(&mut stack);
                    op.apply(&pop(&mut stack), &b)?
                }
                Op::ShortCircuit(logic, target) => {
                    let left = pop(&mut stack);
                    if expect_bool(&left, logic.symbol())? == (*logic == Logic::Or) {
                        pc = *target;
                        left
                    } else {
                        continue;
                    }
                }
                Op::CheckBool(logic) => {
                    let right = pop(&mut stack);
                    expect_bool(&right, logic.symbol())?;
                    right
                }
                Op::JumpIfFalse(target) => {
                    if !expect_bool(&pop(&mut stack), "if")? {
                        pc = *target;
                    }
                    continue;
                }
                Op::Jump(target) => {
                    pc = *target;
                    continue;
                }
            };
            stack.push(value);
        }
        Ok(pop(&mut stack))
    }

    /// Names of variables the program reads, sorted and deduplicated.
    pub fn variables(&self) -> Vec<String> {
        let names: BTreeSet<&String> =
            crate::btree::set(self.code.iter().filter_map(|op| match op {
                Op::Load(name) => Some(name),
                _ => None,
            }));
        names.into_iter().cloned().collect()
    }
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
