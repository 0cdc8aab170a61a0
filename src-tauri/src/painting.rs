//! How the webview paints. On Linux without a GPU (no DRM render node, as in a
//! VM, a container or a remote desktop), WebKitGTK's GL compositor runs on
//! Mesa's software rasteriser and costs more than it saves: under a stream of
//! 20,000 events/s it doubled the web process's CPU and stretched frames from
//! 18 ms to 105 ms at the 95th percentile (`cargo bench --bench ui`). There the
//! webview paints without it. A person's own `WEBKIT_DISABLE_COMPOSITING_MODE`
//! (`0` keeps the compositor) or a GPU leaves WebKit's choice alone. WebDriver
//! screenshots fail without the compositor, so the end-to-end tests keep it.

use tauri::{AppHandle, Manager};

#[cfg(target_os = "linux")]
pub fn tune(app: &AppHandle) {
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_some() || has_gpu() {
        return;
    }
    let Some(window) = app.get_webview_window("main") else { return };
    let done = window.with_webview(|webview| {
        if let Some(settings) = webview.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    match done {
        Ok(()) => tracing::info!("no GPU render node: the webview paints without GL compositing"),
        Err(e) => tracing::warn!(error = %e, "could not tune the webview's painting"),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn tune(_app: &AppHandle) {}

/// A DRM render node is how Mesa reaches a GPU; without one, GL is software.
#[cfg(target_os = "linux")]
fn has_gpu() -> bool {
    std::fs::read_dir("/dev/dri")
        .map(|dir| dir.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
        .unwrap_or(false)
}
