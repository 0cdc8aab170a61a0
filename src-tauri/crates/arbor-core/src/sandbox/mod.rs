//! The OS sandbox `Bash` commands run in (design notes: docs/sandbox.md).
//!
//! Three layers: [`Sandboxing`] is what the machine can enforce, probed once at
//! the edge; [`SandboxPolicy`] is what one agent is held to, derived from its
//! parent's (never looser unless a person chose so); a [`Jail`] joins the two
//! with the agent's working tree and builds each command's process. The
//! mechanism is bubblewrap: mount, PID and network namespaces, so the rules
//! hold for the command's whole process tree.

mod blocked;
mod bwrap;

pub use blocked::blocked_note;

use arbor_protocol::{CommandSandbox, SandboxMode, SandboxRequest};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The usual places secrets live, under the home directory: hidden from
/// sandboxed commands (dirs appear empty, files unreadable).
const SECRET_PLACES: [&str; 16] = [
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".local/share/keyrings",
    ".config/arbor",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
];

/// What the machine can enforce, found once: at the first command that needs to
/// know, or ahead of it in the background ([`Sandboxing::probe_ahead`]), so that
/// starting a session never waits for bubblewrap's trial run.
#[derive(Debug)]
pub struct Sandboxing {
    support: OnceLock<Support>,
    /// The `bwrap` the probe tries (found on `PATH` by the caller).
    bwrap: Option<PathBuf>,
    /// The user's home: where the secret places are, and what `strict` hides.
    home: Option<PathBuf>,
    /// Where each agent's private /tmp is made.
    scratch: PathBuf,
    /// Secret places that exist on this machine (checked at start-up), plus the edge's own.
    hidden: Vec<PathBuf>,
}

#[derive(Debug, Clone)]
enum Support {
    Bubblewrap { program: PathBuf, version: String },
    Unavailable(String),
}

impl Sandboxing {
    /// The machine as it will be checked: whether `bwrap` (the path found on `PATH`
    /// by the caller) can build a sandbox here, by running one, when first asked.
    /// `also_hidden` are the caller's own secret places (its data dir).
    pub fn probe(bwrap: Option<PathBuf>, home: Option<PathBuf>, scratch: PathBuf, also_hidden: &[PathBuf]) -> Self {
        let hidden = SECRET_PLACES
            .iter()
            .filter_map(|p| home.as_ref().map(|h| h.join(p)))
            .chain(also_hidden.iter().cloned())
            .filter(|p| p.symlink_metadata().is_ok())
            .collect();
        Self { support: OnceLock::new(), bwrap, home, scratch, hidden }
    }

    /// Runs the check on a thread of its own now, so it is done before the first command.
    pub fn probe_ahead(self: &Arc<Self>) {
        let me = self.clone();
        let spawned = std::thread::Builder::new().name("sandbox-probe".into()).spawn(move || {
            me.checked();
        });
        // No thread to spare: the first command checks instead.
        drop(spawned);
    }

    /// A machine where nothing is sandboxed, and why.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        Self {
            support: OnceLock::from(Support::Unavailable(reason.into())),
            bwrap: None,
            home: None,
            scratch: PathBuf::new(),
            hidden: Vec::new(),
        }
    }

    /// What the machine supports, checked at the first call (blocking, tens of ms).
    fn checked(&self) -> &Support {
        self.support.get_or_init(|| {
            let support = match &self.bwrap {
                _ if !cfg!(target_os = "linux") => {
                    Support::Unavailable("Arbor's sandbox needs Linux; this operating system is not supported".into())
                }
                None => Support::Unavailable(
                    "bubblewrap (bwrap) is not installed; install it (Debian: apt install bubblewrap) to sandbox \
                     commands"
                        .into(),
                ),
                Some(program) => bwrap::probe(program),
            };
            match &support {
                Support::Bubblewrap { version, .. } => tracing::info!(mechanism = %version, "commands run sandboxed"),
                Support::Unavailable(why) => tracing::warn!("commands cannot be sandboxed: {why}"),
            }
            support
        })
    }

    /// The mechanism's name and version, or why there is none.
    pub fn support(&self) -> Result<&str, &str> {
        match self.checked() {
            Support::Bubblewrap { version, .. } => Ok(version),
            Support::Unavailable(reason) => Err(reason),
        }
    }

    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }
}

impl Default for Sandboxing {
    fn default() -> Self {
        Self::unavailable("no sandbox was set up for this session")
    }
}

/// What one agent's commands are held to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    pub network: bool,
    /// Directories commands may write to besides the working tree and /tmp, absolute.
    pub write: Vec<PathBuf>,
}

impl SandboxPolicy {
    /// This policy with what `req` asks, as asked: a person's choice (settings,
    /// the command line, a delegation, an agent file of their own).
    pub fn chosen(&self, req: &SandboxRequest, root: &Path, home: Option<&Path>) -> SandboxPolicy {
        SandboxPolicy {
            mode: req.mode.unwrap_or(self.mode),
            network: req.network.unwrap_or(self.network),
            write: match &req.write {
                Some(w) => w.iter().filter_map(|p| absolute(p, root, home)).collect(),
                None => self.write.clone(),
            },
        }
    }

    /// This policy with only what `req` asks that is no looser: a model's or a
    /// workspace file's request (a stricter mode, network off, fewer write paths).
    pub fn tightened(&self, req: &SandboxRequest, root: &Path, home: Option<&Path>) -> SandboxPolicy {
        let wanted = self.chosen(req, root, home);
        SandboxPolicy {
            mode: wanted.mode.max(self.mode),
            network: wanted.network && self.network,
            // Compared as the file system resolves them: a symlink inside an allowed directory
            // does not stretch it.
            write: wanted
                .write
                .into_iter()
                .filter(|p| self.write.iter().any(|w| resolved(p).starts_with(resolved(w))))
                .collect(),
        }
    }
}

/// `~/x` under the home, a relative path under the tree root, an absolute one as
/// it is; None for one with `..` (which would climb out of what it names).
fn absolute(path: &str, root: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let path = path.trim();
    if Path::new(path).components().any(|c| c == std::path::Component::ParentDir) {
        tracing::warn!(path, "a sandbox write path with `..` is ignored");
        return None;
    }
    if let (Some(rest), Some(home)) = (path.strip_prefix("~/"), home) {
        return Some(home.join(rest));
    }
    if path == "~"
        && let Some(home) = home
    {
        return Some(home.to_path_buf());
    }
    Some(root.join(path))
}

/// Where `p` really is: its symlinks resolved when it exists.
fn resolved(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// One agent's sandbox: the machine's support, its policy and its working tree.
#[derive(Debug)]
pub struct Jail {
    machine: Arc<Sandboxing>,
    policy: SandboxPolicy,
    tree: PathBuf,
    /// Its private /tmp, made at its first command and removed with it.
    tmp: OnceLock<Result<tempfile::TempDir, String>>,
}

impl Jail {
    pub fn new(machine: Arc<Sandboxing>, policy: SandboxPolicy, tree: impl Into<PathBuf>) -> Self {
        Self { machine, policy, tree: tree.into(), tmp: OnceLock::new() }
    }

    /// No sandbox at all (tools' own tests).
    pub fn none(tree: impl Into<PathBuf>) -> Self {
        Self::new(Arc::new(Sandboxing::default()), SandboxPolicy::default(), tree)
    }

    pub fn machine(&self) -> &Arc<Sandboxing> {
        &self.machine
    }

    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The same machine for a child: `policy` in `tree`.
    pub fn child(&self, policy: SandboxPolicy, tree: impl Into<PathBuf>) -> Jail {
        Jail::new(self.machine.clone(), policy, tree)
    }

    /// What its commands run with, as a person and the model are told.
    pub fn describe(&self) -> CommandSandbox {
        match (self.machine.checked(), self.policy.mode) {
            (_, SandboxMode::Off) => CommandSandbox::Off,
            (Support::Unavailable(reason), _) => CommandSandbox::Unavailable { reason: reason.clone() },
            (Support::Bubblewrap { version, .. }, mode) => CommandSandbox::Sandboxed {
                mode,
                mechanism: version.clone(),
                writable: self.writable().iter().map(|p| p.display().to_string()).collect(),
                network: self.policy.network,
                hidden: self.hidden().iter().map(|p| p.display().to_string()).collect(),
            },
        }
    }

    /// Where commands may write: the tree, a private /tmp, the allowed directories that exist.
    fn writable(&self) -> Vec<PathBuf> {
        let mut w = vec![self.tree.clone(), PathBuf::from("/tmp")];
        w.extend(self.policy.write.iter().filter(|p| p.is_dir()).cloned());
        w
    }

    /// The secret places hidden from its commands (the whole home in `strict`).
    fn hidden(&self) -> Vec<PathBuf> {
        match (self.policy.mode, self.machine.home()) {
            (SandboxMode::Strict, Some(home)) => vec![home.to_path_buf()],
            _ => self.machine.hidden.clone(),
        }
    }

    /// The process that runs `command` with `shell` in `cwd`: inside the sandbox
    /// when it holds, else plainly. Stdio, environment and process group are the caller's.
    pub fn command(&self, shell: &str, command: &str, cwd: &Path) -> Result<tokio::process::Command, String> {
        let Support::Bubblewrap { program, .. } = self.machine.checked() else {
            return Ok(plain(shell, command, cwd));
        };
        if self.policy.mode == SandboxMode::Off {
            return Ok(plain(shell, command, cwd));
        }
        let tmp = self.private_tmp()?;
        let mut c = tokio::process::Command::new(program);
        c.args(bwrap::args(&bwrap::Layout {
            tree: &self.tree,
            tmp,
            write: &self.policy.write,
            hidden: &self.machine.hidden,
            home: self.machine.home(),
            strict: self.policy.mode == SandboxMode::Strict,
            network: self.policy.network,
            cwd,
        }));
        c.arg("--").arg(shell).arg("-c").arg(command);
        Ok(c)
    }

    fn private_tmp(&self) -> Result<&Path, String> {
        let made = self.tmp.get_or_init(|| {
            tempfile::Builder::new().prefix("arbor-tmp-").tempdir_in(&self.machine.scratch).map_err(|e| {
                format!("cannot make the sandbox's private /tmp in {}: {e}", self.machine.scratch.display())
            })
        });
        match made {
            Ok(dir) => Ok(dir.path()),
            Err(e) => Err(e.clone()),
        }
    }
}

fn plain(shell: &str, command: &str, cwd: &Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(shell);
    c.arg("-c").arg(command).current_dir(cwd);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(mode: Option<SandboxMode>, network: Option<bool>, write: Option<&[&str]>) -> SandboxRequest {
        SandboxRequest { mode, network, write: write.map(|w| w.iter().map(|s| s.to_string()).collect()) }
    }

    #[test]
    fn a_tightening_request_never_loosens() {
        let root = Path::new("/ws");
        let parent = SandboxPolicy { mode: SandboxMode::Workspace, network: false, write: vec!["/data".into()] };
        let asked = req(Some(SandboxMode::Off), Some(true), Some(&["/data/out", "/etc", "/data/.."]));
        let child = parent.tightened(&asked, root, None);
        assert_eq!(
            child,
            SandboxPolicy { mode: SandboxMode::Workspace, network: false, write: vec!["/data/out".into()] }
        );
        let strict = parent.tightened(&req(Some(SandboxMode::Strict), None, None), root, None);
        assert_eq!(strict.mode, SandboxMode::Strict);
        assert_eq!(strict.write, parent.write);
    }

    #[test]
    fn a_persons_choice_applies_as_made() {
        let parent = SandboxPolicy::default();
        let home = Path::new("/home/u");
        let chosen = parent.chosen(
            &req(Some(SandboxMode::Off), Some(true), Some(&["~/cache", "out"])),
            Path::new("/ws"),
            Some(home),
        );
        assert_eq!(
            chosen,
            SandboxPolicy {
                mode: SandboxMode::Off,
                network: true,
                write: vec!["/home/u/cache".into(), "/ws/out".into()]
            }
        );
    }

    #[test]
    fn without_a_mechanism_nothing_claims_protection() {
        let jail = Jail::new(Arc::new(Sandboxing::unavailable("no bwrap")), SandboxPolicy::default(), "/ws");
        assert_eq!(jail.describe(), CommandSandbox::Unavailable { reason: "no bwrap".into() });
        let off = Jail::new(
            Arc::new(Sandboxing::unavailable("no bwrap")),
            SandboxPolicy { mode: SandboxMode::Off, ..SandboxPolicy::default() },
            "/ws",
        );
        assert_eq!(off.describe(), CommandSandbox::Off);
    }
}
