//! What every command needs before it runs: the data dir, the log file, the
//! workspace, and the one-line error on the way out.

use anyhow::{Context, Result, bail};
use arbor_store::Store;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

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

/// Opens the transcript store in `data_dir`; sessions of a process that died
/// are marked interrupted first. A store that cannot be opened is an error that
/// names its file: nothing runs unrecorded, and nothing is overwritten.
pub fn store(data_dir: &Path) -> Result<Arc<Store>> {
    let path = data_dir.join(Store::FILE_NAME);
    let store = Store::open(&path).context("cannot open the transcript store (choose another with --data-dir)")?;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    if let Err(e) = store.recover(now) {
        tracing::warn!(error = %e, "could not mark interrupted sessions");
    }
    Ok(Arc::new(store))
}
