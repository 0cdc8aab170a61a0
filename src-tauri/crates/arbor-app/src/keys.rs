//! API keys: saved in the OS keyring (Secret Service on Linux, Keychain on macOS,
//! Credential Manager on Windows), never in a file. The environment variables
//! the SDKs read still work and win over a saved key. No key is ever logged.

use crate::env::Environment;
use crate::providers::ProviderKind;
use arbor_core::provider::ApiKey;
use parking_lot::Mutex;
use serde::Serialize;
use std::collections::HashMap;

/// Where a provider's key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    Environment,
    Keyring,
    None,
    /// A local server (Ollama, llama.cpp, …) that takes no key.
    NotNeeded,
}

/// Says the whole thing itself: `status`'s reason is the detail under the UI's
/// own "no keyring" sentence, so it does not repeat that the keyring is missing.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct KeyringError(String);

/// A place keys can be saved in. The OS keyring in the app; in memory in tests.
pub trait SecretStore: Send + Sync {
    /// Whether saving works here, and if not, why (shown to the user).
    fn status(&self) -> Result<(), KeyringError>;
    fn get(&self, kind: ProviderKind) -> Result<Option<String>, KeyringError>;
    fn set(&self, kind: ProviderKind, key: &str) -> Result<(), KeyringError>;
    fn delete(&self, kind: ProviderKind) -> Result<(), KeyringError>;
}

const SERVICE: &str = "dev.arbor.desktop";

/// The platform's keyring through the `keyring` crate.
pub struct OsKeyring;

impl OsKeyring {
    fn entry(kind: ProviderKind) -> Result<keyring::Entry, KeyringError> {
        keyring::Entry::new(SERVICE, kind.key_var()).map_err(describe)
    }
}

fn describe(e: keyring::Error) -> KeyringError {
    match e {
        keyring::Error::NoDefaultStore | keyring::Error::NoStorageAccess(_) | keyring::Error::PlatformFailure(_) => {
            KeyringError(format!(
                "the OS keyring is not available ({e}); on Linux it needs a Secret Service such as gnome-keyring"
            ))
        }
        other => KeyringError(format!("the OS keyring failed: {other}")),
    }
}

impl SecretStore for OsKeyring {
    fn status(&self) -> Result<(), KeyringError> {
        match keyring::Entry::store_status() {
            Ok(()) => Ok(()),
            Err(e) => {
                Err(KeyringError(format!("{e}. On Linux, saving keys needs a Secret Service such as gnome-keyring.")))
            }
        }
    }

    fn get(&self, kind: ProviderKind) -> Result<Option<String>, KeyringError> {
        match Self::entry(kind)?.get_password() {
            Ok(k) => Ok(Some(k)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(describe(e)),
        }
    }

    fn set(&self, kind: ProviderKind, key: &str) -> Result<(), KeyringError> {
        Self::entry(kind)?.set_password(key).map_err(describe)
    }

    fn delete(&self, kind: ProviderKind) -> Result<(), KeyringError> {
        match Self::entry(kind)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(describe(e)),
        }
    }
}

/// No saved keys: the command line, which reads keys from the environment only.
pub struct NoSecrets;

impl SecretStore for NoSecrets {
    fn status(&self) -> Result<(), KeyringError> {
        Err(KeyringError("the command line does not use the OS keyring: set the API key environment variables".into()))
    }
    fn get(&self, _kind: ProviderKind) -> Result<Option<String>, KeyringError> {
        Ok(None)
    }
    fn set(&self, _kind: ProviderKind, _key: &str) -> Result<(), KeyringError> {
        self.status()
    }
    fn delete(&self, _kind: ProviderKind) -> Result<(), KeyringError> {
        Ok(())
    }
}

/// Keys in memory: for tests, and for machines where the user chose not to save.
#[derive(Default)]
pub struct MemoryStore(Mutex<HashMap<ProviderKind, String>>);

impl SecretStore for MemoryStore {
    fn status(&self) -> Result<(), KeyringError> {
        Ok(())
    }
    fn get(&self, kind: ProviderKind) -> Result<Option<String>, KeyringError> {
        Ok(self.0.lock().get(&kind).cloned())
    }
    fn set(&self, kind: ProviderKind, key: &str) -> Result<(), KeyringError> {
        self.0.lock().insert(kind, key.to_string());
        Ok(())
    }
    fn delete(&self, kind: ProviderKind) -> Result<(), KeyringError> {
        self.0.lock().remove(&kind);
        Ok(())
    }
}

/// The key to use for `kind`: the environment variable, else the saved one.
/// A keyring that cannot be read counts as no saved key.
pub fn resolve(store: &dyn SecretStore, kind: ProviderKind, env: &Environment) -> (Option<ApiKey>, KeySource) {
    if let Some(k) = env.get(kind.key_var()) {
        return (Some(ApiKey::new(k)), KeySource::Environment);
    }
    match store.get(kind) {
        Ok(Some(k)) if !k.trim().is_empty() => (Some(ApiKey::new(k.trim())), KeySource::Keyring),
        Ok(_) => (None, KeySource::None),
        Err(e) => {
            tracing::warn!(provider = kind.name(), "reading the saved key: {e}");
            (None, KeySource::None)
        }
    }
}
