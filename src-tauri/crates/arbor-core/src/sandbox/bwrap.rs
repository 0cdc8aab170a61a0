//! bubblewrap: checking that it works here, and the arguments that build one
//! command's sandbox. Order matters: later mounts cover earlier ones.

use super::Support;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The namespaces every sandboxed command gets: its own PID namespace, so
/// nothing it starts outlives it, and (network off) its own network namespace,
/// which has only a loopback of its own: no socket of any family leaves it.
/// Its own session too: no controlling terminal to push keystrokes into (TIOCSTI,
/// CVE-2017-5226), and its own System V IPC.
const BASE: [&str; 4] = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--new-session"];

/// Unix sockets a read-only bind leaves reachable (connecting needs no write
/// access): the user's session bus, agents (ssh, gpg), systemd, Docker's daemon.
const SOCKET_PLACES: [&str; 3] = ["/run/user", "/run/docker.sock", "/var/run/docker.sock"];

/// What in a git dir runs code when Arbor's own git commands run outside the
/// sandbox (hooks, config such as `core.fsmonitor`), and Arbor's worktree
/// descriptions: read-only inside it.
const GIT_PROTECTED: [&str; 4] = ["hooks", "config", "info", "arbor"];

/// Runs a trivial sandbox to learn whether this machine can make one.
pub(super) fn probe(program: &Path) -> Support {
    let version = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "bubblewrap".to_string());
    let trial = Command::new(program)
        .args(BASE)
        .args(["--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output();
    match trial {
        Ok(o) if o.status.success() => Support::Bubblewrap { program: program.to_path_buf(), version },
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr);
            let why: String = why.lines().next().unwrap_or("no message").chars().take(200).collect();
            Support::Unavailable(format!(
                "bubblewrap cannot make a sandbox on this machine ({why}); unprivileged user namespaces may be \
                 turned off (kernel.unprivileged_userns_clone, or an AppArmor restriction)"
            ))
        }
        Err(e) => Support::Unavailable(format!("cannot run bubblewrap ({}): {e}", program.display())),
    }
}

/// Where one command's sandbox puts things.
pub(super) struct Layout<'a> {
    pub tree: &'a Path,
    /// The agent's private directory, mounted at /tmp.
    pub tmp: &'a Path,
    pub write: &'a [PathBuf],
    pub hidden: &'a [PathBuf],
    pub home: Option<&'a Path>,
    pub strict: bool,
    pub network: bool,
    pub cwd: &'a Path,
}

/// bwrap's arguments up to (not including) `--` and the command.
pub(super) fn args(l: &Layout) -> Vec<OsString> {
    let mut a: Vec<OsString> = BASE.iter().map(OsString::from).collect();
    let mut push = |parts: &[&std::ffi::OsStr]| a.extend(parts.iter().map(|p| p.to_os_string()));
    if !l.network {
        push(&["--unshare-net".as_ref()]);
    }
    // The whole system read-only, with fresh /dev and /proc of the sandbox's own.
    push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    push(&["--dev".as_ref(), "/dev".as_ref(), "--proc".as_ref(), "/proc".as_ref()]);
    push(&["--bind".as_ref(), l.tmp.as_os_str(), "/tmp".as_ref()]);
    if l.strict
        && let Some(home) = l.home
    {
        push(&["--tmpfs".as_ref(), home.as_os_str()]);
    }
    // The writable places after the tmpfs that may cover them, so they show through.
    // The allowed directories as the file system resolves them, so a bind is what was checked.
    let extra: Vec<PathBuf> = l.write.iter().filter_map(|p| p.canonicalize().ok()).filter(|p| p.is_dir()).collect();
    let binds: Vec<&Path> = std::iter::once(l.tree).chain(extra.iter().map(PathBuf::as_path)).collect();
    for b in &binds {
        push(&["--bind".as_ref(), b.as_os_str(), b.as_os_str()]);
    }
    // A repository's git dir stays writable (commits), but not what makes git run code.
    for b in &binds {
        let git = b.join(".git");
        if git.is_file() {
            push(&["--ro-bind".as_ref(), git.as_os_str(), git.as_os_str()]);
        } else if git.is_dir() {
            for p in GIT_PROTECTED.iter().map(|p| git.join(p)).filter(|p| p.exists()) {
                push(&["--ro-bind".as_ref(), p.as_os_str(), p.as_os_str()]);
            }
        }
    }
    for s in SOCKET_PLACES.iter().map(Path::new) {
        if s.is_dir() {
            push(&["--tmpfs".as_ref(), s.as_os_str()]);
        } else if s.exists() {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), s.as_os_str()]);
        }
    }
    // Secrets last, so a writable tree that contains one (a workspace opened at
    // the home directory) does not uncover it. Under strict's empty home they
    // are gone already, unless a bind brought them back.
    for h in l.hidden {
        let covered =
            l.strict && l.home.is_some_and(|home| h.starts_with(home)) && !binds.iter().any(|b| h.starts_with(b));
        if covered {
            continue;
        }
        if h.is_dir() {
            push(&["--tmpfs".as_ref(), h.as_os_str()]);
        } else if h.exists() {
            push(&["--ro-bind".as_ref(), "/dev/null".as_ref(), h.as_os_str()]);
        }
    }
    push(&["--chdir".as_ref(), l.cwd.as_os_str(), "--setenv".as_ref(), "TMPDIR".as_ref(), "/tmp".as_ref()]);
    a
}
