//! The loader: builds a [`Tree`](crate::tree::Tree) from YAML parser events (saphyr-parser's, or the block
//! reader's) with an explicit stack of open collections, enforcing every budget and rule of the module: depth,
//! nodes (alias expansions counted), aliases, duplicate keys, merge keys, non-scalar keys, tags, one document per
//! stream, NUL.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, ScalarStyle, Span, Tag};

use super::scalar::{Want, scalar, unsupported_tag, want};
use super::{Loaded, YamlBudget};
use crate::Diagnostic;
use crate::tree::{Builder, Duplicate};

/// An open collection. Its members are pending in the tree builder from `start` (its mark)
/// on, and the collection is built from them when it closes.
enum Frame<'a> {
    Seq {
        start: usize,
        count: usize,
        anchor: usize,
        start_nodes: usize,
    },
    Map {
        start: usize,
        /// Where this mapping's key positions start in the loader's list.
        positions: usize,
        /// The key read and waiting for its value, with its position.
        key: Option<(Cow<'a, str>, (u32, u32))>,
        anchor: usize,
        start_nodes: usize,
    },
}

/// A value just completed, to attach to its parent: its node, its anchor id (0 for none) and how many values it
/// counts for against the node budget.
struct Finished {
    node: u32,
    anchor: usize,
    nodes: usize,
}

/// The JSON pointer of the value being read: the path of the open collections.
fn pointer_of(stack: &[Frame]) -> String {
    let mut tokens: Vec<String> = Vec::with_capacity(stack.len());
    for f in stack {
        match f {
            Frame::Seq { count, .. } => tokens.push(count.to_string()),
            Frame::Map {
                key: Some((k, _)), ..
            } => tokens.push(k.to_string()),
            Frame::Map { key: None, .. } => {}
        }
    }
    crate::pointer::from_tokens(&tokens)
}

fn diag(
    code: &'static str,
    message: impl Into<String>,
    span: Option<&Span>,
    stack: &[Frame],
) -> Diagnostic {
    Diagnostic {
        code,
        message: message.into(),
        file: None,
        pointer: pointer_of(stack),
        line: span.map(|s| s.start.line() as u32),
        column: span.map(|s| s.start.col() as u32 + 1),
    }
}

/// Builds the tree from parser events, within the budget.
pub(crate) struct Loader<'a, 'b> {
    b: &'b YamlBudget,
    stack: Vec<Frame<'a>>,
    root: Option<u32>,
    nodes: usize,
    aliases: usize,
    /// Anchored values by anchor id: an alias shares the node (and counts its size again
    /// against the node budget, as if expanded).
    anchors: HashMap<usize, (u32, usize)>,
    documents: usize,
    tree: Builder,
    key_positions: Vec<(u32, u32)>,
}

impl<'a, 'b> Loader<'a, 'b> {
    pub(super) fn new(text: &str, b: &'b YamlBudget) -> Self {
        Loader {
            b,
            stack: Vec::new(),
            root: None,
            nodes: b.nodes_before,
            aliases: 0,
            anchors: HashMap::new(),
            documents: 0,
            tree: Builder::new(text.len()),
            key_positions: Vec::new(),
        }
    }

    /// The JSON pointer of the value being read.
    pub(super) fn pointer(&self) -> String {
        pointer_of(&self.stack)
    }

    /// A diagnostic at `span` (when given), at the value being read.
    fn error(
        &self,
        code: &'static str,
        message: impl Into<String>,
        span: Option<&Span>,
    ) -> Diagnostic {
        diag(code, message, span, &self.stack)
    }

    /// Takes one event.
    pub(crate) fn event(&mut self, event: Event<'a>, span: Span) -> Result<(), Diagnostic> {
        let finished = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => None,
            Event::DocumentStart(_) => {
                self.document_start(&span)?;
                None
            }
            Event::Scalar(value, style, anchor, tag) => {
                self.scalar(value, style, anchor, tag.as_deref(), &span)?
            }
            Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                let is_map = matches!(event, Event::MappingStart(..));
                self.open(is_map, anchor, tag.as_deref(), &span)?;
                None
            }
            Event::SequenceEnd | Event::MappingEnd => Some(self.close(&span)?),
            Event::Alias(id) => Some(self.alias(id, &span)?),
        };
        match finished {
            Some(value) => self.attach(value, &span),
            None => Ok(()),
        }
    }

    /// A document starts: one per stream.
    #[inline(always)]
    fn document_start(&mut self, span: &Span) -> Result<(), Diagnostic> {
        self.documents += 1;
        if self.documents > 1 {
            return Err(self.error(
                "multiple-documents",
                "the YAML stream holds more than one document; send one document per file",
                Some(span),
            ));
        }
        Ok(())
    }

    /// Counts one more value against the node budget.
    #[inline(always)]
    fn count_node(&mut self, span: &Span) -> Result<(), Diagnostic> {
        self.nodes += 1;
        if self.nodes > self.b.max_nodes {
            return Err(self.error("too-many-nodes", self.b.too_many_nodes(), Some(span)));
        }
        Ok(())
    }

    /// A scalar: the key of a mapping waiting for one (kept until its value completes, `None` returned), else a
    /// value.
    #[inline(always)]
    fn scalar(
        &mut self,
        value: Cow<'a, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        span: &Span,
    ) -> Result<Option<Finished>, Diagnostic> {
        if value.contains('\0') {
            return Err(self.error(
                "nul-character",
                "a string contains a NUL character, which is not accepted",
                Some(span),
            ));
        }
        if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
            self.key(value, style, tag, span)?;
            return Ok(None);
        }
        self.count_node(span)?;
        match scalar(value, style, tag) {
            Ok(v) => Ok(Some(Finished {
                node: v.add(&mut self.tree),
                anchor,
                nodes: 1,
            })),
            Err(m) => Err(self.error(
                if m.contains("tag") {
                    "yaml-tag"
                } else {
                    "number-out-of-range"
                },
                m,
                Some(span),
            )),
        }
    }

    /// A mapping key: always its text, with its position (for a duplicate key's error).
    #[inline(always)]
    fn key(
        &mut self,
        value: Cow<'a, str>,
        style: ScalarStyle,
        tag: Option<&Tag>,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        if let Some(t) = tag
            && let Err(t) = want(Some(t))
        {
            return Err(self.error("yaml-tag", unsupported_tag(&t), Some(span)));
        }
        if style == ScalarStyle::Plain && value == "<<" {
            return Err(self.error(
                "yaml-merge-key",
                "YAML merge keys ('<<') are not supported: they are a YAML 1.1 extension; write the keys out",
                Some(span),
            ));
        }
        let pos = (span.start.line() as u32, span.start.col() as u32 + 1);
        if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
            *key = Some((value, pos));
        }
        Ok(())
    }

    /// A sequence or mapping opens, within the depth and node budgets.
    #[inline(always)]
    fn open(
        &mut self,
        is_map: bool,
        anchor: usize,
        tag: Option<&Tag>,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
            return Err(self.error(
                "yaml-complex-key",
                "a mapping key must be a scalar (a string), not a sequence or mapping",
                Some(span),
            ));
        }
        match want(tag) {
            Ok(Want::Auto) => {}
            Ok(Want::Seq) if !is_map => {}
            Ok(Want::Map) if is_map => {}
            Ok(_) => {
                return Err(self.error("yaml-tag", "a scalar tag on a collection", Some(span)));
            }
            Err(t) => return Err(self.error("yaml-tag", unsupported_tag(&t), Some(span))),
        }
        if self.stack.len() >= self.b.max_depth {
            return Err(self.error(
                "too-deep",
                format!(
                    "the document nests sequences/mappings more than {} levels deep",
                    self.b.max_depth
                ),
                Some(span),
            ));
        }
        self.count_node(span)?;
        let start_nodes = self.nodes - 1;
        let start = self.tree.mark();
        self.stack.push(if is_map {
            Frame::Map {
                start,
                positions: self.key_positions.len(),
                key: None,
                anchor,
                start_nodes,
            }
        } else {
            Frame::Seq {
                start,
                count: 0,
                anchor,
                start_nodes,
            }
        });
        Ok(())
    }

    /// The innermost sequence or mapping closes: it is built from its pending members.
    #[inline(always)]
    fn close(&mut self, span: &Span) -> Result<Finished, Diagnostic> {
        match self.stack.pop() {
            Some(Frame::Seq {
                start,
                anchor,
                start_nodes,
                ..
            }) => Ok(Finished {
                node: self.tree.close_array(start),
                anchor,
                nodes: self.nodes - start_nodes,
            }),
            Some(Frame::Map {
                start,
                positions,
                anchor,
                start_nodes,
                ..
            }) => match self.tree.close_object(start) {
                Ok(node) => {
                    self.key_positions.truncate(positions);
                    Ok(Finished {
                        node,
                        anchor,
                        nodes: self.nodes - start_nodes,
                    })
                }
                Err(dup) => Err(self.duplicate_key(start, positions, dup)),
            },
            None => Err(self.error(
                "syntax",
                "invalid YAML: unbalanced collection end",
                Some(span),
            )),
        }
    }

    /// The error for a key given twice in the mapping just closed, at the repeat's line and column.
    fn duplicate_key(&self, start: usize, positions: usize, dup: Duplicate) -> Diagnostic {
        let k = self.tree.pending_key(start, dup.0);
        let mut d = self.error(
            "duplicate-key",
            format!(
                "duplicate key '{k}': each key may appear only once in a mapping; remove or rename one of them"
            ),
            None,
        );
        crate::pointer::push_token(&mut d.pointer, k);
        if let Some(&(line, column)) = self.key_positions.get(positions + dup.0) {
            d.line = Some(line);
            d.column = Some(column);
        }
        d
    }

    /// An alias (when allowed): it shares its anchor's node, counted again against the node budget as if
    /// expanded.
    #[inline(always)]
    fn alias(&mut self, id: usize, span: &Span) -> Result<Finished, Diagnostic> {
        let b = self.b;
        if !b.allow_aliases {
            return Err(self.error(
                "yaml-alias",
                "YAML aliases (*name) are not accepted: they can expand a small file into a huge document; write the content out or use $ref",
                Some(span),
            ));
        }
        if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
            return Err(self.error(
                "yaml-complex-key",
                "an alias cannot be used as a mapping key",
                Some(span),
            ));
        }
        self.aliases += 1;
        if self.aliases > b.max_aliases {
            return Err(self.error(
                "too-many-aliases",
                format!("the document uses more than {} YAML aliases", b.max_aliases),
                Some(span),
            ));
        }
        let Some(&(node, n)) = self.anchors.get(&id) else {
            return Err(self.error(
                "syntax",
                "invalid YAML: alias to an unknown or unfinished anchor",
                Some(span),
            ));
        };
        self.nodes += n;
        if self.nodes > b.max_nodes {
            return Err(self.error(
                "too-many-nodes",
                format!(
                    "expanding YAML aliases would exceed the budget of {} values (alias bomb?)",
                    b.max_nodes
                ),
                Some(span),
            ));
        }
        Ok(Finished {
            node,
            anchor: 0,
            nodes: n,
        })
    }

    /// A completed value joins its parent (or becomes the root); an anchored one is remembered for its aliases.
    #[inline(always)]
    fn attach(&mut self, value: Finished, span: &Span) -> Result<(), Diagnostic> {
        if value.anchor != 0 && self.b.allow_aliases {
            self.anchors.insert(value.anchor, (value.node, value.nodes));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_some() {
                    return Err(self.error(
                        "multiple-documents",
                        "the YAML stream holds more than one document",
                        Some(span),
                    ));
                }
                self.root = Some(value.node);
            }
            Some(Frame::Seq { count, .. }) => {
                self.tree.push_item(value.node);
                *count += 1;
            }
            Some(Frame::Map { key, .. }) => {
                if let Some((k, pos)) = key.take() {
                    self.tree.push_member(&k, value.node);
                    self.key_positions.push(pos);
                }
            }
        }
        Ok(())
    }

    /// The document, once every event is in.
    pub(crate) fn finish(self) -> Result<Loaded, Diagnostic> {
        let (root, tree, nodes, b) = (self.root, self.tree, self.nodes, self.b);
        match root {
            Some(root) => Ok(Loaded {
                value: tree.finish(root),
                nodes: nodes - b.nodes_before,
                block: false,
            }),
            None => Err(Diagnostic {
                code: "empty-document",
                message: "the document is empty".to_string(),
                file: None,
                pointer: String::new(),
                line: None,
                column: None,
            }),
        }
    }
}
