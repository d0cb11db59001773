//! Search over one documentation: an index of its operations (summaries, operation ids, paths, tags),
//! parameters, named schemas and their properties (nested ones too), request body properties, tags, topics,
//! AsyncAPI channels, operations and messages, built from the parsed document and its [`Site`] once per version.
//!
//! The term dictionary is an [`fst::Map`] (a compact, sorted automaton over the distinct terms), so a query word
//! is matched exactly, as a prefix (as-you-type) and within an edit distance (a Levenshtein automaton intersected
//! with the dictionary: `vacinations` finds `vaccinations`) without scanning every term. Each term points to a
//! posting list of (entry, field weight); an entry is one result (an operation, a property...) with the page it
//! links to. Scores add the best match of every query word (exact > prefix > one typo > two typos, times the weight
//! of the field it matched: name or summary above path above tag), times the kind's weight, so operations rank
//! above schema properties. Every word must match (the query falls back to any word when no entry has them all).
//!
//! Bounds: queries of at most [`MAX_QUERY_CHARS`] characters and [`MAX_QUERY_WORDS`] words, at most
//! [`MAX_EXPANSIONS`] dictionary terms per word for prefixes and typos each, [`MAX_PROPERTY_ENTRIES`] property
//! entries per document (nested [`MAX_PROPERTY_DEPTH`] levels), results cut at the caller's limit.

use std::collections::HashMap;

use fst::automaton::Str;
use fst::{Automaton, IntoStreamer, Map, MapBuilder, Streamer};
use specpress_spec::{Direction, Document, OperationKind};

use crate::schema::{Ctx, Flat, flatten};
use crate::site::Site;

/// Longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 100;
/// Words of a query that are used (the rest are ignored).
pub const MAX_QUERY_WORDS: usize = 8;
/// Most results a search returns.
pub const MAX_RESULTS: usize = 50;
/// Dictionary terms one query word may expand to, for prefixes and for typos (each).
pub const MAX_EXPANSIONS: usize = 64;
/// Property entries indexed for one document (the largest corpus document has fewer).
pub const MAX_PROPERTY_ENTRIES: usize = 100_000;
/// Levels of nested properties indexed below a schema.
pub const MAX_PROPERTY_DEPTH: usize = 4;
/// Characters of a term (longer words are cut).
const MAX_TERM_CHARS: usize = 40;

/// What a search result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitKind {
    Operation,
    Webhook,
    /// An AsyncAPI operation.
    MessageOperation,
    Channel,
    Message,
    Tag,
    Topic,
    Schema,
    Parameter,
    Property,
}

impl HitKind {
    /// How a reader calls it.
    pub fn label(self) -> &'static str {
        match self {
            HitKind::Operation => "Operation",
            HitKind::Webhook => "Webhook",
            HitKind::MessageOperation => "Operation",
            HitKind::Channel => "Channel",
            HitKind::Message => "Message",
            HitKind::Tag => "Group",
            HitKind::Topic => "Topic",
            HitKind::Schema => "Schema",
            HitKind::Parameter => "Parameter",
            HitKind::Property => "Property",
        }
    }

    /// The factor of the kind in a score: operations first, schema properties last.
    fn weight(self) -> f32 {
        match self {
            HitKind::Operation | HitKind::MessageOperation => 10.0,
            HitKind::Webhook => 9.0,
            HitKind::Channel => 8.0,
            HitKind::Message => 7.0,
            HitKind::Tag | HitKind::Topic => 6.0,
            HitKind::Schema => 5.0,
            HitKind::Parameter => 3.0,
            HitKind::Property => 2.0,
        }
    }
}

/// Field weights (at most 7: they share a posting's low three bits).
const W_NAME: u8 = 4;
const W_ID: u8 = 3;
const W_PATH: u8 = 3;
const W_SUMMARY: u8 = 2;
const W_TAG: u8 = 1;

struct Entry {
    kind: HitKind,
    /// Index of the page in the site.
    page: u32,
    title: Box<str>,
    context: Box<str>,
}

/// The search index of one documentation version. `Send + Sync`, no borrow of the document.
pub struct SearchIndex {
    terms: Map<Vec<u8>>,
    /// Postings of term `t`: `postings[offsets[t]..offsets[t + 1]]`, each `entry << 3 | field weight`.
    offsets: Vec<u32>,
    postings: Vec<u32>,
    entries: Vec<Entry>,
    /// True when the property budget cut the index short.
    truncated: bool,
}

/// One result.
#[derive(Clone, Debug)]
pub struct Hit<'a> {
    pub kind: HitKind,
    /// The entry's name (document text: escape it).
    pub title: &'a str,
    /// Where it is: `GET /pets/{id}`, `Property of Pet`... (document text: escape it).
    pub context: &'a str,
    /// The page it links to, relative to the documentation root (URL-safe).
    pub path: &'a str,
    /// The method or action badge of an operation.
    pub badge: Option<&'static str>,
    pub score: f32,
    /// True when a query word matched only with a typo.
    pub approximate: bool,
}

impl Hit<'_> {
    /// The link to the result under a documentation root (`/doc/pets`), not escaped (URL-safe parts).
    pub fn href(&self, base: &str) -> String {
        match (self.path.is_empty(), base.is_empty()) {
            (true, true) => "/".to_string(),
            (true, false) => base.to_string(),
            (false, _) => format!("{base}/{}", self.path),
        }
    }
}

/// The answer to a query.
#[derive(Clone, Debug, Default)]
pub struct Found<'a> {
    /// The best results, best first, at most the limit asked for.
    pub hits: Vec<Hit<'a>>,
    /// How many entries matched in all.
    pub total: usize,
    /// True when no entry matched every word and the results match some of them.
    pub partial: bool,
}

/// Why a query is not searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing to search for (no letter or digit).
    Empty,
    /// Longer than [`MAX_QUERY_CHARS`].
    TooLong,
}

/// The words of a query, lower-cased (camelCase and snake_case split into their parts).
pub fn query_words(query: &str) -> Result<Vec<String>, QueryError> {
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::TooLong);
    }
    let mut words: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        let parts = camel_parts(word);
        let list: Vec<&str> = if parts.len() > 1 { parts } else { vec![word] };
        for p in list {
            let w = normalize(p);
            // Single letters are not indexed (see `index_terms`).
            if w.chars().count() >= 2 && !words.contains(&w) && words.len() < MAX_QUERY_WORDS {
                words.push(w);
            }
        }
    }
    if words.is_empty() {
        Err(QueryError::Empty)
    } else {
        Ok(words)
    }
}

/// Lower case, at most [`MAX_TERM_CHARS`] characters.
fn normalize(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .take(MAX_TERM_CHARS)
        .collect()
}

/// `listReposForOrg` -> `list`, `Repos`, `For`, `Org`; `HTTPServer2` -> `HTTP`, `Server`, `2`. One part when the
/// word has no inner boundary.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let p = chars[k - 1].1;
        let next_lower = chars.get(k + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (p.is_lowercase() && c.is_uppercase())
            || (p.is_alphabetic() && c.is_numeric())
            || (p.is_numeric() && c.is_alphabetic())
            || (p.is_uppercase() && c.is_uppercase() && next_lower);
        if boundary {
            parts.push(&word[start..i]);
            start = i;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// Every term of a text: each word lower-cased, and the parts of camelCase words; single letters are left out.
fn index_terms(text: &str, mut f: impl FnMut(String)) {
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let whole = normalize(word);
        let parts = camel_parts(word);
        if whole.chars().count() >= 2 {
            f(whole);
        }
        if parts.len() > 1 {
            for p in parts {
                let p = normalize(p);
                if p.chars().count() >= 2 {
                    f(p);
                }
            }
        }
    }
}

struct Builder {
    terms: HashMap<String, Vec<u32>>,
    entries: Vec<Entry>,
    /// Terms of the entry being added, with their best weight.
    pending: Vec<(String, u8)>,
    properties: usize,
    truncated: bool,
}

fn cut(s: &str) -> Box<str> {
    if s.chars().count() <= 200 {
        s.into()
    } else {
        s.chars().take(200).collect::<String>().into()
    }
}

impl Builder {
    fn add(&mut self, kind: HitKind, page: u32, title: &str, context: &str, fields: &[(&str, u8)]) {
        let id = self.entries.len() as u32;
        if id >= (u32::MAX >> 3) {
            self.truncated = true;
            return;
        }
        self.entries.push(Entry {
            kind,
            page,
            title: cut(title),
            context: cut(context),
        });
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        for &(text, w) in fields {
            // Fields are names and summaries: a long text (a summary written as a paragraph) is read in part.
            let text = crate::html::truncate(text, 1024).0;
            index_terms(text, |t| pending.push((t, w)));
        }
        // One posting per term and entry, with the best weight.
        pending.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        pending.dedup_by(|a, b| a.0 == b.0);
        for (t, w) in pending.drain(..) {
            self.terms
                .entry(t)
                .or_default()
                .push((id << 3) | u32::from(w.min(7)));
        }
        self.pending = pending;
    }

    fn property(&mut self, page: u32, name: &str, context: &str) -> bool {
        if self.properties >= MAX_PROPERTY_ENTRIES {
            self.truncated = true;
            return false;
        }
        self.properties += 1;
        self.add(HitKind::Property, page, name, context, &[(name, W_NAME)]);
        true
    }

    /// The properties of a schema (and of its inline objects and arrays of objects, down to
    /// [`MAX_PROPERTY_DEPTH`] levels), as entries linking to `page`.
    fn properties(
        &mut self,
        ctx: &Ctx<'_>,
        flat: &Flat<'_>,
        page: u32,
        owner: &str,
        prefix: &str,
        depth: usize,
    ) {
        for (name, loc, _) in flat.properties() {
            let context = if prefix.is_empty() {
                format!("Property of {owner}")
            } else {
                format!("Property of {owner} › {prefix}")
            };
            if !self.property(page, name, &context) {
                return;
            }
            if depth + 1 >= MAX_PROPERTY_DEPTH {
                continue;
            }
            let child = flatten(ctx, loc);
            // A named schema has its own entries.
            if child.named.is_some() {
                continue;
            }
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            if child.properties().next().is_some() {
                self.properties(ctx, &child, page, owner, &path, depth + 1);
            } else if let Some(items) = child.item_schema() {
                let inner = flatten(ctx, items);
                if inner.named.is_none() {
                    self.properties(ctx, &inner, page, owner, &format!("{path}[]"), depth + 1);
                }
            }
        }
    }

    fn finish(self) -> SearchIndex {
        let mut keys: Vec<(String, Vec<u32>)> = self.terms.into_iter().collect();
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut offsets = Vec::with_capacity(keys.len() + 1);
        let mut postings = Vec::with_capacity(keys.iter().map(|k| k.1.len()).sum());
        let mut map = MapBuilder::memory();
        for (i, (term, list)) in keys.iter().enumerate() {
            offsets.push(postings.len() as u32);
            postings.extend_from_slice(list);
            // Keys are sorted and distinct: insertion cannot fail.
            let _ = map.insert(term.as_bytes(), i as u64);
        }
        offsets.push(postings.len() as u32);
        let terms = map
            .into_inner()
            .ok()
            .and_then(|bytes| Map::new(bytes).ok())
            .unwrap_or_default();
        SearchIndex {
            terms,
            offsets,
            postings,
            entries: self.entries,
            truncated: self.truncated,
        }
    }
}

impl SearchIndex {
    /// Indexes `doc` (whose pages `site` lists).
    pub fn build(doc: &Document, site: &Site) -> SearchIndex {
        let model = doc.model();
        let ctx = Ctx::new(doc, site, "");
        let mut b = Builder {
            terms: HashMap::new(),
            entries: Vec::new(),
            pending: Vec::new(),
            properties: 0,
            truncated: false,
        };
        // Topics and groups.
        for &t in &site.topics {
            let title = site.pages[t as usize].title.clone();
            b.add(HitKind::Topic, t, &title, "Topic", &[(&title, W_NAME)]);
        }
        for g in &site.groups {
            if let Some(p) = g.page {
                b.add(HitKind::Tag, p, &g.title, "Group", &[(&g.title, W_NAME)]);
            }
        }
        // HTTP operations and webhooks, their parameters and inline request body properties.
        for (i, op) in model.operations.values().enumerate() {
            let Some(&page) = site.op_pages.get(i) else {
                continue;
            };
            let kind = match op.key.kind {
                OperationKind::Path => HitKind::Operation,
                OperationKind::Webhook => HitKind::Webhook,
            };
            let title = site.pages[page as usize].title.clone();
            let context = format!("{} {}", op.key.method, op.path);
            let method = op.key.method.to_ascii_lowercase();
            let mut fields: Vec<(&str, u8)> = vec![(&title, W_NAME), (&op.path, W_PATH)];
            if let Some(s) = &op.summary {
                fields.push((s, W_NAME));
            }
            if let Some(id) = &op.operation_id {
                fields.push((id, W_ID));
            }
            for t in &op.tags {
                fields.push((t, W_TAG));
            }
            fields.push((&method, W_TAG));
            b.add(kind, page, &title, &context, &fields);
            for p in &op.parameters {
                let where_ = match p.location {
                    specpress_spec::ParameterIn::Path => "Path",
                    specpress_spec::ParameterIn::Query => "Query",
                    specpress_spec::ParameterIn::Header => "Header",
                    specpress_spec::ParameterIn::Cookie => "Cookie",
                };
                b.add(
                    HitKind::Parameter,
                    page,
                    &p.name,
                    &format!("{where_} parameter of {context}"),
                    &[(&p.name, W_NAME)],
                );
            }
            if let Some(body) = &op.request_body
                && let Some(schema) = body.content.values().find_map(|m| m.schema.as_ref())
            {
                let flat = flatten(&ctx, schema);
                if flat.named.is_none() {
                    b.properties(
                        &ctx,
                        &flat,
                        page,
                        &format!("the request body of {context}"),
                        "",
                        1,
                    );
                }
            }
        }
        // AsyncAPI channels, operations and messages.
        for (i, ch) in model.channels.values().enumerate() {
            if let Some(&page) = site.channel_pages.get(i) {
                b.add(
                    HitKind::Channel,
                    page,
                    &ch.address,
                    "Channel",
                    &[(&ch.address, W_NAME)],
                );
            }
        }
        for (i, op) in model.message_operations.values().enumerate() {
            let Some(&page) = site.message_pages.get(i) else {
                continue;
            };
            let action = match op.key.direction {
                Direction::Send => "send",
                Direction::Receive => "receive",
            };
            let title = site.pages[page as usize].title.clone();
            let context = format!("{} {}", action.to_ascii_uppercase(), op.channel_address);
            let mut fields: Vec<(&str, u8)> = vec![
                (&title, W_NAME),
                (&op.channel_address, W_PATH),
                (action, W_TAG),
            ];
            if let Some(id) = &op.operation_id {
                fields.push((id, W_ID));
            }
            b.add(HitKind::MessageOperation, page, &title, &context, &fields);
            for m in op.messages.values() {
                let name = m.title.as_deref().unwrap_or(&m.name);
                let mut fields: Vec<(&str, u8)> = vec![(&m.name, W_NAME), (name, W_NAME)];
                if let Some(s) = &m.summary {
                    fields.push((s, W_SUMMARY));
                }
                b.add(
                    HitKind::Message,
                    page,
                    name,
                    &format!("Message of {context}"),
                    &fields,
                );
                if let Some(payload) = &m.payload {
                    let flat = flatten(&ctx, payload);
                    if flat.named.is_none() {
                        b.properties(&ctx, &flat, page, &format!("the payload of {name}"), "", 1);
                    }
                }
            }
        }
        // Named schemas and their properties.
        for (i, loc) in model.schemas.values().enumerate() {
            let Some(&page) = site.schema_pages.get(i) else {
                continue;
            };
            let name = site.schema_page(i as u32).1.to_string();
            let flat = flatten(&ctx, loc);
            let mut fields: Vec<(&str, u8)> = vec![(&name, W_NAME)];
            if let Some(t) = flat.title {
                fields.push((t, W_SUMMARY));
            }
            b.add(HitKind::Schema, page, &name, "Schema", &fields);
            b.properties(&ctx, &flat, page, &name, "", 0);
        }
        b.finish()
    }

    /// Entries indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Distinct terms.
    pub fn term_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when the property budget left part of the document out.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// An estimate of the memory the index holds, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.terms.as_fst().as_bytes().len()
            + self.offsets.len() * 4
            + self.postings.len() * 4
            + self
                .entries
                .iter()
                .map(|e| std::mem::size_of::<Entry>() + e.title.len() + e.context.len())
                .sum::<usize>()
    }

    /// The postings of term ordinal `t`.
    fn postings_of(&self, t: u64) -> &[u32] {
        let t = t as usize;
        match (self.offsets.get(t), self.offsets.get(t + 1)) {
            (Some(&a), Some(&b)) if a <= b => {
                self.postings.get(a as usize..b as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    /// The dictionary terms a query word matches, with the quality of the match (1 exact, 0.7 prefix, 0.5 one
    /// typo, 0.3 two) and whether it is approximate.
    fn expand(&self, word: &str) -> Vec<(u64, f32, bool)> {
        let mut out: Vec<(u64, f32, bool)> = Vec::new();
        if let Some(t) = self.terms.get(word) {
            out.push((t, 1.0, false));
        }
        let chars = word.chars().count();
        if chars >= 2 {
            let mut s = self
                .terms
                .search(Str::new(word).starts_with())
                .into_stream();
            let mut n = 0;
            while let Some((k, t)) = s.next() {
                if k.len() != word.len() {
                    out.push((t, 0.7, false));
                    n += 1;
                    if n >= MAX_EXPANSIONS {
                        break;
                    }
                }
            }
        }
        // Typos: one in a word of 5 to 8 characters, two from 9 (shorter words would match too many others).
        if chars >= 5 {
            let fuzzy = Fuzzy {
                word: word.as_bytes(),
                distance: if chars >= 9 { 2 } else { 1 },
            };
            let mut s = self.terms.search(fuzzy).into_stream();
            let mut n = 0;
            while let Some((k, t)) = s.next() {
                if out.iter().any(|(x, _, _)| *x == t) {
                    continue;
                }
                let d = std::str::from_utf8(k).map_or(2, |k| edit_distance(word, k));
                out.push((t, if d <= 1 { 0.5 } else { 0.3 }, true));
                n += 1;
                if n >= MAX_EXPANSIONS {
                    break;
                }
            }
        }
        out
    }

    /// Searches `query` and returns the best `limit` results (at most [`MAX_RESULTS`]).
    pub fn search<'s>(
        &'s self,
        site: &'s Site,
        query: &str,
        limit: usize,
    ) -> Result<Found<'s>, QueryError> {
        let words = query_words(query)?;
        let n = self.entries.len();
        let mut total = vec![0f32; n];
        let mut matched = vec![0u8; n];
        let mut approx = vec![false; n];
        let mut best = vec![(0f32, false); n];
        let mut touched: Vec<u32> = Vec::new();
        for word in &words {
            for (t, quality, approximate) in self.expand(word) {
                for &p in self.postings_of(t) {
                    let e = (p >> 3) as usize;
                    let s = quality * (p & 7) as f32;
                    let Some(slot) = best.get_mut(e) else {
                        continue;
                    };
                    if slot.0 == 0.0 {
                        touched.push(e as u32);
                    }
                    if s > slot.0 {
                        *slot = (s, approximate);
                    }
                }
            }
            for &e in &touched {
                let e = e as usize;
                let (s, a) = std::mem::replace(&mut best[e], (0.0, false));
                total[e] += s;
                matched[e] += 1;
                approx[e] |= a;
            }
            touched.clear();
        }
        let want = words.len() as u8;
        let mut hits: Vec<u32> = (0..n as u32)
            .filter(|&e| matched[e as usize] == want)
            .collect();
        let partial = hits.is_empty() && want > 1;
        if partial {
            hits = (0..n as u32).filter(|&e| matched[e as usize] > 0).collect();
        }
        // An entry named exactly as the query (`per_page`, `reposListForOrg`, `List pull requests`) comes first
        // among its kind.
        let compact: String = words.concat();
        let bonus: Vec<u32> = hits
            .iter()
            .copied()
            .filter(|&e| same_letters(&self.entries[e as usize].title, &compact))
            .collect();
        let score = |e: u32| {
            let i = e as usize;
            let exact = if bonus.binary_search(&e).is_ok() {
                1.5
            } else {
                1.0
            };
            total[i] * exact * self.entries[i].kind.weight() * f32::from(matched[i])
                / f32::from(want)
        };
        let count = hits.len();
        hits.sort_by(|&a, &b| {
            score(b)
                .total_cmp(&score(a))
                .then_with(|| {
                    self.entries[a as usize]
                        .title
                        .len()
                        .cmp(&self.entries[b as usize].title.len())
                })
                .then(a.cmp(&b))
        });
        hits.truncate(limit.min(MAX_RESULTS));
        let hits = hits
            .into_iter()
            .map(|e| {
                let entry = &self.entries[e as usize];
                let page = &site.pages[(entry.page as usize).min(site.pages.len() - 1)];
                Hit {
                    kind: entry.kind,
                    title: &entry.title,
                    context: &entry.context,
                    path: &page.path,
                    badge: match entry.kind {
                        HitKind::Operation | HitKind::Webhook | HitKind::MessageOperation => {
                            page.badge
                        }
                        _ => None,
                    },
                    score: score(e),
                    approximate: approx[e as usize],
                }
            })
            .collect();
        Ok(Found {
            hits,
            total: count,
            partial,
        })
    }
}

/// The dictionary terms within `distance` edits (insertions, deletions, substitutions of bytes) of `word`: a
/// Levenshtein automaton simulated one dynamic-programming row per byte, so that intersecting it with the term
/// dictionary visits only the prefixes that can still match (no automaton is compiled ahead: building a
/// Levenshtein DFA for a long word costs milliseconds, this costs nothing up front).
struct Fuzzy<'w> {
    word: &'w [u8],
    distance: u8,
}

impl Automaton for Fuzzy<'_> {
    /// The row of edit distances between the bytes read so far and each prefix of the word, or `None` once no
    /// continuation can come within the distance.
    type State = Option<Vec<u8>>;

    fn start(&self) -> Self::State {
        Some((0..=self.word.len()).map(|i| i.min(255) as u8).collect())
    }

    fn is_match(&self, state: &Self::State) -> bool {
        state
            .as_ref()
            .and_then(|row| row.last())
            .is_some_and(|&d| d <= self.distance)
    }

    fn can_match(&self, state: &Self::State) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Self::State, byte: u8) -> Self::State {
        let prev = state.as_ref()?;
        let mut row = Vec::with_capacity(prev.len());
        row.push(prev[0].saturating_add(1));
        for (i, &c) in self.word.iter().enumerate() {
            let substitute = prev[i].saturating_add(u8::from(c != byte));
            let delete = prev[i + 1].saturating_add(1);
            let insert = row[i].saturating_add(1);
            row.push(substitute.min(delete).min(insert));
        }
        row.iter().any(|&d| d <= self.distance).then_some(row)
    }
}

/// True when `title`'s letters and digits, lower-cased, are `compact` (a query's words joined).
fn same_letters(title: &str, compact: &str) -> bool {
    let mut want = compact.chars();
    for c in title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
    {
        if want.next() != Some(c) {
            return false;
        }
    }
    want.next().is_none()
}

/// Levenshtein distance of two short words, capped at 3.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 {
        return 3;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_words_are_split_into_their_parts() {
        assert_eq!(
            camel_parts("listReposForOrg"),
            vec!["list", "Repos", "For", "Org"]
        );
        assert_eq!(camel_parts("HTTPServer2"), vec!["HTTP", "Server", "2"]);
        assert_eq!(camel_parts("plain"), vec!["plain"]);
    }

    #[test]
    fn a_query_is_lower_cased_split_and_bounded() {
        assert_eq!(
            query_words("GET /repos/{owner} listRepos").unwrap(),
            vec!["get", "repos", "owner", "list"]
        );
        assert_eq!(query_words("  ?! "), Err(QueryError::Empty));
        assert_eq!(query_words("a / b"), Err(QueryError::Empty));
        assert_eq!(
            query_words(&"a".repeat(MAX_QUERY_CHARS + 1)),
            Err(QueryError::TooLong)
        );
        assert_eq!(
            query_words("aa bb cc dd ee ff gg hh ii jj kk")
                .unwrap()
                .len(),
            MAX_QUERY_WORDS
        );
    }

    #[test]
    fn the_fuzzy_automaton_finds_terms_within_the_distance_only() {
        let map = Map::from_iter([
            ("vacations", 0u64),
            ("vaccination", 1),
            ("vaccinations", 2),
            ("zebra", 3),
        ])
        .unwrap();
        let found = |word: &str, distance: u8| -> Vec<String> {
            let mut s = map
                .search(Fuzzy {
                    word: word.as_bytes(),
                    distance,
                })
                .into_stream();
            let mut out = Vec::new();
            while let Some((k, _)) = s.next() {
                out.push(String::from_utf8_lossy(k).into_owned());
            }
            out
        };
        assert_eq!(found("vacinations", 1), vec!["vaccinations"]);
        assert_eq!(
            found("vacinations", 2),
            vec!["vacations", "vaccination", "vaccinations"]
        );
        assert!(found("zebar", 1).is_empty());
        assert_eq!(found("zebar", 2), vec!["zebra"]);
    }

    #[test]
    fn a_title_matches_a_query_by_its_letters_and_digits() {
        assert!(same_letters("per_page", "perpage"));
        assert!(same_letters("List pull requests", "listpullrequests"));
        assert!(!same_letters(
            "List pull requests files",
            "listpullrequests"
        ));
    }

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("vacinations", "vaccinations"), 1);
        assert_eq!(edit_distance("pets", "pest"), 2);
        assert_eq!(edit_distance("a", "abcdef"), 3);
    }
}

/// One result as the results page shows it.
#[derive(Clone, Debug)]
pub struct SearchResult<'a> {
    /// The link (URL-safe; escaped by the template anyway).
    pub href: String,
    pub kind: HitKind,
    /// Document text.
    pub title: &'a str,
    /// Document text.
    pub context: &'a str,
    pub badge: Option<&'static str>,
    /// The API it belongs to, on a hub's results (document text).
    pub api: Option<&'a str>,
    pub approximate: bool,
}

impl<'a> SearchResult<'a> {
    /// A hit of a documentation rooted at `base`.
    pub fn of(hit: &Hit<'a>, base: &str, api: Option<&'a str>) -> SearchResult<'a> {
        SearchResult {
            href: hit.href(base),
            kind: hit.kind,
            title: hit.title,
            context: hit.context,
            badge: hit.badge,
            api,
            approximate: hit.approximate,
        }
    }
}

/// The results page of a search.
pub struct SearchPage<'a> {
    /// The query as typed (untrusted; shown escaped).
    pub query: &'a str,
    /// The form's action (URL-safe).
    pub action: &'a str,
    /// What is searched, as in "Search {scope}" (text): "this documentation", "the Payments hub".
    pub scope: &'a str,
    pub results: &'a [SearchResult<'a>],
    /// How many results matched in all.
    pub total: usize,
    /// No result matched every word.
    pub partial: bool,
    /// Why the query was not searched, when it was not; `None` with an empty query shows the form alone.
    pub error: Option<QueryError>,
}

struct RowView<'a> {
    href: &'a str,
    badge: Option<&'static str>,
    badge_text: &'static str,
    title: &'a str,
    kind_label: &'static str,
    approximate: bool,
    api: Option<&'a str>,
    context: &'a str,
}

#[derive(askama::Template)]
#[template(path = "search.html")]
struct ResultsBody<'a> {
    heading: String,
    action: &'a str,
    scope: &'a str,
    query: &'a str,
    max_chars: usize,
    message: Option<String>,
    summary: Option<String>,
    results: Vec<RowView<'a>>,
}

/// The results page: the search form with the query, what was found (best first, linked into the reference
/// pages), or why nothing was searched. A whole HTML document in the site shell.
pub fn search_page(ctx: &crate::PageContext<'_>, page: &SearchPage<'_>) -> String {
    use askama::Template;
    let shown: String = page.query.chars().take(MAX_QUERY_CHARS).collect();
    let blank = page.query.trim().is_empty();
    let message = match page.error {
        Some(QueryError::TooLong) => Some(format!(
            "This search is too long: type at most {MAX_QUERY_CHARS} characters."
        )),
        Some(QueryError::Empty) if !blank => {
            Some("Type a word of at least two letters or digits.".to_string())
        }
        _ => None,
    };
    let summary = (page.error.is_none() && !blank).then(|| {
        let quoted = format!("“{shown}”");
        let counted = match page.total {
            0 => format!("No results for {quoted}."),
            1 => format!("1 result for {quoted}."),
            n if n > page.results.len() => format!(
                "{n} results for {quoted}; the first {} are shown.",
                page.results.len()
            ),
            n => format!("{n} results for {quoted}."),
        };
        if page.partial && page.total > 0 {
            counted + " No result has every word: these have some of them."
        } else {
            counted
        }
    });
    let heading = if blank || page.error.is_some() {
        "Search".to_string()
    } else {
        format!("Search results for “{shown}”")
    };
    let results = page
        .results
        .iter()
        .map(|r| RowView {
            href: &r.href,
            badge: r.badge,
            badge_text: r.badge.map_or("", crate::shell::badge_text),
            title: r.title,
            kind_label: r.kind.label(),
            approximate: r.approximate,
            api: r.api,
            context: r.context,
        })
        .collect();
    let body = ResultsBody {
        heading: heading.clone(),
        action: page.action,
        scope: page.scope,
        query: &shown,
        max_chars: MAX_QUERY_CHARS,
        message,
        summary,
        results,
    };
    let mut html = String::with_capacity(4096);
    // Rendering into a String cannot fail: the values are plain strings.
    let _ = body.render_into(&mut html);
    let body = crate::Html::trusted(html);
    crate::layout(
        ctx,
        &crate::Layout {
            title: &heading,
            description: None,
            body: &body,
            sidebar: None,
        },
    )
}
