//! Previews for approval cards: a file as it is on disk when the request is
//! made and as the call would leave it, and a fingerprint of it so a request
//! that waits can say when the file changed under it.

use arbor_protocol::ApprovalPreview;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};

/// Larger files are not shown in a card (the diff would be unreadable anyway).
pub const PREVIEW_MAX_BYTES: u64 = 512 * 1024;
/// Larger files are compared by size and time only while a request waits.
const HASH_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// What a tool shows a person, and the file to watch while they decide with
/// its fingerprint from just before the preview read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub shown: ApprovalPreview,
    pub watch: Option<(PathBuf, Fingerprint)>,
}

impl From<ApprovalPreview> for Preview {
    fn from(shown: ApprovalPreview) -> Self {
        Self { shown, watch: None }
    }
}

/// A file's state, enough to tell that it changed: absent, or its size, time and content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fingerprint {
    Absent,
    Present {
        len: u64,
        modified: Option<std::time::SystemTime>,
        hash: Option<u64>,
    },
    /// Could not be read; compared as is.
    Unreadable(String),
}

impl Fingerprint {
    pub async fn of(path: &Path) -> Self {
        let meta = match tokio::fs::metadata(path).await {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Self::Absent,
            Err(e) => return Self::Unreadable(e.kind().to_string()),
        };
        let hash = if meta.is_file() && meta.len() <= HASH_MAX_BYTES {
            match tokio::fs::read(path).await {
                Ok(bytes) => {
                    let mut h = DefaultHasher::new();
                    bytes.hash(&mut h);
                    Some(h.finish())
                }
                Err(e) => return Self::Unreadable(e.kind().to_string()),
            }
        } else {
            None
        };
        Self::Present { len: meta.len(), modified: meta.modified().ok(), hash }
    }

    /// How the file changed since `self`, in words for the card; None if it did not.
    pub fn change(&self, now: &Fingerprint) -> Option<&'static str> {
        match (self, now) {
            (a, b) if a == b => None,
            (Self::Absent, _) => Some("was created on disk after the request was made: the preview is out of date"),
            (_, Self::Absent) => Some("was deleted after the request was made: the preview is out of date"),
            _ => Some("changed on disk after the request was made: the preview is out of date"),
        }
    }
}

/// A file's text now: None when it does not exist; Err(note) when it cannot be shown.
pub async fn current_text(path: &Path) -> Result<Option<String>, String> {
    let meta = match tokio::fs::metadata(path).await {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read the file: {e}")),
    };
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    if meta.len() > PREVIEW_MAX_BYTES {
        return Err(format!(
            "the file is {} KB; only files up to {} KB are previewed",
            meta.len() / 1024,
            PREVIEW_MAX_BYTES / 1024
        ));
    }
    let bytes = tokio::fs::read(path).await.map_err(|e| format!("cannot read the file: {e}"))?;
    String::from_utf8(bytes).map(Some).map_err(|_| "the file is not UTF-8 text".to_string())
}

/// The card of a call that leaves `path` as `after` makes of its current text.
pub async fn file_change(
    path: &Path,
    shown: String,
    after: impl FnOnce(Option<&str>) -> Result<String, String>,
) -> Preview {
    // Taken before the read: a change in between makes the card say so, never hides it.
    let seen = Fingerprint::of(path).await;
    let (before, after, note) = match current_text(path).await {
        Ok(before) => match after(before.as_deref()) {
            Ok(a) if a.len() as u64 > PREVIEW_MAX_BYTES => {
                (before, None, Some("the new content is too large to preview".to_string()))
            }
            Ok(a) => (before, Some(a), None),
            Err(why) => (before, None, Some(why)),
        },
        Err(note) => (None, None, Some(note)),
    };
    Preview {
        shown: ApprovalPreview::File { path: shown, before, after, note },
        watch: Some((path.to_path_buf(), seen)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_fingerprint_tells_a_change_a_creation_and_a_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        let absent = Fingerprint::of(&p).await;
        assert_eq!(absent, Fingerprint::Absent);
        std::fs::write(&p, "one").unwrap();
        let one = Fingerprint::of(&p).await;
        assert!(absent.change(&one).unwrap().contains("created"));
        assert_eq!(one.change(&Fingerprint::of(&p).await), None, "unchanged");
        std::fs::write(&p, "two").unwrap();
        assert!(one.change(&Fingerprint::of(&p).await).unwrap().contains("changed"));
        std::fs::remove_file(&p).unwrap();
        assert!(one.change(&Fingerprint::of(&p).await).unwrap().contains("deleted"));
    }

    #[tokio::test]
    async fn a_preview_shows_the_file_before_and_after_or_says_why_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        let new = file_change(&p, "a.txt".into(), |b| Ok(format!("{}new", b.unwrap_or("")))).await;
        assert_eq!(
            new.shown,
            ApprovalPreview::File { path: "a.txt".into(), before: None, after: Some("new".into()), note: None }
        );
        std::fs::write(&p, vec![0xff, 0xfe]).unwrap();
        let binary = file_change(&p, "a.txt".into(), |_| Ok(String::new())).await;
        let ApprovalPreview::File { before, after, note, .. } = binary.shown else { panic!() };
        assert_eq!((before, after), (None, None));
        assert!(note.unwrap().contains("not UTF-8"));
        std::fs::write(&p, "x".repeat(PREVIEW_MAX_BYTES as usize + 1)).unwrap();
        let big = file_change(&p, "a.txt".into(), |_| Ok(String::new())).await;
        let ApprovalPreview::File { note, .. } = big.shown else { panic!() };
        assert!(note.unwrap().contains("KB"));
        assert_eq!(big.watch.as_ref().map(|(w, _)| w.as_path()), Some(p.as_path()));
    }
}
