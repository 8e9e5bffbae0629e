//! The JWT signing secret when none is configured: generated once and kept in
//! `DATA_DIR/jwt-secret` (mode 0600) so tokens survive restarts. A secret file that other users
//! could read is refused at load, as ssh refuses a private key with loose permissions: anyone who
//! reads it can mint tokens for any user.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use rand::RngCore;

use crate::config::Secret;

const FILE_NAME: &str = "jwt-secret";

/// Reads the persisted secret, or generates and persists a new 256-bit one.
pub fn load_or_create_jwt_secret(data_dir: &Path) -> anyhow::Result<Secret> {
    let path = data_dir.join(FILE_NAME);
    match std::fs::File::open(&path) {
        Ok(mut file) => {
            // The mode of the opened file itself, so a swap between the check and the read is moot.
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode =
                    file.metadata().with_context(|| format!("cannot inspect {}", path.display()))?.permissions().mode();
                anyhow::ensure!(
                    mode & 0o077 == 0,
                    "{} is accessible to other users (mode {:o}); it signs every token: `chmod 600 {}`",
                    path.display(),
                    mode & 0o777,
                    path.display()
                );
            }
            let mut existing = String::new();
            file.read_to_string(&mut existing).with_context(|| format!("cannot read {}", path.display()))?;
            let existing = existing.trim();
            anyhow::ensure!(existing.len() >= 32, "{} holds fewer than 32 bytes", path.display());
            return Ok(Secret::new(existing));
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(error).with_context(|| format!("cannot open {}", path.display())),
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

    #[cfg(unix)]
    #[test]
    fn a_secret_file_readable_by_others_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("creditflow-secret-{}", uuid::Uuid::new_v4()));
        load_or_create_jwt_secret(&dir).expect("generate");
        let path = dir.join(FILE_NAME);
        for loose in [0o644, 0o640, 0o604, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(loose)).expect("chmod");
            let error = load_or_create_jwt_secret(&dir).expect_err("loose mode refused");
            let message = format!("{error:#}");
            assert!(message.contains("chmod 600"), "{message}");
            assert!(message.contains(&format!("{loose:o}")), "{message}");
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).expect("chmod");
        assert!(load_or_create_jwt_secret(&dir).is_ok(), "read-only for the owner is fine");
        std::fs::remove_dir_all(&dir).ok();
    }
}
