//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one frame per message.

use arbor_app::batch::{self, EventFrame};
use arbor_core::EventStream;
use tauri::ipc::Channel;

/// Forwards `events` until the session's stream ends or the page that owns
/// the channel is gone; `seed` is the agents and timeline before the first event.
pub fn forward(events: EventStream, seed: arbor_app::Seed, channel: Channel<EventFrame>) {
    tauri::async_runtime::spawn(batch::forward(events, batch::FRAME, seed, move |f| match channel.send(f) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("the UI stopped taking events: {e}");
            false
        }
    }));
}
