//! The main window's life beside its sessions: closing it while agents work
//! asks the person first (keep them running with the window hidden, or stop
//! them and quit; the UI shows the question), and a later launch on the same
//! data dir brings the window back (`arbor_app::instance`).

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::{AppHandle, State, Window};

/// What the shell asks of the UI.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WindowRequest {
    /// The window is being closed while sessions have agents at work: ask what to do.
    #[cfg_attr(test, allow(dead_code))]
    CloseAsked { sessions_at_work: u32 },
    /// Sessions run that the page loaded now does not show: a page that went
    /// meanwhile had asked for them. The page joins them (`attach_session`).
    JoinSessions,
}

/// The person's answer to closing the window while agents work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CloseChoice {
    /// The window hides; the process and its sessions go on (launch Arbor again to bring it back).
    KeepRunning,
    /// Every session closes (its agents interrupted, offered at the next start) and the app quits.
    Stop,
}

/// The UI's channel for [`WindowRequest`]s, once it listens.
#[derive(Default)]
pub struct WindowWatch(Mutex<Option<Channel<WindowRequest>>>);

impl WindowWatch {
    /// Sends `request` to the page listening; false when none listens or it is gone.
    pub fn tell(&self, request: WindowRequest) -> bool {
        self.0.lock().as_ref().is_some_and(|ch| ch.send(request).is_ok())
    }
}

/// The UI listens for the shell's questions.
#[tauri::command]
#[specta::specta]
pub fn watch_window(watch: State<'_, WindowWatch>, on_request: Channel<WindowRequest>) {
    *watch.0.lock() = Some(on_request);
}

/// The person's answer to the close question.
#[tauri::command]
#[specta::specta]
pub fn close_window(app: AppHandle, window: Window, choice: CloseChoice) {
    match choice {
        CloseChoice::KeepRunning => {
            if let Err(e) = window.hide() {
                tracing::warn!(error = %e, "the window could not be hidden");
            }
        }
        // The exit handler closes every session and waits for its last events.
        CloseChoice::Stop => app.exit(0),
    }
}

/// A close of the window (its title bar, the desktop) while agents work is held
/// until the person answers; with nothing at work, or no UI to ask, it closes.
#[cfg(not(test))]
pub fn on_event(window: &Window, event: &tauri::WindowEvent) {
    use tauri::Manager;
    let tauri::WindowEvent::CloseRequested { api, .. } = event else { return };
    let at_work = window.state::<arbor_app::Host>().sessions_at_work();
    if at_work == 0 {
        return;
    }
    let asked = window
        .state::<WindowWatch>()
        .tell(WindowRequest::CloseAsked { sessions_at_work: u32::try_from(at_work).unwrap_or(u32::MAX) });
    if asked {
        api.prevent_close();
        tracing::info!(at_work, "closing the window asks what to do with the sessions at work");
    }
}

/// Another launch on this data dir: the window comes back (shown, restored, focused).
#[cfg(not(test))]
pub fn come_forward(app: &AppHandle, args: &[String]) {
    use tauri::Manager;
    tracing::info!(?args, "a later launch on this data dir brings the window forward");
    let Some(window) = app.get_webview_window("main") else { return };
    let _ = window.show();
    let _ = window.unminimize();
    let _ = window.set_focus();
}
