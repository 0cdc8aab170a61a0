//! Where Arbor keeps things: the data dir (logs, later transcripts), the config
//! dir (settings, the user's agent types), and the log file set-up.

use crate::env::Environment;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum PathError {
    #[error("no {0} directory on this system: set {1}")]
    NoDir(&'static str, &'static str),
    #[error("cannot create {path}: {source}")]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot open the log file {path}: {source}")]
    Log { path: PathBuf, source: std::io::Error },
}

/// `given` (`--data-dir`), else `$ARBOR_DATA_DIR`, else the platform's data dir; created if missing.
pub fn data_dir(given: Option<&Path>, env: &Environment) -> Result<PathBuf, PathError> {
    let dir = match given.map(Path::to_path_buf).or_else(|| env.dir("ARBOR_DATA_DIR")) {
        Some(d) => d,
        None => dirs::data_dir().map(|d| d.join("arbor")).ok_or(PathError::NoDir("data", "ARBOR_DATA_DIR"))?,
    };
    std::fs::create_dir_all(&dir).map_err(|source| PathError::Create { path: dir.clone(), source })?;
    Ok(dir)
}

/// `$ARBOR_CONFIG_DIR`, else the platform's config dir (`~/.config/arbor` on Linux). Not created here.
pub fn config_dir(env: &Environment) -> Option<PathBuf> {
    env.dir("ARBOR_CONFIG_DIR").or_else(|| dirs::config_dir().map(|d| d.join("arbor")))
}

/// Diagnostics go to `<data dir>/<file_name>`, never to a terminal or the UI.
pub fn init_logging(data_dir: &Path, file_name: &str, env: &Environment) -> Result<(), PathError> {
    let path = data_dir.join(file_name);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|source| PathError::Log { path: path.clone(), source })?;
    let filter = env
        .get("ARBOR_LOG")
        .and_then(|f| tracing_subscriber::EnvFilter::try_new(f).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("info,hyper=warn,reqwest=warn"));
    // Only the first initialisation in a process takes effect; later ones are no-ops.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
    Ok(())
}
