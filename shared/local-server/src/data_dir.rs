//! The data directory of `specpress serve`: created owner-only, it keeps the embedded engine's file
//! ([`crate::backend`]) and the keys a start generates when none is configured, so cursors and sealed webhook secrets
//! survive restarts: the pagination cursor key ([`cursor_key`]) and the webhook secret-sealing key
//! ([`webhook_secret_key`]). The keys are never logged or printed.

use std::io::Write as _;
use std::path::Path;

use specpress_domain::{DomainError, Result};
use specpress_pagination::MIN_KEY_BYTES;

/// File in the data directory holding the pagination cursor key.
pub const CURSOR_KEY_FILE: &str = "cursor.key";
/// File in the data directory holding the webhook secret-sealing key (base64 of 32 bytes).
pub const WEBHOOK_KEY_FILE: &str = "webhook-secret.key";

/// Creates the data directory with owner-only permissions.
pub fn prepare(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(DomainError::unexpected)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(DomainError::unexpected)?;
    }
    Ok(())
}

fn key_problem(file: &Path, problem: impl std::fmt::Display) -> DomainError {
    DomainError::unexpected(format!("cursor key file {}: {problem}", file.display()))
}

/// The cursor key of a start: `configured` (`SPECPRESS_CURSOR_KEY`) when set, else the key kept in `data_dir`
/// ([`data_dir_cursor_key`]).
pub fn cursor_key(configured: Option<&str>, data_dir: &Path) -> Result<Vec<u8>> {
    match configured {
        Some(k) => Ok(k.as_bytes().to_vec()),
        None => data_dir_cursor_key(data_dir),
    }
}

/// The cursor key kept in `data_dir`: read from [`CURSOR_KEY_FILE`], or generated on first start (32 random bytes as
/// 64 hex characters) and written there with mode 0600, created exclusively so two processes starting together end
/// up with the same key.
pub fn data_dir_cursor_key(data_dir: &Path) -> Result<Vec<u8>> {
    let file = data_dir.join(CURSOR_KEY_FILE);
    let key: [u8; 32] = rand::random();
    let text: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    match options.open(&file) {
        Ok(mut f) => {
            f.write_all(text.as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(|e| key_problem(&file, e))?;
            return Ok(text.into_bytes());
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(key_problem(&file, e)),
    }
    #[cfg(unix)]
    {
        // A key readable by others is made private again (it lets anyone who reads it forge cursors).
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file)
            .map_err(|e| key_problem(&file, e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| key_problem(&file, e))?;
        }
    }
    let stored = std::fs::read_to_string(&file).map_err(|e| key_problem(&file, e))?;
    let stored = stored.trim();
    if stored.len() < MIN_KEY_BYTES {
        return Err(key_problem(
            &file,
            format!(
                "holds {} bytes, fewer than the {} a key needs; delete it to generate a new one (cursors issued \
                 before then stop working)",
                stored.len(),
                MIN_KEY_BYTES
            ),
        ));
    }
    Ok(stored.as_bytes().to_vec())
}

/// The webhook secret-sealing key kept in `dir` ([`WEBHOOK_KEY_FILE`]), generated on first start (base64 of 32
/// random bytes, owner-only permissions).
pub fn webhook_secret_key(dir: &Path) -> Result<String> {
    use base64::Engine as _;
    let file = dir.join(WEBHOOK_KEY_FILE);
    if let Ok(text) = std::fs::read_to_string(&file) {
        return Ok(text.trim().to_owned());
    }
    std::fs::create_dir_all(dir).map_err(DomainError::unexpected)?;
    let key: [u8; 32] = rand::random();
    let text = base64::engine::general_purpose::STANDARD.encode(key);
    std::fs::write(&file, &text).map_err(DomainError::unexpected)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
            .map_err(DomainError::unexpected)?;
    }
    Ok(text)
}
