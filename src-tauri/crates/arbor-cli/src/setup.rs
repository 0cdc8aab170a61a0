//! What every command needs before it runs: the data dir, the log file, the
//! workspace, and the one-line error on the way out.

use anyhow::{Result, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Prints one clear line on stderr and gives the failure exit code.
#[allow(clippy::print_stderr)]
pub fn fail(msg: &str) -> ExitCode {
    eprintln!("arbor: {msg}");
    ExitCode::from(2)
}

/// Creates the data dir (`--data-dir`, `$ARBOR_DATA_DIR`, else the platform's)
/// and sends diagnostics to `arbor.log` in it, never to the terminal the events use.
pub fn init(given: Option<&Path>) -> Result<PathBuf> {
    let dir = arbor_app::paths::data_dir(given)?;
    arbor_app::paths::init_logging(&dir, "arbor.log")?;
    Ok(dir)
}

/// The workspace: `--workspace` or the current directory, which must exist.
pub fn workspace(given: Option<&Path>) -> Result<PathBuf> {
    let dir = match given {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))?,
    };
    if !dir.is_dir() {
        bail!("workspace {} is not a directory", dir.display());
    }
    Ok(dir)
}
