//! Generates Tauri's context; capabilities live in src-tauri/capabilities. The
//! app manifest lists our commands so a capability must grant each one.
fn main() {
    let commands = &[
        "app_state",
        "start_session",
        "start_demo",
        "send_command",
        "close_session",
        "save_settings",
        "set_api_key",
        "clear_api_key",
        "agent_catalog",
        "acp_presets",
        "add_acp_agent",
        "remove_acp_agent",
        "mcp_servers",
        "workspace_mcp",
        "trust_workspace_mcp",
        "untrust_workspace_mcp",
        "describe_task",
        "list_sessions",
        "open_session",
        "load_transcript",
        "search_transcripts",
        "export_session",
        "resume_session",
        "session_changes",
        "session_timeline",
        "dismiss_interrupted",
        "import_claude_code",
        "revert_changes",
        "worktree_action",
        "list_worktrees",
        "watch_window",
        "close_window",
        "show_session",
        "attach_session",
        "this_page",
    ];
    // tauri-build reads the capabilities but does not ask to run again when they change.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .capabilities_path_pattern("./src-tauri/capabilities/**/*")
            .app_manifest(tauri_build::AppManifest::new().commands(commands)),
    )
    .unwrap_or_else(|e| panic!("tauri-build failed: {e:#}"));
}
