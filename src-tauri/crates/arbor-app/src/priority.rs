//! The agents' work yields the machine to the person's. A window's threads
//! (its event loop, the webview's) keep the normal priority; the threads that
//! run agents and store their events are lowered, and so is what those threads
//! start (a command, an MCP server): when every core is busy, a keystroke is
//! painted first and the agents' stream waits a few milliseconds. With three
//! sessions streaming on two cores, at equal priority a typed burst caught up
//! two seconds behind the keys (docs/speed.md).

/// The nice value of an agent's thread: below normal (0), above idle work (19).
pub const AGENT_NICE: i32 = 10;

/// Lowers the calling thread's priority to [`AGENT_NICE`] (Linux: the nice value
/// is per thread); elsewhere, or where the system refuses, nothing changes.
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, AGENT_NICE) {
        tracing::debug!("this thread keeps its priority: {e}");
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn only_the_calling_thread_is_lowered() {
        let before = rustix::process::getpriority_process(None).expect("this thread's priority");
        let lowered = std::thread::spawn(|| {
            super::lower_this_thread();
            rustix::process::getpriority_process(None).expect("its priority")
        })
        .join()
        .expect("the thread");
        // From a nicer start, only a privileged process may come back up to AGENT_NICE.
        assert!(
            lowered == super::AGENT_NICE || (before > super::AGENT_NICE && lowered == before),
            "{before} → {lowered}"
        );
        assert_eq!(rustix::process::getpriority_process(None).expect("this thread's priority"), before);
    }
}
