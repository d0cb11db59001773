//! Table definition: one table, `pk`/`sk` strings, GSI1 (`gsi1pk`/`gsi1sk`), sparse GSI2 outbox
//! (`gsi2pk`/`gsi2sk`), TTL on `ttl`. template.yaml declares the same table for AWS.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TimeToLiveSpecification,
};
use specpress_domain::{DomainError, Result};

use crate::attr::sdk;

/// Name of the first global secondary index (listings and history).
pub const GSI1: &str = "gsi1";
/// Name of the sparse outbox index.
pub const GSI2: &str = "gsi2";
/// The TTL attribute (epoch seconds).
pub const TTL_ATTR: &str = "ttl";

fn key(name: &str, kind: KeyType) -> Result<KeySchemaElement> {
    KeySchemaElement::builder()
        .attribute_name(name)
        .key_type(kind)
        .build()
        .map_err(DomainError::unexpected)
}

fn attr(name: &str) -> Result<AttributeDefinition> {
    AttributeDefinition::builder()
        .attribute_name(name)
        .attribute_type(ScalarAttributeType::S)
        .build()
        .map_err(DomainError::unexpected)
}

fn gsi(name: &str, pk: &str, sk: &str) -> Result<GlobalSecondaryIndex> {
    GlobalSecondaryIndex::builder()
        .index_name(name)
        .key_schema(key(pk, KeyType::Hash)?)
        .key_schema(key(sk, KeyType::Range)?)
        .projection(
            Projection::builder()
                .projection_type(ProjectionType::All)
                .build(),
        )
        .build()
        .map_err(DomainError::unexpected)
}

/// Creates the table (on-demand, both GSIs, TTL) if it does not exist. Idempotent.
pub async fn ensure_table(client: &Client, table: &str) -> Result<()> {
    match client.describe_table().table_name(table).send().await {
        Ok(_) => return Ok(()),
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_resource_not_found_exception()) => {}
        Err(e) => return Err(sdk("DescribeTable")(e)),
    }
    let created = client
        .create_table()
        .table_name(table)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(attr("pk")?)
        .attribute_definitions(attr("sk")?)
        .attribute_definitions(attr("gsi1pk")?)
        .attribute_definitions(attr("gsi1sk")?)
        .attribute_definitions(attr("gsi2pk")?)
        .attribute_definitions(attr("gsi2sk")?)
        .key_schema(key("pk", KeyType::Hash)?)
        .key_schema(key("sk", KeyType::Range)?)
        .global_secondary_indexes(gsi(GSI1, "gsi1pk", "gsi1sk")?)
        .global_secondary_indexes(gsi(GSI2, "gsi2pk", "gsi2sk")?)
        .send()
        .await;
    match created {
        Ok(_) => {}
        // Created concurrently by another process: fine.
        Err(e)
            if e.as_service_error()
                .is_some_and(|e| e.is_resource_in_use_exception()) =>
        {
            return Ok(());
        }
        Err(e) => return Err(sdk("CreateTable")(e)),
    }
    // Real DynamoDB creates tables asynchronously; emulators are ACTIVE at once.
    for _ in 0..120 {
        let d = client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(sdk("DescribeTable"))?;
        if d.table()
            .and_then(|t| t.table_status())
            .is_some_and(|s| s.as_str() == "ACTIVE")
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    client
        .update_time_to_live()
        .table_name(table)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .attribute_name(TTL_ATTR)
                .enabled(true)
                .build()
                .map_err(DomainError::unexpected)?,
        )
        .send()
        .await
        .map_err(sdk("UpdateTimeToLive"))?;
    Ok(())
}
