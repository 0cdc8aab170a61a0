//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one frame per message.

use arbor_app::batch::{self, EventFrame};
use arbor_core::EventStream;
use arbor_protocol::AgentStates;
use tauri::ipc::Channel;

/// Forwards `events` until the session's stream ends or the page that owns
/// the channel is gone; `states` are the agents before the first event.
pub fn forward(events: EventStream, states: AgentStates, channel: Channel<EventFrame>) {
    tauri::async_runtime::spawn(batch::forward(events, batch::FRAME, states, move |f| match channel.send(f) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("the UI stopped taking events: {e}");
            false
        }
    }));
}
