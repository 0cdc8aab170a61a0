//! The WAL's checkpoints, off the writers' path. SQLite's own checkpoint runs
//! inside the commit that takes the WAL past 1,000 pages: it copies them into
//! the database file and syncs both files while that commit waits, and with it
//! every live session's events, which are shown only once stored (15–25 ms on
//! this kind of machine, several times a second while sessions stream:
//! docs/speed.md). Here the writer's connection only reports the WAL's size
//! after each commit, and a thread of the store's copies the WAL into the file
//! on a connection of its own, which holds up no writer.
//!
//! A WAL is started over from its beginning only once it has been copied to its
//! end. Between two commits that is the usual case; while sessions stream
//! without a pause, each copy ends a few commits short, and the WAL would grow
//! for as long as they do. So once it holds [`LIMIT`] pages, copies beside the
//! writers catch up with them, and the last few pages are copied with the
//! writer's lock held: the one wait left to the writers, short, and a fraction
//! as often as SQLite's own.

use crate::error::At;
use crate::{OpenOptions, StoreError};
use parking_lot::{Condvar, Mutex};
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// WAL pages that wake the checkpointer: SQLite's own threshold.
const PAGES: i32 = 1000;
/// WAL pages past which a copy that ended short is finished with the writer held.
const LIMIT: i64 = 4 * PAGES as i64;
/// Pages a copy may leave behind for the copy with the writers held: about 1 ms of copying here.
const BEHIND: i64 = 64;
/// The most copies beside the writers before that one, when they write faster than it copies.
const CATCH_UP: usize = 4;
/// The least time between two checkpoints: a WAL that cannot start over (a
/// reader still on an old snapshot) reports its size after every commit.
const SPACING: Duration = Duration::from_millis(100);

/// What the checkpointer is told: by the writer's commits, and by the store's drop.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Bell {
    #[default]
    Quiet,
    /// The WAL is past [`PAGES`].
    Due,
    /// The store is being dropped; never taken back.
    Stop,
}

/// What the writer's connection and the checkpointer share.
#[derive(Debug, Default)]
struct Wake {
    bell: Mutex<Bell>,
    rung: Condvar,
}

impl Wake {
    fn ring(&self, bell: Bell) {
        let mut now = self.bell.lock();
        if *now != Bell::Stop {
            *now = bell;
        }
        self.rung.notify_one();
    }
}

/// The store's checkpointing thread; dropping it stops the thread and waits for it.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    wake: Arc<Wake>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Turns the writer's own checkpoints off (its WAL hook replaces them) and
    /// starts the thread that does them instead, on a connection of its own.
    pub(crate) fn start(
        path: &Path,
        options: OpenOptions,
        writer: &Arc<Mutex<Connection>>,
    ) -> Result<Checkpointer, StoreError> {
        let wake = Arc::new(Wake::default());
        let rung = wake.clone();
        writer
            .lock()
            .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: i32| {
                if pages >= PAGES {
                    rung.ring(Bell::Due);
                }
                Ok(())
            }))
            .at(path)?;
        let own = crate::connect(path, options)?;
        let (writer, shared, file) = (writer.clone(), wake.clone(), path.to_path_buf());
        let thread = std::thread::Builder::new()
            .name("arbor-store-checkpoint".into())
            .spawn(move || {
                if let Some(first) = options.background {
                    first();
                }
                run(&file, &own, &writer, &shared);
            })
            .map_err(|source| StoreError::Io { path: path.to_path_buf(), source })?;
        Ok(Checkpointer { wake, thread: Some(thread) })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.wake.ring(Bell::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(path: &Path, own: &Connection, writer: &Mutex<Connection>, wake: &Wake) {
    let mut last: Option<Instant> = None;
    loop {
        {
            let mut bell = wake.bell.lock();
            loop {
                match *bell {
                    Bell::Stop => return,
                    Bell::Quiet => wake.rung.wait(&mut bell),
                    Bell::Due => {
                        let wait = last.map_or(Duration::ZERO, |t| SPACING.saturating_sub(t.elapsed()));
                        if wait.is_zero() {
                            break;
                        }
                        wake.rung.wait_for(&mut bell, wait);
                    }
                }
            }
            *bell = Bell::Quiet;
        }
        last = Some(Instant::now());
        if let Err(e) = checkpoint(own, writer) {
            tracing::warn!(path = %path.display(), error = %e, "the store's WAL could not be checkpointed");
        }
    }
}

/// Copies the WAL into the file beside the writers. A WAL of [`LIMIT`] pages was not
/// started over since the last time: each copy ended behind a commit made meanwhile.
/// Then copies follow one another, each shorter than the last, until one ends
/// at most [`BEHIND`] pages short (or [`CATCH_UP`] of them did not), and the last
/// pages are copied with the writers held.
fn checkpoint(own: &Connection, writer: &Mutex<Connection>) -> rusqlite::Result<()> {
    let mut pages = passive(own)?;
    if pages < LIMIT {
        return Ok(());
    }
    for _ in 0..CATCH_UP {
        let next = passive(own)?;
        let behind = next - pages;
        pages = next;
        if behind <= BEHIND {
            break;
        }
    }
    passive(&writer.lock()).map(drop)
}

/// A passive checkpoint (it waits for no lock): the WAL's pages when it began.
/// It copies them all unless a reader still needs some, and only a commit after
/// it finds the WAL copied to its end, if none was made meanwhile, and starts it over.
fn passive(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
}
