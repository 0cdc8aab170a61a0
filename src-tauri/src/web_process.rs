//! The window's web process dying (a crash, the kernel's OOM killer) takes the
//! page with it, and WebKit leaves the window blank: the sessions go on in this
//! process with no way to see or answer them. The page is loaded again in a new
//! web process, and joins the sessions still running (docs/contracts.md, "A
//! reloaded window joins what still runs"). A page that dies again and again is
//! left after a few tries, not reloaded forever.

use tauri::AppHandle;

/// At most this many reloads within [`RELOAD_WINDOW`]; a page that keeps dying after that is left.
const MAX_RELOADS: usize = 3;
const RELOAD_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

#[cfg(target_os = "linux")]
#[cfg_attr(test, allow(dead_code))]
pub fn restart_on_crash(app: &AppHandle) {
    use tauri::Manager;
    use webkit2gtk::{WebProcessTerminationReason, WebViewExt};
    let Some(window) = app.get_webview_window("main") else { return };
    let app = app.clone();
    let done = window.with_webview(move |webview| {
        let recent = std::cell::RefCell::new(Reloads::default());
        webview.inner().connect_web_process_terminated(move |view, reason| {
            tracing::error!(?reason, "the window's web process ended");
            // Its page's channel is dead: the window's questions wait for the next page.
            app.state::<crate::window::WindowWatch>().page_gone();
            // Ended on purpose (the window closing): nothing to bring back.
            if reason == WebProcessTerminationReason::TerminatedByApi {
                return;
            }
            if recent.borrow_mut().allow(std::time::Instant::now()) {
                tracing::info!("the window's page is loaded again in a new web process");
                view.reload();
            } else {
                tracing::error!(
                    "the window's web process died {MAX_RELOADS} times within a minute: the page is not loaded again"
                );
            }
        });
    });
    if let Err(e) = done {
        tracing::warn!(error = %e, "could not watch the window's web process");
    }
}

#[cfg(not(target_os = "linux"))]
#[cfg_attr(test, allow(dead_code))]
pub fn restart_on_crash(_app: &AppHandle) {}

/// The reloads of the last minute.
#[derive(Default)]
struct Reloads(std::collections::VecDeque<std::time::Instant>);

impl Reloads {
    /// Whether a reload at `now` is within the allowance; counts it if so.
    fn allow(&mut self, now: std::time::Instant) -> bool {
        while self.0.front().is_some_and(|t| now.duration_since(*t) >= RELOAD_WINDOW) {
            self.0.pop_front();
        }
        if self.0.len() >= MAX_RELOADS {
            return false;
        }
        self.0.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_page_that_keeps_dying_is_reloaded_three_times_a_minute_and_no_more() {
        let mut reloads = Reloads::default();
        let t0 = Instant::now();
        assert!((0..3).all(|i| reloads.allow(t0 + Duration::from_secs(i))));
        assert!(!reloads.allow(t0 + Duration::from_secs(10)), "a fourth within the minute");
        // A minute after the first, one more is allowed.
        assert!(reloads.allow(t0 + Duration::from_secs(60)));
        assert!(!reloads.allow(t0 + Duration::from_millis(60_500)), "the second and third still count");
    }
}
