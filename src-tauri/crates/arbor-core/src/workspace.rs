//! The workspace an agent works in, and the rule that tools act only inside it.
//!
//! A path is resolved lexically against the root, then every existing part of it
//! is canonicalised so that `..` and symlinks cannot lead outside. Extra roots
//! can be allowed in settings.

use arbor_protocol::text::quote;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The most characters of the model's own text an error quotes back to it.
pub const QUOTE_CHARS: usize = 200;

#[derive(Debug, Error)]
pub enum PathError {
    #[error("{path} is outside the workspace ({root}); only paths inside it are allowed")]
    Outside { path: String, root: String },
    #[error("cannot resolve {path}: {source}")]
    Io { path: String, source: io::Error },
}

#[derive(Debug, Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    /// Canonical roots paths may resolve into: the workspace first, then the allowed extras.
    allowed: Vec<PathBuf>,
}

impl Workspace {
    /// `root` must exist. `extra_allowed` are further directories tools may touch.
    pub fn new(root: impl AsRef<Path>, extra_allowed: &[PathBuf]) -> io::Result<Self> {
        let root = root.as_ref().canonicalize()?;
        let mut allowed = vec![root.clone()];
        for p in extra_allowed {
            allowed.push(p.canonicalize()?);
        }
        Ok(Self { inner: Arc::new(Inner { root, allowed }) })
    }

    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// Resolves `path` (absolute or relative to the root) to an absolute path inside
    /// an allowed root, following symlinks of every part that exists.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = if Path::new(path).is_absolute() { PathBuf::from(path) } else { self.inner.root.join(path) };
        let lexical = normalize(&joined);
        let real = canonicalize_existing_prefix(&lexical)
            .map_err(|source| PathError::Io { path: quote(path, QUOTE_CHARS), source })?;
        if self.inner.allowed.iter().any(|root| real.starts_with(root)) {
            Ok(real)
        } else {
            Err(PathError::Outside { path: quote(path, QUOTE_CHARS), root: self.inner.root.display().to_string() })
        }
    }

    /// `path` relative to the root when inside it, else as it is; for messages and events.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.inner.root).unwrap_or(path).display().to_string()
    }
}

/// Removes `.` and resolves `..` without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Canonicalises the longest existing prefix of `path` and appends the rest, so a
/// file that does not exist yet resolves through its existing (maybe symlinked) parents.
fn canonicalize_existing_prefix(path: &Path) -> io::Result<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(real) => {
                let mut real = real;
                for part in rest.iter().rev() {
                    real.push(part);
                }
                return Ok(real);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // A dangling symlink must not be written through: its target may be outside.
                if existing.symlink_metadata().is_ok() {
                    return Err(io::Error::new(io::ErrorKind::InvalidInput, "dangling symbolic link"));
                }
                match (existing.file_name(), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        rest.push(name.to_os_string());
                        existing = parent.to_path_buf();
                    }
                    _ => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_paths_inside_resolve() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path(), &[]).unwrap();
        let root = ws.root().to_path_buf();
        assert_eq!(ws.resolve("a/b.txt").unwrap(), root.join("a/b.txt"));
        assert_eq!(ws.resolve(root.join("x").to_str().unwrap()).unwrap(), root.join("x"));
        assert_eq!(ws.resolve("a/../c").unwrap(), root.join("c"));
    }

    #[test]
    fn dot_dot_and_absolute_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path(), &[]).unwrap();
        assert!(matches!(ws.resolve("../outside.txt"), Err(PathError::Outside { .. })));
        assert!(matches!(ws.resolve("/etc/passwd"), Err(PathError::Outside { .. })));
        assert!(matches!(ws.resolve("a/../../x"), Err(PathError::Outside { .. })));
    }

    #[test]
    fn symlinks_pointing_outside_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let ws = Workspace::new(dir.path(), &[]).unwrap();
        assert!(matches!(ws.resolve("link/secret.txt"), Err(PathError::Outside { .. })));
        std::os::unix::fs::symlink(outside.path().join("nope"), dir.path().join("dangling")).unwrap();
        assert!(ws.resolve("dangling").is_err());
    }

    #[test]
    fn extra_allowed_roots_are_accepted() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path(), &[outside.path().to_path_buf()]).unwrap();
        let p = outside.path().join("f.txt");
        assert!(ws.resolve(p.to_str().unwrap()).is_ok());
    }
}
