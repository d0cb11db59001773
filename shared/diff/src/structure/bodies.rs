//! Request bodies and responses: presence and required-ness of a body, media types, the
//! schema under each (compared once when Swagger 2.0 repeats it under every media type),
//! response statuses, descriptions and headers.

use specpress_spec::{Location, Map, MediaType, RequestBody, Response};

use super::matching::small_get_near;
use crate::change::{Crumb, NodeKind, Status};
use crate::context::Context;
use crate::rules::{Role, StructureRule};

fn is_success(status: &str) -> bool {
    matches!(status.as_bytes().first(), Some(b'1' | b'2' | b'3'))
}

impl<'a> Context<'a> {
    fn media_crumb(
        &mut self,
        prev: &Map<String, MediaType>,
        cur: &Map<String, MediaType>,
        key: &'a str,
    ) -> Option<Crumb> {
        (prev.len() > 1 || cur.len() > 1).then(|| self.crumb(NodeKind::MediaType, key))
    }

    pub(super) fn request_body(
        &mut self,
        owner: usize,
        p: Option<&'a RequestBody>,
        c: Option<&'a RequestBody>,
    ) {
        let body = Crumb::new(NodeKind::Body, "body");
        // In a callback the API sends the request body and subscribers read it: adding one
        // is harmless to them, taking it away (or making it optional) is not.
        let inverted = self.inverted;
        match (p, c) {
            (None, None) => {}
            (None, Some(c)) => {
                let (b, what) = match (inverted, c.required) {
                    (true, true) => (StructureRule::CallbackBodyAdded, "a required"),
                    (true, false) => (StructureRule::CallbackBodyAdded, "an optional"),
                    (false, true) => (StructureRule::RequestRequiredBodyAdded, "a required"),
                    (false, false) => (StructureRule::RequestBodyAdded, "an optional"),
                };
                self.presence(
                    (b, Status::Added),
                    owner,
                    &[body],
                    format!("{what} request body was added"),
                    (None, Some(&c.source)),
                );
            }
            (Some(p), None) => self.presence(
                (
                    if inverted {
                        StructureRule::CallbackBodyRemoved
                    } else {
                        StructureRule::RequestBodyRemoved
                    },
                    Status::Removed,
                ),
                owner,
                &[body],
                "the request body was removed".into(),
                (Some(&p.source), None),
            ),
            (Some(p), Some(c)) => {
                let at = (Some(&p.source), Some(&c.source));
                let crumbs = vec![body];
                self.required(
                    if inverted {
                        (
                            StructureRule::CallbackBodyBecameRequired,
                            StructureRule::CallbackBodyBecameOptional,
                        )
                    } else {
                        (
                            StructureRule::RequestBodyBecameRequired,
                            StructureRule::RequestBodyBecameOptional,
                        )
                    },
                    owner,
                    &crumbs,
                    format_args!("the request body"),
                    (p.required, c.required),
                    at,
                );
                self.text(
                    (StructureRule::RequestBodyDescriptionChanged, "description"),
                    owner,
                    &crumbs,
                    (p.description.as_deref(), c.description.as_deref()),
                    at,
                );
                let mut crumbs = crumbs;
                self.content(owner, &mut crumbs, &p.content, &c.content, true);
            }
        }
    }

    /// Media types of a request body or response. `base` is the crumb path of the body or
    /// response; it is extended for each media type and left as it was given.
    fn content(
        &mut self,
        owner: usize,
        base: &mut Vec<Crumb>,
        prev: &'a Map<String, MediaType>,
        cur: &'a Map<String, MediaType>,
        request: bool,
    ) {
        let request = request != self.inverted;
        let depth = base.len();
        // The schema pair compared under the previous media type. Swagger 2.0 gives every
        // media type of a body or response the same schema: it is compared once, under the
        // first, where its changes and its links to shared components are reported (comparing
        // it again would find no change, the pair being memoized, but would repeat every link
        // under every media type).
        let mut last: Option<(&Location, &Location)> = None;
        for (i, (mt, c)) in cur.iter().enumerate() {
            base.truncate(depth);
            match small_get_near(prev, i, mt) {
                None => {
                    let crumb = self.crumb(NodeKind::MediaType, mt);
                    base.push(crumb);
                    let b = if request {
                        StructureRule::RequestBodyMediaTypeAdded
                    } else {
                        StructureRule::ResponseMediaTypeAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        base,
                        format!("media type `{mt}` was added"),
                        (None, Some(&c.source)),
                    );
                }
                Some(p) => {
                    if let Some(mc) = self.media_crumb(prev, cur, mt) {
                        base.push(mc);
                    }
                    let at = (Some(&p.source), Some(&c.source));
                    match (&p.schema, &c.schema) {
                        (Some(ps), Some(cs)) => {
                            if last == Some((ps, cs)) {
                                continue;
                            }
                            last = Some((ps, cs));
                            let role = if request {
                                Role::RequestBody
                            } else {
                                Role::ResponseBody
                            };
                            self.schema(owner, base, role, ps, cs, 0);
                        }
                        (None, Some(_)) => {
                            let b = if request {
                                StructureRule::RequestBodySchemaAdded
                            } else {
                                StructureRule::ResponseBodySchemaAdded
                            };
                            self.base(
                                b,
                                owner,
                                base,
                                Status::Modified,
                                format!("media type `{mt}` now declares a schema"),
                                None,
                                None,
                                at,
                            );
                        }
                        (Some(_), None) => {
                            let b = if request {
                                StructureRule::RequestBodySchemaRemoved
                            } else {
                                StructureRule::ResponseBodySchemaRemoved
                            };
                            self.base(
                                b,
                                owner,
                                base,
                                Status::Modified,
                                format!("media type `{mt}` no longer declares a schema"),
                                None,
                                None,
                                at,
                            );
                        }
                        (None, None) => {}
                    }
                }
            }
        }
        for (i, (mt, p)) in prev.iter().enumerate() {
            if small_get_near(cur, i, mt).is_some() {
                continue;
            }
            base.truncate(depth);
            let crumb = self.crumb(NodeKind::MediaType, mt);
            base.push(crumb);
            let b = if request {
                StructureRule::RequestBodyMediaTypeRemoved
            } else {
                StructureRule::ResponseMediaTypeRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                base,
                format!("media type `{mt}` was removed"),
                (Some(&p.source), None),
            );
        }
        base.truncate(depth);
    }

    pub(super) fn responses(
        &mut self,
        owner: usize,
        prev: &'a Map<String, Response>,
        cur: &'a Map<String, Response>,
    ) {
        // One crumb path for every response (each comparison leaves it as it got it).
        let mut crumbs: Vec<Crumb> = Vec::with_capacity(4);
        for (i, (status, c)) in cur.iter().enumerate() {
            let crumb = self.crumb(NodeKind::Response, status);
            crumbs.clear();
            crumbs.push(crumb);
            match small_get_near(prev, i, status) {
                Some(p) => self.response(owner, &mut crumbs, p, c),
                None => {
                    let b = if is_success(status) {
                        StructureRule::ResponseSuccessStatusAdded
                    } else {
                        StructureRule::ResponseNonSuccessStatusAdded
                    };
                    self.presence(
                        (b, Status::Added),
                        owner,
                        &crumbs,
                        format!("response `{status}` was added"),
                        (None, Some(&c.source)),
                    );
                }
            }
        }
        for (i, (status, p)) in prev.iter().enumerate() {
            if small_get_near(cur, i, status).is_some() {
                continue;
            }
            let crumbs = [Crumb::new(NodeKind::Response, status.as_str())];
            let b = if is_success(status) {
                StructureRule::ResponseSuccessStatusRemoved
            } else {
                StructureRule::ResponseNonSuccessStatusRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &crumbs,
                format!("response `{status}` was removed"),
                (Some(&p.source), None),
            );
        }
    }

    fn response(
        &mut self,
        owner: usize,
        crumbs: &mut Vec<Crumb>,
        p: &'a Response,
        c: &'a Response,
    ) {
        let at = (Some(&p.source), Some(&c.source));
        self.text(
            (StructureRule::ResponseDescriptionChanged, "description"),
            owner,
            crumbs,
            (p.description.as_deref(), c.description.as_deref()),
            at,
        );
        self.content(owner, crumbs, &p.content, &c.content, false);
        if p.headers.is_empty() && c.headers.is_empty() {
            return;
        }
        let lower = |m: &'a Map<String, specpress_spec::Header>| {
            m.iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), (k, v)))
                .collect::<Map<_, _>>()
        };
        let ph = lower(&p.headers);
        let ch = lower(&c.headers);
        for (k, (name, c)) in &ch {
            let mut hc = crumbs.clone();
            hc.push(Crumb::new(NodeKind::Header, name.as_str()));
            match ph.get(k) {
                None => self.presence(
                    (StructureRule::ResponseHeaderAdded, Status::Added),
                    owner,
                    &hc,
                    format!("header `{name}` was added"),
                    (None, Some(&c.source)),
                ),
                Some((_, p)) => {
                    let at = (Some(&p.source), Some(&c.source));
                    self.required(
                        (
                            StructureRule::ResponseHeaderBecameRequired,
                            StructureRule::ResponseHeaderBecameOptional,
                        ),
                        owner,
                        &hc,
                        format_args!("header `{name}`"),
                        (p.required, c.required),
                        at,
                    );
                    self.deprecated(
                        StructureRule::ResponseHeaderDeprecated,
                        owner,
                        &hc,
                        format_args!("header `{name}`"),
                        (p.deprecated, c.deprecated),
                        at,
                    );
                    self.text(
                        (
                            StructureRule::ResponseHeaderDescriptionChanged,
                            "description",
                        ),
                        owner,
                        &hc,
                        (p.description.as_deref(), c.description.as_deref()),
                        at,
                    );
                    if let (Some(ps), Some(cs)) = (&p.schema, &c.schema) {
                        self.schema(owner, &mut hc, Role::ResponseHeader, ps, cs, 0);
                    }
                }
            }
        }
        for (k, (name, p)) in &ph {
            if ch.contains_key(k) {
                continue;
            }
            let mut hc = crumbs.clone();
            hc.push(Crumb::new(NodeKind::Header, name.as_str()));
            let b = if p.required {
                StructureRule::ResponseRequiredHeaderRemoved
            } else {
                StructureRule::ResponseHeaderRemoved
            };
            self.presence(
                (b, Status::Removed),
                owner,
                &hc,
                format!("header `{name}` was removed"),
                (Some(&p.source), None),
            );
        }
    }
}
