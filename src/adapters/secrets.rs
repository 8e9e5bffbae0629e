//! The JWT signing secret when none is configured: generated once and kept in
//! `DATA_DIR/jwt-secret` (mode 0600) so tokens survive restarts.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use rand::RngCore;

use crate::config::Secret;

const FILE_NAME: &str = "jwt-secret";

/// Reads the persisted secret, or generates and persists a new 256-bit one.
pub fn load_or_create_jwt_secret(data_dir: &Path) -> anyhow::Result<Secret> {
    let path = data_dir.join(FILE_NAME);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        let existing = existing.trim();
        anyhow::ensure!(existing.len() >= 32, "{} holds fewer than 32 bytes", path.display());
        return Ok(Secret::new(existing));
    }
    std::fs::create_dir_all(data_dir).with_context(|| format!("cannot create DATA_DIR {}", data_dir.display()))?;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = hex::encode(bytes);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path).with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(secret.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tracing::warn!(
        path = %path.display(),
        "JWT_SECRET is not set: generated a signing secret and stored it (mode 0600); set JWT_SECRET in production"
    );
    Ok(Secret::new(secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_secret_is_persisted_private_and_reused() {
        let dir = std::env::temp_dir().join(format!("creditflow-secret-{}", uuid::Uuid::new_v4()));
        let first = load_or_create_jwt_secret(&dir).expect("generate");
        let second = load_or_create_jwt_secret(&dir).expect("reload");
        assert_eq!(first, second);
        assert_eq!(first.expose().len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(FILE_NAME)).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
