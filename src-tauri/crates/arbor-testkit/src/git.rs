//! The real `git`, as the tests drive it beside Arbor (a repository to work in,
//! what `git worktree list` says afterwards).

use std::path::Path;
use std::process::Command;

/// `git -C dir args…` with a test identity; its stdout. Panics, naming the
/// command and git's message, when git fails: a test's setup must hold.
#[allow(clippy::expect_used)]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
        .args(args)
        .output()
        .expect("git runs (it is installed by scripts/install-deps.sh)");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
