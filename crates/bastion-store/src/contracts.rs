//! Accepted contract versions and contract activations (issue 7 §3–§4).
//!
//! [`AcceptedContract`] rows are what rollback protection compares with: `contract
//! verify` refuses a manifest whose version is below the highest accepted for its server
//! id, or that reuses an accepted version with other content. [`ContractActivation`]
//! rows record which exact manifest hash was activated and on whose approvals; the latest
//! one of a server id is its active contract. The rules live in
//! `bastion_core::contract`; this module only stores.

use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

/// One accepted manifest. JSON: the field names below.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedContract {
    /// The manifest's `server_id`.
    pub server_id: String,
    /// Its `contract_version`.
    pub contract_version: i64,
    /// SHA-256 (64 hex) of its RFC 8785 form (`bastion_core::contract::manifest_sha256`).
    pub manifest_sha256: String,
    /// Id of the key whose signature was verified.
    pub key_id: String,
    /// When it was accepted, unix ms.
    pub accepted_ms: i64,
}

/// One activation. JSON: the field names below.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractActivation {
    /// Row id (0 before insertion).
    #[serde(default)]
    pub id: i64,
    /// The manifest's `server_id`.
    pub server_id: String,
    /// Its `contract_version`.
    pub contract_version: i64,
    /// SHA-256 (64 hex) of its RFC 8785 form.
    pub manifest_sha256: String,
    /// Distinct approver key ids whose receipts allowed it.
    pub approver_key_ids: Vec<String>,
    /// The receipts' approval ids.
    pub approval_ids: Vec<String>,
    /// When, unix ms.
    pub activated_ms: i64,
}

fn accepted_from_row(row: &SqliteRow) -> AcceptedContract {
    AcceptedContract {
        server_id: row.get("server_id"),
        contract_version: row.get("contract_version"),
        manifest_sha256: row.get("manifest_sha256"),
        key_id: row.get("key_id"),
        accepted_ms: row.get("accepted_ms"),
    }
}

fn split(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn activation_from_row(row: &SqliteRow) -> ContractActivation {
    ContractActivation {
        id: row.get("id"),
        server_id: row.get("server_id"),
        contract_version: row.get("contract_version"),
        manifest_sha256: row.get("manifest_sha256"),
        approver_key_ids: split(row.get("approver_key_ids")),
        approval_ids: split(row.get("approval_ids")),
        activated_ms: row.get("activated_ms"),
    }
}

const ACCEPTED_COLUMNS: &str = "server_id, contract_version, manifest_sha256, key_id, accepted_ms";

impl Store {
    /// The highest accepted version of `server_id`, if any.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn latest_accepted_contract(
        &self,
        server_id: &str,
    ) -> Result<Option<AcceptedContract>, StoreError> {
        let sql = format!(
            "SELECT {ACCEPTED_COLUMNS} FROM contract_versions WHERE server_id = $1 \
             ORDER BY contract_version DESC LIMIT 1"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(accepted_from_row))
    }

    /// Records `accepted` unless its `(server_id, contract_version)` is already recorded;
    /// returns the row in force for that pair (the earlier one when it existed, whose
    /// hash the caller compares with its own).
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn record_accepted_contract(
        &self,
        accepted: &AcceptedContract,
    ) -> Result<AcceptedContract, StoreError> {
        sqlx::query(
            "INSERT INTO contract_versions (server_id, contract_version, manifest_sha256, key_id, accepted_ms) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (server_id, contract_version) DO NOTHING",
        )
        .bind(&accepted.server_id)
        .bind(accepted.contract_version)
        .bind(&accepted.manifest_sha256)
        .bind(&accepted.key_id)
        .bind(accepted.accepted_ms)
        .execute(&self.pool)
        .await?;
        let sql = format!(
            "SELECT {ACCEPTED_COLUMNS} FROM contract_versions \
             WHERE server_id = $1 AND contract_version = $2"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&accepted.server_id)
            .bind(accepted.contract_version)
            .fetch_one(&self.pool)
            .await?;
        Ok(accepted_from_row(&row))
    }

    /// Records an activation; returns it with its row id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn record_contract_activation(
        &self,
        activation: &ContractActivation,
    ) -> Result<ContractActivation, StoreError> {
        let done = sqlx::query(
            "INSERT INTO contract_activations (server_id, contract_version, manifest_sha256, \
             approver_key_ids, approval_ids, activated_ms) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&activation.server_id)
        .bind(activation.contract_version)
        .bind(&activation.manifest_sha256)
        .bind(activation.approver_key_ids.join(","))
        .bind(activation.approval_ids.join(","))
        .bind(activation.activated_ms)
        .execute(&self.pool)
        .await?;
        Ok(ContractActivation {
            id: done.last_insert_rowid(),
            ..activation.clone()
        })
    }

    /// The latest activation of `server_id`: its active contract.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be read.
    pub async fn active_contract(
        &self,
        server_id: &str,
    ) -> Result<Option<ContractActivation>, StoreError> {
        let row = sqlx::query(
            "SELECT id, server_id, contract_version, manifest_sha256, approver_key_ids, \
             approval_ids, activated_ms FROM contract_activations WHERE server_id = $1 \
             ORDER BY id DESC LIMIT 1",
        )
        .bind(server_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(activation_from_row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(version: i64, hash: &str) -> AcceptedContract {
        AcceptedContract {
            server_id: "io.example/notes".into(),
            contract_version: version,
            manifest_sha256: hash.into(),
            key_id: "0123456789abcdef".into(),
            accepted_ms: 1,
        }
    }

    #[tokio::test]
    async fn accepted_versions_and_activations() {
        let store = Store::open("sqlite::memory:").await.unwrap();
        assert!(
            store
                .latest_accepted_contract("io.example/notes")
                .await
                .unwrap()
                .is_none()
        );
        store
            .record_accepted_contract(&accepted(3, "aa"))
            .await
            .unwrap();
        store
            .record_accepted_contract(&accepted(5, "bb"))
            .await
            .unwrap();
        // Same version, other content: the first row stays in force.
        let again = store
            .record_accepted_contract(&accepted(5, "cc"))
            .await
            .unwrap();
        assert_eq!(again.manifest_sha256, "bb");
        let latest = store
            .latest_accepted_contract("io.example/notes")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(latest.contract_version, 5);
        assert!(
            store
                .latest_accepted_contract("other")
                .await
                .unwrap()
                .is_none()
        );

        let act = ContractActivation {
            id: 0,
            server_id: "io.example/notes".into(),
            contract_version: 5,
            manifest_sha256: "bb".into(),
            approver_key_ids: vec!["k1".into(), "k2".into()],
            approval_ids: vec!["a1".into(), "a2".into()],
            activated_ms: 2,
        };
        let stored = store.record_contract_activation(&act).await.unwrap();
        assert!(stored.id > 0);
        let active = store
            .active_contract("io.example/notes")
            .await
            .unwrap()
            .unwrap();
        assert_eq!(active, stored);
    }
}
