//! One desktop app per data dir. The first `arbor-desktop` on a data dir holds
//! an exclusive kernel lock on `<data_dir>/desktop.lock` (released with the
//! process however it ends) and listens on `<data_dir>/desktop.sock` (mode
//! 0600: the user's alone). A later launch on the same data dir finds the lock
//! taken, asks the running one through the socket to bring its window forward
//! (with the later launch's arguments), and starts nothing itself.
//!
//! Keyed by the data dir, not the app's name: a person who runs a second data
//! dir on purpose (`ARBOR_DATA_DIR`) gets a second app, and no session bus is
//! needed (Tauri's single-instance plugin keys by app id over D-Bus).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a later launch waits for the running one to listen (it may be starting).
const CONNECT_TRIES: u32 = 25;
const CONNECT_RETRY: Duration = Duration::from_millis(80);
/// A request is one line of JSON; longer is not a request.
const MAX_REQUEST: u64 = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("cannot use {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "another Arbor app holds {lock} but does not answer on {socket}: {detail}. If no Arbor window \
         is open, end the stuck `arbor-desktop` process and launch again"
    )]
    NoAnswer { lock: PathBuf, socket: PathBuf, detail: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InstanceError + '_ {
    move |source| InstanceError::Io { path: path.to_path_buf(), source }
}

/// What a launch on a data dir found.
#[derive(Debug)]
pub enum Launch {
    /// This process is the data dir's app: it serves later launches.
    First(Primary),
    /// Another process is: it was asked to come forward, and answered with its pid.
    Forwarded { pid: u32 },
}

/// The data dir's app: holds the lock while it lives.
#[derive(Debug)]
pub struct Primary {
    _lock: File,
    #[cfg(unix)]
    listener: Option<std::os::unix::net::UnixListener>,
}

fn paths(data_dir: &Path) -> (PathBuf, PathBuf) {
    (data_dir.join("desktop.lock"), data_dir.join("desktop.sock"))
}

/// Becomes the data dir's app, or hands `args` to the one that is.
pub fn launch(data_dir: &Path, args: &[String]) -> Result<Launch, InstanceError> {
    let (lock_path, socket) = paths(data_dir);
    std::fs::create_dir_all(data_dir).map_err(io(data_dir))?;
    let lock = OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).map_err(io(&lock_path))?;
    match lock.try_lock() {
        Ok(()) => listen(lock, &socket),
        Err(TryLockError::WouldBlock) => forward(&lock_path, &socket, args),
        Err(TryLockError::Error(e)) => Err(InstanceError::Io { path: lock_path, source: e }),
    }
}

#[cfg(unix)]
fn listen(lock: File, socket: &Path) -> Result<Launch, InstanceError> {
    // Without a socket (a path too long for one, a file system without them) the lock still
    // keeps this the data dir's one app; a later launch then says it cannot reach it.
    let listener = bind(socket)
        .inspect_err(|e| tracing::warn!(error = %e, "later launches cannot bring this window forward"))
        .ok();
    Ok(Launch::First(Primary { _lock: lock, listener }))
}

#[cfg(unix)]
fn bind(socket: &Path) -> Result<std::os::unix::net::UnixListener, InstanceError> {
    use std::os::unix::fs::PermissionsExt;
    // Left by an app that died: the lock is ours, so nobody listens on it.
    match std::fs::remove_file(socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(InstanceError::Io { path: socket.to_path_buf(), source: e }),
    }
    let listener = std::os::unix::net::UnixListener::bind(socket).map_err(io(socket))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600)).map_err(io(socket))?;
    Ok(listener)
}

#[cfg(not(unix))]
fn listen(lock: File, _socket: &Path) -> Result<Launch, InstanceError> {
    Ok(Launch::First(Primary { _lock: lock }))
}

#[cfg(unix)]
fn forward(lock: &Path, socket: &Path, args: &[String]) -> Result<Launch, InstanceError> {
    let no_answer =
        |detail: String| InstanceError::NoAnswer { lock: lock.to_path_buf(), socket: socket.to_path_buf(), detail };
    let mut last = String::new();
    for _ in 0..CONNECT_TRIES {
        match std::os::unix::net::UnixStream::connect(socket) {
            Ok(mut stream) => {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let line = serde_json::json!({ "args": args }).to_string();
                stream.write_all(format!("{line}\n").as_bytes()).map_err(|e| no_answer(e.to_string()))?;
                let mut reply = String::new();
                BufReader::new(stream.take(256)).read_line(&mut reply).map_err(|e| no_answer(e.to_string()))?;
                let pid = reply.trim().strip_prefix("ok ").and_then(|p| p.parse().ok());
                return pid.map(|pid| Launch::Forwarded { pid }).ok_or_else(|| no_answer("no answer".into()));
            }
            // The app holding the lock has not bound its socket yet.
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(CONNECT_RETRY);
    }
    Err(no_answer(last))
}

#[cfg(not(unix))]
fn forward(lock: &Path, socket: &Path, _args: &[String]) -> Result<Launch, InstanceError> {
    Err(InstanceError::NoAnswer {
        lock: lock.to_path_buf(),
        socket: socket.to_path_buf(),
        detail: "another app runs on this data dir".into(),
    })
}

impl Primary {
    /// Serves later launches on a thread of its own for as long as the process
    /// lives: each one's arguments go to `come_forward`, then it is answered
    /// with this process's pid. A malformed request is answered and ignored.
    pub fn serve(self, come_forward: impl Fn(Vec<String>) + Send + 'static) {
        #[cfg(unix)]
        {
            let lock = self._lock;
            let Some(listener) = self.listener else {
                // Nothing to serve; the lock is kept for the process's life.
                std::mem::forget(lock);
                return;
            };
            std::thread::spawn(move || {
                // The lock lives as long as the server: the data dir stays this app's.
                let _lock = lock;
                for stream in listener.incoming() {
                    let Ok(mut stream) = stream else { continue };
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut line = String::new();
                    let read = BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line);
                    let args = read
                        .ok()
                        .and_then(|_| serde_json::from_str::<serde_json::Value>(&line).ok())
                        .and_then(|v| serde_json::from_value::<Vec<String>>(v.get("args")?.clone()).ok());
                    match args {
                        Some(args) => come_forward(args),
                        None => tracing::warn!("a launch on this data dir sent a request that is not one; ignored"),
                    }
                    let _ = stream.write_all(format!("ok {}\n", std::process::id()).as_bytes());
                }
            });
        }
        #[cfg(not(unix))]
        {
            let _ = come_forward;
            std::mem::forget(self._lock);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn a_second_launch_on_the_data_dir_hands_its_arguments_to_the_first_and_starts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let Launch::First(primary) = launch(dir.path(), &[]).unwrap() else { panic!("the first launch is the app") };
        let (tx, rx) = mpsc::channel();
        primary.serve(move |args| tx.send(args).unwrap());
        let args = vec!["/work/project".to_string()];
        match launch(dir.path(), &args).unwrap() {
            Launch::Forwarded { pid } => assert_eq!(pid, std::process::id()),
            Launch::First(_) => panic!("a second app on the same data dir"),
        }
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), args);
        // The socket is the user's alone.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("desktop.sock")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // Another data dir is another app.
        let other = tempfile::tempdir().unwrap();
        assert!(matches!(launch(other.path(), &[]).unwrap(), Launch::First(_)));
    }

    #[test]
    fn a_socket_left_by_an_app_that_died_is_replaced_and_a_garbled_request_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("desktop.sock"), "stale").unwrap();
        let Launch::First(primary) = launch(dir.path(), &[]).unwrap() else { panic!("the lock was free") };
        let (tx, rx) = mpsc::channel();
        primary.serve(move |args| tx.send(args).unwrap());
        let mut s = std::os::unix::net::UnixStream::connect(dir.path().join("desktop.sock")).unwrap();
        s.write_all(b"not json\n").unwrap();
        let mut reply = String::new();
        BufReader::new(&s).read_line(&mut reply).unwrap();
        assert!(reply.starts_with("ok "), "answered: {reply:?}");
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "nothing was asked of the window");
    }

    #[test]
    fn a_lock_held_by_an_app_that_never_listens_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let (lock_path, _) = paths(dir.path());
        let held = OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).unwrap();
        held.lock().unwrap();
        let err = launch(dir.path(), &[]).unwrap_err();
        assert!(err.to_string().contains("does not answer"), "{err}");
    }
}
