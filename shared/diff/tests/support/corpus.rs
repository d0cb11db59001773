//! The shared corpus: where it is, and the pairs the corpus tests diff.
#![allow(dead_code)]

use std::path::PathBuf;

/// The corpus folder (`specpress_testkit::corpus()`): a test that reads it carries
/// `#[cfg_attr(missing_corpus, ignore = ...)]`, ignored outside CI when it is missing.
pub fn corpus() -> PathBuf {
    specpress_testkit::corpus()
}

/// The corpus pairs (previous, current).
pub const PAIRS: &[(&str, &str)] = &[
    (
        "openapi-3.0/github-api-22.0.0.json",
        "openapi-3.0/github-api-23.0.2.json",
    ),
    (
        "openapi-3.0/stripe-2022-02-08.json",
        "openapi-3.0/stripe-2022-04-12.json",
    ),
    (
        "openapi-3.0/stripe-2023-09-11.yaml",
        "openapi-3.0/stripe-2023-09-12.yaml",
    ),
    (
        "openapi-3.1/openai-2026-08-12.json",
        "openapi-3.1/openai-2026-08-21.json",
    ),
    (
        "openapi-3.1/openai-2026-08-12.yaml",
        "openapi-3.1/openai-2026-08-21.yaml",
    ),
    (
        "swagger-2.0/kubernetes-1.35.json",
        "swagger-2.0/kubernetes-1.36.json",
    ),
    (
        "asyncapi/streetlights-kafka-2.3.0.yml",
        "asyncapi/streetlights-kafka-2.5.0.yml",
    ),
    (
        "asyncapi/streetlights-kafka-3.0.0.yml",
        "asyncapi/streetlights-kafka-3.1.0.yml",
    ),
    (
        "asyncapi/slack-rtm-3.0.0.yml",
        "asyncapi/slack-rtm-3.1.0.yml",
    ),
];
