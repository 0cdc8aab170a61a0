//! The desktop shell: a thin Tauri layer over `arbor-app`'s `Host`. It wires
//! commands, the event bridge and plugins; the logic lives in the crates.

// The window and its event loop, apart from the unit tests: their build would expand
// Tauri's context (the embedded UI) a second time, beside the app's, and
// tauri-codegen's asset cache is not safe for two builds at once: one embedded
// a copy of the script the other was still writing, and the app served
// index.html for it (a blank window).
#[cfg(not(test))]
mod app;
mod bridge;
mod commands;
#[cfg(not(test))]
mod painting;
// Wraps the commands in app.rs, which the unit tests leave out.
#[cfg_attr(test, allow(dead_code))]
mod resent;
#[cfg(not(test))]
mod web_console;
mod web_process;
mod window;

#[cfg(not(test))]
pub use app::run;

use arbor_protocol::{
    AgentStatus, ApprovalChoice, ApprovalOutcome, ApprovalScope, EventType, GENERAL_PURPOSE, ProviderKind,
    SessionStatus, ToolClass,
};

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
            commands::attach_session,
            commands::this_page,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `UPDATE_BINDINGS=1 cargo test -p arbor-desktop bindings` rewrites the file.
    #[test]
    fn ui_bindings_are_generated_from_the_current_rust_types() {
        let fresh = render_bindings().unwrap();
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings.ts");
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
