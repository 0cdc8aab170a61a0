//! What the external agent says, as events, in the order it said it: one task
//! applies its updates, permission requests and file and terminal requests one
//! after another (so a call is announced before its approval, and its approval
//! before its result), asking a person without holding up the rest. Each ACP
//! session is one agent ([`Speaker`]): its own is the node; a subagent session it
//! announces (`subagent_update`) is a node under it, which Stop cancels with
//! `session/cancel` and which ends when its session goes idle or the node ends.

use super::speaker::Speaker;
use crate::registry::{AgentRecord, AgentSpec};
use crate::shared::Shared;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Agent, v1::ConnectionTo};
use arbor_protocol::{AgentFinished, AgentId, AgentStarted, AgentStatus, EventKind, StatusChanged, StoppedBy};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// How a prompt turn ended, as the agent answered it.
pub(super) struct Turn {
    stop: Option<acp::StopReason>,
}

impl From<acp::PromptResponse> for Turn {
    fn from(r: acp::PromptResponse) -> Self {
        Self { stop: Some(r.stop_reason) }
    }
}

impl Turn {
    pub(super) fn cancelled() -> Self {
        Self { stop: Some(acp::StopReason::Cancelled) }
    }

    pub(super) fn status(&self) -> AgentStatus {
        match self.stop {
            Some(acp::StopReason::EndTurn) => AgentStatus::Completed,
            Some(acp::StopReason::MaxTokens) => AgentStatus::Truncated,
            Some(acp::StopReason::MaxTurnRequests) => AgentStatus::MaxTurns,
            Some(acp::StopReason::Cancelled) => AgentStatus::Cancelled,
            _ => AgentStatus::Failed,
        }
    }

    pub(super) fn error(&self) -> Option<String> {
        match self.stop {
            Some(acp::StopReason::Refusal) => Some("the agent refused to go on".into()),
            Some(acp::StopReason::EndTurn | acp::StopReason::MaxTokens | acp::StopReason::MaxTurnRequests)
            | Some(acp::StopReason::Cancelled) => None,
            _ => Some("the agent ended its turn for a reason Arbor does not know".into()),
        }
    }
}

enum Msg {
    /// The connection is up, and the agent's own session is this one.
    Session(ConnectionTo<Agent>, String),
    Update(acp::SessionNotification),
    Permission(acp::RequestPermissionRequest, Responder<acp::RequestPermissionResponse>),
    Read(acp::ReadTextFileRequest, Responder<acp::ReadTextFileResponse>),
    Write(acp::WriteTextFileRequest, Responder<acp::WriteTextFileResponse>),
    Usage(acp::Usage),
    Terminal(TerminalAsk),
    Finish(oneshot::Sender<String>),
}

/// A `terminal/*` request and where its answer goes.
pub(super) enum TerminalAsk {
    Create(acp::CreateTerminalRequest, Responder<acp::CreateTerminalResponse>),
    Output(acp::TerminalOutputRequest, Responder<acp::TerminalOutputResponse>),
    Wait(acp::WaitForTerminalExitRequest, Responder<acp::WaitForTerminalExitResponse>),
    Kill(acp::KillTerminalRequest, Responder<acp::KillTerminalResponse>),
    Release(acp::ReleaseTerminalRequest, Responder<acp::ReleaseTerminalResponse>),
}

impl TerminalAsk {
    /// The session it came from (the node's, or a subagent's).
    fn session(&self) -> String {
        let id = match self {
            Self::Create(r, _) => &r.session_id,
            Self::Output(r, _) => &r.session_id,
            Self::Wait(r, _) => &r.session_id,
            Self::Kill(r, _) => &r.session_id,
            Self::Release(r, _) => &r.session_id,
        };
        id.0.to_string()
    }

    /// Answers it with `error`.
    fn refuse(self, error: agent_client_protocol::Error) {
        let _ = match self {
            Self::Create(_, r) => r.respond_with_error(error),
            Self::Output(_, r) => r.respond_with_error(error),
            Self::Wait(_, r) => r.respond_with_error(error),
            Self::Kill(_, r) => r.respond_with_error(error),
            Self::Release(_, r) => r.respond_with_error(error),
        };
    }
}

/// The handle the connection's handlers send to.
#[derive(Clone)]
pub(super) struct Node {
    tx: mpsc::UnboundedSender<Msg>,
}

impl Node {
    pub(super) fn new(shared: Arc<Shared>, id: AgentId, spec: Arc<AgentSpec>, cancel: CancellationToken) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let own = Speaker::new(shared.clone(), id, spec.clone(), cancel);
        let pump =
            Pump { shared, spec, own, session: None, cx: None, kids: HashMap::new(), done: CancellationToken::new() };
        tokio::spawn(pump.run(rx));
        Self { tx }
    }

    pub(super) fn session(&self, cx: ConnectionTo<Agent>, session: &acp::SessionId) {
        let _ = self.tx.send(Msg::Session(cx, session.0.to_string()));
    }

    pub(super) fn update(&self, n: acp::SessionNotification) {
        let _ = self.tx.send(Msg::Update(n));
    }

    pub(super) fn permission(
        &self,
        r: acp::RequestPermissionRequest,
        responder: Responder<acp::RequestPermissionResponse>,
    ) {
        let _ = self.tx.send(Msg::Permission(r, responder));
    }

    pub(super) fn read_file(&self, r: acp::ReadTextFileRequest, responder: Responder<acp::ReadTextFileResponse>) {
        let _ = self.tx.send(Msg::Read(r, responder));
    }

    pub(super) fn write_file(&self, r: acp::WriteTextFileRequest, responder: Responder<acp::WriteTextFileResponse>) {
        let _ = self.tx.send(Msg::Write(r, responder));
    }

    pub(super) fn terminal(&self, ask: TerminalAsk) {
        let _ = self.tx.send(Msg::Terminal(ask));
    }

    pub(super) fn turn_usage(&self, usage: acp::Usage) {
        let _ = self.tx.send(Msg::Usage(usage));
    }

    /// Applies what is left and returns the agent's final message.
    pub(super) async fn finish(&self) -> String {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Msg::Finish(tx)).is_err() {
            return String::new();
        }
        rx.await.unwrap_or_default()
    }
}

/// The node and the subagent sessions it announced, each an agent.
struct Pump {
    shared: Arc<Shared>,
    spec: Arc<AgentSpec>,
    own: Speaker,
    session: Option<String>,
    cx: Option<ConnectionTo<Agent>>,
    kids: HashMap<String, Kid>,
    /// Cancelled when the node's run ends: what watched its subagents stops too.
    done: CancellationToken,
}

struct Kid {
    speaker: Speaker,
    /// Its session went idle (or the node ended): it ended, until its next work.
    ended: bool,
}

impl Pump {
    async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        while let Some(msg) = rx.recv().await {
            match msg {
                Msg::Session(cx, session) => {
                    self.cx = Some(cx);
                    self.session = Some(session);
                }
                Msg::Update(n) => {
                    let session = n.session_id.0.to_string();
                    match n.update {
                        acp::SessionUpdate::SubagentUpdate(u) => self.subagent(&session, u).await,
                        update => {
                            self.awake(&session);
                            if let Some(s) = self.speaker(&session) {
                                s.apply(update).await;
                            }
                        }
                    }
                }
                Msg::Permission(r, responder) => {
                    let session = r.session_id.0.to_string();
                    self.awake(&session);
                    match self.speaker(&session) {
                        Some(s) => s.permission(r, responder).await,
                        None => {
                            let cancelled = acp::RequestPermissionOutcome::Cancelled;
                            let _ = responder.respond(acp::RequestPermissionResponse::new(cancelled));
                        }
                    }
                }
                Msg::Read(r, responder) => {
                    let read = match self.speaker(r.session_id.0.as_ref()) {
                        Some(s) => s.read(&r).await,
                        None => Err(unknown_session(&r.session_id)),
                    };
                    let _ = responder.respond_with_result(read);
                }
                Msg::Write(r, responder) => {
                    let session = r.session_id.clone();
                    let wrote = match self.speaker(session.0.as_ref()) {
                        Some(s) => s.write(r).await,
                        None => Err(unknown_session(&session)),
                    };
                    let _ = responder.respond_with_result(wrote);
                }
                Msg::Usage(u) => self.own.usage(&u),
                // A subagent's commands are its own: watched for it, stopped with it.
                Msg::Terminal(ask) => {
                    let session = ask.session();
                    match self.speaker(&session) {
                        Some(s) => s.terminal(ask).await,
                        None => ask.refuse(
                            agent_client_protocol::Error::invalid_params().data(format!("no session {session} here")),
                        ),
                    }
                }
                Msg::Finish(tx) => {
                    // Its subagents end with it (what was left of theirs is theirs), then the node.
                    let kids: Vec<String> = self.kids.keys().cloned().collect();
                    for k in kids {
                        self.end_kid(&k, None).await;
                    }
                    let _ = tx.send(self.own.finish().await);
                    self.done.cancel();
                    return;
                }
            }
        }
    }

    /// The agent a session's traffic belongs to: the node's own (also before the agent
    /// said which it is), or an announced subagent's; None for a session never announced.
    fn speaker(&mut self, session: &str) -> Option<&mut Speaker> {
        if self.session.as_deref().is_none_or(|own| own == session) {
            return Some(&mut self.own);
        }
        self.kids.get_mut(session).map(|k| &mut k.speaker)
    }

    /// A child that had gone idle works again: a new run of its node.
    fn awake(&mut self, session: &str) {
        if let Some(k) = self.kids.get_mut(session).filter(|k| k.ended) {
            k.ended = false;
            self.shared.set_status(k.speaker.id(), AgentStatus::Running);
        }
    }

    /// A `subagent_update` on `parent_session`: a new child is a node under its parent's
    /// agent; a known one's state is its status (idle: it ended, for now).
    async fn subagent(&mut self, parent_session: &str, u: acp::SubagentUpdate) {
        use agent_client_protocol::schema::MaybeUndefined;
        let child = u.session_id.0.to_string();
        if !self.kids.contains_key(&child) {
            // As many as the session lets a model start: an agent announcing more is not followed.
            if self.kids.len() >= self.shared.ctx.limits.max_subagents as usize {
                tracing::warn!(session = %child, "an external agent announced more subagents than the session allows; not shown");
                return;
            }
            let Some(parent) = self.speaker(parent_session).map(|s| s.id().clone()) else { return };
            let title = match &u.title {
                MaybeUndefined::Value(t) if !t.trim().is_empty() => t.clone(),
                _ => "subagent".to_string(),
            };
            let Some(speaker) = self.register(&parent, &title, &child) else { return };
            self.kids.insert(child.clone(), Kid { speaker, ended: false });
        }
        match u.state {
            MaybeUndefined::Value(acp::StateUpdate::Idle(idle)) => self.end_kid(&child, Some(idle.stop_reason)).await,
            MaybeUndefined::Value(acp::StateUpdate::Running(_)) => self.awake(&child),
            _ => {}
        }
    }

    /// A child node: registered under `parent`, announced, running. A person's Stop of it
    /// reaches the external agent as `session/cancel` of its session.
    fn register(&mut self, parent: &AgentId, title: &str, session: &str) -> Option<Speaker> {
        let shared = self.shared.clone();
        let mut st = shared.lock();
        let parent_record = st.registry.get(parent)?;
        let cancel = parent_record.cancel.child_token();
        let depth = parent_record.state.depth + 1;
        let model = parent_record.state.model.clone();
        let external = parent_record.state.external.clone();
        let id = st.new_agent_id();
        let started = AgentStarted {
            parent_id: Some(parent.clone()),
            parent_call_id: None,
            depth,
            description: title.to_string(),
            subagent_type: None,
            model,
            provider: arbor_protocol::ACP_PROVIDER.to_string(),
            background: true,
            call_seq: None,
            fork: None,
            external,
        };
        // Run by its parent's program: only that program starts it (the door will not).
        let spec = Arc::new(AgentSpec { hosted: true, external: None, ..(*self.spec).clone() });
        let now = shared.now_ms();
        let record = AgentRecord::queued(id.clone(), &started, spec.clone(), now, cancel.clone(), None, false);
        st.registry.insert(record);
        st.emit(&id, EventKind::AgentStarted(started));
        drop(st);
        shared.set_status(&id, AgentStatus::Running);
        if let Some(cx) = self.cx.clone() {
            let (session, stop, done) = (session.to_string(), cancel.clone(), self.done.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = stop.cancelled() => {
                        let _ = cx.send_notification(acp::CancelNotification::new(session));
                    }
                    _ = done.cancelled() => {}
                }
            });
        }
        Some(Speaker::new(shared, id, spec, cancel))
    }

    /// A child's end: its session went idle for `reason` (Some), or the node ended (None).
    async fn end_kid(&mut self, child: &str, reason: Option<Option<acp::IdleStopReason>>) {
        let Some(k) = self.kids.get_mut(child).filter(|k| !k.ended) else { return };
        k.ended = true;
        let result = k.speaker.finish().await;
        let id = k.speaker.id().clone();
        let stopped = k.speaker.stopped();
        let (status, error, stopped_by) = match reason {
            None => (AgentStatus::Cancelled, None, Some(StoppedBy::ParentEnded)),
            Some(_) if stopped => (AgentStatus::Cancelled, None, Some(StoppedBy::Person)),
            Some(Some(acp::IdleStopReason::EndTurn)) | Some(None) => (AgentStatus::Completed, None, None),
            Some(Some(acp::IdleStopReason::MaxTokens)) => (AgentStatus::Truncated, None, None),
            Some(Some(acp::IdleStopReason::MaxTurnRequests)) => (AgentStatus::MaxTurns, None, None),
            Some(Some(acp::IdleStopReason::Cancelled)) => (AgentStatus::Cancelled, None, None),
            Some(Some(other)) => (AgentStatus::Failed, Some(format!("its session ended: {other:?}")), None),
        };
        let finished =
            AgentFinished { status, result, error, turns: 1, duration_ms: 0, files_modified: Vec::new(), stopped_by };
        let mut st = self.shared.lock();
        let Some(r) = st.registry.get_mut(&id) else { return };
        let finished = AgentFinished { files_modified: r.files.clone(), ..finished };
        r.outcome.send_replace(Some(finished.clone()));
        if r.state.status != status {
            st.emit(&id, EventKind::AgentStatus(StatusChanged { status }));
        }
        st.emit(&id, EventKind::AgentFinished(finished));
    }
}

fn unknown_session(session: &acp::SessionId) -> agent_client_protocol::Error {
    agent_client_protocol::Error::invalid_params().data(format!("no session {} here", session.0))
}
