//! What a working tree holds, file by file: a walk that honours `.gitignore`
//! (and skips `.git`), each file's metadata, and the bytes of the small ones,
//! kept so a later change can be shown and undone. Comparing two walks finds
//! what changed without reading any file whose metadata did not change.

use arbor_protocol::{ChangeKind, Kept};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files up to this size keep their bytes.
pub(crate) const KEEP_FILE_BYTES: u64 = 256 * 1024;
/// Kept bytes of one tree in all; files past it are tracked without their bytes.
pub(crate) const KEEP_TREE_BYTES: usize = 128 * 1024 * 1024;

/// What changes when a file's content may have: a rewrite moves mtime and ctime, a rename the inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl Meta {
    /// For bytes not read from disk (a revert's record).
    pub(crate) fn empty(len: u64) -> Meta {
        Meta { len, mtime_ns: 0, ctime_ns: 0, ino: 0 }
    }

    pub(crate) fn of(m: &std::fs::Metadata) -> Meta {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Meta {
            len: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
        }
    }
}

/// One file as last seen.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub meta: Meta,
    /// SHA-256 of its bytes; None when they were not read (too large).
    pub hash: Option<[u8; 32]>,
    /// Its bytes, when kept.
    pub bytes: Option<Arc<Vec<u8>>>,
}

/// Every file of a tree, by `/`-separated path relative to its root.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub files: HashMap<String, Entry>,
    pub kept: usize,
}

/// The files of `root` with their metadata, honouring `.gitignore` (hidden files
/// included, `.git` not). Walked on two threads: the walk is what each command pays.
pub(crate) fn walk(root: &Path) -> HashMap<String, Meta> {
    let out = Mutex::new(HashMap::new());
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .threads(2)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel();
    walker.visit(&mut Collector { root, out: &out });
    out.into_inner().unwrap_or_default()
}

/// Hands each walking thread a visitor that collects on its own and adds its
/// findings to `out` once, when the thread is done.
struct Collector<'a> {
    root: &'a Path,
    out: &'a Mutex<HashMap<String, Meta>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Collector<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor { root: self.root, out: self.out, found: Vec::new() })
    }
}

struct Visitor<'a> {
    root: &'a Path,
    out: &'a Mutex<HashMap<String, Meta>>,
    found: Vec<(String, Meta)>,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if let Ok(entry) = entry
            && entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(meta) = entry.metadata()
            && let Some(rel) = relative(self.root, entry.path())
        {
            self.found.push((rel, Meta::of(&meta)));
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        if let Ok(mut out) = self.out.lock() {
            out.extend(self.found.drain(..));
        }
    }
}

/// `path` relative to `root`, `/`-separated; None outside it or not UTF-8.
pub(crate) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/")).filter(|s| !s.is_empty())
}

impl Snapshot {
    /// Everything under `root` now, keeping small files' bytes up to the tree's bound.
    pub(crate) fn take(root: &Path) -> Snapshot {
        let mut s = Snapshot::default();
        for (rel, meta) in walk(root) {
            let entry = s.read(root, &rel, meta);
            s.files.insert(rel, entry);
        }
        s
    }

    /// Reads one file as its entry, keeping its bytes when they fit.
    pub(crate) fn read(&mut self, root: &Path, rel: &str, meta: Meta) -> Entry {
        let keep = meta.len <= KEEP_FILE_BYTES && self.kept + meta.len as usize <= KEEP_TREE_BYTES;
        let Ok(path) = unlinked(root, rel) else {
            return Entry { meta, hash: None, bytes: None };
        };
        if !keep {
            return Entry { meta, hash: None, bytes: None };
        }
        match std::fs::read(&path) {
            Ok(bytes) => {
                self.kept += bytes.len();
                Entry { meta, hash: Some(sha256(&bytes)), bytes: Some(Arc::new(bytes)) }
            }
            Err(_) => Entry { meta, hash: None, bytes: None },
        }
    }

    /// Forgets a file's kept bytes (it changed or went).
    pub(crate) fn drop_entry(&mut self, rel: &str) -> Option<Entry> {
        let e = self.files.remove(rel)?;
        if let Some(b) = &e.bytes {
            self.kept = self.kept.saturating_sub(b.len());
        }
        Some(e)
    }
}

pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

pub(crate) fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// A change between two entries (None: no file), if the bytes differ.
pub(crate) struct Diffed {
    pub kind: ChangeKind,
    pub before: Kept,
    pub after: Kept,
    pub before_hash: Option<String>,
    pub after_hash: Option<String>,
    pub lines_added: u32,
    pub lines_removed: u32,
}

pub(crate) fn diff(before: Option<&Entry>, after: Option<&Entry>) -> Option<Diffed> {
    let kind = match (before, after) {
        (None, None) => return None,
        (None, Some(_)) => ChangeKind::Created,
        (Some(_), None) => ChangeKind::Deleted,
        (Some(b), Some(a)) => {
            // Same bytes (a touch, a rewrite with the same content): no change.
            if b.hash.is_some() && b.hash == a.hash {
                return None;
            }
            ChangeKind::Modified
        }
    };
    let (lines_added, lines_removed) = line_counts(before.and_then(text_of), after.and_then(text_of));
    Some(Diffed {
        kind,
        before: kept(before),
        after: kept(after),
        before_hash: before.and_then(|e| e.hash.as_ref()).map(hex),
        after_hash: after.and_then(|e| e.hash.as_ref()).map(hex),
        lines_added,
        lines_removed,
    })
}

fn text_of(e: &Entry) -> Option<&str> {
    e.bytes.as_deref().and_then(|b| std::str::from_utf8(b).ok())
}

fn line_counts(before: Option<&str>, after: Option<&str>) -> (u32, u32) {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let d = similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""));
    let (mut added, mut removed) = (0, 0);
    for op in d.ops() {
        for change in d.iter_changes(op) {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    (count(added), count(removed))
}

/// How an entry is kept in a change event.
pub(crate) fn kept(e: Option<&Entry>) -> Kept {
    let Some(e) = e else { return Kept::Absent };
    match &e.bytes {
        Some(b) => match std::str::from_utf8(b) {
            Ok(text) => Kept::Text { text: text.to_string() },
            Err(_) => Kept::Binary { base64: base64_encode(b) },
        },
        None => Kept::NotKept {
            bytes: e.meta.len,
            reason: if e.meta.len > KEEP_FILE_BYTES {
                format!("larger than {} KiB: its bytes are not kept", KEEP_FILE_BYTES / 1024)
            } else {
                format!("the tree's {} MiB of kept bytes were used up", KEEP_TREE_BYTES / (1024 * 1024))
            },
        },
    }
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The bytes a kept side stands for; None when not kept.
pub(crate) fn bytes_of(k: &Kept) -> Option<Option<Vec<u8>>> {
    use base64::Engine as _;
    match k {
        Kept::Absent => Some(None),
        Kept::Text { text } => Some(Some(text.as_bytes().to_vec())),
        Kept::Binary { base64 } => base64::engine::general_purpose::STANDARD.decode(base64).ok().map(Some),
        Kept::NotKept { .. } => None,
    }
}

/// A path inside `root` for a relative path from an event; None if it would leave it.
pub(crate) fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let ok = p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    ok.then(|| root.join(p))
}

/// `rel` inside `root` with no symbolic link on the way (the file itself
/// included): a link an agent planted must not carry a revert's write, or a
/// read for a change's record, outside the tree.
pub(crate) fn unlinked(root: &Path, rel: &str) -> Result<PathBuf, String> {
    let path = inside(root, rel).ok_or_else(|| format!("{rel} is not inside {}", root.display()))?;
    let mut at = root.to_path_buf();
    for part in Path::new(rel).components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let shown = at.strip_prefix(root).unwrap_or(&at).display().to_string();
                return Err(format!("{shown} is a symbolic link now; Arbor does not follow it"));
            }
            Ok(_) => {}
            // What does not exist yet cannot be a link (nor can anything below it).
            Err(_) => break,
        }
    }
    Ok(path)
}
