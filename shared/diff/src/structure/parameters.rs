//! Parameters: matched by location and name (path parameters by position, headers
//! case-insensitively), moved between locations, added, removed, and compared (required,
//! style, explode, allowEmptyValue, allowReserved, deprecation, description, schema).

use specpress_spec::{Location, Parameter, ParameterIn};

use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::memo::PointerPair;
use crate::rules::{Role, StructureRule};

fn in_name(p: ParameterIn) -> &'static str {
    match p {
        ParameterIn::Path => "path",
        ParameterIn::Query => "query",
        ParameterIn::Header => "header",
        ParameterIn::Cookie => "cookie",
    }
}

impl<'a> Context<'a> {
    /// How parameters match: path parameters by position, headers case-insensitively, others
    /// by location and name.
    fn same_param(a: &Parameter, b: &Parameter) -> bool {
        a.location == b.location
            && match (a.location, a.path_index, b.path_index) {
                (ParameterIn::Path, Some(i), Some(j)) => i == j,
                (ParameterIn::Header, _, _) => a.name.eq_ignore_ascii_case(&b.name),
                _ => a.name == b.name,
            }
    }

    fn param_schema(p: &Parameter) -> Option<&Location> {
        p.schema
            .as_ref()
            .or_else(|| p.content.values().find_map(|m| m.schema.as_ref()))
    }

    pub(super) fn parameters(&mut self, owner: usize, prev: &'a [Parameter], cur: &'a [Parameter]) {
        // Operations have few parameters: linear matching beats hashing here.
        let find =
            |list: &'a [Parameter], x: &Parameter| list.iter().find(|y| Self::same_param(x, y));
        let mut moved: Vec<&str> = Vec::new();
        // A non-path parameter that disappears from one location and appears in another moved.
        for p in prev {
            if p.location == ParameterIn::Path || find(cur, p).is_some() {
                continue;
            }
            if let Some(c) = cur.iter().find(|c| {
                c.location != ParameterIn::Path
                    && c.name.eq_ignore_ascii_case(&p.name)
                    && find(prev, c).is_none()
            }) {
                moved.push(&p.name);
                let crumbs = [Crumb::new(NodeKind::Parameter(c.location), c.name.as_str())];
                self.base(
                    StructureRule::RequestParameterLocationChanged,
                    owner,
                    &crumbs,
                    Status::Modified,
                    format!(
                        "parameter `{}` moved from {} to {}",
                        p.name,
                        in_name(p.location),
                        in_name(c.location)
                    ),
                    Some(in_name(p.location).into()),
                    Some(in_name(c.location).into()),
                    (Some(&p.source), Some(&c.source)),
                );
            }
        }
        let was_moved =
            |name: &str, moved: &[&str]| moved.iter().any(|m| m.eq_ignore_ascii_case(name));
        // One crumb path for every matched parameter (each comparison leaves it as it got it).
        let mut param_crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for c in cur {
            let kind = NodeKind::Parameter(c.location);
            match find(prev, c) {
                Some(p) => {
                    // A parameter is a function of its (resolved) source: a pair of shared
                    // parameters compared once without any finding has none in the next
                    // operation either (see `clean_params`).
                    let key = (PointerPair::new(&p.source, &c.source), self.inverted);
                    if self.memo.clean_params.contains(&key) {
                        continue;
                    }
                    let before = (self.found.emitted, self.found.edges.len());
                    let crumb = self.crumb(kind, &c.name);
                    param_crumbs.clear();
                    param_crumbs.push(crumb);
                    self.parameter(owner, &mut param_crumbs, p, c);
                    if (self.found.emitted, self.found.edges.len()) == before {
                        self.memo.clean_params.insert(key);
                    }
                }
                None if was_moved(&c.name, &moved) => {}
                None => {
                    let crumbs = [self.crumb(kind, &c.name)];
                    let (b, msg) = match (self.inverted, c.required) {
                        // A callback request is sent by the API: subscribers that do not read
                        // a new parameter are unaffected, required or not.
                        (true, true) => (StructureRule::CallbackParameterAdded, "required"),
                        (true, false) => (StructureRule::CallbackParameterAdded, "optional"),
                        (false, true) => (StructureRule::RequestRequiredParameterAdded, "required"),
                        (false, false) => (StructureRule::RequestParameterAdded, "optional"),
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!(
                            "{msg} {} parameter `{}` was added",
                            in_name(c.location),
                            c.name
                        ),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for p in prev {
            if find(cur, p).is_some() || was_moved(&p.name, &moved) {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Parameter(p.location), p.name.as_str())];
            // Subscribers may read what a callback request carried: its removal is judged
            // like a response header's.
            let b = match (self.inverted, p.required) {
                (true, true) => StructureRule::CallbackRequiredParameterRemoved,
                (true, false) => StructureRule::CallbackParameterRemoved,
                (false, _) => StructureRule::RequestParameterRemoved,
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("{} parameter `{}` was removed", in_name(p.location), p.name),
                (Some(&p.source), None),
            );
        }
    }

    fn parameter(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        p: &'a Parameter,
        c: &'a Parameter,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        let name = &c.name;
        // In a callback the API sends the request and subscribers read it, so the direction
        // of `required`, `allowEmptyValue`, `allowReserved` and the schema is reversed.
        let inverted = self.inverted;
        self.required(
            if inverted {
                (
                    StructureRule::CallbackParameterBecameRequired,
                    StructureRule::CallbackParameterBecameOptional,
                )
            } else {
                (
                    StructureRule::RequestParameterBecameRequired,
                    StructureRule::RequestParameterBecameOptional,
                )
            },
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (p.required, c.required),
            at,
        );
        let default_style = |x: &Parameter| match x.location {
            ParameterIn::Query | ParameterIn::Cookie => "form",
            ParameterIn::Path | ParameterIn::Header => "simple",
        };
        let ps = p.style.as_deref().unwrap_or(default_style(p));
        let cs = c.style.as_deref().unwrap_or(default_style(c));
        if ps != cs {
            self.base(
                StructureRule::RequestParameterStyleChanged,
                owner,
                crumbs,
                Status::Modified,
                format!("style changed from `{ps}` to `{cs}`"),
                Some(ps.into()),
                Some(cs.into()),
                at,
            );
        }
        let pe = p.explode.unwrap_or(ps == "form");
        let ce = c.explode.unwrap_or(cs == "form");
        if pe != ce && ps == cs {
            self.base(
                StructureRule::RequestParameterExplodeChanged,
                owner,
                crumbs,
                Status::Modified,
                format!("explode changed from {pe} to {ce}"),
                Some(pe.into()),
                Some(ce.into()),
                at,
            );
        }
        if p.allow_empty_value != c.allow_empty_value {
            let b = match (inverted, c.allow_empty_value) {
                (false, true) => StructureRule::RequestParameterAllowEmptyValueAdded,
                (false, false) => StructureRule::RequestParameterAllowEmptyValueRemoved,
                (true, true) => StructureRule::CallbackParameterAllowEmptyValueAdded,
                (true, false) => StructureRule::CallbackParameterAllowEmptyValueRemoved,
            };
            self.base(
                b,
                owner,
                crumbs,
                Status::Modified,
                format!(
                    "allowEmptyValue changed from {} to {}",
                    p.allow_empty_value, c.allow_empty_value
                ),
                Some(p.allow_empty_value.into()),
                Some(c.allow_empty_value.into()),
                at,
            );
        }
        // Unencoded reserved characters hurt whoever reads the parameter: the API when
        // they are no longer allowed in a request, subscribers when a callback may now send
        // them.
        match (inverted, p.allow_reserved, c.allow_reserved) {
            (false, true, false) => self.flag(
                StructureRule::RequestParameterAllowReservedRemoved,
                owner,
                crumbs,
                "reserved characters are no longer allowed unencoded".into(),
                (true, false),
                at,
            ),
            (true, false, true) => self.flag(
                StructureRule::CallbackParameterAllowReservedAdded,
                owner,
                crumbs,
                "reserved characters may now be sent unencoded".into(),
                (false, true),
                at,
            ),
            _ => {}
        }
        self.deprecated(
            StructureRule::RequestParameterDeprecated,
            owner,
            crumbs,
            format_args!("parameter `{name}`"),
            (p.deprecated, c.deprecated),
            at,
        );
        self.text(
            (
                StructureRule::RequestParameterDescriptionChanged,
                "description",
            ),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        if let (Some(ps), Some(cs)) = (Self::param_schema(p), Self::param_schema(c)) {
            // Most parameters are small inline schemas that did not change: skip the walk.
            let key = PointerPair::new(ps, cs);
            let unchanged = match self.memo.param_same.get(&key) {
                Some(&same) => same,
                None => {
                    let same = match (self.previous.nav.lookup(ps), self.current.nav.lookup(cs)) {
                        (Some(a), Some(b)) => crate::schema::same_without_refs(a, b),
                        _ => false,
                    };
                    self.memo.param_same.insert(key, same);
                    same
                }
            };
            if !unchanged {
                let role = if inverted {
                    Role::CallbackParameter
                } else {
                    Role::RequestParameter
                };
                self.schema(owner, crumbs, role, ps, cs, 0);
            }
        }
    }
}
