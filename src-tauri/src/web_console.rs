//! The page's console on the app's stdout when `ARBOR_WEB_CONSOLE` is set. The
//! end-to-end harness sets it and keeps the output, so a test that fails on a
//! blank or broken page says what the page logged; otherwise WebKit keeps the
//! console to itself and such a failure shows only an empty window.

use tauri::AppHandle;

#[cfg(target_os = "linux")]
pub fn mirror(app: &AppHandle) {
    use tauri::Manager;
    use webkit2gtk::{SettingsExt, WebViewExt};
    if std::env::var_os("ARBOR_WEB_CONSOLE").is_none() {
        return;
    }
    let Some(window) = app.get_webview_window("main") else { return };
    let done = window.with_webview(|webview| {
        if let Some(settings) = webview.inner().settings() {
            settings.set_enable_write_console_messages_to_stdout(true);
        }
    });
    if let Err(e) = done {
        tracing::warn!(error = %e, "could not mirror the page's console");
    }
}

#[cfg(not(target_os = "linux"))]
pub fn mirror(_app: &AppHandle) {}
