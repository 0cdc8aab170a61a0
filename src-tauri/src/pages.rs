//! Each document the window commits is a new page generation (bridge.rs): the
//! page before it is gone, with every channel it held. Committed, not started:
//! a reload that has started leaves the old page running, and asking, until the
//! new document replaces it; and a page asks its generation (`this_page`) only
//! once it runs, after its commit, so no page learns a later page's generation.

use crate::bridge::Routes;
use tauri::{AppHandle, Manager, Webview, webview::PageLoadPayload};

#[cfg(target_os = "linux")]
pub fn watch(app: &AppHandle) {
    use webkit2gtk::{LoadEvent, WebViewExt};
    let Some(window) = app.get_webview_window("main") else { return };
    let routes = app.state::<Routes>().inner().clone();
    let done = window.with_webview(move |webview| {
        webview.inner().connect_load_changed(move |_, event| {
            if event == LoadEvent::Committed {
                routes.page_loaded();
            }
        });
    });
    if let Err(e) = done {
        tracing::error!(error = %e, "could not watch the window's page loads: a reloaded page may miss a session");
    }
}

/// Tauri tells only when a load starts, not when it commits: elsewhere, a page starting
/// to load is taken as the new one.
#[cfg(not(target_os = "linux"))]
pub fn watch(_app: &AppHandle) {}

pub fn on_page_load(webview: &Webview, payload: &PageLoadPayload<'_>) {
    if cfg!(not(target_os = "linux")) && payload.event() == tauri::webview::PageLoadEvent::Started {
        webview.state::<Routes>().page_loaded();
    }
}
