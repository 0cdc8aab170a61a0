//! The commands the UI calls: one-line wrappers over [`arbor_app::host::Host`].
//! Errors cross to the UI typed ([`AppError`]).
//!
//! A synchronous command runs on the window's main thread, so one that reads the
//! keyring or the disk (a keyring waiting on its unlock prompt, a file on a dead
//! mount) would freeze the window while it waits. Those run on the async runtime
//! (`#[tauri::command(async)]`), through [`off_worker`] so that they do not hold one
//! of its few workers either. They then answer in any order: an [`AppState`] says
//! where it stands (`taken`), and the page keeps the newest.

use crate::bridge::{self, Refusal, Routes};
use crate::window::WindowWatch;
use arbor_app::batch::EventFrame;
use arbor_app::catalog::CatalogReport;
use arbor_app::changes::AgentChange;
use arbor_app::host::AppState;
use arbor_app::mcp::{McpListing, McpReport};
use arbor_app::sessions::{Launched, StartRequest};
use arbor_app::settings::Settings;
use arbor_app::transcripts::{ExportFormat, HistoryQuery, PastSession};
use arbor_app::trust::WorkspaceMcp;
use arbor_app::worktrees::WorktreeInfo;
use arbor_app::{AppError, AppErrorKind, Host, LaunchSpec, ProviderKind, SessionInfo, Start, off_worker};
use arbor_protocol::{
    AgentId, Command, CommandReply, EventPage, RevertOutcome, SearchHit, SessionId, SessionSummary, WorktreeAction,
    WorktreeUpdate,
};
use tauri::State;
use tauri::ipc::Channel;

type Result<T> = std::result::Result<T, AppError>;

/// Where a launched session's events go: the channel of the page that asked
/// (`page`, the generation it named), and the page loaded now, told to join the
/// session when that page has gone meanwhile.
struct Window<'a> {
    routes: &'a Routes,
    watch: &'a WindowWatch,
    page: u64,
}

impl<'a> Window<'a> {
    /// The page of generation `page` asks (the one it named: a page that went before or
    /// while its command ran is known).
    fn asking(routes: &'a Routes, watch: &'a WindowWatch, page: u64) -> Self {
        Self { routes, watch, page }
    }

    /// A launched session's events go to the UI; its info answers the command.
    fn show(&self, launched: Launched, on_events: Channel<EventFrame>) -> SessionInfo {
        self.show_from(launched, on_events).info
    }

    /// [`Window::show`], with the last event stored before the first frame.
    fn show_from(&self, launched: Launched, on_events: Channel<EventFrame>) -> Continued {
        let (events, seed) = launched.events.into_parts();
        let id = launched.info.session_id.clone();
        let on = bridge::forward(id, events, seed, (on_events, self.page), self.routes.clone());
        if !on.attached {
            // Held for the page loading when none listens yet.
            self.watch.join_sessions();
        }
        Continued { info: launched.info, through: on.through }
    }
}

/// A stored session the window now runs: the frames bring every event after
/// `through`, the store holds every one up to it (a stored page stops there).
#[derive(serde::Serialize, specta::Type)]
pub struct Continued {
    pub info: SessionInfo,
    pub through: u64,
}

/// A session this process runs, joined by a page that did not start it (the
/// window reloaded): the store's view of it up to `through`, and the rest as frames.
#[derive(serde::Serialize, specta::Type)]
pub struct Attached {
    pub info: SessionInfo,
    /// Its tree, figures and the main agent's newest page, as stored up to `through`.
    pub past: PastSession,
    pub through: u64,
    /// The approval rules in force (this process's answers: no store holds them).
    pub rules: Vec<arbor_protocol::ApprovalRule>,
}

/// The live session the window shows (none: a fresh page, a review, the history): its
/// events come every display frame, every other session's a few times a second.
#[tauri::command]
#[specta::specta]
pub fn show_session(routes: State<'_, Routes>, session_id: Option<SessionId>) {
    routes.show(session_id.as_ref());
}

/// The generation of the page asking, which it names in every command that hands
/// over a channel. A synchronous command: it runs on the main thread, in order
/// with the commits of the window's documents, so a page learns its own
/// generation, never a later one.
#[tauri::command]
#[specta::specta]
pub fn this_page(routes: State<'_, Routes>) -> u64 {
    routes.page()
}

/// A page that did not start a live session (the window reloaded) takes its
/// frames from now on, on `on_events`, and reads the rest from the store.
#[tauri::command]
#[specta::specta]
pub async fn attach_session(
    host: State<'_, Host>,
    routes: State<'_, Routes>,
    session_id: SessionId,
    page: u64,
    on_events: Channel<EventFrame>,
) -> Result<Attached> {
    let not_running =
        || AppError::new(AppErrorKind::NoSession, format!("session {session_id} is not running in this process"));
    let info = host.live_sessions().into_iter().find(|s| s.session_id == session_id).ok_or_else(not_running)?;
    let at = routes.attach(&session_id, (on_events, page)).map_err(|refusal| match refusal {
        Refusal::NotRunning => not_running(),
        Refusal::PageGone => AppError::new(AppErrorKind::PageGone, "the page that asked has gone"),
        Refusal::Attached => {
            AppError::new(AppErrorKind::AlreadyShown, format!("this window shows session {session_id} already"))
        }
    })?;
    tracing::info!(session = %session_id, through = at.through, "a page attached to the session");
    let past = host.live_view(session_id, at.through).await?;
    Ok(Attached { info, past, through: at.through, rules: at.rules })
}

/// The workspace's `.mcp.json` and whether its servers may start; null when it has none.
#[tauri::command(async)]
#[specta::specta]
pub fn workspace_mcp(host: State<'_, Host>, workspace: String) -> Option<WorkspaceMcp> {
    off_worker(|| host.workspace_mcp(std::path::Path::new(&workspace)))
}

/// Lets the workspace's servers start, as the person saw them (`sha256` of what was shown).
#[tauri::command(async)]
#[specta::specta]
pub fn trust_workspace_mcp(host: State<'_, Host>, workspace: String, sha256: String) -> Result<WorkspaceMcp> {
    off_worker(|| host.trust_workspace_mcp(std::path::Path::new(&workspace), &sha256))
}

/// Withdraws that trust; true if there was a decision to withdraw.
#[tauri::command(async)]
#[specta::specta]
pub fn untrust_workspace_mcp(host: State<'_, Host>, workspace: String) -> Result<bool> {
    off_worker(|| host.untrust_workspace_mcp(std::path::Path::new(&workspace)))
}

/// The label a subagent gets when its delegation names none (what the
/// Delegate… form suggests as the person types the prompt).
#[tauri::command]
#[specta::specta]
pub fn describe_task(prompt: String) -> String {
    arbor_core::describe_task(&prompt)
}

/// Everything the first screen needs.
#[tauri::command(async)]
#[specta::specta]
pub fn app_state(host: State<'_, Host>) -> AppState {
    off_worker(|| host.state())
}

/// Starts a new session beside the live ones and sends it the prompt; its
/// events arrive on `on_events`, in order, a batch per frame.
#[tauri::command]
#[specta::specta]
pub async fn start_session(
    host: State<'_, Host>,
    routes: State<'_, Routes>,
    watch: State<'_, WindowWatch>,
    request: StartRequest,
    page: u64,
    on_events: Channel<EventFrame>,
) -> Result<SessionInfo> {
    let window = Window::asking(&routes, &watch, page);
    Ok(window.show(host.start_session(request).await?, on_events))
}

/// The built-in scripted demonstration (no key, no network).
#[tauri::command]
#[specta::specta]
pub async fn start_demo(
    host: State<'_, Host>,
    routes: State<'_, Routes>,
    watch: State<'_, WindowWatch>,
    page: u64,
    on_events: Channel<EventFrame>,
) -> Result<SessionInfo> {
    let window = Window::asking(&routes, &watch, page);
    Ok(window.show(host.launch(LaunchSpec { start: Start::Demo, ..LaunchSpec::default() }).await?, on_events))
}

/// A message, an approval answer, a stop or a delegation for a live session.
#[tauri::command]
#[specta::specta]
pub async fn send_command(host: State<'_, Host>, session_id: SessionId, command: Command) -> Result<CommandReply> {
    host.send(&session_id, command)
}

/// Closes a live session: its agents are interrupted (nobody stopped them) and it
/// can be continued from the history; a call waiting for an answer is asked again then.
#[tauri::command]
#[specta::specta]
pub async fn close_session(host: State<'_, Host>, session_id: SessionId) -> Result<AppState> {
    host.close_and_settle(&session_id).await;
    Ok(off_worker(|| host.state()))
}

#[tauri::command(async)]
#[specta::specta]
pub fn save_settings(host: State<'_, Host>, settings: Settings) -> Result<AppState> {
    off_worker(|| host.save_settings(settings))
}

/// Saves the key in the OS keyring; the UI never reads a saved key back.
#[tauri::command(async)]
#[specta::specta]
pub fn set_api_key(host: State<'_, Host>, provider: ProviderKind, key: String) -> Result<AppState> {
    off_worker(|| host.set_api_key(provider, key))
}

#[tauri::command(async)]
#[specta::specta]
pub fn clear_api_key(host: State<'_, Host>, provider: ProviderKind) -> Result<AppState> {
    off_worker(|| host.clear_api_key(provider))
}

/// The subagent types found for a workspace, and the files that failed to load.
#[tauri::command(async)]
#[specta::specta]
pub fn agent_catalog(host: State<'_, Host>, workspace: Option<String>) -> CatalogReport {
    off_worker(|| host.catalog(workspace))
}

/// The external ACP agents Settings offers to add, with the commands that start them.
#[tauri::command]
#[specta::specta]
pub fn acp_presets() -> Vec<arbor_app::acp_agents::AcpPreset> {
    arbor_app::acp_agents::presets()
}

/// Adds an external ACP agent as the user's own agent file: the type as the catalog lists it.
#[tauri::command(async)]
#[specta::specta]
pub fn add_acp_agent(
    host: State<'_, Host>,
    agent: arbor_app::acp_agents::NewAcpAgent,
) -> Result<arbor_app::catalog::AgentTypeInfo> {
    off_worker(|| host.add_acp_agent(agent))
}

/// Removes an external ACP agent the user added (its agent file).
#[tauri::command(async)]
#[specta::specta]
pub fn remove_acp_agent(host: State<'_, Host>, name: String) -> Result<()> {
    off_worker(|| host.remove_acp_agent(&name))
}

/// The MCP servers a session in `workspace` would have, with their state and
/// tools; servers not listed yet are started once to list them (all when `fresh`).
#[tauri::command]
#[specta::specta]
pub async fn mcp_servers(host: State<'_, Host>, workspace: Option<String>, fresh: bool) -> Result<McpReport> {
    Ok(host.mcp_servers(workspace, &[], McpListing { fresh, trust_workspace: false }).await)
}

/// Stored sessions, newest first, filtered.
#[tauri::command]
#[specta::specta]
pub async fn list_sessions(host: State<'_, Host>, query: HistoryQuery) -> Result<Vec<SessionSummary>> {
    host.sessions(query).await
}

/// A stored session's first screen, read-only.
#[tauri::command]
#[specta::specta]
pub async fn open_session(host: State<'_, Host>, session_id: SessionId) -> Result<PastSession> {
    host.open_session(session_id).await
}

/// An earlier page of one stored agent's transcript.
#[tauri::command]
#[specta::specta]
pub async fn load_transcript(
    host: State<'_, Host>,
    session_id: SessionId,
    agent_id: AgentId,
    before: Option<u64>,
) -> Result<EventPage> {
    host.transcript(session_id, agent_id, before).await
}

/// Full-text search across every stored transcript.
#[tauri::command]
#[specta::specta]
pub async fn search_transcripts(host: State<'_, Host>, text: String) -> Result<Vec<SearchHit>> {
    host.search(text).await
}

/// Writes a session (or one agent's transcript) to the file the person chose.
#[tauri::command]
#[specta::specta]
pub async fn export_session(
    host: State<'_, Host>,
    session_id: SessionId,
    agent_id: Option<AgentId>,
    format: ExportFormat,
    path: String,
) -> Result<String> {
    host.export(session_id, agent_id, format, path).await
}

/// Continues a stored session live, beside the others; `prompt` goes to its main agent.
#[tauri::command]
#[specta::specta]
pub async fn resume_session(
    host: State<'_, Host>,
    routes: State<'_, Routes>,
    watch: State<'_, WindowWatch>,
    session_id: SessionId,
    prompt: Option<String>,
    page: u64,
    on_events: Channel<EventFrame>,
) -> Result<Continued> {
    let window = Window::asking(&routes, &watch, page);
    Ok(window.show_from(host.resume_session(session_id, prompt).await?, on_events))
}

/// Forgets the sessions start-up found interrupted (the person will not continue them now).
#[tauri::command(async)]
#[specta::specta]
pub fn dismiss_interrupted(host: State<'_, Host>) -> AppState {
    host.dismiss_interrupted();
    off_worker(|| host.state())
}

/// Imports Claude Code's transcripts (its projects folder when `dir` is null) as read-only sessions.
#[tauri::command]
#[specta::specta]
pub async fn import_claude_code(host: State<'_, Host>, dir: Option<String>) -> Result<arbor_app::import::ImportReport> {
    host.import_claude_code(dir.filter(|d| !d.trim().is_empty()).map(std::path::PathBuf::from)).await
}

/// A session's timeline: each agent's queued time, model turns, tool calls and waits for a person.
#[tauri::command]
#[specta::specta]
pub async fn session_timeline(host: State<'_, Host>, session_id: SessionId) -> Result<arbor_protocol::Timeline> {
    host.timeline(session_id).await
}

/// Every file change of a session (of one agent, when given), in order; live or stored.
#[tauri::command]
#[specta::specta]
pub async fn session_changes(
    host: State<'_, Host>,
    session_id: SessionId,
    agent_id: Option<AgentId>,
) -> Result<Vec<AgentChange>> {
    host.changes(session_id, agent_id).await
}

/// Undoes an agent's changes (all, or those to `paths`); all or nothing, conflicts listed.
#[tauri::command]
#[specta::specta]
pub async fn revert_changes(
    host: State<'_, Host>,
    session_id: SessionId,
    agent_id: AgentId,
    paths: Vec<String>,
) -> Result<RevertOutcome> {
    host.revert(session_id, agent_id, paths).await
}

/// Merges, keeps or discards an agent's finished worktree (live or left by a past run).
#[tauri::command]
#[specta::specta]
pub async fn worktree_action(
    host: State<'_, Host>,
    session_id: SessionId,
    agent_id: AgentId,
    action: WorktreeAction,
) -> Result<WorktreeUpdate> {
    host.worktree_action(session_id, agent_id, action).await
}

/// Arbor's worktrees in the workspace's repository (also those a crash left).
#[tauri::command]
#[specta::specta]
pub async fn list_worktrees(host: State<'_, Host>, workspace: String) -> Result<Vec<WorktreeInfo>> {
    host.worktrees(std::path::PathBuf::from(workspace)).await
}
