//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one frame per message; every
//! display frame for the session the window shows, a few times a second for
//! the others ([`Paces`], set by the `show_session` command).

use arbor_app::batch::{self, EventFrame, Pace};
use arbor_core::EventStream;
use arbor_protocol::SessionId;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use tauri::ipc::Channel;

/// The frame pace of each session the window is sent.
#[derive(Default, Clone)]
pub struct Paces(Arc<Mutex<HashMap<SessionId, Pace>>>);

impl Paces {
    /// `shown` (none: a page with no live session, a review, history) at display
    /// rate; every other session in the background.
    pub fn show(&self, shown: Option<&SessionId>) {
        for (id, pace) in self.0.lock().iter() {
            pace.set(if Some(id) == shown { batch::FRAME } else { batch::BACKGROUND });
        }
    }
}

/// Forwards `events` until the session's stream ends or the page that owns
/// the channel is gone; `seed` is the agents and timeline before the first event.
/// A session starts shown (the window shows what it starts) until told otherwise.
pub fn forward(
    session: SessionId,
    events: EventStream,
    seed: arbor_app::Seed,
    channel: Channel<EventFrame>,
    paces: Paces,
) {
    let pace = Pace::every(batch::FRAME);
    paces.0.lock().insert(session.clone(), pace.clone());
    tauri::async_runtime::spawn(async move {
        batch::forward(events, pace.clone(), seed, move |f| match channel.send(f) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!("the UI stopped taking events: {e}");
                false
            }
        })
        .await;
        // Unless the session was continued meanwhile, on a pace of its own.
        let mut paces = paces.0.lock();
        if paces.get(&session).is_some_and(|p| p.is(&pace)) {
            paces.remove(&session);
        }
    });
}
