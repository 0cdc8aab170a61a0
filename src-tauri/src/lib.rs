//! The desktop shell: a thin Tauri layer over `arbor-app`'s [`Host`]. It wires
//! commands, the event bridge and plugins; the logic lives in the crates.

mod bridge;
mod commands;
mod painting;
mod web_console;
mod window;

use arbor_app::instance::{self, Launch};
use arbor_app::keys::OsKeyring;
use arbor_app::{Environment, Host, HostConfig, paths};
use arbor_protocol::{
    AgentStatus, ApprovalChoice, ApprovalOutcome, ApprovalScope, EventType, GENERAL_PURPOSE, ProviderKind,
    SessionStatus, ToolClass,
};
use std::path::PathBuf;
use tauri::Manager;

/// The one place that lists every command the UI may call; `ui/src/bindings.ts`
/// is generated from it (see `tests` below: a stale file fails the build).
pub fn specta_builder() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .commands(tauri_specta::collect_commands![
            commands::app_state,
            commands::start_session,
            commands::start_demo,
            commands::send_command,
            commands::close_session,
            commands::save_settings,
            commands::set_api_key,
            commands::clear_api_key,
            commands::agent_catalog,
            commands::acp_presets,
            commands::add_acp_agent,
            commands::remove_acp_agent,
            commands::mcp_servers,
            commands::workspace_mcp,
            commands::trust_workspace_mcp,
            commands::untrust_workspace_mcp,
            commands::describe_task,
            commands::list_sessions,
            commands::open_session,
            commands::load_transcript,
            commands::search_transcripts,
            commands::export_session,
            commands::resume_session,
            commands::session_changes,
            commands::session_timeline,
            commands::dismiss_interrupted,
            commands::import_claude_code,
            commands::revert_changes,
            commands::worktree_action,
            commands::list_worktrees,
            window::watch_window,
            window::close_window,
            commands::show_session,
        ])
        // Every list the UI needs of a Rust rule, so TypeScript never re-types one.
        .constant("AGENT_STATUSES", AgentStatus::ALL)
        .constant("TERMINAL_AGENT_STATUSES", AgentStatus::TERMINAL)
        .constant("RESUMABLE_AGENT_STATUSES", AgentStatus::RESUMABLE)
        .constant("SESSION_STATUSES", SessionStatus::ALL)
        .constant("APPROVAL_SCOPES", ApprovalScope::ALL)
        .constant("APPROVAL_OUTCOMES", ApprovalOutcome::ALL)
        .constant("APPROVAL_CHOICES", ApprovalChoice::ALL)
        .constant("TOOL_CLASSES", ToolClass::ALL)
        .constant("PROVIDER_KINDS", ProviderKind::ALL)
        .constant("EVENT_TYPES", EventType::ALL)
        .constant("TRANSCRIPT_EVENT_TYPES", EventType::TRANSCRIPT)
        .constant("GENERAL_PURPOSE", GENERAL_PURPOSE)
        .constant("TASK_TOOL", arbor_protocol::TASK_TOOL)
        .constant("ACP_PROVIDER", arbor_protocol::ACP_PROVIDER)
        .constant("DELEGATION_PERMISSION_MODES", arbor_protocol::PermissionMode::TIGHTENING)
        .constant("SANDBOX_MODES", arbor_protocol::SandboxMode::ALL)
        .constant("ISOLATIONS", arbor_protocol::Isolation::ALL)
        .constant("BUDGET_KINDS", arbor_protocol::BudgetKind::ALL)
        .constant("BUDGET_LIMIT_FIELDS", arbor_protocol::BudgetKind::LIMIT_FIELDS)
        .constant("CHARS_PER_TOKEN", arbor_protocol::CHARS_PER_TOKEN)
        .constant("BUDGET_ORIGINS", arbor_protocol::BudgetOrigin::ALL)
        .constant("BUDGET_WARNING_FRACTION", arbor_protocol::budget::BUDGET_WARNING_FRACTION)
        .constant("SEGMENT_KINDS", arbor_protocol::SegmentKind::ALL)
        .constant("SESSION_SOURCES", arbor_protocol::SessionSource::ALL)
        .constant("RESUMABLE_SESSION_SOURCES", arbor_protocol::SessionSource::RESUMABLE)
        .constant(
            "OPEN_WORKTREE_STATES",
            [arbor_protocol::WorktreeState::Ready, arbor_protocol::WorktreeState::Conflicted],
        )
        .constant("HOOK_DECISION_WORDS", arbor_protocol::HookDecision::WORDS)
        .constant("HOOK_EVENTS", arbor_protocol::HookEvent::ALL)
        .constant("HISTORY_PAGE", arbor_app::transcripts::HISTORY_PAGE)
        .constant("SEARCH_LIMIT", arbor_app::transcripts::SEARCH_LIMIT)
        // Token counts, sequence numbers and timestamps stay far below 2^53.
        .dangerously_cast_bigints_to_number()
        // One TypeScript type per Rust type: the wire types serialize and deserialize alike.
        .disable_serde_phases()
}

/// The bindings as they would be written now.
pub fn render_bindings() -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("arbor-bindings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("bindings.ts");
    specta_builder()
        .export(
            specta_typescript::Typescript::default()
                .header("// Generated from the Rust types by tauri-specta (src-tauri/src/lib.rs). Do not edit."),
            &path,
        )
        .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    text
}

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
        .manage(bridge::Paces::default())
        .invoke_handler(builder.invoke_handler())
        .on_window_event(window::on_event)
        .setup(move |app| {
            web_console::mirror(app.handle());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `UPDATE_BINDINGS=1 cargo test -p arbor-desktop bindings` rewrites the file.
    #[test]
    fn ui_bindings_are_generated_from_the_current_rust_types() {
        let fresh = render_bindings().unwrap();
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings.ts");
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == fresh,
            "ui/src/bindings.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p arbor-desktop bindings` and commit it"
        );
    }
}
