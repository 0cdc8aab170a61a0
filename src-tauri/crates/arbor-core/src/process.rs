//! Signalling a child's whole process group: Bash commands and stdio MCP servers
//! are spawned as group leaders (`process_group(0)`), so what they start (a
//! pipeline, npx's node) stops with them. Through rustix, so no `unsafe` here.

pub(crate) use rustix::process::Signal;

/// Sends `signal` to the process group led by `pgid`.
pub(crate) fn signal_group(pgid: Option<u32>, signal: Signal) {
    let Some(pgid) = pgid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    // 0 and 1 would mean our own process group and init's: never ours to signal.
    if pgid <= 1 {
        return;
    }
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        // The group may be gone already; then there is nothing left to stop.
        let _ = rustix::process::kill_process_group(pid, signal);
    }
}

/// Kills a command's process group if whatever waits on it is abandoned midway (its
/// future dropped): `kill_on_drop` alone would kill only the shell, not what it started.
pub(crate) struct GroupGuard {
    pub pgid: Option<u32>,
    pub armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            signal_group(self.pgid, Signal::KILL);
        }
    }
}
