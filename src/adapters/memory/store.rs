//! Repositories over mutex-guarded maps. Each operation takes one lock, so the atomicity the
//! ports promise (single-use tokens and nonces, unique e-mail and wallet) holds.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::auth::ethereum::EthAddress;
use crate::domain::auth::sessions::{NonceConsumption, RefreshConsumption, RefreshTokenRecord, TokenHash, WalletNonce};
use crate::domain::auth::{EmailAddress, NewUser, User, UserChanges, UserId};
use crate::ports::store::{
    CreateUserError, RefreshTokenRepository, StoreError, StoreHealth, UserRepository, WalletNonceRepository,
};

#[derive(Default)]
struct Nonce {
    record: Option<WalletNonce>,
    used: bool,
}

#[derive(Default)]
struct State {
    /// Users in creation order (the order `list` promises), with indexes for each lookup.
    users: Vec<User>,
    user_index_by_id: HashMap<UserId, usize>,
    user_index_by_email: HashMap<EmailAddress, usize>,
    user_index_by_wallet: HashMap<EthAddress, usize>,
    refresh_tokens: HashMap<TokenHash, RefreshTokenRecord>,
    families: HashMap<Uuid, Vec<TokenHash>>,
    nonces: HashMap<String, Nonce>,
}

impl State {
    fn user_at(&self, index: Option<&usize>) -> Option<User> {
        index.and_then(|&i| self.users.get(i)).cloned()
    }
}

/// Every repository of the service, in memory.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<State>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave a map half-updated (each operation is a
        // single insert or field write), so a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl UserRepository for MemoryStore {
    async fn create(&self, user: NewUser) -> Result<User, CreateUserError> {
        let mut state = self.state();
        if user.email.as_ref().is_some_and(|email| state.user_index_by_email.contains_key(email)) {
            return Err(CreateUserError::DuplicateEmail);
        }
        if user.wallet_address.as_ref().is_some_and(|wallet| state.user_index_by_wallet.contains_key(wallet)) {
            return Err(CreateUserError::DuplicateWallet);
        }
        let user = user.into_user();
        let index = state.users.len();
        state.user_index_by_id.insert(user.id, index);
        if let Some(email) = &user.email {
            state.user_index_by_email.insert(email.clone(), index);
        }
        if let Some(wallet) = user.wallet_address {
            state.user_index_by_wallet.insert(wallet, index);
        }
        state.users.push(user.clone());
        Ok(user)
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError> {
        let state = self.state();
        Ok(state.user_at(state.user_index_by_id.get(&id)))
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError> {
        let state = self.state();
        Ok(state.user_at(state.user_index_by_email.get(email)))
    }

    async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError> {
        let state = self.state();
        Ok(state.user_at(state.user_index_by_wallet.get(address)))
    }

    async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError> {
        let mut state = self.state();
        let Some(&index) = state.user_index_by_id.get(&id) else {
            return Ok(None);
        };
        let Some(user) = state.users.get_mut(index) else {
            return Ok(None);
        };
        if let Some(role) = changes.role {
            user.role = role;
        }
        if let Some(disabled) = changes.disabled {
            user.disabled = disabled;
        }
        Ok(Some(user.clone()))
    }

    async fn revoke_access_tokens(&self, id: UserId) -> Result<bool, StoreError> {
        let mut state = self.state();
        let index = state.user_index_by_id.get(&id).copied();
        Ok(match index.and_then(|i| state.users.get_mut(i)) {
            Some(user) => {
                user.token_version += 1;
                true
            }
            None => false,
        })
    }

    async fn list(&self) -> Result<Vec<User>, StoreError> {
        Ok(self.state().users.clone())
    }
}

#[async_trait]
impl RefreshTokenRepository for MemoryStore {
    async fn insert(&self, record: RefreshTokenRecord) -> Result<(), StoreError> {
        let mut state = self.state();
        state.families.entry(record.family_id).or_default().push(record.token_hash.clone());
        state.refresh_tokens.insert(record.token_hash.clone(), record);
        Ok(())
    }

    async fn consume(&self, token_hash: &TokenHash, now: OffsetDateTime) -> Result<RefreshConsumption, StoreError> {
        let mut state = self.state();
        let Some(record) = state.refresh_tokens.get_mut(token_hash) else {
            return Ok(RefreshConsumption::Unknown);
        };
        Ok(if record.revoked_at.is_some() {
            RefreshConsumption::Revoked(record.clone())
        } else if record.used_at.is_some() {
            RefreshConsumption::AlreadyUsed(record.clone())
        } else {
            record.used_at = Some(now);
            RefreshConsumption::Fresh(record.clone())
        })
    }

    async fn find(&self, token_hash: &TokenHash) -> Result<Option<RefreshTokenRecord>, StoreError> {
        Ok(self.state().refresh_tokens.get(token_hash).cloned())
    }

    async fn revoke_family(&self, family_id: Uuid, now: OffsetDateTime) -> Result<u64, StoreError> {
        let mut state = self.state();
        let State { families, refresh_tokens, .. } = &mut *state;
        let mut revoked = 0;
        for hash in families.get(&family_id).into_iter().flatten() {
            if let Some(record) = refresh_tokens.get_mut(hash).filter(|r| r.revoked_at.is_none()) {
                record.revoked_at = Some(now);
                revoked += 1;
            }
        }
        Ok(revoked)
    }

    async fn revoke_user(&self, user_id: UserId, now: OffsetDateTime) -> Result<u64, StoreError> {
        let mut state = self.state();
        let mut revoked = 0;
        for record in state.refresh_tokens.values_mut() {
            if record.user_id == user_id && record.revoked_at.is_none() {
                record.revoked_at = Some(now);
                revoked += 1;
            }
        }
        Ok(revoked)
    }

    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        let mut state = self.state();
        let before = state.refresh_tokens.len();
        state.refresh_tokens.retain(|_, record| record.expires_at > now);
        let State { families, refresh_tokens, .. } = &mut *state;
        families.retain(|_, hashes| {
            hashes.retain(|hash| refresh_tokens.contains_key(hash));
            !hashes.is_empty()
        });
        Ok((before - state.refresh_tokens.len()) as u64)
    }
}

#[async_trait]
impl WalletNonceRepository for MemoryStore {
    async fn insert(&self, nonce: WalletNonce) -> Result<(), StoreError> {
        self.state().nonces.insert(nonce.nonce.clone(), Nonce { record: Some(nonce), used: false });
        Ok(())
    }

    async fn consume(&self, nonce: &str) -> Result<NonceConsumption, StoreError> {
        let mut state = self.state();
        let Some(entry) = state.nonces.get_mut(nonce) else {
            return Ok(NonceConsumption::Unknown);
        };
        if entry.used {
            return Ok(NonceConsumption::AlreadyUsed);
        }
        entry.used = true;
        Ok(entry.record.clone().map_or(NonceConsumption::Unknown, NonceConsumption::Fresh))
    }

    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        let mut state = self.state();
        let before = state.nonces.len();
        state.nonces.retain(|_, entry| entry.record.as_ref().is_some_and(|r| r.expires_at > now));
        Ok((before - state.nonces.len()) as u64)
    }
}

#[async_trait]
impl StoreHealth for MemoryStore {
    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}
