//! The `.eml` outbox: `specpress serve` without SMTP writes each mail as `<id>.eml` into a folder (the data
//! directory's `outbox/`), to open in a mail client or read in tests. A file is written whole or not at all (a
//! temporary file in the same folder, then a rename), and the same mail id names the same file, so a retried mail
//! is still one file.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use sha2::{Digest, Sha256};
use specpress_domain::ports::{Mail, Mailer};
use specpress_domain::{DomainError, Result};

use crate::message::{Sender, build};

/// Writes mail into a folder.
#[derive(Debug)]
pub struct EmlOutbox {
    dir: PathBuf,
    sender: Sender,
}

/// The file name of the mail with id `id`: the id itself when it is a plain name (letters, digits, `-`, `_`, `.`,
/// not starting with a dot, at most 120 bytes), else the hex SHA-256 of the id; `.eml` appended.
pub fn file_name(id: &str) -> String {
    let plain = !id.is_empty()
        && id.len() <= 120
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain {
        format!("{id}.eml")
    } else {
        format!("{}.eml", hex::encode(Sha256::digest(id.as_bytes())))
    }
}

impl EmlOutbox {
    /// An outbox writing into `dir` (created when missing, at the first mail) as `sender`.
    pub fn new(dir: impl Into<PathBuf>, sender: Sender) -> Self {
        Self {
            dir: dir.into(),
            sender,
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[async_trait]
impl Mailer for EmlOutbox {
    async fn send(&self, mail: &Mail) -> Result<()> {
        let bytes = build(&self.sender, mail)?.bytes();
        let target = self.dir.join(file_name(&mail.id));
        let temp = self.dir.join(format!(
            ".{}.{:016x}.tmp",
            file_name(&mail.id),
            rand::random::<u64>()
        ));
        tokio::fs::create_dir_all(&self.dir)
            .await
            .map_err(DomainError::unexpected)?;
        let written = async {
            tokio::fs::write(&temp, &bytes).await?;
            tokio::fs::File::open(&temp).await?.sync_all().await?;
            tokio::fs::rename(&temp, &target).await
        }
        .await;
        if let Err(e) = written {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(DomainError::unexpected(e));
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("written as .eml files into {}", self.dir.display())
    }
}
