//! Scalars and tags: what a YAML scalar becomes in the tree under the YAML 1.2 core schema
//! (`on`/`no`/`yes` stay strings; `0x`/`0o` integers; `.inf`/`.nan` and numbers JSON cannot
//! hold refused), and which tags are accepted (the core schema's, and the non-specific `!`).

use std::borrow::Cow;

use saphyr_parser::{ScalarStyle, Tag};

use crate::tree::{Builder, Num};

/// A resolved scalar.
pub(super) enum Leaf<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
}

impl Leaf<'_> {
    pub(super) fn add(self, b: &mut Builder) -> u32 {
        match self {
            Leaf::Null => b.null(),
            Leaf::Bool(x) => b.bool(x),
            Leaf::Num(n) => b.number(n),
            Leaf::Str(s) => b.string(&s),
        }
    }
}

fn tag_name(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

/// The message for a tag outside the core schema (`t` as [`want`] names it).
pub(super) fn unsupported_tag(t: &str) -> String {
    format!("the YAML tag '{t}' is not supported (only the YAML 1.2 core schema tags are accepted)")
}

/// What a tag asks for.
pub(super) enum Want {
    Auto,
    Str,
    Int,
    Float,
    Bool,
    Null,
    Seq,
    Map,
}

/// What `tag` asks for (`Auto` without a tag); `Err` with the tag's name for a tag outside the core schema.
#[inline]
pub(super) fn want(tag: Option<&Tag>) -> Result<Want, String> {
    let Some(tag) = tag else {
        return Ok(Want::Auto);
    };
    if tag.handle == "!" && tag.suffix.is_empty() {
        return Ok(Want::Str);
    }
    if tag.is_yaml_core_schema() {
        return Ok(match tag.suffix.as_str() {
            "str" => Want::Str,
            "int" => Want::Int,
            "float" => Want::Float,
            "bool" => Want::Bool,
            "null" => Want::Null,
            "seq" => Want::Seq,
            "map" => Want::Map,
            _ => return Err(tag_name(tag)),
        });
    }
    Err(tag_name(tag))
}

fn is_int(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match d.find(['e', 'E']) {
        Some(i) => (&d[..i], Some(&d[i + 1..])),
        None => (d, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => digits(int) && digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && digits(int),
    };
    let exp_ok = match exp {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
        None => true,
    };
    mantissa_ok && exp_ok
}

/// Resolves an integer/float literal to a JSON number.
fn number(s: &str) -> Result<Leaf<'static>, String> {
    if is_int(s) {
        if let Ok(i) = s.parse::<i64>() {
            return Ok(Leaf::Num(Num::Int(i)));
        }
        if let Ok(u) = s.trim_start_matches('+').parse::<u64>() {
            return Ok(Leaf::Num(Num::Uint(u)));
        }
    }
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Leaf::Num(Num::Float(f))),
        _ => Err(format!(
            "the number {} is out of range (JSON numbers must be finite 64-bit floats)",
            abbreviate(s)
        )),
    }
}

fn abbreviate(s: &str) -> String {
    if s.chars().count() > 40 {
        format!(
            "{}... ({} characters)",
            s.chars().take(30).collect::<String>(),
            s.chars().count()
        )
    } else {
        s.to_string()
    }
}

fn resolve_plain(text: Cow<'_, str>) -> Result<Leaf<'_>, String> {
    let s: &str = &text;
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Leaf::Null),
        "true" | "True" | "TRUE" => return Ok(Leaf::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Leaf::Bool(false)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => {
            return Err(format!(
                "'{s}' (infinity/NaN) cannot be represented in JSON"
            ));
        }
        _ => {}
    }
    if let Some(h) = s.strip_prefix("0x")
        && !h.is_empty()
        && h.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return u64::from_str_radix(h, 16)
            .map(|u| Leaf::Num(Num::Uint(u)))
            .map_err(|_| format!("the number {} is out of range", abbreviate(s)));
    }
    if let Some(o) = s.strip_prefix("0o")
        && !o.is_empty()
        && o.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        return u64::from_str_radix(o, 8)
            .map(|u| Leaf::Num(Num::Uint(u)))
            .map_err(|_| format!("the number {} is out of range", abbreviate(s)));
    }
    if is_int(s) || is_float(s) {
        return number(s);
    }
    Ok(Leaf::Str(text))
}

pub(super) fn scalar<'a>(
    text: Cow<'a, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Leaf<'a>, String> {
    let w = want(tag).map_err(|t| unsupported_tag(&t))?;
    match w {
        Want::Str => Ok(Leaf::Str(text)),
        Want::Auto if style != ScalarStyle::Plain => Ok(Leaf::Str(text)),
        Want::Auto => resolve_plain(text),
        Want::Int | Want::Float => number(text.trim()),
        Want::Bool => match &*text {
            "true" | "True" | "TRUE" => Ok(Leaf::Bool(true)),
            "false" | "False" | "FALSE" => Ok(Leaf::Bool(false)),
            _ => Err(format!("'{}' is not a boolean", abbreviate(&text))),
        },
        Want::Null => Ok(Leaf::Null),
        Want::Seq | Want::Map => Err("a collection tag on a scalar".to_string()),
    }
}
