//! Work that may block (a keyring waiting on its unlock prompt, a file on a dead
//! mount) kept off the async runtime's few worker threads: one hung read must not
//! stall every live session.

/// Runs `f`, which may block, without holding a worker of a multi-threaded runtime:
/// the runtime hands the worker's queue to another thread meanwhile. On a
/// current-thread runtime (tests) or outside one, it simply runs `f`, since
/// `block_in_place` would panic there.
pub fn off_worker<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}
