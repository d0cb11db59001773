//! The schema checks: one row each, multiplied by the schema roles into the catalogue's
//! `<role>-<check>` rules.

use super::Level;

macro_rules! schema_checks {
    ($( $variant:ident => $suffix:literal, $contra:ident, $co:ident, $structural:literal, $attr:literal, $summary:literal, $prev:literal, $cur:literal; )*) => {
        /// Schema checks, by name (the discriminant indexes [`SCHEMA_CHECKS`]).
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum SchemaCheck { $( $variant, )* }
        /// One schema check: its level when the schema is read by the API (contravariant) and
        /// when it is produced by the API (covariant).
        pub(crate) struct SchemaCheckRow {
            pub suffix: &'static str,
            pub contra: Level,
            pub co: Level,
            pub structural: bool,
            pub attribute: &'static str,
            pub summary: &'static str,
            pub previous: &'static str,
            pub current: &'static str,
        }
        /// The schema check table.
        pub(crate) const SCHEMA_CHECKS: &[SchemaCheckRow] = &[ $( SchemaCheckRow {
            suffix: $suffix, contra: Level::$contra, co: Level::$co, structural: $structural,
            attribute: $attr, summary: $summary, previous: $prev, current: $cur,
        }, )* ];
    };
}

schema_checks! {
    TypeChanged => "type-changed", Breaking, Breaking, true, "type", "The type changed to an incompatible one", r#"{"type":"integer"}"#, r#"{"type":"string"}"#;
    TypeGeneralized => "type-generalized", Info, Breaking, true, "type", "The type was widened (integer to number, or a type added to a type list)", r#"{"type":"integer"}"#, r#"{"type":"number"}"#;
    TypeNarrowed => "type-narrowed", Breaking, Info, true, "type", "The type was narrowed (number to integer, or a type removed from a type list)", r#"{"type":"number"}"#, r#"{"type":"integer"}"#;
    BecameNullable => "became-nullable", Info, Breaking, true, "nullable", "The value became nullable", r#"{"type":"string"}"#, r#"{"type":["string","null"]}"#;
    BecameNotNullable => "became-not-nullable", Breaking, Info, true, "nullable", "The value is no longer nullable", r#"{"type":["string","null"]}"#, r#"{"type":"string"}"#;
    FormatChanged => "format-changed", Breaking, Breaking, true, "format", "The format changed", r#"{"type":"string","format":"date"}"#, r#"{"type":"string","format":"uuid"}"#;
    FormatSet => "format-set", Warning, Info, true, "format", "A format was set", r#"{"type":"string"}"#, r#"{"type":"string","format":"email"}"#;
    FormatUnset => "format-unset", Info, Warning, true, "format", "The format was removed", r#"{"type":"string","format":"email"}"#, r#"{"type":"string"}"#;
    EnumValueAdded => "enum-value-added", Info, Warning, true, "enum", "An allowed value was added to an enum (or const)", r#"{"type":"string","enum":["a"]}"#, r#"{"type":"string","enum":["a","b"]}"#;
    EnumValueRemoved => "enum-value-removed", Breaking, Info, true, "enum", "An allowed value was removed from an enum (or const)", r#"{"type":"string","enum":["a","b"]}"#, r#"{"type":"string","enum":["a"]}"#;
    EnumSet => "enum-set", Breaking, Info, true, "enum", "The values were restricted to an enum (or const)", r#"{"type":"string"}"#, r#"{"type":"string","enum":["a"]}"#;
    EnumUnset => "enum-unset", Info, Warning, true, "enum", "The enum (or const) restriction was removed", r#"{"type":"string","enum":["a"]}"#, r#"{"type":"string"}"#;
    MaxDecreased => "max-decreased", Breaking, Info, true, "maximum", "The maximum (or exclusive maximum) was lowered", r#"{"type":"integer","maximum":10}"#, r#"{"type":"integer","maximum":5}"#;
    MaxIncreased => "max-increased", Info, Warning, true, "maximum", "The maximum was raised", r#"{"type":"integer","maximum":5}"#, r#"{"type":"integer","maximum":10}"#;
    MaxSet => "max-set", Breaking, Info, true, "maximum", "A maximum was set", r#"{"type":"integer"}"#, r#"{"type":"integer","maximum":10}"#;
    MaxUnset => "max-unset", Info, Warning, true, "maximum", "The maximum was removed", r#"{"type":"integer","maximum":10}"#, r#"{"type":"integer"}"#;
    MinIncreased => "min-increased", Breaking, Info, true, "minimum", "The minimum (or exclusive minimum) was raised", r#"{"type":"integer","minimum":1}"#, r#"{"type":"integer","minimum":5}"#;
    MinDecreased => "min-decreased", Info, Warning, true, "minimum", "The minimum was lowered", r#"{"type":"integer","minimum":5}"#, r#"{"type":"integer","minimum":1}"#;
    MinSet => "min-set", Breaking, Info, true, "minimum", "A minimum was set", r#"{"type":"integer"}"#, r#"{"type":"integer","minimum":1}"#;
    MinUnset => "min-unset", Info, Warning, true, "minimum", "The minimum was removed", r#"{"type":"integer","minimum":1}"#, r#"{"type":"integer"}"#;
    MaxLengthDecreased => "max-length-decreased", Breaking, Info, true, "maxLength", "The maximum length was lowered", r#"{"type":"string","maxLength":10}"#, r#"{"type":"string","maxLength":5}"#;
    MaxLengthIncreased => "max-length-increased", Info, Warning, true, "maxLength", "The maximum length was raised", r#"{"type":"string","maxLength":5}"#, r#"{"type":"string","maxLength":10}"#;
    MaxLengthSet => "max-length-set", Breaking, Info, true, "maxLength", "A maximum length was set", r#"{"type":"string"}"#, r#"{"type":"string","maxLength":10}"#;
    MaxLengthUnset => "max-length-unset", Info, Warning, true, "maxLength", "The maximum length was removed", r#"{"type":"string","maxLength":10}"#, r#"{"type":"string"}"#;
    MinLengthIncreased => "min-length-increased", Breaking, Info, true, "minLength", "The minimum length was raised", r#"{"type":"string","minLength":1}"#, r#"{"type":"string","minLength":3}"#;
    MinLengthDecreased => "min-length-decreased", Info, Warning, true, "minLength", "The minimum length was lowered", r#"{"type":"string","minLength":3}"#, r#"{"type":"string","minLength":1}"#;
    MaxItemsDecreased => "max-items-decreased", Breaking, Info, true, "maxItems", "The maximum number of items was lowered", r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":5}"#;
    MaxItemsIncreased => "max-items-increased", Info, Warning, true, "maxItems", "The maximum number of items was raised", r#"{"type":"array","items":{"type":"string"},"maxItems":5}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#;
    MaxItemsSet => "max-items-set", Breaking, Info, true, "maxItems", "A maximum number of items was set", r#"{"type":"array","items":{"type":"string"}}"#, r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#;
    MaxItemsUnset => "max-items-unset", Info, Warning, true, "maxItems", "The maximum number of items was removed", r#"{"type":"array","items":{"type":"string"},"maxItems":10}"#, r#"{"type":"array","items":{"type":"string"}}"#;
    MinItemsIncreased => "min-items-increased", Breaking, Info, true, "minItems", "The minimum number of items was raised", r#"{"type":"array","items":{"type":"string"},"minItems":1}"#, r#"{"type":"array","items":{"type":"string"},"minItems":2}"#;
    MinItemsDecreased => "min-items-decreased", Info, Warning, true, "minItems", "The minimum number of items was lowered", r#"{"type":"array","items":{"type":"string"},"minItems":2}"#, r#"{"type":"array","items":{"type":"string"},"minItems":1}"#;
    MaxPropertiesDecreased => "max-properties-decreased", Breaking, Info, true, "maxProperties", "The maximum number of properties was lowered", r#"{"type":"object","maxProperties":10}"#, r#"{"type":"object","maxProperties":5}"#;
    MaxPropertiesIncreased => "max-properties-increased", Info, Warning, true, "maxProperties", "The maximum number of properties was raised", r#"{"type":"object","maxProperties":5}"#, r#"{"type":"object","maxProperties":10}"#;
    MaxPropertiesSet => "max-properties-set", Breaking, Info, true, "maxProperties", "A maximum number of properties was set", r#"{"type":"object"}"#, r#"{"type":"object","maxProperties":10}"#;
    MaxPropertiesUnset => "max-properties-unset", Info, Warning, true, "maxProperties", "The maximum number of properties was removed", r#"{"type":"object","maxProperties":10}"#, r#"{"type":"object"}"#;
    MinPropertiesIncreased => "min-properties-increased", Breaking, Info, true, "minProperties", "The minimum number of properties was raised", r#"{"type":"object","minProperties":1}"#, r#"{"type":"object","minProperties":2}"#;
    MinPropertiesDecreased => "min-properties-decreased", Info, Warning, true, "minProperties", "The minimum number of properties was lowered", r#"{"type":"object","minProperties":2}"#, r#"{"type":"object","minProperties":1}"#;
    PatternChanged => "pattern-changed", Breaking, Warning, true, "pattern", "The pattern changed", r#"{"type":"string","pattern":"^[a-z]+$"}"#, r#"{"type":"string","pattern":"^[0-9]+$"}"#;
    PatternSet => "pattern-set", Breaking, Info, true, "pattern", "A pattern was set", r#"{"type":"string"}"#, r#"{"type":"string","pattern":"^[a-z]+$"}"#;
    PatternUnset => "pattern-unset", Info, Warning, true, "pattern", "The pattern was removed", r#"{"type":"string","pattern":"^[a-z]+$"}"#, r#"{"type":"string"}"#;
    MultipleOfChanged => "multiple-of-changed", Breaking, Warning, true, "multipleOf", "The multipleOf constraint changed", r#"{"type":"integer","multipleOf":2}"#, r#"{"type":"integer","multipleOf":3}"#;
    MultipleOfSet => "multiple-of-set", Breaking, Info, true, "multipleOf", "A multipleOf constraint was set", r#"{"type":"integer"}"#, r#"{"type":"integer","multipleOf":2}"#;
    MultipleOfUnset => "multiple-of-unset", Info, Warning, true, "multipleOf", "The multipleOf constraint was removed", r#"{"type":"integer","multipleOf":2}"#, r#"{"type":"integer"}"#;
    UniqueItemsSet => "unique-items-set", Breaking, Info, true, "uniqueItems", "Items must now be unique", r#"{"type":"array","items":{"type":"string"}}"#, r#"{"type":"array","items":{"type":"string"},"uniqueItems":true}"#;
    UniqueItemsUnset => "unique-items-unset", Info, Warning, true, "uniqueItems", "Items no longer have to be unique", r#"{"type":"array","items":{"type":"string"},"uniqueItems":true}"#, r#"{"type":"array","items":{"type":"string"}}"#;
    PropertyAdded => "property-added", Info, Info, true, "properties", "An optional property was added", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}"#;
    RequiredPropertyAdded => "required-property-added", Breaking, Info, true, "required", "A required property was added", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}"#;
    PropertyRemoved => "property-removed", Warning, Breaking, true, "properties", "A property was removed without being deprecated first", r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    DeprecatedPropertyRemoved => "deprecated-property-removed", Info, Info, true, "properties", "A deprecated property was removed", r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","deprecated":true}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    PropertyBecameRequired => "property-became-required", Breaking, Info, true, "required", "An optional property became required", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#;
    PropertyBecameOptional => "property-became-optional", Info, Breaking, true, "required", "A required property became optional", r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#, r#"{"type":"object","properties":{"a":{"type":"string"}}}"#;
    PropertyBecameReadOnly => "property-became-read-only", Warning, Info, true, "readOnly", "A property became read-only (clients can no longer set it)", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","readOnly":true}}}"#;
    PropertyBecameWriteOnly => "property-became-write-only", Info, Breaking, true, "writeOnly", "A property became write-only (it is no longer returned)", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","writeOnly":true}}}"#;
    PropertyDeprecated => "property-deprecated", Info, Info, true, "deprecated", "A property or schema was marked deprecated", r#"{"type":"object","properties":{"a":{"type":"string"}}}"#, r#"{"type":"object","properties":{"a":{"type":"string","deprecated":true}}}"#;
    AdditionalPropertiesNarrowed => "additional-properties-narrowed", Breaking, Info, true, "additionalProperties", "Additional (or unevaluated) properties are no longer allowed", r#"{"type":"object"}"#, r#"{"type":"object","additionalProperties":false}"#;
    AdditionalPropertiesWidened => "additional-properties-widened", Info, Warning, true, "additionalProperties", "Additional (or unevaluated) properties are now allowed", r#"{"type":"object","additionalProperties":false}"#, r#"{"type":"object"}"#;
    OneOfAdded => "one-of-added", Info, Warning, true, "oneOf", "A oneOf alternative was added", r#"{"oneOf":[{"type":"string"}]}"#, r#"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#;
    OneOfRemoved => "one-of-removed", Breaking, Info, true, "oneOf", "A oneOf alternative was removed", r#"{"oneOf":[{"type":"string"},{"type":"integer"}]}"#, r#"{"oneOf":[{"type":"string"}]}"#;
    AnyOfAdded => "any-of-added", Info, Warning, true, "anyOf", "An anyOf alternative was added", r#"{"anyOf":[{"type":"string"}]}"#, r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#;
    AnyOfRemoved => "any-of-removed", Breaking, Info, true, "anyOf", "An anyOf alternative was removed", r#"{"anyOf":[{"type":"string"},{"type":"integer"}]}"#, r#"{"anyOf":[{"type":"string"}]}"#;
    AllOfAdded => "all-of-added", Breaking, Info, true, "allOf", "An allOf member was added", r#"{"allOf":[{"type":"object"}]}"#, r#"{"allOf":[{"type":"object"},{"required":["a"]}]}"#;
    AllOfRemoved => "all-of-removed", Info, Warning, true, "allOf", "An allOf member was removed", r#"{"allOf":[{"type":"object"},{"required":["a"]}]}"#, r#"{"allOf":[{"type":"object"}]}"#;
    DiscriminatorChanged => "discriminator-changed", Breaking, Breaking, true, "discriminator", "The discriminator property or mapping changed", r#"{"type":"object","discriminator":{"propertyName":"kind"}}"#, r#"{"type":"object","discriminator":{"propertyName":"type"}}"#;
    DefaultChanged => "default-changed", Warning, Info, true, "default", "The default value changed", r#"{"type":"integer","default":1}"#, r#"{"type":"integer","default":2}"#;
    TupleItemAdded => "tuple-item-added", Warning, Warning, true, "prefixItems", "A positional (prefixItems) item was added", r#"{"type":"array","prefixItems":[{"type":"string"}]}"#, r#"{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}"#;
    TupleItemRemoved => "tuple-item-removed", Warning, Warning, true, "prefixItems", "A positional (prefixItems) item was removed", r#"{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}"#, r#"{"type":"array","prefixItems":[{"type":"string"}]}"#;
    ConditionalAdded => "conditional-added", Breaking, Info, true, "if", "An if/then/else condition was added", r#"{"type":"object"}"#, r#"{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}"#;
    ConditionalRemoved => "conditional-removed", Info, Warning, true, "if", "An if/then/else condition was removed", r#"{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}"#, r#"{"type":"object"}"#;
    DependentRequiredAdded => "dependent-required-added", Breaking, Info, true, "dependentRequired", "A dependentRequired constraint was added", r#"{"type":"object"}"#, r#"{"type":"object","dependentRequired":{"a":["b"]}}"#;
    DependentRequiredRemoved => "dependent-required-removed", Info, Warning, true, "dependentRequired", "A dependentRequired constraint was removed", r#"{"type":"object","dependentRequired":{"a":["b"]}}"#, r#"{"type":"object"}"#;
    NotAdded => "not-added", Breaking, Info, true, "not", "A `not` exclusion was added", r#"{"type":"string"}"#, r#"{"type":"string","not":{"enum":["x"]}}"#;
    NotRemoved => "not-removed", Info, Warning, true, "not", "A `not` exclusion was removed", r#"{"type":"string","not":{"enum":["x"]}}"#, r#"{"type":"string"}"#;
    ContentMediaTypeChanged => "content-media-type-changed", Warning, Warning, true, "contentMediaType", "The contentMediaType or contentEncoding changed", r#"{"type":"string","contentEncoding":"base64"}"#, r#"{"type":"string","contentEncoding":"base32"}"#;
    PatternPropertyAdded => "pattern-property-added", Warning, Info, true, "patternProperties", "A patternProperties entry was added (properties whose names match it are now constrained)", r#"{"type":"object"}"#, r#"{"type":"object","patternProperties":{"^x-":{"type":"string"}}}"#;
    PatternPropertyRemoved => "pattern-property-removed", Info, Warning, true, "patternProperties", "A patternProperties entry was removed", r#"{"type":"object","patternProperties":{"^x-":{"type":"string"}}}"#, r#"{"type":"object"}"#;
    DependentSchemaAdded => "dependent-schema-added", Breaking, Info, true, "dependentSchemas", "A dependentSchemas entry was added (a property now brings extra constraints)", r#"{"type":"object"}"#, r#"{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}"#;
    DependentSchemaRemoved => "dependent-schema-removed", Info, Warning, true, "dependentSchemas", "A dependentSchemas entry was removed", r#"{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}"#, r#"{"type":"object"}"#;
    DescriptionChanged => "description-changed", Info, Info, false, "description", "The description changed", r#"{"type":"string","description":"Old"}"#, r#"{"type":"string","description":"New"}"#;
    TitleChanged => "title-changed", Info, Info, false, "title", "The title changed", r#"{"type":"string","title":"Old"}"#, r#"{"type":"string","title":"New"}"#;
    ExampleChanged => "example-changed", Info, Info, false, "example", "The example(s) changed", r#"{"type":"string","example":"old"}"#, r#"{"type":"string","example":"new"}"#;
}
