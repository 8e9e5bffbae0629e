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
    users: Vec<User>,
    refresh_tokens: HashMap<TokenHash, RefreshTokenRecord>,
    nonces: HashMap<String, Nonce>,
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

    fn revoke_where(&self, now: OffsetDateTime, matches: impl Fn(&RefreshTokenRecord) -> bool) -> u64 {
        let mut state = self.state();
        let mut revoked = 0;
        for record in state.refresh_tokens.values_mut() {
            if matches(record) && record.revoked_at.is_none() {
                record.revoked_at = Some(now);
                revoked += 1;
            }
        }
        revoked
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
        if user.email.is_some() && state.users.iter().any(|u| u.email == user.email) {
            return Err(CreateUserError::DuplicateEmail);
        }
        if user.wallet_address.is_some() && state.users.iter().any(|u| u.wallet_address == user.wallet_address) {
            return Err(CreateUserError::DuplicateWallet);
        }
        let user = user.into_user();
        state.users.push(user.clone());
        Ok(user)
    }

    async fn find_by_id(&self, id: UserId) -> Result<Option<User>, StoreError> {
        Ok(self.state().users.iter().find(|u| u.id == id).cloned())
    }

    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<User>, StoreError> {
        Ok(self.state().users.iter().find(|u| u.email.as_ref() == Some(email)).cloned())
    }

    async fn find_by_wallet(&self, address: &EthAddress) -> Result<Option<User>, StoreError> {
        Ok(self.state().users.iter().find(|u| u.wallet_address.as_ref() == Some(address)).cloned())
    }

    async fn update(&self, id: UserId, changes: UserChanges) -> Result<Option<User>, StoreError> {
        let mut state = self.state();
        let Some(user) = state.users.iter_mut().find(|u| u.id == id) else {
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

    async fn list(&self) -> Result<Vec<User>, StoreError> {
        Ok(self.state().users.clone())
    }
}

#[async_trait]
impl RefreshTokenRepository for MemoryStore {
    async fn insert(&self, record: RefreshTokenRecord) -> Result<(), StoreError> {
        self.state().refresh_tokens.insert(record.token_hash.clone(), record);
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
        Ok(self.revoke_where(now, |record| record.family_id == family_id))
    }

    async fn revoke_user(&self, user_id: UserId, now: OffsetDateTime) -> Result<u64, StoreError> {
        Ok(self.revoke_where(now, |record| record.user_id == user_id))
    }

    async fn purge_expired(&self, now: OffsetDateTime) -> Result<u64, StoreError> {
        let mut state = self.state();
        let before = state.refresh_tokens.len();
        state.refresh_tokens.retain(|_, record| record.expires_at > now);
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
