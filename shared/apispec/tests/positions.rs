//! `Document::positions`: where a location is written (file, line, column), in JSON, in block
//! YAML (read by the block reader), in YAML that reader declines (read by saphyr-parser), in a
//! referenced file, and for the schema of Swagger 2.0 `formData` parameters (written into the
//! synthetic file, found at the parameters). Every expected position is the line and column
//! where the text itself has the key.

use specpress_apispec::{Document, FileId, Limits, Location, Position, Reference, parse};

/// The line and column (from 1, in characters) of the first occurrence of `needle` at or after
/// the first occurrence of `after` in `text`.
fn where_in(text: &str, after: &str, needle: &str) -> Position {
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} not in text"));
    let at = start
        + text[start..]
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} not after {after:?}"));
    let line = text[..at].matches('\n').count() as u32 + 1;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    Position {
        line,
        column: text[line_start..at].chars().count() as u32 + 1,
    }
}

fn at(file: u32, pointer: &str) -> Location {
    Location {
        file: FileId(file),
        pointer: pointer.to_string(),
    }
}

fn positions(doc: &Document, locations: &[Location]) -> Vec<Option<(FileId, Position)>> {
    let refs: Vec<&Location> = locations.iter().collect();
    doc.positions(&refs)
}

const YAML: &str = "openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /pets/{id}:
    get:
      parameters:
        - name: id
          in: path
          required: true
          schema: {type: string}
        - name: élan
          in: query
          schema:
            type: string
            enum: [a, b]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  name: {type: string}
";

#[test]
fn block_yaml_positions_are_those_of_the_keys_and_items() {
    let doc = parse(YAML, &[], &Limits::default()).expect("parses");
    let found = positions(
        &doc,
        &[
            at(
                0,
                "/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema/properties/name",
            ),
            at(0, "/paths/~1pets~1{id}/get/parameters/1"),
            at(0, "/paths/~1pets~1{id}/get/parameters/1/schema/type"),
            at(0, "/paths/~1pets~1{id}/get"),
            at(0, ""),
        ],
    );
    let expected = [
        where_in(YAML, "properties:", "name"),
        where_in(YAML, "- name: élan", "name"),
        where_in(YAML, "name: élan", "type"),
        where_in(YAML, "/pets/{id}", "get"),
        Position { line: 1, column: 1 },
    ];
    for (f, e) in found.iter().zip(expected) {
        assert_eq!(*f, Some((FileId(0), e)));
    }
}

#[test]
fn a_pointer_that_names_nothing_falls_back_to_its_nearest_enclosing_value() {
    let doc = parse(YAML, &[], &Limits::default()).expect("parses");
    let found = positions(&doc, &[at(0, "/paths/~1pets~1{id}/get/nothing/here")]);
    assert_eq!(
        found,
        vec![Some((FileId(0), where_in(YAML, "/pets/{id}", "get")))]
    );
}

#[test]
fn json_positions_count_lines_and_characters() {
    let json = "{\"openapi\": \"3.1.0\", \"info\": {\"title\": \"t\", \"version\": \"1\"},\n \"paths\": {\n  \"/a\": {\"get\": {\"summary\": \"caf\\u00e9 ☕\", \"responses\": {\n   \"200\": {\"description\": \"ok\"}}}},\n  \"/b\": {\"post\": {\"responses\": {\"201\": {\"description\": \"x\"}}}}}}";
    let doc = parse(json, &[], &Limits::default()).expect("parses");
    let found = positions(
        &doc,
        &[
            at(0, "/paths/~1a/get/responses/200"),
            at(0, "/paths/~1b/post/responses/201/description"),
            at(0, "/info/version"),
        ],
    );
    assert_eq!(
        found,
        vec![
            Some((FileId(0), where_in(json, "\"200\"", "\"200\""))),
            Some((FileId(0), where_in(json, "\"201\"", "\"description\""))),
            Some((FileId(0), where_in(json, "\"info\"", "\"version\""))),
        ]
    );
}

#[test]
fn yaml_the_block_reader_declines_is_located_by_saphyr_parser() {
    // An anchor and an alias: outside the block reader's subset.
    let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': &ok\n          description: ok\n        '404':\n          description: missing\n";
    let limits = Limits {
        allow_aliases: true,
        max_aliases: 10,
        ..Limits::default()
    };
    let doc = parse(yaml, &[], &limits).expect("parses");
    let found = positions(&doc, &[at(0, "/paths/~1a/get/responses/404/description")]);
    assert_eq!(
        found,
        vec![Some((FileId(0), where_in(yaml, "'404'", "description")))]
    );
}

#[test]
fn locations_in_a_referenced_file_are_found_in_that_file() {
    let root = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'schemas/pet.yaml'}\n";
    let pet = "type: object\nproperties:\n  id: {type: integer}\n  name:\n    type: string\n";
    let references = [Reference {
        location: "schemas/pet.yaml".into(),
        content: pet.into(),
        name: None,
    }];
    let doc = parse(root, &references, &Limits::default()).expect("parses");
    let found = positions(&doc, &[at(1, "/properties/name/type")]);
    assert_eq!(
        found,
        vec![Some((FileId(1), where_in(pet, "name:", "type")))]
    );
    assert_eq!(doc.file_name(FileId(1)), Some("schemas/pet.yaml"));
}

#[test]
fn form_data_schemas_are_found_at_their_parameters() {
    let swagger = "swagger: '2.0'
info: {title: t, version: '1'}
paths:
  /pets:
    post:
      consumes: [multipart/form-data]
      parameters:
        - name: caption
          in: formData
          type: string
          maxLength: 80
        - name: file
          in: formData
          type: file
      responses:
        '200': {description: ok}
";
    let doc = parse(swagger, &[], &Limits::default()).expect("parses");
    let body = doc
        .model()
        .operations
        .values()
        .next()
        .expect("one operation");
    let schema = body.request_body.as_ref().expect("a form body").content["multipart/form-data"]
        .schema
        .clone()
        .expect("a schema");
    let found = positions(
        &doc,
        &[
            schema
                .child("properties")
                .child("caption")
                .child("maxLength"),
            schema.child("properties").child("file"),
            schema.child("required"),
        ],
    );
    assert_eq!(
        found,
        vec![
            Some((FileId(0), where_in(swagger, "caption", "maxLength"))),
            Some((FileId(0), where_in(swagger, "- name: file", "name"))),
            Some((FileId(0), where_in(swagger, "post:", "parameters"))),
        ]
    );
}
