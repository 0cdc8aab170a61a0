//! One process drives a live session: the owner's claim. A claim is an
//! exclusive lock the kernel holds for the process on a file beside the store
//! (`<store>.owners/<session>.lock`), so it ends with the process however it
//! ends (exit, crash, SIGKILL) and can be neither forgotten nor taken by a
//! process that reuses a dead owner's pid. The session's row names the owner's
//! pid, to say where it runs. Lock files are never removed: unlinking a lock
//! file another process is about to lock would let two owners in.

use crate::Store;
use crate::error::{At, StoreError};
use arbor_protocol::SessionId;
use rusqlite::OptionalExtension;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// How often, and how far apart, a claim is tried before the session counts as owned.
const CLAIM_TRIES: u32 = 4;
const CLAIM_RETRY: std::time::Duration = std::time::Duration::from_millis(40);

/// This process's claim on a session: while it is held, no other process (nor
/// a second claim in this one) can drive the session. Dropping it lets go.
#[derive(Debug)]
pub struct Claim {
    session: SessionId,
    _lock: File,
}

impl Claim {
    pub fn session(&self) -> &SessionId {
        &self.session
    }
}

impl Store {
    /// The folder of the owners' lock files, beside the store's real file (a
    /// symlink to it must not give a second folder, and so a second owner).
    fn owners_dir(&self) -> PathBuf {
        let path = self.path.canonicalize().unwrap_or_else(|_| self.path.clone());
        let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".owners");
        path.with_file_name(name)
    }

    /// Takes the session for this process, or says who has it: another process
    /// that is running it ([`StoreError::Owned`]). A claim left by a process that
    /// died is free: the kernel let go of it with the process.
    pub fn claim(&self, session: &SessionId) -> Result<Claim, StoreError> {
        // Another process's check (`is_claimed`, a recovery) holds the lock for a moment: a few
        // tries tell that from an owner.
        for _ in 0..CLAIM_TRIES {
            if let Some(claim) = self.try_claim(session)? {
                return Ok(claim);
            }
            std::thread::sleep(CLAIM_RETRY);
        }
        Err(StoreError::Owned { session: session.to_string(), pid: self.owner_pid(session)? })
    }

    /// The session's claim if it is free now; None while a process holds it.
    pub(crate) fn try_claim(&self, session: &SessionId) -> Result<Option<Claim>, StoreError> {
        Ok(self.try_lock(session)?.map(|lock| Claim { session: session.clone(), _lock: lock }))
    }

    /// Whether some process (this one included) holds a claim on the session now.
    pub fn is_claimed(&self, session: &SessionId) -> Result<bool, StoreError> {
        Ok(self.try_lock(session)?.is_none())
    }

    /// The lock on the session's file, if free (released again when dropped).
    fn try_lock(&self, session: &SessionId) -> Result<Option<File>, StoreError> {
        let dir = self.owners_dir();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Io { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        // A session id is ours (`sess-…`): still, nothing in it may reach outside the folder.
        let name: String =
            session.as_str().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        let path = dir.join(format!("{name}.lock"));
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(StoreError::Io { path, source: e }),
        }
    }

    /// The pid the session's row names as its owner, if any.
    pub fn owner_pid(&self, session: &SessionId) -> Result<Option<u32>, StoreError> {
        let conn = self.reader();
        let pid: Option<Option<u32>> = conn
            .prepare_cached("SELECT owner_pid FROM sessions WHERE id = ?1")
            .and_then(|mut st| st.query_row([session.as_str()], |r| r.get(0)).optional())
            .at(&self.path)?;
        Ok(pid.flatten())
    }
}
