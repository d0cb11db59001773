//! [`BranchAdminStore`] over DynamoDB: branch creation, deletion and promotion as conditional writes
//! (docs/storage.md, "Branches").

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, TransactWriteItem, Update};
use specpress_domain::model::{BranchGeneration, BranchName, DocId, Documentation, Slug};
use specpress_domain::ports::{BranchAdminStore, BranchWriteError};
use specpress_domain::{ConflictKind, DomainError, Result};
use time::OffsetDateTime;

use crate::DynamoStore;
use crate::attr::*;
use crate::items::*;
use crate::transact::transact_conditional;

#[async_trait]
impl BranchAdminStore for DynamoStore {
    async fn create_branch(
        &self,
        doc: DocId,
        name: &BranchName,
        now: OffsetDateTime,
    ) -> Result<()> {
        // A new incarnation: its history starts empty even if a branch with this slug existed before.
        let b = branch_item(doc, name, BranchGeneration::new(), 0, None, now);
        let put = aws_sdk_dynamodb::types::Put::builder()
            .table_name(self.table())
            .set_item(Some(b))
            .condition_expression("attribute_not_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        // The documentation must still exist (its id pointer item), so no branch outlives it.
        let doc_exists = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(doc_pk(doc)))
            .key("sk", s(DOC_META_SK))
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().put(put).build(),
            TransactWriteItem::builder()
                .condition_check(doc_exists)
                .build(),
        ];
        match transact_conditional(self.client(), items).await? {
            Ok(()) => Ok(()),
            Err(0) => Err(DomainError::Conflict(ConflictKind::AlreadyExists)),
            Err(_) => Err(DomainError::NotFound("Documentation does not exist".into())),
        }
    }

    async fn delete_branch(
        &self,
        doc: &Documentation,
        slug: &Slug,
    ) -> Result<Result<(), BranchWriteError>> {
        let delete = Delete::builder()
            .table_name(self.table())
            .key("pk", s(doc_pk(doc.id)))
            .key("sk", s(branch_sk(slug)))
            .condition_expression("attribute_exists(pk)")
            .build()
            .map_err(DomainError::unexpected)?;
        let not_default = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(org_pk(doc.org_id)))
            .key("sk", s(doc_sk(doc.id)))
            .condition_expression("attribute_exists(pk) AND default_branch <> :slug")
            .expression_attribute_values(":slug", s(slug.as_str()))
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().delete(delete).build(),
            TransactWriteItem::builder()
                .condition_check(not_default)
                .build(),
        ];
        Ok(match transact_conditional(self.client(), items).await? {
            Ok(()) => Ok(()),
            Err(0) => Err(BranchWriteError::BranchMissing),
            Err(_) => match self.get_doc_item_default(doc).await? {
                None => Err(BranchWriteError::DocMissing),
                Some(_) => Err(BranchWriteError::IsDefault),
            },
        })
    }

    async fn set_default_branch(
        &self,
        doc: &Documentation,
        slug: &Slug,
        now: OffsetDateTime,
    ) -> Result<Result<(), BranchWriteError>> {
        let update = Update::builder()
            .table_name(self.table())
            .key("pk", s(org_pk(doc.org_id)))
            .key("sk", s(doc_sk(doc.id)))
            .update_expression("SET default_branch = :new, modified_at = :now")
            .condition_expression("attribute_exists(pk) AND default_branch = :old")
            .expression_attribute_values(":new", s(slug.as_str()))
            .expression_attribute_values(":old", s(doc.default_branch.as_str()))
            .expression_attribute_values(":now", ts(now))
            .build()
            .map_err(DomainError::unexpected)?;
        let has_head = ConditionCheck::builder()
            .table_name(self.table())
            .key("pk", s(doc_pk(doc.id)))
            .key("sk", s(branch_sk(slug)))
            .condition_expression("attribute_exists(head_version_id)")
            .build()
            .map_err(DomainError::unexpected)?;
        let items = vec![
            TransactWriteItem::builder().update(update).build(),
            TransactWriteItem::builder()
                .condition_check(has_head)
                .build(),
        ];
        Ok(match transact_conditional(self.client(), items).await? {
            Ok(()) => Ok(()),
            Err(0) => match self.get_doc_item_default(doc).await? {
                None => Err(BranchWriteError::DocMissing),
                Some(_) => Err(BranchWriteError::DefaultMoved),
            },
            Err(_) => {
                let branch =
                    specpress_domain::ports::BranchStore::get_branch(self, doc.id, slug).await?;
                match branch {
                    None => Err(BranchWriteError::BranchMissing),
                    Some(_) => Err(BranchWriteError::BranchEmpty),
                }
            }
        })
    }
}

impl DynamoStore {
    /// The documentation's current default branch slug, or `None` if the documentation is gone.
    async fn get_doc_item_default(&self, doc: &Documentation) -> Result<Option<String>> {
        let out = self
            .client()
            .get_item()
            .table_name(self.table())
            .key("pk", s(org_pk(doc.org_id)))
            .key("sk", s(doc_sk(doc.id)))
            .consistent_read(true)
            .send()
            .await
            .map_err(sdk("GetItem"))?;
        Ok(match out.item {
            Some(i) => Some(get_s(&i, "default_branch")?.to_owned()),
            None => None,
        })
    }
}
