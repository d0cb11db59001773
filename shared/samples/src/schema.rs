//! Reading schemas in place in the document (`$ref`s followed, `allOf` merged: `flat`) and
//! examples generated from them (`example`), within budgets.

mod example;
mod flat;

pub use example::{generate, has_own_example};
pub use flat::{Flat, Prop, flatten, flatten_named};

/// Deepest nesting followed: `allOf` members merged into one schema, and values of a generated
/// example (the site shows trees this deep too).
pub const MAX_TREE_DEPTH: usize = 8;
/// Properties read for one schema: a page shows at most 1,600 rows anyway, and reading a
/// schema of a million properties again for each use would cost more than the page.
const MAX_PROPERTIES: usize = 2000;
/// `allOf` members followed to flatten one schema (nested `allOf`s included).
const MAX_ALLOF: usize = 64;
/// Values in a generated example.
const MAX_GENERATED_NODES: usize = 250;

/// Which side of an exchange a schema is read for: `readOnly` properties are left out of
/// requests, `writeOnly` ones out of responses.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Mode {
    Request,
    Response,
    Neutral,
}
