//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one message per frame.

use arbor_app::batch;
use arbor_core::EventStream;
use arbor_protocol::AgentEvent;
use tauri::ipc::Channel;

/// Forwards `events` until the session's stream ends or the page that owns
/// the channel is gone.
pub fn forward(events: EventStream, channel: Channel<Vec<AgentEvent>>) {
    tauri::async_runtime::spawn(batch::forward(events, batch::FRAME, move |b| match channel.send(b) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!("the UI stopped taking events: {e}");
            false
        }
    }));
}
