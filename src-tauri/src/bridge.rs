//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one frame per message; every
//! display frame for the session the window shows, a few times a second for
//! the others (set by the `show_session` command).
//!
//! A session's frames outlive the page that asked for them: when the window
//! reloads (a person's reload, the crash screen's, a restarted web process),
//! the session goes on, its frames are dropped until the new page attaches a
//! channel of its own ([`Routes::attach`]), and the new page reads from the
//! store what it missed, up to the last frame sent before it attached.

use arbor_app::batch::{self, EventFrame, Pace};
use arbor_core::EventStream;
use arbor_protocol::{ApprovalRule, SessionId};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use tauri::ipc::Channel;

/// Every live session's route to the window: its pace and its channel.
#[derive(Default, Clone)]
pub struct Routes(Arc<Mutex<HashMap<SessionId, Route>>>);

#[derive(Clone)]
struct Route {
    pace: Pace,
    sink: Arc<Mutex<Sink>>,
}

/// Where a session's frames go, and what a page attaching now would need.
struct Sink {
    /// None while no page takes them (it went, and none has attached yet).
    channel: Option<Channel<EventFrame>>,
    /// The last event handed to a channel (or dropped for want of one).
    through: u64,
    /// The rules in force as the last frame that changed them listed them: the
    /// forwarder derives them from this process's answers, which no store holds.
    rules: Vec<ApprovalRule>,
}

/// What a page attaching to a running session starts from.
pub struct Attachment {
    /// Every event up to here is stored; every later one comes on the new channel.
    pub through: u64,
    pub rules: Vec<ApprovalRule>,
}

impl Routes {
    /// `shown` (none: a page with no live session, a review, history) at display
    /// rate; every other session in the background.
    pub fn show(&self, shown: Option<&SessionId>) {
        for (id, route) in self.0.lock().iter() {
            route.pace.set(if Some(id) == shown { batch::FRAME } else { batch::BACKGROUND });
        }
    }

    /// From now on `session`'s frames go to `channel` (the one before it is
    /// dropped); None when this process forwards no such session.
    pub fn attach(&self, session: &SessionId, channel: Channel<EventFrame>) -> Option<Attachment> {
        let sink = self.0.lock().get(session)?.sink.clone();
        // Under the sink's lock, between two frames: the frames after `through` all reach `channel`.
        let mut sink = sink.lock();
        sink.channel = Some(channel);
        Some(Attachment { through: sink.through, rules: sink.rules.clone() })
    }
}

/// Forwards `events` until the session's stream ends, to `channel` or to
/// whichever channel attaches after it; `seed` is the agents and timeline
/// before the first event. A session starts shown (the window shows what it
/// starts) until told otherwise. Returns the last stored event before the first frame.
pub fn forward(
    session: SessionId,
    events: EventStream,
    seed: arbor_app::Seed,
    channel: Channel<EventFrame>,
    routes: Routes,
) -> u64 {
    let through = seed.through;
    let pace = Pace::every(batch::FRAME);
    let sink = Arc::new(Mutex::new(Sink { channel: Some(channel), through, rules: Vec::new() }));
    routes.0.lock().insert(session.clone(), Route { pace: pace.clone(), sink: sink.clone() });
    let mine = sink.clone();
    tauri::async_runtime::spawn(async move {
        batch::forward(events, pace, seed, move |f| {
            let mut sink = mine.lock();
            sink.through = f.through;
            if let Some(rules) = &f.rules {
                sink.rules.clone_from(rules);
            }
            if let Some(channel) = &sink.channel
                && let Err(e) = channel.send(f)
            {
                // The page went: the session goes on, and a page that attaches is sent the rest.
                tracing::warn!("the window stopped taking events: {e}");
                sink.channel = None;
            }
            true
        })
        .await;
        // Unless the session was continued meanwhile, on a route of its own.
        let mut table = routes.0.lock();
        if table.get(&session).is_some_and(|r| Arc::ptr_eq(&r.sink, &sink)) {
            table.remove(&session);
        }
    });
    through
}
