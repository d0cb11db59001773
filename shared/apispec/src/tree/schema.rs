//! The tree as an instance representation for `jsonschema`, which validates it in place.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node as JNode, NodeIdentity, Object};
use serde_json::Value;

use super::{Arr, Items, Kind, Members, Num, Obj, Tree, V};

/// Marker type: validators built with `jsonschema::options_for::<TreeJson>()` take [`V`]s.
pub(crate) struct TreeJson;

impl Json for TreeJson {
    type Node<'a> = V<'a>;
    type PreparedKey = Box<str>;
    type StringBuffer = Tree;
    // Small objects are scanned, so visiting members is as cheap as a few lookups.
    const KEYS_PER_LOOKUP: usize = 4;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(buffer: &mut Tree, string: &str, f: impl FnOnce(V<'_>) -> T) -> T {
        *buffer = Tree::string(string);
        f(buffer.root())
    }
}

impl JsonNumber for Num {
    fn as_u64(&self) -> Option<u64> {
        match *self {
            Num::Uint(u) => Some(u),
            _ => None,
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match *self {
            Num::Uint(u) => i64::try_from(u).ok(),
            Num::Int(i) => Some(i),
            Num::Float(_) => None,
        }
    }
    fn as_f64(&self) -> Option<f64> {
        Some(Num::as_f64(*self))
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_string())
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Owned(Num::to_number(*self))
    }
    fn is_integer(&self) -> bool {
        match *self {
            Num::Float(f) => f.fract() == 0.0,
            _ => true,
        }
    }
    fn is_written_as_integer(&self) -> bool {
        !matches!(self, Num::Float(_))
    }
}

#[derive(Clone, Copy)]
pub(crate) struct SchemaObj<'a>(Obj<'a>);
#[derive(Clone, Copy)]
pub(crate) struct SchemaArr<'a>(Arr<'a>);

impl<'a> JNode<'a, TreeJson> for V<'a> {
    type Object = SchemaObj<'a>;
    type Array = SchemaArr<'a>;
    type Number = Num;

    fn as_object(&self) -> Option<SchemaObj<'a>> {
        V::as_object(*self).map(SchemaObj)
    }
    fn as_array(&self) -> Option<SchemaArr<'a>> {
        V::as_array(*self).map(SchemaArr)
    }
    fn as_string(&self) -> Option<Cow<'a, str>> {
        V::as_str(*self).map(Cow::Borrowed)
    }
    fn as_number(&self) -> Option<Num> {
        V::as_number(*self)
    }
    fn as_boolean(&self) -> Option<bool> {
        V::as_bool(*self)
    }
    fn is_null(&self) -> bool {
        V::is_null(*self)
    }
    fn is_number(&self) -> bool {
        V::is_number(*self)
    }
    fn is_string(&self) -> bool {
        V::is_string(*self)
    }
    fn json_type(&self) -> JsonType {
        match self.kind() {
            Kind::Null => JsonType::Null,
            Kind::Bool(_) => JsonType::Boolean,
            Kind::Number(_) => JsonType::Number,
            Kind::String(_) => JsonType::String,
            Kind::Array(_) => JsonType::Array,
            Kind::Object(_) => JsonType::Object,
        }
    }
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.kind(), expected) {
            (Kind::String(a), Value::String(b)) => a == b,
            (Kind::Bool(a), Value::Bool(b)) => a == *b,
            (Kind::Null, Value::Null) => true,
            (Kind::Number(n), Value::Number(_)) => {
                jsonschema::json::cmp::equal(&Value::Number(n.to_number()), expected)
            }
            (Kind::String(_) | Kind::Bool(_) | Kind::Null | Kind::Number(_), _) => false,
            _ => jsonschema::json::cmp::equal(&self.to_value(), expected),
        }
    }
    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(V::to_value(*self))
    }
    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(
            std::ptr::from_ref(self.t) as usize,
            self.i,
        ))
    }
}

impl<'a> Object<'a, TreeJson> for SchemaObj<'a> {
    type Node = V<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, key: &Box<str>) -> Option<V<'a>> {
        self.0.get(key)
    }
    fn members(&self) -> Members<'a> {
        self.0.iter()
    }
}

impl<'a> Array<'a, TreeJson> for SchemaArr<'a> {
    type Node = V<'a>;
    type ElementsIter = Items<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }
    fn elements(&self) -> Items<'a> {
        self.0.iter()
    }
    /// Arrays of strings (`required`, `enum`, `tags`, ...) are checked without building
    /// `serde_json::Value` copies.
    fn is_unique(&self) -> bool {
        let items = self.0;
        if items.iter().all(V::is_string) {
            let mut seen = std::collections::HashSet::with_capacity(items.len());
            return items.iter().filter_map(V::as_str).all(|s| seen.insert(s));
        }
        let values: Vec<Value> = items.iter().map(V::to_value).collect();
        jsonschema::json::unique::is_unique(&values)
    }
}
