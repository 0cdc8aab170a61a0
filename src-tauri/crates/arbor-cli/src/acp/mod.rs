//! `arbor acp`: Arbor as an Agent Client Protocol agent over stdio, for editors
//! (Zed, JetBrains, Neovim, …). A thin client of the one API, like `arbor run`:
//! each ACP session is an Arbor session (stored, budgeted, sandboxed, shown in
//! History), its subagents child sessions when the client understands them, and
//! its approvals the client's permission requests. JSON-RPC is the official SDK's.

mod live;
mod prompt;
mod updates;

use crate::args::AcpArgs;
use crate::setup;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Agent, Client, Error, Stdio, v1::ConnectionTo, v1::Responder};
use anyhow::Result;
use arbor_app::mcp::ClientServers;
use arbor_app::{AppError, AppErrorKind, Environment, Host, Tuning};
use arbor_protocol::{AgentId, Command, SessionId};
use live::Live;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What an ACP session is on the Arbor side.
enum Entry {
    /// `session/new` answered; the first prompt starts it with this id.
    New(Place),
    /// A stored session loaded or resumed: the next prompt continues it.
    Stored(Place),
    /// Its first prompt is starting it: a cancel or a close meanwhile is noted here.
    Starting(Arc<Starting>),
    /// Running in this process.
    Live(Arc<Live>),
}

/// What happened to a session while its first prompt started it.
#[derive(Default)]
pub(super) struct Starting {
    cancelled: std::sync::atomic::AtomicBool,
    closed: std::sync::atomic::AtomicBool,
}

impl Starting {
    fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn cancelled(&self) -> bool {
        self.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn closed(&self) -> bool {
        self.closed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Where a session works and what the client gave it.
#[derive(Clone)]
pub(super) struct Place {
    cwd: PathBuf,
    servers: ClientServers,
}

/// The state every handler shares.
pub struct Server {
    host: Arc<Host>,
    args: AcpArgs,
    client: Mutex<ClientSide>,
    sessions: Mutex<HashMap<String, Entry>>,
}

#[derive(Default, Clone)]
struct ClientSide {
    name: String,
    /// The client opted into subagent sessions (`clientCapabilities.subagents`).
    subagents: bool,
}

pub async fn serve(args: AcpArgs, env: Environment) -> Result<ExitCode> {
    let host = Arc::new(setup::host(args.common.data_dir.as_deref(), env)?);
    let server = Arc::new(Server {
        host: host.clone(),
        args,
        client: Mutex::new(ClientSide::default()),
        sessions: Mutex::new(HashMap::new()),
    });
    let (s1, s2, s3, s4, s5, s6, s7, s8) = (
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
        server.clone(),
    );
    let served = Agent
        .v1()
        .name("arbor")
        .on_receive_request(
            async move |req: acp::InitializeRequest, responder: Responder<acp::InitializeResponse>, _cx| {
                responder.respond(s1.initialize(req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::NewSessionRequest, responder: Responder<acp::NewSessionResponse>, _cx| {
                responder.respond_with_result(s2.new_session(req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::LoadSessionRequest,
                        responder: Responder<acp::LoadSessionResponse>,
                        cx: ConnectionTo<Client>| {
                responder.respond_with_result(s3.load_session(req, &cx).await)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::ResumeSessionRequest, responder: Responder<acp::ResumeSessionResponse>, _cx| {
                responder.respond_with_result(s4.resume_session(req).await)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::PromptRequest,
                        responder: Responder<acp::PromptResponse>,
                        cx: ConnectionTo<Client>| {
                // A turn lasts as long as the agents work: off the dispatch loop, so the
                // client's answers to permission requests (and its cancel) keep arriving.
                let server = s5.clone();
                tokio::spawn(async move {
                    let result = server.prompt(req, cx).await;
                    if let Err(e) = responder.respond_with_result(result) {
                        tracing::warn!("answering session/prompt: {e}");
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: acp::CancelNotification, _cx| {
                s6.cancel(&n.session_id.0);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: acp::ListSessionsRequest, responder: Responder<acp::ListSessionsResponse>, _cx| {
                responder.respond_with_result(s7.list_sessions(req).await)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::CloseSessionRequest, responder: Responder<acp::CloseSessionResponse>, _cx| {
                responder.respond_with_result(s8.close(&req.session_id.0).await)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await;
    // The client is gone (stdin closed): every session it drove is closed and stored.
    server.close_all().await;
    match served {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(anyhow::anyhow!("ACP connection: {e}")),
    }
}

impl Server {
    fn initialize(&self, req: acp::InitializeRequest) -> acp::InitializeResponse {
        let subagents = req.client_capabilities.subagents.is_some();
        let name = req.client_info.as_ref().map(|i| i.name.clone()).unwrap_or_else(|| "an ACP client".into());
        tracing::info!(client = %name, subagents, "ACP client connected");
        *self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = ClientSide { name, subagents };
        let capabilities = acp::AgentCapabilities::new()
            .load_session(true)
            .prompt_capabilities(acp::PromptCapabilities::new().embedded_context(true))
            .mcp_capabilities(acp::McpCapabilities::new().http(true))
            .session_capabilities(
                acp::SessionCapabilities::new()
                    .list(acp::SessionListCapabilities::new())
                    .resume(acp::SessionResumeCapabilities::new())
                    .close(acp::SessionCloseCapabilities::new()),
            );
        acp::InitializeResponse::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .agent_capabilities(capabilities)
            .agent_info(acp::Implementation::new("arbor", env!("CARGO_PKG_VERSION")).title("Arbor".to_string()))
    }

    fn client(&self) -> ClientSide {
        self.client.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn place(&self, cwd: PathBuf, servers: &[acp::McpServer]) -> Result<Place, Error> {
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(
                Error::invalid_params().data(format!("cwd {} is not an existing absolute folder", cwd.display()))
            );
        }
        Ok(Place { cwd, servers: ClientServers { client: self.client().name, servers: prompt::mcp_servers(servers)? } })
    }

    fn new_session(&self, req: acp::NewSessionRequest) -> Result<acp::NewSessionResponse, Error> {
        let place = self.place(req.cwd, &req.mcp_servers)?;
        let id = prompt::new_session_id();
        self.sessions().insert(id.to_string(), Entry::New(place));
        Ok(acp::NewSessionResponse::new(id.to_string()))
    }

    /// A stored session, replayed as updates (every agent's, as the client can show them).
    async fn load_session(
        &self,
        req: acp::LoadSessionRequest,
        cx: &ConnectionTo<Client>,
    ) -> Result<acp::LoadSessionResponse, Error> {
        let id = SessionId(req.session_id.0.to_string());
        self.refuse_live(&id)?;
        let place = self.place(req.cwd, &req.mcp_servers)?;
        let export = self.host.export_session(id.clone(), None).await.map_err(app_error)?;
        let main = export
            .session
            .main_agent_id
            .clone()
            .ok_or_else(|| Error::invalid_params().data(format!("session {id} has no main agent to continue")))?;
        let mut translator = updates::Translator::new(id.as_str(), main, self.client().subagents, true);
        for ev in &export.events {
            for update in translator.translate(ev) {
                cx.send_notification(update)?;
            }
        }
        self.sessions().insert(id.to_string(), Entry::Stored(place));
        Ok(acp::LoadSessionResponse::new())
    }

    async fn resume_session(&self, req: acp::ResumeSessionRequest) -> Result<acp::ResumeSessionResponse, Error> {
        let id = SessionId(req.session_id.0.to_string());
        self.refuse_live(&id)?;
        let place = self.place(req.cwd, &req.mcp_servers)?;
        // It must exist: the next prompt continues it.
        self.host.session_detail(id.clone()).await.map_err(app_error)?;
        self.sessions().insert(id.to_string(), Entry::Stored(place));
        Ok(acp::ResumeSessionResponse::new())
    }

    fn refuse_live(&self, id: &SessionId) -> Result<(), Error> {
        match self.sessions().get(id.as_str()) {
            Some(Entry::Live(l)) if !l.is_alive() => Ok(()),
            Some(Entry::Live(_) | Entry::Starting(_)) => {
                Err(Error::invalid_params().data(format!("session {id} is already open here")))
            }
            _ => Ok(()),
        }
    }

    async fn list_sessions(&self, req: acp::ListSessionsRequest) -> Result<acp::ListSessionsResponse, Error> {
        let query = arbor_app::transcripts::HistoryQuery { text: None, status: None, offset: 0, limit: Some(0) };
        let all = self.host.sessions(query).await.map_err(app_error)?;
        let cwd = req.cwd.as_ref().map(|c| c.display().to_string());
        let sessions = all
            .into_iter()
            .filter(|s| s.source == arbor_protocol::SessionSource::Arbor)
            .filter(|s| cwd.as_ref().is_none_or(|c| *c == s.workspace))
            .map(|s| {
                let updated = s.ended_at.unwrap_or(s.started_at);
                acp::SessionInfo::new(s.id.to_string(), PathBuf::from(&s.workspace))
                    .title(arbor_protocol::text::quote(s.first_prompt.lines().next().unwrap_or_default(), 80))
                    .updated_at(prompt::rfc3339(updated))
            })
            .collect();
        Ok(acp::ListSessionsResponse::new(sessions))
    }

    /// `session/cancel`: the main session's turn stops (its whole tree), or one child's subtree.
    pub(super) fn cancel(&self, acp_session: &str) {
        let (session, agent) = match acp_session.split_once('/') {
            Some((s, a)) if AgentId::is_valid(a) => (s, Some(AgentId(a.to_string()))),
            _ => (acp_session, None),
        };
        let live = match self.sessions().get(session) {
            Some(Entry::Live(l)) => l.clone(),
            Some(Entry::Starting(s)) => {
                s.cancelled.store(true, std::sync::atomic::Ordering::SeqCst);
                return;
            }
            _ => return,
        };
        let agent = match agent {
            Some(a) => a,
            None => {
                live.mark_cancelled();
                live.info.main_agent_id.clone()
            }
        };
        if let Err(e) = self.host.send(&live.info.session_id, Command::Cancel { agent_id: agent }) {
            tracing::info!("session/cancel: {}", e.message);
        }
    }

    async fn close(&self, acp_session: &str) -> Result<acp::CloseSessionResponse, Error> {
        let entry = self.sessions().remove(acp_session);
        match entry {
            Some(Entry::Live(live)) => {
                live.mark_cancelled();
                // Its SessionEnd hooks run off the dispatch loop: other sessions' answers go on.
                let host = self.host.clone();
                tokio::spawn(async move { host.close_and_settle(&live.info.session_id).await });
            }
            Some(Entry::Starting(s)) => s.closed.store(true, std::sync::atomic::Ordering::SeqCst),
            _ => {}
        }
        Ok(acp::CloseSessionResponse::new())
    }

    async fn close_all(&self) {
        let live: Vec<Arc<Live>> = self
            .sessions()
            .drain()
            .filter_map(|(_, e)| match e {
                Entry::Live(l) => Some(l),
                _ => None,
            })
            .collect();
        for l in live {
            tokio::time::timeout(Duration::from_secs(15), self.host.close_and_settle(&l.info.session_id))
                .await
                .unwrap_or_else(|_| tracing::warn!(session = %l.info.session_id, "closing took too long"));
        }
    }

    /// The launch flags (`--approve`, budgets, sandbox, …) for a session of this client.
    fn tuning(&self, place: &Place) -> Tuning {
        Tuning {
            client_mcp: Some(place.servers.clone()),
            driven_by: Some(place.servers.client.clone()),
            ..crate::run::tuning(&self.args.common)
        }
    }
}

/// An API error as the client reads it: its message, and its kind as data.
fn app_error(e: AppError) -> Error {
    let code = match e.kind {
        AppErrorKind::Session | AppErrorKind::NotFound => -32602,
        _ => -32603,
    };
    Error::new(code, e.message.clone()).data(serde_json::json!({ "kind": e.kind }))
}
