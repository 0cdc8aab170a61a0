//! Opens the main window and runs its event loop: the host, the plugins, the
//! commands and the event bridge wired together (lib.rs says why this is
//! apart from the unit tests).

use crate::{bridge, painting, resent, specta_builder, web_console, web_process, window};
use arbor_app::instance::{self, Launch};
use arbor_app::keys::OsKeyring;
use arbor_app::{Environment, Host, HostConfig, paths};
use std::path::PathBuf;
use tauri::Manager;

/// The workspace offered first: the first argument, else the current directory.
fn default_workspace() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(std::env::temp_dir)
}

/// Opens the main window and runs the event loop until it closes.
pub fn run() {
    // The agents' work runs on these threads, below the window's priority (arbor_app::priority).
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(arbor_app::priority::lower_this_thread)
        .build()
    {
        Ok(r) => r,
        Err(e) => fail(&format!("Arbor cannot start: no async runtime: {e}")),
    };
    tauri::async_runtime::set(runtime.handle().clone());
    let builder = specta_builder();
    // The one place the app reads its environment.
    let env = Environment::capture(std::env::vars());
    let data_dir = match paths::data_dir(None, &env) {
        Ok(d) => d,
        Err(e) => fail(&format!("Arbor cannot start: {e}")),
    };
    if let Err(e) = paths::init_logging(&data_dir, "arbor-desktop.log", &env) {
        fail(&format!("Arbor cannot start: {e}"));
    }
    // One app per data dir: a later launch brings this one's window forward and starts nothing.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let primary = match instance::launch(&data_dir, &args) {
        Ok(Launch::First(primary)) => primary,
        Ok(Launch::Forwarded { pid }) => already_running(pid),
        Err(e) => fail(&format!("Arbor cannot start: {e}")),
    };
    let config_dir = paths::config_dir(&env);
    let host = Host::new(HostConfig {
        settings_file: config_dir.as_ref().map(|d| d.join("settings.json")),
        config_dir,
        env,
        secrets: Box::new(OsKeyring),
        default_workspace: default_workspace(),
        scratch_dir: std::env::temp_dir(),
        data_dir: Some(data_dir.clone()),
    });
    let result = tauri::Builder::default()
        // Where and how big, never hidden: a window hidden to keep sessions running
        // must not come back hidden at the next start.
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(
                    tauri_plugin_window_state::StateFlags::all() - tauri_plugin_window_state::StateFlags::VISIBLE,
                )
                .build(),
        )
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .manage(host)
        .manage(window::WindowWatch::default())
        .manage(bridge::Routes::default())
        .invoke_handler(resent::refusing_resends(builder.invoke_handler()))
        .on_window_event(window::on_event)
        // A new page (the first, a reload, one after its web process died): the page before it,
        // if any, is gone with its channels (bridge.rs, window.rs). Tauri's "started" is the
        // commit of the new document (wry sends it on WebKit's `Committed`), on the main thread.
        .on_page_load(|webview, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Started {
                // The channel first: a start that sees the new generation then finds no
                // channel of the old page to tell its join to, and holds it for the new one.
                webview.state::<window::WindowWatch>().page_gone();
                webview.state::<bridge::Routes>().page_loaded();
            }
        })
        .setup(move |app| {
            web_console::mirror(app.handle());
            web_process::restart_on_crash(app.handle());
            painting::tune(app.handle());
            let handle = app.handle().clone();
            primary.serve(move |args| {
                let app = handle.clone();
                let _ = handle.run_on_main_thread(move || window::come_forward(&app, &args));
            });
            builder.mount_events(app);
            tracing::info!(version = env!("CARGO_PKG_VERSION"), "Arbor desktop started");
            Ok(())
        })
        .build(tauri::generate_context!());
    match result {
        Ok(app) => app.run(|handle, event| {
            // Quitting mid-run interrupts the agents (to be continued) and waits (briefly) until
            // their last events are stored.
            if let tauri::RunEvent::Exit = event {
                // SessionEnd hooks first, as a closed session's run: a few seconds at most, so a
                // hook that hangs does not hold the quit.
                let host = handle.state::<Host>();
                let ended = tokio::time::timeout(QUIT_HOOKS, host.end_all_hooks("other"));
                if tauri::async_runtime::block_on(ended).is_err() {
                    tracing::warn!("SessionEnd hooks were still running when the app quit");
                }
                let writers = host.close_all();
                // They settle side by side: one deadline for all.
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
                for w in writers {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    tauri::async_runtime::block_on(w.settle(left));
                }
            }
        }),
        Err(e) => fail(&format!("Arbor could not start its window: {e}")),
    }
}

/// How long quitting waits for the live sessions' SessionEnd hooks.
const QUIT_HOOKS: std::time::Duration = std::time::Duration::from_secs(5);

#[allow(clippy::print_stderr)]
fn already_running(pid: u32) -> ! {
    tracing::info!(pid, "Arbor already runs on this data dir: its window was brought forward");
    eprintln!("Arbor is already running on this data dir (pid {pid}): its window was brought forward.");
    std::process::exit(0);
}

#[allow(clippy::print_stderr)]
fn fail(msg: &str) -> ! {
    tracing::error!("{msg}");
    eprintln!("{msg}");
    std::process::exit(1);
}
