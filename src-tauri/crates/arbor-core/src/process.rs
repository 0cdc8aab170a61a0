//! Signalling a child's whole process group: Bash commands and stdio MCP servers
//! are spawned as group leaders (`process_group(0)`), so what they start (a
//! pipeline, npx's node) stops with them. The crate's one use of `unsafe`.

/// Sends `signal` to the process group led by `pgid`.
#[allow(unsafe_code)]
pub(crate) fn signal_group(pgid: Option<u32>, signal: i32) {
    let Some(pgid) = pgid.and_then(|p| i32::try_from(p).ok()) else {
        return;
    };
    // 0 and 1 would mean our own process group and init's: never ours to signal.
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours; a negative
    // pid addresses the process group the child leads.
    unsafe {
        libc::kill(-pgid, signal);
    }
}
