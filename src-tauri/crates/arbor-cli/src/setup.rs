//! What every command needs before it runs: the data dir, the log file, the
//! workspace, and the one-line error on the way out.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Prints one clear line on stderr and gives the failure exit code.
#[allow(clippy::print_stderr)]
pub fn fail(msg: &str) -> ExitCode {
    eprintln!("arbor: {msg}");
    ExitCode::from(2)
}

/// `--data-dir` or `$ARBOR_DATA_DIR` (clap reads both), else the platform's data dir.
pub fn data_dir(given: Option<&Path>) -> Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => {
            dirs::data_dir().map(|d| d.join("arbor")).context("no data directory on this system: pass --data-dir")?
        }
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create the data directory {}", dir.display()))?;
    Ok(dir)
}

/// Diagnostics go to `<data dir>/arbor.log`, never to the terminal the events use.
pub fn init_logging(data_dir: &Path) -> Result<()> {
    let path = data_dir.join("arbor.log");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open the log file {}", path.display()))?;
    let filter = tracing_subscriber::EnvFilter::try_from_env("ARBOR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,hyper=warn,reqwest=warn"));
    // Only the first initialisation in a process takes effect; later ones are no-ops.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
    Ok(())
}

/// The workspace: `--workspace` or the current directory, which must exist.
pub fn workspace(given: Option<&Path>) -> Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    if !dir.is_dir() {
        bail!("workspace {} is not a directory", dir.display());
    }
    Ok(dir)
}

/// Where the user's own agent types live: `$ARBOR_CONFIG_DIR/agents`, else the
/// platform's config dir (`~/.config/arbor/agents` on Linux).
pub fn user_agents_dir() -> Option<PathBuf> {
    match std::env::var_os("ARBOR_CONFIG_DIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d).join("agents")),
        _ => dirs::config_dir().map(|d| d.join("arbor").join("agents")),
    }
}
