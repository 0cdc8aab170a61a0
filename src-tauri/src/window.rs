//! The main window's life beside its sessions: closing it while agents work
//! asks the person first (keep them running with the window hidden, or stop
//! them and quit; the UI shows the question, held for the page while one
//! loads), and a later launch on the same data dir brings the window back
//! (`arbor_app::instance`).

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};
use tauri::ipc::Channel;
use tauri::{AppHandle, State, Window};

/// What the shell asks of the UI.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WindowRequest {
    /// The window is being closed while sessions have agents at work: ask what to do.
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

/// The page's channel for [`WindowRequest`]s, and what came while no page listened.
///
/// A page's channel goes with its page: a request sent into it after a reload or
/// its web process's death would reach no one (a close swallowed, a session never
/// joined). So the channel is dropped when the page goes ([`WindowWatch::page_gone`])
/// and a request that comes before the next page listens is held for it
/// ([`WindowWatch::listen`]).
#[derive(Default)]
pub struct WindowWatch(Mutex<Listener>);

#[derive(Default)]
struct Listener {
    channel: Option<Channel<WindowRequest>>,
    /// When a close came that no page could be asked about yet.
    close_held: Option<Instant>,
    /// Sessions the page loading is to join.
    join_held: bool,
}

/// A second close counts as the person insisting only this long after the first: a
/// double click on the close button is one close.
const INSIST_AFTER: Duration = Duration::from_secs(1);

/// What becomes of a close of the window while agents work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloseAnswer {
    /// The page asks the person; the window stays until they answer.
    Asked,
    /// No page listens (it is loading): the question waits for it, and the window stays.
    Held,
    /// Closed again while the first close still waits for a page: the person insists,
    /// and the window closes (its sessions are interrupted and offered at the next start).
    Close,
}

/// What a page that starts listening is to do about a close held for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listened {
    /// Nothing held, or the question sent to the page.
    Listening,
    /// A close was held and nothing is at work any more: the window closes now.
    CloseNow,
}

impl WindowWatch {
    /// The page has gone (the window committed a new document, or its web process
    /// died), and its channel with it.
    pub fn page_gone(&self) {
        self.0.lock().channel = None;
    }

    /// Tells the page to join the sessions it lacks, or the next page that listens.
    pub fn join_sessions(&self) {
        let mut listener = self.0.lock();
        if !listener.send(WindowRequest::JoinSessions) {
            listener.join_held = true;
        }
    }

    /// The window is being closed at `now` with `at_work` sessions at work (more than none).
    pub fn close_requested(&self, at_work: usize, now: Instant) -> CloseAnswer {
        let mut listener = self.0.lock();
        if listener.send(close_asked(at_work)) {
            return CloseAnswer::Asked;
        }
        match listener.close_held {
            Some(first) if now.saturating_duration_since(first) >= INSIST_AFTER => {
                listener.close_held = None;
                CloseAnswer::Close
            }
            Some(_) => CloseAnswer::Held,
            None => {
                listener.close_held = Some(now);
                CloseAnswer::Held
            }
        }
    }

    /// The page loaded now listens on `channel`; what was held for it is told now
    /// (a close with the count of sessions at work now, `at_work`).
    pub fn listen(&self, channel: Channel<WindowRequest>, at_work: usize) -> Listened {
        let mut listener = self.0.lock();
        listener.channel = Some(channel);
        if listener.join_held && listener.send(WindowRequest::JoinSessions) {
            listener.join_held = false;
        }
        if listener.close_held.is_none() {
            return Listened::Listening;
        }
        if at_work == 0 {
            listener.close_held = None;
            return Listened::CloseNow;
        }
        if listener.send(close_asked(at_work)) {
            listener.close_held = None;
        }
        Listened::Listening
    }
}

impl Listener {
    fn send(&self, request: WindowRequest) -> bool {
        self.channel.as_ref().is_some_and(|ch| ch.send(request).is_ok())
    }
}

fn close_asked(at_work: usize) -> WindowRequest {
    WindowRequest::CloseAsked { sessions_at_work: u32::try_from(at_work).unwrap_or(u32::MAX) }
}

/// The UI listens for the shell's questions (`page`: its generation, as `this_page`
/// answered); one that came while the page was loading is asked now.
#[tauri::command]
#[specta::specta]
pub fn watch_window(
    window: Window,
    host: State<'_, arbor_app::Host>,
    routes: State<'_, crate::bridge::Routes>,
    watch: State<'_, WindowWatch>,
    page: u64,
    on_request: Channel<WindowRequest>,
) {
    // A page that has gone must not take the questions meant for the one loaded now.
    if page != routes.page() {
        tracing::info!(page, "a page that has gone asked to hear the window's questions: refused");
        return;
    }
    if watch.listen(on_request, host.sessions_at_work()) == Listened::CloseNow {
        tracing::info!("the close held while the page loaded goes ahead: nothing is at work now");
        if let Err(e) = window.close() {
            tracing::warn!(error = %e, "the window could not be closed");
        }
    }
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
/// until the person answers (asked as soon as a page listens); with nothing at work,
/// or closed again while no page listens, it closes.
#[cfg(not(test))]
pub fn on_event(window: &Window, event: &tauri::WindowEvent) {
    use tauri::Manager;
    let tauri::WindowEvent::CloseRequested { api, .. } = event else { return };
    let at_work = window.state::<arbor_app::Host>().sessions_at_work();
    if at_work == 0 {
        return;
    }
    match window.state::<WindowWatch>().close_requested(at_work, Instant::now()) {
        CloseAnswer::Asked => {
            api.prevent_close();
            tracing::info!(at_work, "closing the window asks what to do with the sessions at work");
        }
        CloseAnswer::Held => {
            api.prevent_close();
            tracing::info!(at_work, "closing the window waits for the page loading to ask (close again to quit)");
        }
        CloseAnswer::Close => tracing::info!(at_work, "closed again before the page could ask: the app quits"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A page's channel that keeps every request it is sent, as JSON.
    fn page() -> (Channel<WindowRequest>, Arc<Mutex<Vec<String>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let mine = got.clone();
        let channel = Channel::new(move |body| {
            if let tauri::ipc::InvokeResponseBody::Json(json) = body {
                mine.lock().push(json);
            }
            Ok(())
        });
        (channel, got)
    }

    const ASKED_2: &str = r#"{"kind":"close_asked","sessions_at_work":2}"#;
    const JOIN: &str = r#"{"kind":"join_sessions"}"#;

    #[test]
    fn a_page_that_listens_is_asked_at_once() {
        let watch = WindowWatch::default();
        let (channel, got) = page();
        assert_eq!(watch.listen(channel, 3), Listened::Listening);
        assert_eq!(watch.close_requested(2, Instant::now()), CloseAnswer::Asked);
        watch.join_sessions();
        assert_eq!(*got.lock(), [ASKED_2, JOIN]);
    }

    #[test]
    fn a_close_while_the_page_reloads_is_asked_by_the_new_page_with_the_count_then() {
        let watch = WindowWatch::default();
        let (old, old_got) = page();
        watch.listen(old, 1);
        watch.page_gone();
        assert_eq!(watch.close_requested(1, Instant::now()), CloseAnswer::Held, "the window stays for the new page");
        watch.join_sessions();
        assert!(old_got.lock().is_empty(), "nothing goes to the page that went");
        let (new, new_got) = page();
        assert_eq!(watch.listen(new, 2), Listened::Listening);
        assert_eq!(*new_got.lock(), [JOIN, ASKED_2]);
        // Told once: a later page is not asked again.
        watch.page_gone();
        let (later, later_got) = page();
        watch.listen(later, 2);
        assert!(later_got.lock().is_empty());
    }

    #[test]
    fn closing_again_a_moment_later_while_no_page_listens_closes_but_a_double_click_does_not() {
        let watch = WindowWatch::default();
        watch.page_gone();
        let first = Instant::now();
        assert_eq!(watch.close_requested(1, first), CloseAnswer::Held);
        assert_eq!(watch.close_requested(1, first + Duration::from_millis(300)), CloseAnswer::Held, "a double click");
        assert_eq!(watch.close_requested(1, first + INSIST_AFTER), CloseAnswer::Close);
        let (channel, got) = page();
        assert_eq!(watch.listen(channel, 1), Listened::Listening, "the close it held went ahead");
        assert!(got.lock().is_empty());
    }

    #[test]
    fn a_held_close_goes_ahead_when_nothing_is_at_work_by_the_time_a_page_listens() {
        let watch = WindowWatch::default();
        assert_eq!(watch.close_requested(1, Instant::now()), CloseAnswer::Held);
        let (channel, got) = page();
        assert_eq!(watch.listen(channel, 0), Listened::CloseNow);
        assert!(got.lock().is_empty(), "no question about nothing");
    }

    #[test]
    fn joins_held_for_a_page_are_told_once() {
        let watch = WindowWatch::default();
        watch.join_sessions();
        watch.join_sessions();
        let (channel, got) = page();
        watch.listen(channel, 0);
        assert_eq!(*got.lock(), [JOIN]);
    }
}
