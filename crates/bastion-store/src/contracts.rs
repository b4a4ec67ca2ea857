//! Accepted contract versions and contract activations (issue 7 §3–§4).
//!
//! [`AcceptedContract`] rows are what rollback protection compares with: `contract
//! verify` refuses a manifest whose version is below the highest accepted for its server
//! id, or that reuses an accepted version with other content. [`ContractActivation`]
//! rows record which exact manifest hash was activated and on whose approvals; the latest
//! one of a server id is its active contract. The rules live in
//! `bastion_core::contract`; this module only stores.

use crate::backend::Cols;
use crate::{Store, StoreError};
use serde::{Deserialize, Serialize};

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

fn accepted_from_row(row: &impl Cols) -> AcceptedContract {
    AcceptedContract {
        server_id: row.col("server_id"),
        contract_version: row.col("contract_version"),
        manifest_sha256: row.col("manifest_sha256"),
        key_id: row.col("key_id"),
        accepted_ms: row.col("accepted_ms"),
    }
}

fn split(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

fn activation_from_row(row: &impl Cols) -> ContractActivation {
    ContractActivation {
        id: row.col("id"),
        server_id: row.col("server_id"),
        contract_version: row.col("contract_version"),
        manifest_sha256: row.col("manifest_sha256"),
        approver_key_ids: split(&row.col::<String>("approver_key_ids")),
        approval_ids: split(&row.col::<String>("approval_ids")),
        activated_ms: row.col("activated_ms"),
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
        Ok(
            with_pool!(self, pool => sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(server_id)
            .fetch_optional(pool)
            .await?
            .as_ref()
            .map(accepted_from_row)),
        )
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
        let sql = format!(
            "SELECT {ACCEPTED_COLUMNS} FROM contract_versions \
             WHERE server_id = $1 AND contract_version = $2"
        );
        Ok(with_pool!(self, pool => {
            sqlx::query(
                "INSERT INTO contract_versions (server_id, contract_version, manifest_sha256, key_id, accepted_ms) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (server_id, contract_version) DO NOTHING",
            )
            .bind(&accepted.server_id)
            .bind(accepted.contract_version)
            .bind(&accepted.manifest_sha256)
            .bind(&accepted.key_id)
            .bind(accepted.accepted_ms)
            .execute(pool)
            .await?;
            accepted_from_row(
                &sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(&accepted.server_id)
                    .bind(accepted.contract_version)
                    .fetch_one(pool)
                    .await?,
            )
        }))
    }

    /// Records an activation; returns it with its row id.
    ///
    /// # Errors
    /// [`StoreError::Query`] when the database cannot be written.
    pub async fn record_contract_activation(
        &self,
        activation: &ContractActivation,
    ) -> Result<ContractActivation, StoreError> {
        let id: i64 = with_pool!(self, pool => sqlx::query_scalar(
            "INSERT INTO contract_activations (server_id, contract_version, manifest_sha256, \
             approver_key_ids, approval_ids, activated_ms) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(&activation.server_id)
        .bind(activation.contract_version)
        .bind(&activation.manifest_sha256)
        .bind(activation.approver_key_ids.join(","))
        .bind(activation.approval_ids.join(","))
        .bind(activation.activated_ms)
        .fetch_one(pool)
        .await?);
        Ok(ContractActivation {
            id,
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
        Ok(with_pool!(self, pool => sqlx::query(
            "SELECT id, server_id, contract_version, manifest_sha256, approver_key_ids, \
             approval_ids, activated_ms FROM contract_activations WHERE server_id = $1 \
             ORDER BY id DESC LIMIT 1",
        )
        .bind(server_id)
        .fetch_optional(pool)
        .await?
        .as_ref()
        .map(activation_from_row)))
    }
}
