//! Success criteria and action conditions ([`crate::model::Criterion`]): check their syntax ([`check`], for the
//! loader) and evaluate them against a run's [`Context`] ([`holds`]).
//!
//! - Simple: Arazzo's condition language: literals (`200`, `-1.5`, `'text'`, `true`, `false`, `null`), runtime
//!   expressions, `< <= > >= == !=`, `!`, `&&`, `||` and parentheses. A comparison of a number with a string that
//!   reads as a number compares numbers (`$response.header.X-Rate < 10`); strings compare by code points; any other
//!   mix of types is unequal and unordered. A bare value holds when truthy (true, a non-zero number, a non-empty
//!   string, any array or object). A missing value is `null`. When the criterion has a context, the condition
//!   still names its values itself (Arazzo's rule).
//! - Regex: the context's value as text (a string as is, anything else as JSON), matched anywhere by the `regex`
//!   crate (linear time) with bounded compiled size.
//! - JsonPath: an RFC 9535 query (`serde_json_path`) on the context's JSON: holds when it selects at least one
//!   node. A query written as a filter on the root (`$[?count(@.pets) > 0]`, Arazzo's example) is also applied to
//!   the value wrapped in an array, so it filters the value itself.
//!
//! Bounded: a condition is at most [`MAX_CONDITION_LEN`] bytes and [`MAX_NESTING`] parentheses or `!` deep.

use regex::RegexBuilder;
use serde_json::Value;

use crate::expr::{self, Context, Expr};
use crate::model::{Criterion, CriterionKind};

/// The longest condition accepted, in bytes.
pub const MAX_CONDITION_LEN: usize = 4096;
/// How deep parentheses and `!` may nest.
pub const MAX_NESTING: usize = 32;
/// Compiled size limit of a regex, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Checks a criterion's syntax: its context parses as an expression, its condition as its kind's language.
pub fn check(c: &Criterion) -> Result<(), String> {
    compile(c).map(|_| ())
}

/// Whether a criterion holds in `ctx`. Errors are syntax errors (the loader should have refused them).
pub fn holds(c: &Criterion, ctx: &Context<'_>) -> Result<bool, String> {
    compile(c)?.eval(ctx)
}

/// Whether all criteria hold (true for none).
pub fn all_hold(criteria: &[Criterion], ctx: &Context<'_>) -> Result<bool, String> {
    for c in criteria {
        if !holds(c, ctx)? {
            return Ok(false);
        }
    }
    Ok(true)
}

enum Compiled {
    Simple(Node),
    Regex(Expr, regex::Regex),
    JsonPath(Expr, serde_json_path::JsonPath, bool),
}

impl Compiled {
    fn eval(&self, ctx: &Context<'_>) -> Result<bool, String> {
        match self {
            Compiled::Simple(node) => Ok(truthy(&node.eval(ctx))),
            Compiled::Regex(context, re) => {
                let value = context.eval(ctx).unwrap_or(Value::Null);
                Ok(re.is_match(&expr::to_text(&value)))
            }
            Compiled::JsonPath(context, path, root_filter) => {
                let value = context.eval(ctx).unwrap_or(Value::Null);
                if !path.query(&value).is_empty() {
                    return Ok(true);
                }
                Ok(*root_filter && !path.query(&Value::Array(vec![value])).is_empty())
            }
        }
    }
}

fn compile(c: &Criterion) -> Result<Compiled, String> {
    if c.condition.len() > MAX_CONDITION_LEN {
        return Err(format!(
            "the condition is longer than {MAX_CONDITION_LEN} bytes"
        ));
    }
    let context = match &c.context {
        Some(text) => Some(expr::parse(text).map_err(|e| format!("context: {e}"))?),
        None => None,
    };
    match c.kind {
        CriterionKind::Simple => {
            let mut parser = Parser {
                tokens: tokenize(&c.condition)?,
                at: 0,
            };
            let node = parser.or(0)?;
            if parser.at < parser.tokens.len() {
                return Err(format!(
                    "unexpected {} in the condition",
                    parser.tokens[parser.at].describe()
                ));
            }
            Ok(Compiled::Simple(node))
        }
        CriterionKind::Regex => {
            let context = context.ok_or("a regex criterion needs a context")?;
            let re = RegexBuilder::new(&c.condition)
                .size_limit(REGEX_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SIZE_LIMIT)
                .nest_limit(64)
                .build()
                .map_err(|e| {
                    format!(
                        "invalid regular expression: {}",
                        expr::shorten(&e.to_string(), 200)
                    )
                })?;
            Ok(Compiled::Regex(context, re))
        }
        CriterionKind::JsonPath => {
            let context = context.ok_or("a JSONPath criterion needs a context")?;
            let path = serde_json_path::JsonPath::parse(&c.condition)
                .map_err(|e| format!("invalid JSONPath: {}", expr::shorten(&e.to_string(), 200)))?;
            let root_filter = c.condition.trim_start().starts_with("$[?");
            Ok(Compiled::JsonPath(context, path, root_filter))
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Value(Value),
    Expr(Expr),
    Op(Op),
    Not,
    And,
    Or,
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Value(v) => format!("value {}", expr::shorten(&v.to_string(), 40)),
            Token::Expr(e) => format!("expression {}", expr::shorten(&e.to_string(), 40)),
            Token::Op(op) => format!("`{}`", op.text()),
            Token::Not => "`!`".into(),
            Token::And => "`&&`".into(),
            Token::Or => "`||`".into(),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let token = match two {
            "<=" => Some(Token::Op(Op::Le)),
            ">=" => Some(Token::Op(Op::Ge)),
            "==" => Some(Token::Op(Op::Eq)),
            "!=" => Some(Token::Op(Op::Ne)),
            "&&" => Some(Token::And),
            "||" => Some(Token::Or),
            _ => None,
        };
        if let Some(t) = token {
            chars.next();
            chars.next();
            tokens.push(t);
            continue;
        }
        let single = match c {
            '<' => Some(Token::Op(Op::Lt)),
            '>' => Some(Token::Op(Op::Gt)),
            '!' => Some(Token::Not),
            '(' => Some(Token::Open),
            ')' => Some(Token::Close),
            _ => None,
        };
        if let Some(t) = single {
            chars.next();
            tokens.push(t);
            continue;
        }
        if c == '\'' || c == '"' {
            // A string literal; the quote doubled stands for itself.
            chars.next();
            let mut s = String::new();
            let mut closed = false;
            while let Some((_, d)) = chars.next() {
                if d == c {
                    if chars.peek().map(|&(_, n)| n) == Some(c) {
                        chars.next();
                        s.push(c);
                    } else {
                        closed = true;
                        break;
                    }
                } else {
                    s.push(d);
                }
            }
            if !closed {
                return Err("a string literal is not closed".into());
            }
            tokens.push(Token::Value(Value::String(s)));
            continue;
        }
        // A word: an expression, a number or a keyword, up to whitespace or an operator character.
        let mut end = text.len();
        while let Some(&(j, d)) = chars.peek() {
            if d.is_whitespace() || "()<>=!&|'\"".contains(d) {
                end = j;
                break;
            }
            chars.next();
        }
        let word = &text[i..end];
        let token = if word.starts_with('$') {
            Token::Expr(expr::parse(word).map_err(|e| e.to_string())?)
        } else {
            match word {
                "true" => Token::Value(Value::Bool(true)),
                "false" => Token::Value(Value::Bool(false)),
                "null" => Token::Value(Value::Null),
                w => Token::Value(number(w).ok_or_else(|| {
                    format!("unexpected `{}` in the condition", expr::shorten(w, 40))
                })?),
            }
        };
        tokens.push(token);
    }
    Ok(tokens)
}

fn number(w: &str) -> Option<Value> {
    let first = w.chars().next()?;
    if !(first.is_ascii_digit() || first == '-' || first == '+' || first == '.') {
        return None;
    }
    if let Ok(i) = w.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f = w.parse::<f64>().ok()?;
    serde_json::Number::from_f64(f).map(Value::Number)
}

#[derive(Debug)]
enum Node {
    Value(Value),
    Expr(Expr),
    Not(Box<Node>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Cmp(Op, Box<Node>, Box<Node>),
}

impl Node {
    fn eval(&self, ctx: &Context<'_>) -> Value {
        match self {
            Node::Value(v) => v.clone(),
            Node::Expr(e) => e.eval(ctx).unwrap_or(Value::Null),
            Node::Not(n) => Value::Bool(!truthy(&n.eval(ctx))),
            Node::And(a, b) => Value::Bool(truthy(&a.eval(ctx)) && truthy(&b.eval(ctx))),
            Node::Or(a, b) => Value::Bool(truthy(&a.eval(ctx)) || truthy(&b.eval(ctx))),
            Node::Cmp(op, a, b) => Value::Bool(compare(*op, &a.eval(ctx), &b.eval(ctx))),
        }
    }
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn or(&mut self, depth: usize) -> Result<Node, String> {
        let mut left = self.and(depth)?;
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            let right = self.and(depth)?;
            left = Node::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Node, String> {
        let mut left = self.unary(depth)?;
        while self.peek() == Some(&Token::And) {
            self.at += 1;
            let right = self.unary(depth)?;
            left = Node::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self, depth: usize) -> Result<Node, String> {
        if depth > MAX_NESTING {
            return Err(format!("the condition nests deeper than {MAX_NESTING}"));
        }
        if self.peek() == Some(&Token::Not) {
            self.at += 1;
            return Ok(Node::Not(Box::new(self.unary(depth + 1)?)));
        }
        let left = self.primary(depth)?;
        if let Some(Token::Op(op)) = self.peek() {
            let op = *op;
            self.at += 1;
            let right = self.primary(depth)?;
            if let Some(Token::Op(_)) = self.peek() {
                return Err("comparisons cannot be chained; use parentheses and `&&`".into());
            }
            return Ok(Node::Cmp(op, Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    fn primary(&mut self, depth: usize) -> Result<Node, String> {
        if depth > MAX_NESTING {
            return Err(format!("the condition nests deeper than {MAX_NESTING}"));
        }
        let Some(token) = self.tokens.get(self.at).cloned() else {
            return Err("the condition ends too early".into());
        };
        self.at += 1;
        match token {
            Token::Value(v) => Ok(Node::Value(v)),
            Token::Expr(e) => Ok(Node::Expr(e)),
            Token::Open => {
                if depth >= MAX_NESTING {
                    return Err(format!("the condition nests deeper than {MAX_NESTING}"));
                }
                let inner = self.or(depth + 1)?;
                if self.peek() != Some(&Token::Close) {
                    return Err("a `(` is not closed".into());
                }
                self.at += 1;
                Ok(inner)
            }
            Token::Not => Ok(Node::Not(Box::new(self.primary(depth + 1)?))),
            other => Err(format!("unexpected {} in the condition", other.describe())),
        }
    }
}

/// Whether a value counts as true.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn compare(op: Op, a: &Value, b: &Value) -> bool {
    use std::cmp::Ordering;
    let ordering: Option<Ordering> = match (a, b) {
        (Value::Number(_), _) | (_, Value::Number(_)) => match (as_number(a), as_number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            _ => None,
        },
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::String(s)) | (Value::String(s), Value::Bool(x))
            if op_is_equality(op) =>
        {
            match s.as_str() {
                "true" => Some(if *x { Ordering::Equal } else { Ordering::Less }),
                "false" => Some(if *x { Ordering::Less } else { Ordering::Equal }),
                _ => None,
            }
        }
        (Value::Null, Value::Null) => Some(Ordering::Equal),
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_))
            if op_is_equality(op) =>
        {
            Some(if a == b {
                Ordering::Equal
            } else {
                Ordering::Less
            })
        }
        _ => None,
    };
    match (op, ordering) {
        (Op::Eq, o) => o == Some(Ordering::Equal),
        (Op::Ne, o) => o != Some(Ordering::Equal),
        (_, None) => false,
        (Op::Lt, Some(o)) => o == Ordering::Less,
        (Op::Le, Some(o)) => o != Ordering::Greater,
        (Op::Gt, Some(o)) => o == Ordering::Greater,
        (Op::Ge, Some(o)) => o != Ordering::Less,
    }
}

fn op_is_equality(op: Op) -> bool {
    matches!(op, Op::Eq | Op::Ne)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::ResponseView;
    use serde_json::json;
    use std::collections::HashMap;

    fn simple(cond: &str) -> Criterion {
        Criterion {
            context: None,
            condition: cond.into(),
            kind: CriterionKind::Simple,
        }
    }

    fn eval(c: &Criterion) -> bool {
        let inputs = json!({"n": 3});
        let steps = HashMap::new();
        let workflows = HashMap::new();
        let response = ResponseView {
            status: 200,
            headers: vec![("X-Rate".into(), "5".into())],
            body: json!({"status": "done", "pets": [{"id": 1}], "ok": true}),
        };
        let ctx = Context {
            inputs: &inputs,
            outputs: None,
            steps: &steps,
            workflows: &workflows,
            request: None,
            response: Some(&response),
        };
        match holds(c, &ctx) {
            Ok(b) => b,
            Err(e) => panic!("{}: {e}", c.condition),
        }
    }

    #[test]
    fn simple_conditions_compare_and_combine() {
        assert!(eval(&simple("$statusCode == 200")));
        assert!(!eval(&simple("$statusCode != 200")));
        assert!(eval(&simple(
            "$response.body#/status == 'done' && $response.header.X-Rate < 10"
        )));
        assert!(eval(&simple(
            "($statusCode >= 300 || $response.body#/ok) && !($inputs.n > 3)"
        )));
        assert!(eval(&simple("$response.body#/missing == null")));
        assert!(eval(&simple("$response.body#/ok == true")));
        assert!(eval(&simple("$inputs.n <= 3.0")));
        assert!(!eval(&simple("$response.body#/status < 1")));
        assert!(eval(&simple("'it''s' == 'it''s'")));
    }

    #[test]
    fn malformed_simple_conditions_are_refused() {
        for bad in [
            "",
            "$statusCode ==",
            "(1 == 1",
            "1 == 1)",
            "$nope == 1",
            "a == 1",
            "1 < 2 < 3",
            "'open",
            "&& 1",
        ] {
            assert!(check(&simple(bad)).is_err(), "{bad:?} should be refused");
        }
        let deep = format!("{}1{}", "(".repeat(40), ")".repeat(40));
        assert!(check(&simple(&deep)).is_err());
        assert!(check(&simple(&format!("1 == {}true", "!".repeat(3000)))).is_err());
        assert!(check(&simple(&format!("{}true", "!".repeat(3000)))).is_err());
    }

    #[test]
    fn regex_matches_the_context_text_anywhere() {
        let c = Criterion {
            context: Some("$response.body#/status".into()),
            condition: "^do".into(),
            kind: CriterionKind::Regex,
        };
        assert!(eval(&c));
        let c = Criterion {
            context: Some("$response.body".into()),
            condition: "\"id\":1".into(),
            kind: CriterionKind::Regex,
        };
        assert!(eval(&c));
        let c = Criterion {
            context: Some("$statusCode".into()),
            condition: "^5".into(),
            kind: CriterionKind::Regex,
        };
        assert!(!eval(&c));
        assert!(
            check(&Criterion {
                context: None,
                condition: "x".into(),
                kind: CriterionKind::Regex
            })
            .is_err()
        );
        assert!(
            check(&Criterion {
                context: Some("$url".into()),
                condition: "(".into(),
                kind: CriterionKind::Regex
            })
            .is_err()
        );
        let huge = Criterion {
            context: Some("$url".into()),
            condition: "\\w{1000}{1000}".into(),
            kind: CriterionKind::Regex,
        };
        assert!(check(&huge).is_err());
    }

    #[test]
    fn jsonpath_holds_when_it_selects_something() {
        let c = |q: &str| Criterion {
            context: Some("$response.body".into()),
            condition: q.into(),
            kind: CriterionKind::JsonPath,
        };
        assert!(eval(&c("$[?count(@.pets) > 0]")));
        assert!(!eval(&c("$[?count(@.pets) > 1]")));
        assert!(eval(&c("$.pets[?@.id == 1]")));
        assert!(!eval(&c("$.pets[?@.id == 2]")));
        assert!(check(&c("$[?")).is_err());
    }
}
