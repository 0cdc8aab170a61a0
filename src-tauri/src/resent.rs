//! App commands a going page sends a second time are refused, never run twice
//! (plugin commands are Tauri's: they do not pass through here).
//!
//! Tauri's page script sends each command as a fetch over its custom protocol
//! and, when that fetch fails, sends it again over its postMessage fallback
//! (`ipc-protocol.js`; tauri-apps/tauri#14154, open in 2.12). A reload aborts
//! every fetch still in flight, so the page that goes resends each command
//! still running, and the shell would run it twice: a second session started,
//! a message or a delegation sent twice. This window's page always reaches the
//! commands over the custom protocol (WebKitGTK serves it), so a command that
//! came the other way is such a resend.

use arbor_app::{AppError, AppErrorKind};
use tauri::Runtime;
use tauri::http::HeaderMap;
use tauri::ipc::Invoke;

/// The header Tauri's script sets on a command sent over the custom protocol
/// (the page's callback for the answer); the fallback carries none.
const OVER_CUSTOM_PROTOCOL: &str = "Tauri-Callback";

/// `commands`, but for a resend, which is answered with [`AppErrorKind::Resent`].
pub fn refusing_resends<R: Runtime>(
    commands: impl Fn(Invoke<R>) -> bool + Send + Sync + 'static,
) -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    move |invoke| {
        if !is_resend(invoke.message.headers()) {
            return commands(invoke);
        }
        refuse(invoke);
        true
    }
}

fn is_resend(headers: &HeaderMap) -> bool {
    !headers.contains_key(OVER_CUSTOM_PROTOCOL)
}

fn refuse<R: Runtime>(invoke: Invoke<R>) {
    let command = invoke.message.command().to_string();
    tracing::warn!(command, "refused a command the window's page sent again as it went (only its first request runs)");
    invoke.resolver.reject(AppError::new(
        AppErrorKind::Resent,
        format!(
            "the window lost its connection to Arbor with {command} on its way, so it was not sent again; \
             reload the window (its running sessions come back) and check whether it ran"
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::http::HeaderValue;

    #[test]
    fn a_command_without_the_custom_protocols_callback_is_a_resend() {
        let mut headers = HeaderMap::new();
        assert!(is_resend(&headers), "the fallback carries no callback header");
        headers.insert("Content-Type", HeaderValue::from_static("application/json"));
        assert!(is_resend(&headers));
        headers.insert(OVER_CUSTOM_PROTOCOL, HeaderValue::from_static("3166845390"));
        assert!(!is_resend(&headers), "a fetch over the custom protocol runs");
    }
}
