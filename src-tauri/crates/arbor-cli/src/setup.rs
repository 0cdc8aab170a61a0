//! What every command needs before it runs: the environment (captured once,
//! here at the edge), the data dir, the log file, the workspace, the one API
//! ([`Host`]) and the one-line error on the way out.

use anyhow::{Context, Result, bail};
use arbor_app::keys::NoSecrets;
use arbor_app::{Environment, Host, HostConfig, paths};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The process environment: the one place the command line reads it.
pub fn environment() -> Environment {
    Environment::capture(std::env::vars())
}

/// Prints one clear line on stderr and gives the failure exit code.
pub fn fail(msg: &str) -> ExitCode {
    warn(msg);
    ExitCode::from(2)
}

/// One line on stderr. A terminal that is gone (SIGHUP closed it) is no reason
/// to panic: the session is stored whatever stderr does.
pub fn warn(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "arbor: {msg}");
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

/// The API, over the data dir (`--data-dir`, `$ARBOR_DATA_DIR`, else the
/// platform's), with diagnostics in `arbor.log` there, never on the terminal the
/// events use. Keys come from the environment only; settings are the defaults,
/// which the flags override. A store that cannot be opened is an error that
/// names its file: nothing runs unrecorded, and nothing is overwritten.
pub fn host(data_dir: Option<&Path>, env: Environment) -> Result<Host> {
    let dir = paths::data_dir(data_dir, &env)?;
    paths::init_logging(&dir, "arbor.log", &env)?;
    let config_dir = paths::config_dir(&env);
    let host = Host::new(HostConfig {
        env,
        settings_file: None,
        config_dir,
        secrets: Box::new(NoSecrets),
        default_workspace: std::env::temp_dir(),
        scratch_dir: std::env::temp_dir(),
        data_dir: Some(dir),
    });
    host.store()
        .map_err(anyhow::Error::new)
        .context("cannot open the transcript store (choose another with --data-dir)")?;
    Ok(host)
}
