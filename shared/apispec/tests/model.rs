//! The normalized model, references across files, diagnostics and the fingerprint.

use specpress_apispec::{
    Direction, Document, FileId, Limits, Location, OperationKind, ParameterIn, Reference,
    SYNTHETIC_FILE, SourceFormat, SpecVersion, V, check, parse,
};

fn ok(text: &str) -> Document {
    match check(text, &[], &Limits::default()) {
        Ok(d) => d,
        Err(e) => panic!("expected a valid document: {e}"),
    }
}

fn op<'a>(doc: &'a Document, method: &str, path: &str) -> &'a specpress_apispec::Operation {
    doc.model()
        .operations
        .iter()
        .find(|(k, _)| k.method == method && k.path == path)
        .map(|(_, o)| o)
        .unwrap_or_else(|| {
            panic!(
                "no {method} {path} in {:?}",
                doc.model().operations.keys().collect::<Vec<_>>()
            )
        })
}

const SWAGGER: &str = r##"
swagger: "2.0"
info: {title: Pets, version: "1.0"}
host: api.example.com
basePath: /v1
schemes: [https, http]
consumes: [application/json]
produces: [application/json, application/xml]
paths:
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, type: string}
      - {name: verbose, in: query, type: boolean}
    put:
      operationId: updatePet
      parameters:
        - {name: verbose, in: query, type: integer, required: true}
        - name: body
          in: body
          required: true
          schema: {$ref: "#/definitions/Pet"}
      responses:
        "200":
          description: ok
          schema: {$ref: "#/definitions/Pet"}
          headers:
            X-Rate: {type: integer}
        "204": {description: empty}
    post:
      operationId: uploadPhoto
      consumes: [multipart/form-data]
      parameters:
        - {name: file, in: formData, type: file, required: true}
        - {name: caption, in: formData, type: string, maxLength: 80}
      responses:
        default: {description: err}
definitions:
  Pet: {type: object, properties: {name: {type: string}}}
securityDefinitions:
  key: {type: apiKey, in: header, name: X-Key}
  oauth: {type: oauth2, flow: implicit, authorizationUrl: "https://a.example/auth", scopes: {read: Read}}
"##;

#[test]
fn swagger_body_params_become_a_request_body_per_consumes_type() {
    let doc = ok(SWAGGER);
    assert_eq!(doc.version(), SpecVersion::OpenApi20);
    assert_eq!(doc.specification(), "openapi/v2/yaml");
    let put = op(&doc, "PUT", "/pets/{}");
    assert_eq!(put.operation_id.as_deref(), Some("updatePet"));
    let body = put.request_body.as_ref().expect("body");
    assert!(body.required);
    assert_eq!(
        body.content.keys().collect::<Vec<_>>(),
        ["application/json"]
    );
    let schema = body.content["application/json"].schema.as_ref().unwrap();
    let (at, _) = doc.resolve(schema).unwrap();
    assert_eq!(at.pointer, "/definitions/Pet");
}

#[test]
fn swagger_responses_get_one_media_type_per_produces_type() {
    let doc = ok(SWAGGER);
    let put = op(&doc, "PUT", "/pets/{}");
    let r = &put.responses["200"];
    assert_eq!(
        r.content.keys().collect::<Vec<_>>(),
        ["application/json", "application/xml"]
    );
    assert!(
        put.responses["204"].content.is_empty(),
        "no schema, no content"
    );
    let h = &r.headers["X-Rate"];
    assert_eq!(
        doc.value(h.schema.as_ref().unwrap()).unwrap().to_value()["type"],
        "integer"
    );
}

#[test]
fn swagger_form_data_becomes_a_synthetic_object_schema() {
    let doc = ok(SWAGGER);
    let post = op(&doc, "POST", "/pets/{}");
    let body = post.request_body.as_ref().expect("form body");
    assert!(body.required);
    assert_eq!(
        body.content.keys().collect::<Vec<_>>(),
        ["multipart/form-data"]
    );
    let loc = body.content["multipart/form-data"].schema.clone().unwrap();
    assert_eq!(doc.file_name(loc.file), Some(SYNTHETIC_FILE));
    let schema = doc.value(&loc).unwrap().to_value();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["file"]["type"], "file");
    assert_eq!(schema["properties"]["caption"]["maxLength"], 80);
    assert!(schema["properties"]["caption"].get("in").is_none());
    assert_eq!(schema["required"], serde_json::json!(["file"]));
    // The synthetic file does not change the fingerprint or the JSON download.
    assert!(!doc.to_json().contains("properties\":{\"caption"));
}

#[test]
fn swagger_path_level_params_merge_and_operation_level_wins() {
    let doc = ok(SWAGGER);
    let put = op(&doc, "PUT", "/pets/{}");
    let names: Vec<(&str, ParameterIn)> = put
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.location))
        .collect();
    assert_eq!(
        names,
        [
            ("petId", ParameterIn::Path),
            ("verbose", ParameterIn::Query)
        ]
    );
    let verbose = &put.parameters[1];
    assert!(
        verbose.required,
        "operation-level definition overrides the path-level one"
    );
    assert_eq!(
        doc.value(verbose.schema.as_ref().unwrap())
            .unwrap()
            .to_value()["type"],
        "integer"
    );
    assert_eq!(put.parameters[0].path_index, Some(0));
    // POST inherits the path-level ones.
    assert_eq!(op(&doc, "POST", "/pets/{}").parameters.len(), 2);
}

#[test]
fn swagger_host_base_path_and_schemes_become_servers() {
    let doc = ok(SWAGGER);
    let urls: Vec<&str> = doc.model().servers.iter().map(|s| s.url.as_str()).collect();
    assert_eq!(
        urls,
        ["https://api.example.com/v1", "http://api.example.com/v1"]
    );
    let ss = &doc.model().security_schemes;
    assert_eq!(ss["key"].location.as_deref(), Some("header"));
    assert_eq!(ss["oauth"].flows["implicit"]["read"], "Read");
    assert!(doc.model().schemas.contains_key("Pet"));
}

const OAS3: &str = r##"{
  "openapi": "3.1.0",
  "info": {"title": "Shop", "version": "2", "description": "d"},
  "servers": [{"url": "https://{env}.example.com", "variables": {"env": {"default": "api", "enum": ["api", "beta"]}}}],
  "security": [{"bearer": []}],
  "paths": {
    "/orders/{orderId}/items/{itemId}": {
      "parameters": [
        {"$ref": "#/components/parameters/OrderId"},
        {"name": "itemId", "in": "path", "required": true, "schema": {"type": "string"}},
        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}}
      ],
      "get": {
        "operationId": "getItem",
        "tags": ["items"],
        "deprecated": true,
        "x-sunset": "2027-01-01",
        "parameters": [{"name": "X-Trace", "in": "header", "required": true, "schema": {"type": "integer"}}],
        "responses": {"200": {"$ref": "#/components/responses/Item"}}
      },
      "post": {
        "operationId": "addItem",
        "security": [],
        "requestBody": {"$ref": "#/components/requestBodies/NewItem"},
        "responses": {"201": {"description": "created"}},
        "callbacks": {"done": {"{$request.body#/url}": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}, "responses": {"200": {"description": "ok"}}}}}}
      }
    }
  },
  "webhooks": {"orderShipped": {"post": {"responses": {"200": {"description": "ok"}}}}},
  "components": {
    "parameters": {"OrderId": {"name": "orderId", "in": "path", "required": true, "schema": {"type": "integer"}}},
    "responses": {"Item": {"description": "an item", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}}},
    "requestBodies": {"NewItem": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}, "multipart/form-data": {"schema": {"type": "object"}, "encoding": {"a": {"contentType": "text/plain"}}}}}},
    "schemas": {"Item": {"type": "object", "properties": {"id": {"type": "string"}}}},
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}
  }
}"##;

#[test]
fn openapi3_operations_are_keyed_by_method_and_normalized_path() {
    let doc = ok(OAS3);
    assert_eq!(doc.version(), SpecVersion::OpenApi31);
    assert_eq!(doc.specification(), "openapi/v3/json");
    assert_eq!(
        (doc.title(), doc.api_version(), doc.description()),
        ("Shop", "2", Some("d"))
    );
    let get = op(&doc, "GET", "/orders/{}/items/{}");
    assert_eq!(get.path, "/orders/{orderId}/items/{itemId}");
    assert!(get.deprecated);
    assert_eq!(get.sunset.as_deref(), Some("2027-01-01"));
    assert_eq!(get.tags, ["items"]);
}

#[test]
fn operations_are_in_key_order_and_the_first_written_of_one_key_wins() {
    // Two templates that differ only in parameter names make one key (the document is not valid: `parse` alone).
    let doc = parse(
        r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /zebras:
    get: {summary: zebras, responses: {"200": {description: ok}}}
  /pets/{id}:
    put: {summary: first put, responses: {"200": {description: ok}}}
    get: {summary: first get, responses: {"200": {description: ok}}}
  /pets/{petId}:
    get: {summary: second get, responses: {"200": {description: ok}}}
    delete: {summary: delete, responses: {"204": {description: gone}}}
"#,
        &[],
        &Limits::default(),
    )
    .unwrap_or_else(|e| panic!("parses: {e}"));
    let keys: Vec<String> = doc
        .model()
        .operations
        .keys()
        .map(|k| format!("{} {}", k.method, k.path))
        .collect();
    assert_eq!(
        keys,
        [
            "DELETE /pets/{}",
            "GET /pets/{}",
            "GET /zebras",
            "PUT /pets/{}"
        ]
    );
    let get = op(&doc, "GET", "/pets/{}");
    assert_eq!(
        (get.summary.as_deref(), get.path.as_str()),
        (Some("first get"), "/pets/{id}")
    );
    assert_eq!(op(&doc, "DELETE", "/pets/{}").path, "/pets/{petId}");
}

#[test]
fn openapi3_path_level_params_merge_with_ref_following_and_override() {
    let doc = ok(OAS3);
    let get = op(&doc, "GET", "/orders/{}/items/{}");
    let ps: Vec<(&str, Option<usize>, bool)> = get
        .parameters
        .iter()
        .map(|p| (p.name.as_str(), p.path_index, p.required))
        .collect();
    assert_eq!(
        ps,
        [
            ("orderId", Some(0), true),
            ("itemId", Some(1), true),
            ("X-Trace", None, true)
        ]
    );
    assert_eq!(
        get.parameters[0].source.pointer,
        "/components/parameters/OrderId"
    );
    let trace_schema = get.parameters[2].schema.as_ref().unwrap();
    assert_eq!(
        doc.value(trace_schema).unwrap().to_value()["type"],
        "integer"
    );
}

#[test]
fn openapi3_bodies_responses_callbacks_webhooks_and_security() {
    let doc = ok(OAS3);
    let post = op(&doc, "POST", "/orders/{}/items/{}");
    let body = post.request_body.as_ref().unwrap();
    assert!(body.required);
    assert_eq!(body.source.pointer, "/components/requestBodies/NewItem");
    assert!(body.content["multipart/form-data"].encoding.is_some());
    assert_eq!(
        post.security.as_ref().map(Vec::len),
        Some(0),
        "explicit empty security overrides"
    );
    assert_eq!(post.callbacks["done"].len(), 1);
    assert_eq!(post.callbacks["done"][0].key.method, "POST");
    let get = op(&doc, "GET", "/orders/{}/items/{}");
    assert!(get.security.is_none(), "inherits the document's");
    let item = &get.responses["200"];
    assert_eq!(item.description.as_deref(), Some("an item"));
    let hook = doc
        .model()
        .operations
        .keys()
        .find(|k| k.kind == OperationKind::Webhook)
        .unwrap();
    assert_eq!(
        (hook.method.as_str(), hook.path.as_str()),
        ("POST", "orderShipped")
    );
    let m = doc.model();
    assert_eq!(m.servers[0].variables["env"].enumeration, ["api", "beta"]);
    assert_eq!(
        m.security_schemes["bearer"].bearer_format.as_deref(),
        Some("JWT")
    );
    assert_eq!(
        m.security.as_ref().unwrap()[0]["bearer"],
        Vec::<String>::new()
    );
}

const ASYNC2: &str = r##"
asyncapi: 2.6.0
info: {title: Lights, version: 1.0.0}
defaultContentType: application/json
servers:
  prod: {url: "mqtt://broker.example.com", protocol: mqtt}
channels:
  light/{id}/measured:
    parameters:
      id: {schema: {type: string}}
    publish:
      operationId: onMeasured
      message: {$ref: "#/components/messages/Measured"}
    subscribe:
      operationId: sendMeasured
      message:
        oneOf:
          - {$ref: "#/components/messages/Measured"}
          - {name: Other, payload: {type: string}, contentType: text/plain}
components:
  messages:
    Measured:
      payload: {type: object, properties: {lumens: {type: integer}}}
      correlationId: {location: "$message.header#/id"}
"##;

#[test]
fn asyncapi2_publish_is_receive_and_subscribe_is_send() {
    let doc = ok(ASYNC2);
    assert_eq!(doc.version(), SpecVersion::AsyncApi2 { minor: 6 });
    assert_eq!(doc.specification(), "asyncapi/v2/yaml");
    let m = doc.model();
    let dirs: Vec<(Direction, &str, Option<&str>)> = m
        .message_operations
        .values()
        .map(|o| {
            (
                o.key.direction,
                o.key.channel.as_str(),
                o.operation_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        dirs,
        [
            (Direction::Send, "light/{}/measured", Some("sendMeasured")),
            (Direction::Receive, "light/{}/measured", Some("onMeasured"))
        ]
    );
    let recv = m
        .message_operations
        .values()
        .find(|o| o.key.direction == Direction::Receive)
        .unwrap();
    let msg = &recv.messages["Measured"];
    assert_eq!(msg.content_type.as_deref(), Some("application/json"));
    assert_eq!(msg.correlation_id.as_deref(), Some("$message.header#/id"));
    assert_eq!(
        doc.value(msg.payload.as_ref().unwrap()).unwrap().to_value()["type"],
        "object"
    );
    let send = m
        .message_operations
        .values()
        .find(|o| o.key.direction == Direction::Send)
        .unwrap();
    assert_eq!(
        send.messages.keys().collect::<Vec<_>>(),
        ["Measured", "Other"]
    );
    assert_eq!(
        send.messages["Other"].content_type.as_deref(),
        Some("text/plain")
    );
    assert_eq!(m.channels["light/{}/measured"].parameters.len(), 1);
    assert_eq!(m.servers[0].protocol.as_deref(), Some("mqtt"));
}

const ASYNC3: &str = r##"
asyncapi: 3.0.0
info: {title: Chat, version: 1.0.0}
channels:
  room:
    address: rooms/{roomId}
    parameters:
      roomId: {description: the room}
    messages:
      said: {$ref: "#/components/messages/Said"}
      left: {payload: {type: string}}
operations:
  say:
    action: send
    channel: {$ref: "#/channels/room"}
    messages: [{$ref: "#/channels/room/messages/said"}]
  shout:
    action: send
    channel: {$ref: "#/channels/room"}
  hear:
    action: receive
    channel: {$ref: "#/channels/room"}
components:
  messages:
    Said:
      payload:
        schemaFormat: application/vnd.apache.avro;version=1.9.0
        schema: {type: record, name: Said, fields: []}
"##;

#[test]
fn asyncapi3_send_and_receive_map_onto_directions_with_discriminators() {
    let doc = ok(ASYNC3);
    assert_eq!(doc.version(), SpecVersion::AsyncApi30);
    assert_eq!(doc.specification(), "asyncapi/v3/yaml");
    let m = doc.model();
    let keys: Vec<(Direction, &str, Option<&str>)> = m
        .message_operations
        .keys()
        .map(|k| (k.direction, k.channel.as_str(), k.discriminator.as_deref()))
        .collect();
    assert_eq!(
        keys,
        [
            (Direction::Send, "rooms/{}", Some("say")),
            (Direction::Send, "rooms/{}", Some("shout")),
            (Direction::Receive, "rooms/{}", None),
        ]
    );
    let say = m
        .message_operations
        .values()
        .find(|o| o.operation_id.as_deref() == Some("say"))
        .unwrap();
    let said = &say.messages["said"];
    assert_eq!(
        said.schema_format.as_deref(),
        Some("application/vnd.apache.avro;version=1.9.0")
    );
    assert_eq!(
        doc.value(said.payload.as_ref().unwrap())
            .unwrap()
            .to_value()["type"],
        "record"
    );
    let hear = m
        .message_operations
        .values()
        .find(|o| o.operation_id.as_deref() == Some("hear"))
        .unwrap();
    assert_eq!(
        hear.messages.keys().collect::<Vec<_>>(),
        ["said", "left"],
        "no messages listed: all of the channel's"
    );
    assert_eq!(hear.channel_address, "rooms/{roomId}");
}

#[test]
fn external_references_resolve_relative_to_their_own_file() {
    let root = r##"
openapi: 3.0.3
info: {title: Multi, version: "1"}
paths:
  /pets:
    $ref: "paths\\pets.yaml"
"##;
    let refs = vec![
        Reference {
            location: "./paths/pets.yaml".into(),
            content: "get:\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema: {$ref: '../schemas/pet.json#/Pet'}\n".into(),
            name: None,
        },
        Reference { location: "schemas/pet.json".into(), content: r#"{"Pet": {"type": "object"}}"#.into(), name: None },
        Reference { location: "doc/intro.md".into(), content: "# Hello".into(), name: None },
    ];
    let doc = check(root, &refs, &Limits::default()).expect("valid multi-file document");
    assert_eq!(doc.file_count(), 4);
    let get = op(&doc, "GET", "/pets");
    assert_eq!(doc.file_name(get.source.file), Some("./paths/pets.yaml"));
    let schema = get.responses["200"].content["application/json"]
        .schema
        .as_ref()
        .unwrap();
    let (at, v) = doc.resolve(schema).unwrap();
    assert_eq!(
        (doc.file_name(at.file), at.pointer.as_str()),
        (Some("schemas/pet.json"), "/Pet")
    );
    assert_eq!(v.get("type").and_then(V::as_str), Some("object"));
    assert_eq!(
        doc.ref_target(get.source.file, "../doc/intro.md")
            .unwrap()
            .file,
        FileId(3)
    );
    assert!(
        doc.to_json().contains(r#""$ref":"paths\\pets.yaml""#),
        "refs stay refs"
    );
    assert_eq!(doc.file_name(FileId::ROOT), None);
    // A missing file is an error naming the ref and where it is used.
    let e = parse(root, &refs[..1], &Limits::default()).unwrap_err();
    let d = &e.diagnostics[0];
    assert_eq!(d.code, "unresolved-ref");
    assert_eq!(d.file.as_deref(), Some("./paths/pets.yaml"));
    assert!(d.message.contains("../schemas/pet.json#/Pet"), "{d}");
    assert_eq!(d.line, Some(7), "{d}");
}

#[test]
fn a_pointer_through_a_ref_is_followed() {
    let text = r##"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},
      "components":{"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{"type":"object","properties":{"x":{"type":"string"}}},
      "C":{"$ref":"#/components/schemas/A/properties/x"}}}}"##;
    let doc = ok(text);
    let c = Location::root(FileId::ROOT)
        .child("components")
        .child("schemas")
        .child("C");
    let (at, v) = doc.resolve(&c).unwrap();
    assert_eq!(at.pointer, "/components/schemas/B/properties/x");
    assert_eq!(v.get("type").and_then(V::as_str), Some("string"));
}

#[test]
fn schema_errors_carry_pointer_line_and_column_in_yaml_and_json() {
    let yaml = "openapi: 3.0.3\ninfo:\n  title: T\n  version: 1\npaths:\n  /a:\n    get:\n      responses:\n        '200': {}\n";
    let e = check(yaml, &[], &Limits::default()).unwrap_err();
    let v = e
        .diagnostics
        .iter()
        .find(|d| d.pointer == "/info/version")
        .unwrap_or_else(|| panic!("{e}"));
    assert_eq!(v.code, "schema");
    assert_eq!((v.line, v.column), (Some(4), Some(3)));
    assert!(v.message.contains("string"), "{v}");
    let r = e
        .diagnostics
        .iter()
        .find(|d| d.pointer.starts_with("/paths/~1a/get/responses/200"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(r.message.contains("description"), "{r}");
    assert_eq!(r.line, Some(9));
    let json = "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"T\"},\n  \"paths\": {}\n}";
    let e = check(json, &[], &Limits::default()).unwrap_err();
    let d = &e.diagnostics[0];
    assert_eq!(d.pointer, "/info");
    assert!(d.message.contains("version"), "{d}");
    assert_eq!((d.line, d.column), (Some(3), Some(3)));
    assert_eq!(
        d.to_string(),
        format!("{} (at #/info, line 3, column 3)", d.message)
    );
}

#[test]
fn asyncapi_2_duplicate_operation_ids_name_the_first_use() {
    let text = "asyncapi: 2.6.0
info: {title: T, version: '1'}
channels:
  a:
    publish: {operationId: same, message: {payload: {type: string}}}
  b:
    subscribe: {operationId: same, message: {payload: {type: string}}}
";
    let doc = parse(text, &[], &Limits::default()).unwrap();
    let dups: Vec<_> = doc
        .validate()
        .into_iter()
        .filter(|d| d.code == "duplicate-operation-id")
        .collect();
    assert_eq!(dups.len(), 1, "{dups:?}");
    // Operations are visited in the model's order (by channel and direction): one use is reported, naming the other.
    let (a, b) = ("/channels/a/publish", "/channels/b/subscribe");
    let (reported, named) = if dups[0].pointer.starts_with(a) {
        (a, b)
    } else {
        (b, a)
    };
    assert_eq!(dups[0].pointer, format!("{reported}/operationId"));
    assert!(dups[0].message.contains(named), "{}", dups[0].message);
    assert!(check(text, &[], &Limits::default()).is_err());
}

#[test]
fn semantic_rules_duplicate_operation_ids_and_path_parameters() {
    let text = r#"
openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a/{id}:
    get: {operationId: same, responses: {"200": {description: ok}}}
  /b:
    get:
      operationId: same
      parameters: [{name: ghost, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
"#;
    let doc = parse(text, &[], &Limits::default()).unwrap();
    let ds = doc.validate();
    let codes: Vec<&str> = ds.iter().map(|d| d.code).collect();
    assert!(codes.contains(&"duplicate-operation-id"), "{codes:?}");
    assert!(codes.contains(&"missing-path-parameter"), "{codes:?}");
    assert!(codes.contains(&"unknown-path-parameter"), "{codes:?}");
    let dup = ds
        .iter()
        .find(|d| d.code == "duplicate-operation-id")
        .unwrap();
    assert_eq!(dup.pointer, "/paths/~1b/get/operationId");
    assert_eq!(dup.line, Some(9));
    assert!(check(text, &[], &Limits::default()).is_err());
}

#[test]
fn parse_owned_keeps_the_texts_and_locates_diagnostics_as_parse_does() {
    let root = "\u{feff}openapi: 3.0.3
info: {title: T, version: '1'}
paths:
  /a:
    $ref: 'paths.yaml#/a'
";
    let references = vec![Reference {
        location: "paths.yaml".to_string(),
        content: "a:
  get:
    parameters: [{name: ghost, in: path, required: true, schema: {type: string}}]
    responses: {'200': {description: ok}}
"
        .to_string(),
        name: None,
    }];
    let limits = Limits::default();
    let copied = parse(root, &references, &limits).unwrap_or_else(|e| panic!("parses: {e}"));
    let owned = specpress_apispec::parse_owned(root.to_string(), references, &limits)
        .unwrap_or_else(|e| panic!("parses: {e}"));
    let located = |doc: &Document| {
        doc.validate()
            .into_iter()
            .map(|d| format!("{:?} {} {:?} {:?}", d.file, d.pointer, d.line, d.column))
            .collect::<Vec<_>>()
    };
    let diagnostics = located(&owned);
    assert!(
        diagnostics
            .iter()
            .any(|d| d.starts_with("Some(\"paths.yaml\")") && d.ends_with("Some(3) Some(18)")),
        "{diagnostics:?}"
    );
    assert_eq!(diagnostics, located(&copied));
    assert_eq!(owned.fingerprint_hex(), copied.fingerprint_hex());
}

#[test]
fn fingerprint_ignores_formatting_key_order_and_json_vs_yaml() {
    let json = r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}},"x-n":1.0}"#;
    let pretty = "{\n  \"paths\": {\"/a\": {\"get\": {\"responses\": {\"200\": {\"description\": \"ok\"}}}}},\n  \"x-n\": 1,\n  \"info\": {\"version\": \"1\", \"title\": \"T\"},\n  \"openapi\": \"3.0.3\"\n}";
    let yaml = "# comment\nopenapi: 3.0.3\ninfo:\n  version: '1'\n  title: T\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\nx-n: 1\n";
    let a = ok(json);
    let b = ok(pretty);
    let c = ok(yaml);
    assert_eq!(c.format(), SourceFormat::Yaml);
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint(), c.fingerprint());
    assert_eq!(a.fingerprint_hex().len(), 64);
}

#[test]
fn fingerprint_changes_on_a_real_change() {
    let base = ok(r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{}}"#);
    for changed in [
        r#"{"openapi":"3.0.3","info":{"title":"T","version":"2"},"paths":{}}"#,
        r#"{"openapi":"3.0.3","info":{"title":"T","version":"1","description":""},"paths":{}}"#,
        r#"{"openapi":"3.0.3","info":{"title":"T ","version":"1"},"paths":{}}"#,
        r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"x-a":[1,2]}"#,
        r#"{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"x-a":[2,1]}"#,
    ] {
        assert_ne!(base.fingerprint(), ok(changed).fingerprint(), "{changed}");
    }
    // References are part of the content.
    let root = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\ncomponents: {schemas: {A: {$ref: 'a.yaml'}}}\n";
    let r1 = [Reference {
        location: "a.yaml".into(),
        content: "type: string".into(),
        name: None,
    }];
    let r2 = [Reference {
        location: "a.yaml".into(),
        content: "type: integer".into(),
        name: None,
    }];
    let d1 = parse(root, &r1, &Limits::default()).unwrap();
    let d2 = parse(root, &r2, &Limits::default()).unwrap();
    assert_ne!(d1.fingerprint(), d2.fingerprint());
}

#[test]
fn yaml_scalars_follow_the_yaml_1_2_core_schema() {
    let yaml = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\nx-v: [on, no, yes, true, ~, 0x1F, 0o17, 1.5, '1', -3, .5, 1e3]\n";
    let doc = parse(yaml, &[], &Limits::default()).unwrap();
    assert_eq!(
        doc.root().get("x-v").map(V::to_value),
        Some(serde_json::json!([
            "on", "no", "yes", true, null, 31, 15, 1.5, "1", -3, 0.5, 1000.0
        ]))
    );
}

#[test]
fn every_bundled_schema_compiles_offline() {
    specpress_apispec::warm_up()
        .expect("all vendored JSON Schemas compile without any network access");
}

#[test]
fn asyncapi_2_0_and_openapi_3_0_minimal_documents_validate() {
    ok("asyncapi: 2.0.0\ninfo: {title: T, version: '1'}\nchannels: {}\n");
    ok(
        "asyncapi: '2.4.0'\ninfo: {title: T, version: '1'}\nchannels:\n  a:\n    subscribe:\n      message: {payload: {type: string}}\n",
    );
    ok("openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths: {}\n");
    let e = check(
        "asyncapi: 2.0.0\ninfo: {title: T}\nchannels: {}\n",
        &[],
        &Limits::default(),
    )
    .unwrap_err();
    assert!(
        e.diagnostics.iter().any(|d| d.message.contains("version")),
        "{e}"
    );
}

#[test]
fn documents_and_errors_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Document>();
    assert_send_sync::<specpress_apispec::Invalid>();
    assert_send_sync::<specpress_apispec::RefError>();
}

#[test]
fn one_of_failures_report_the_closest_branch() {
    // Swagger 2.0 parameters are oneOf [body, non-body]: a query parameter without `type`
    // must be told so, not that `in` should be "body".
    let text = "swagger: '2.0'\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      parameters: [{name: q, in: query}]\n      responses: {'200': {description: ok}}\n";
    let e = check(text, &[], &Limits::default()).unwrap_err();
    assert_eq!(e.diagnostics.len(), 1, "{e}");
    let d = &e.diagnostics[0];
    assert!(d.message.contains("\"type\" is a required property"), "{d}");
    assert_eq!(d.pointer, "/paths/~1a/get/parameters/0");
    assert_eq!(d.line, Some(6));
}
