//! Git worktrees for subagents that work in isolation, through the real `git`.
//!
//! A worktree starts from its parent's tree as it is, uncommitted and untracked
//! (not ignored) files included: they are committed, with a scratch index, as
//! the branch's base. When the agent ends, its work is committed on the branch;
//! a merge applies the branch's diff to the parent's tree with `git apply`,
//! which applies all of it or nothing, naming each file that does not fit.
//! Worktrees live in the repository's git dir (`arbor/worktrees/<session>/<agent>`),
//! where no tool walks, and are found again there after a crash.

use arbor_protocol::{ChangeKind, RevertConflict, WorktreeAction, WorktreeFile, WorktreeState, WorktreeUpdate};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum WorktreeError {
    #[error(
        "{0} is not in a git repository, so a subagent cannot get a worktree of its own (`git init` it, or run the subagent without isolation)"
    )]
    NotARepository(String),
    #[error("cannot run git: {0}")]
    NoGit(String),
    #[error("git {command} failed: {message}")]
    Git { command: String, message: String },
}

/// An agent's worktree. Also written beside it (`<agent>.json`), so it can be
/// merged or discarded after the process that made it is gone.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Worktree {
    /// The worktree's top directory.
    pub path: PathBuf,
    /// Where the agent works: `path`, or the same subdirectory of it as its parent's tree had.
    pub root: PathBuf,
    pub branch: String,
    pub base: String,
    /// The parent's working tree (where a merge applies) and its repository's top.
    pub parent_root: PathBuf,
    pub parent_top: PathBuf,
}

impl Worktree {
    /// The event saying this worktree is now in `state`.
    pub fn update(&self, state: WorktreeState, files: Vec<WorktreeFile>) -> WorktreeUpdate {
        WorktreeUpdate {
            state,
            branch: self.branch.clone(),
            path: self.path.display().to_string(),
            parent_root: self.parent_root.display().to_string(),
            base: self.base.clone(),
            files,
            conflicts: Vec::new(),
        }
    }
}

/// Whether the worktree at `path` holds work not yet committed.
pub fn uncommitted(path: &Path) -> bool {
    git_out(path, &["status", "--porcelain"], "status").is_ok_and(|s| !s.trim().is_empty())
}

/// The top of the repository `dir` is in, if any (a `.git` dir or file above it).
pub fn repository_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// Arbor's own identity for its commits, and nothing of the repository's that runs
/// code or lingers: hooks, an fsmonitor, external diff drivers, background gc.
const GIT_CONFIG: [&str; 8] = [
    "user.name=Arbor",
    "user.email=arbor@localhost",
    "commit.gpgsign=false",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "diff.external=",
    "gc.auto=0",
    "maintenance.auto=false",
];

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir);
    for kv in GIT_CONFIG {
        c.args(["-c", kv]);
    }
    // The caller's own git environment must not redirect these commands.
    for v in ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE"] {
        c.env_remove(v);
    }
    c.stdin(Stdio::null());
    c
}

/// `git -C dir args…`, through [`run`].
fn git_out(dir: &Path, args: &[&str], what: &str) -> Result<String, WorktreeError> {
    let mut g = git(dir);
    g.args(args);
    run(g, what)
}

/// Runs `cmd`; its stdout, trimmed.
fn run(mut cmd: Command, what: &str) -> Result<String, WorktreeError> {
    let out = cmd.output().map_err(|e| WorktreeError::NoGit(e.to_string()))?;
    if !out.status.success() {
        let message = String::from_utf8_lossy(&out.stderr).trim().chars().take(500).collect();
        return Err(WorktreeError::Git { command: what.to_string(), message });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// `git worktree add`, `remove` and `list` read every worktree's files under the
/// repository's `worktrees/`: two at once can see one another half made ("failed to
/// read …/commondir"), which parallel worktree children did about once in twenty
/// runs. One at a time per repository in this process; another process's, retried.
fn worktree_git(common: &Path, make: impl Fn() -> Command, what: &str) -> Result<String, WorktreeError> {
    type Locks = std::collections::HashMap<PathBuf, std::sync::Arc<parking_lot::Mutex<()>>>;
    static LOCKS: std::sync::LazyLock<parking_lot::Mutex<Locks>> = std::sync::LazyLock::new(Default::default);
    let lock = LOCKS.lock().entry(common.to_path_buf()).or_default().clone();
    let _one_at_a_time = lock.lock();
    let mut attempt = 0;
    loop {
        match run(make(), what) {
            Err(WorktreeError::Git { message, .. })
                if attempt < 4 && (message.contains("failed to read") || message.contains(".lock")) =>
            {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(50 * attempt));
            }
            other => return other,
        }
    }
}

/// Where Arbor keeps worktrees of the repository whose git common dir is `common`.
pub fn worktrees_dir(common: &Path) -> PathBuf {
    common.join("arbor").join("worktrees")
}

fn common_dir(top: &Path) -> Result<PathBuf, WorktreeError> {
    let c = git_out(top, &["rev-parse", "--path-format=absolute", "--git-common-dir"], "rev-parse")?;
    Ok(PathBuf::from(c))
}

/// Makes `agent`'s worktree from `parent_root` as it is now, on branch `arbor/<agent>`.
pub fn create(parent_root: &Path, session: &str, agent: &str) -> Result<Worktree, WorktreeError> {
    let parent_top =
        repository_of(parent_root).ok_or_else(|| WorktreeError::NotARepository(parent_root.display().to_string()))?;
    let git_dir = git_out(&parent_top, &["rev-parse", "--path-format=absolute", "--git-dir"], "rev-parse")?;
    let common = common_dir(&parent_top)?;
    // `arbor/<agent>`; a later run of an agent whose branch was kept gets `arbor/<agent>-2`, …
    let exists = |b: &str| {
        git_out(&parent_top, &["rev-parse", "--verify", "-q", &format!("refs/heads/{b}")], "rev-parse").is_ok()
    };
    let mut branch = format!("arbor/{agent}");
    let mut n = 1;
    while exists(&branch) {
        n += 1;
        branch = format!("arbor/{agent}-{n}");
    }
    let path = worktrees_dir(&common).join(session).join(agent);
    // A scratch index, seeded with the real one so unchanged files need not be hashed again.
    let index = common.join("arbor").join(format!("index-{agent}"));
    std::fs::create_dir_all(index.parent().unwrap_or(&common)).map_err(|e| WorktreeError::NoGit(e.to_string()))?;
    let real_index = Path::new(&git_dir).join("index");
    if real_index.exists() {
        std::fs::copy(&real_index, &index).map_err(|e| WorktreeError::NoGit(e.to_string()))?;
    }
    let with_index = |args: &[&str]| {
        let mut g = git(&parent_top);
        g.env("GIT_INDEX_FILE", &index).args(args);
        g
    };
    let head = git_out(&parent_top, &["rev-parse", "--verify", "-q", "HEAD"], "rev-parse").ok();
    let made = (|| {
        run(with_index(&["add", "-A", "."]), "add")?;
        let tree = run(with_index(&["write-tree"]), "write-tree")?;
        let mut commit = git(&parent_top);
        commit.args(["commit-tree", &tree, "-m", &format!("arbor: {agent} starts from its parent's tree")]);
        if let Some(h) = head.as_deref().filter(|h| !h.is_empty()) {
            commit.args(["-p", h]);
        }
        run(commit, "commit-tree")
    })();
    let _ = std::fs::remove_file(&index);
    let base = made?;
    let add = || {
        let mut add = git(&parent_top);
        add.args(["worktree", "add", "-q", "-b", &branch]).arg(&path).arg(&base);
        add
    };
    worktree_git(&common, add, "worktree add")?;
    let sub = parent_root.strip_prefix(&parent_top).unwrap_or(Path::new(""));
    let wt = Worktree { root: path.join(sub), path, branch, base, parent_root: parent_root.to_path_buf(), parent_top };
    if let Ok(json) = serde_json::to_vec_pretty(&wt) {
        // Without it a crash-left worktree can still be listed, just not merged by Arbor.
        let _ = std::fs::write(wt.path.with_extension("json"), json);
    }
    Ok(wt)
}

/// A worktree as its file describes it (after a crash, or from another process),
/// if the file is consistent with where it lies: Arbor's branch for that agent,
/// in the repository whose git dir holds it. Anything else is refused rather
/// than acted on (a `remove --force` or `branch -D` of someone else's).
pub fn described(path: &Path) -> Option<Worktree> {
    let wt: Worktree = serde_json::from_slice(&std::fs::read(path.with_extension("json")).ok()?).ok()?;
    let agent = path.file_name()?.to_str()?;
    let common = path.ancestors().nth(4)?;
    let consistent = wt.path == path
        && wt
            .branch
            .strip_prefix(&format!("arbor/{agent}"))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('-'))
        && wt.parent_root.starts_with(&wt.parent_top)
        && common_dir(&wt.parent_top).is_ok_and(|c| c == common);
    consistent.then_some(wt)
}

/// Commits what the agent left in its worktree; the files its branch changed.
pub fn finish(wt: &Worktree, message: &str) -> Result<Vec<WorktreeFile>, WorktreeError> {
    git_out(&wt.path, &["add", "-A", "."], "add")?;
    let staged = git(&wt.path)
        .args(["diff", "--cached", "--quiet"])
        .status()
        .map_err(|e| WorktreeError::NoGit(e.to_string()))?;
    if !staged.success() {
        git_out(&wt.path, &["commit", "-q", "--no-verify", "-m", message], "commit")?;
    }
    files(&wt.path, &wt.base, "HEAD")
}

/// What `to` changed against `from`, file by file.
pub fn files(dir: &Path, from: &str, to: &str) -> Result<Vec<WorktreeFile>, WorktreeError> {
    let numstat =
        git_out(dir, &["diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--numstat", from, to], "diff")?;
    let status =
        git_out(dir, &["diff", "--no-ext-diff", "--no-textconv", "--no-renames", "--name-status", from, to], "diff")?;
    let kinds: std::collections::HashMap<&str, ChangeKind> = status
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(k, p)| {
            (
                p,
                match k {
                    "A" => ChangeKind::Created,
                    "D" => ChangeKind::Deleted,
                    _ => ChangeKind::Modified,
                },
            )
        })
        .collect();
    Ok(numstat
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (added, removed, path) = (parts.next()?, parts.next()?, parts.next()?);
            Some(WorktreeFile {
                path: path.to_string(),
                kind: kinds.get(path).copied().unwrap_or(ChangeKind::Modified),
                // `-` for binary files.
                lines_added: added.parse().unwrap_or(0),
                lines_removed: removed.parse().unwrap_or(0),
            })
        })
        .collect())
}

/// Applies the branch's changes to the parent's tree: all, or (on any conflict) none.
pub fn merge(wt: &Worktree) -> Result<(), Vec<RevertConflict>> {
    let patch = git(&wt.path)
        .args(["diff", "--no-ext-diff", "--no-textconv", "--binary", "--no-renames", &wt.base, "HEAD"])
        .output()
        .map_err(|e| vec![conflict("", format!("cannot run git: {e}"))])?;
    if !patch.status.success() {
        let why = String::from_utf8_lossy(&patch.stderr).trim().chars().take(500).collect::<String>();
        return Err(vec![conflict("", format!("cannot read the branch's changes: {why}"))]);
    }
    if patch.stdout.is_empty() {
        return Ok(());
    }
    let apply = |check: bool| -> Result<(), String> {
        let mut cmd = git(&wt.parent_top);
        cmd.args(["apply", "--binary", "--whitespace=nowarn"]);
        if check {
            cmd.arg("--check");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(&patch.stdout).map_err(|e| e.to_string())?;
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
    };
    apply(true).map_err(|e| conflicts(&e))?;
    apply(false).map_err(|e| conflicts(&e))
}

fn conflict(path: &str, reason: String) -> RevertConflict {
    RevertConflict { path: path.to_string(), reason }
}

/// `git apply`'s refusals, file by file.
fn conflicts(stderr: &str) -> Vec<RevertConflict> {
    let mut out: Vec<RevertConflict> = Vec::new();
    for line in stderr.lines().filter_map(|l| l.strip_prefix("error: ")) {
        let (path, reason) = if let Some(rest) = line.strip_prefix("patch failed: ") {
            let path = rest.rsplit_once(':').map_or(rest, |(p, _)| p);
            (path.to_string(), "the parent's copy changed where this branch changed it".to_string())
        } else if let Some((path, why)) = line.split_once(": ") {
            (path.to_string(), why.to_string())
        } else {
            (String::new(), line.to_string())
        };
        match out.iter_mut().find(|c| c.path == path) {
            Some(c) if !c.reason.contains(&reason) => c.reason = format!("{}; {reason}", c.reason),
            Some(_) => {}
            None => out.push(conflict(&path, reason)),
        }
    }
    if out.is_empty() {
        out.push(conflict("", stderr.trim().chars().take(500).collect()));
    }
    out
}

/// What a person decided for a finished worktree whose branch changed `files`:
/// merged into the parent's tree (refused, with nothing applied, on a
/// conflict), kept as a branch, or discarded. The worktree is removed unless
/// the merge was refused; the update says which.
pub fn act(wt: &Worktree, action: WorktreeAction, files: Vec<WorktreeFile>) -> Result<WorktreeUpdate, WorktreeError> {
    let (state, keep_branch) = match action {
        WorktreeAction::Merge => {
            if let Err(conflicts) = merge(wt) {
                let mut update = wt.update(WorktreeState::Conflicted, files);
                update.conflicts = conflicts;
                return Ok(update);
            }
            (WorktreeState::Merged, false)
        }
        WorktreeAction::Keep => (WorktreeState::Kept, true),
        WorktreeAction::Discard => (WorktreeState::Discarded, false),
    };
    remove(&wt.path, &wt.parent_top, &wt.branch, keep_branch)?;
    Ok(wt.update(state, files))
}

/// Removes the worktree's checkout; the branch too unless `keep_branch`.
pub fn remove(wt_path: &Path, top: &Path, branch: &str, keep_branch: bool) -> Result<(), WorktreeError> {
    let remove = || {
        let mut g = git(top);
        g.args(["worktree", "remove", "--force"]).arg(wt_path);
        g
    };
    worktree_git(&common_dir(top)?, remove, "worktree remove")?;
    let _ = std::fs::remove_file(wt_path.with_extension("json"));
    if !keep_branch {
        git_out(top, &["branch", "-q", "-D", branch], "branch -D")?;
    }
    Ok(())
}

/// One of Arbor's worktrees, found in a repository.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub path: PathBuf,
    pub session: String,
    pub agent: String,
    pub branch: String,
    pub head: String,
}

/// Arbor's worktrees of the repository `dir` is in (`git worktree list`).
pub fn list(dir: &Path) -> Result<Vec<Listed>, WorktreeError> {
    let top = repository_of(dir).ok_or_else(|| WorktreeError::NotARepository(dir.display().to_string()))?;
    let common = common_dir(&top)?;
    let ours = worktrees_dir(&common);
    let list = || {
        let mut g = git(&top);
        g.args(["worktree", "list", "--porcelain"]);
        g
    };
    let porcelain = worktree_git(&common, list, "worktree list")?;
    let mut out = Vec::new();
    for block in porcelain.split("\n\n") {
        let field = |name: &str| block.lines().find_map(|l| l.strip_prefix(name)).map(str::to_string);
        let Some(path) = field("worktree ").map(PathBuf::from) else { continue };
        let Ok(rel) = path.strip_prefix(&ours) else { continue };
        let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
        let (Some(session), Some(agent)) = (parts.next(), parts.next()) else { continue };
        let branch = field("branch ").map(|b| b.trim_start_matches("refs/heads/").to_string()).unwrap_or_default();
        out.push(Listed { path, session, agent, branch, head: field("HEAD ").unwrap_or_default() });
    }
    Ok(out)
}
