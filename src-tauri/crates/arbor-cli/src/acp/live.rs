//! A session `arbor acp` drives: its events forwarded to the client as updates,
//! its approvals asked as `session/request_permission`, and the end of each
//! prompt turn (the main agent finished and nothing left running) reported to
//! the `session/prompt` waiting for it.

use super::updates::{Translator, diff_of, kind, title};
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Client, v1::ConnectionTo};
use arbor_app::{Host, SessionEvents, SessionInfo};
use arbor_protocol::{
    AgentFinished, ApprovalAnswer, ApprovalRequest, ApprovalScope, Command, EventKind, HookDecision, HookEvent, Usage,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// How a prompt turn ended.
#[derive(Debug)]
pub enum TurnEnd {
    /// The main agent's run ended and no agent is left at work; `usage` is the turn's.
    Finished { end: AgentFinished, usage: Usage },
    /// A UserPromptSubmit hook blocked the prompt (its reason): the model never saw it.
    Refused(String),
    /// The session's events ended (it was closed, or its runtime stopped).
    Gone,
}

/// One live session and the prompt turn it is in, if any.
pub struct Live {
    pub info: SessionInfo,
    /// Where it works and what the client gave it: to continue it if Arbor closes it.
    pub place: super::Place,
    turn: Mutex<Option<Turn>>,
    cancelled: AtomicBool,
    /// Its events still come (false once Arbor closed it, or its runtime stopped).
    alive: AtomicBool,
    /// The session's usage so far: a turn's is what it adds.
    usage: Mutex<Usage>,
}

struct Turn {
    done: oneshot::Sender<TurnEnd>,
    usage_before: Usage,
}

impl Live {
    pub fn new(info: SessionInfo, place: super::Place, usage: Usage) -> Arc<Self> {
        Arc::new(Self {
            info,
            place,
            turn: Mutex::new(None),
            cancelled: AtomicBool::new(false),
            alive: AtomicBool::new(true),
            usage: Mutex::new(usage),
        })
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Starts a turn; None when one is already running (a client sends one prompt at a time).
    pub fn begin_turn(&self) -> Option<oneshot::Receiver<TurnEnd>> {
        let usage_before = self.usage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let mut turn = self.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if turn.as_ref().is_some_and(|t| !t.done.is_closed()) {
            return None;
        }
        let (done, rx) = oneshot::channel();
        self.cancelled.store(false, Ordering::SeqCst);
        *turn = Some(Turn { done, usage_before });
        Some(rx)
    }

    fn end_turn(&self, end: impl FnOnce(&Usage) -> TurnEnd) {
        let turn = self.turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(t) = turn {
            let _ = t.done.send(end(&t.usage_before));
        }
    }

    /// The client cancelled the turn: it ends as `cancelled`, whatever the agent's end says.
    pub fn mark_cancelled(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    pub fn was_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

/// Forwards the session's events to the client until they end: updates in
/// order, approvals as permission requests, turn ends to the waiting prompt.
pub async fn pump(
    host: Arc<Host>,
    live: Arc<Live>,
    mut events: SessionEvents,
    cx: ConnectionTo<Client>,
    subagents: bool,
) {
    let session = live.info.session_id.to_string();
    let main = live.info.main_agent_id.clone();
    let mut translator = Translator::new(&session, main.clone(), subagents, false);
    let mut main_end = None;
    // The requests the client is being asked, each told when it is resolved otherwise; it
    // answers once its question is withdrawn from the client.
    let mut asking: std::collections::HashMap<String, oneshot::Sender<oneshot::Sender<()>>> =
        std::collections::HashMap::new();
    while let Some(ev) = events.recv().await {
        for update in translator.translate(&ev) {
            if let Err(e) = cx.send_notification(update) {
                tracing::warn!(session = %session, "the ACP client is gone: {e}");
            }
        }
        match &ev.kind {
            EventKind::ApprovalRequest(r) => {
                let (settled, resolved) = oneshot::channel();
                asking.insert(r.request_id.clone(), settled);
                let ask = Ask {
                    host: host.clone(),
                    cx: cx.clone(),
                    route: translator.route(&ev.agent_id),
                    request: r.clone(),
                    session: live.info.session_id.clone(),
                    resolved,
                };
                tokio::spawn(ask.run());
            }
            EventKind::ApprovalResolved(r) => {
                if let Some(settled) = asking.remove(&r.request_id) {
                    // Withdrawn before anything after it is sent (the turn's end, say): the
                    // client never holds a question about a turn it was told had ended. An
                    // ask that got its answer meanwhile drops `withdrawn` unanswered.
                    let (withdrawn, on_withdrawn) = oneshot::channel();
                    if settled.send(withdrawn).is_ok() {
                        let _ = on_withdrawn.await;
                    }
                }
            }
            EventKind::AgentFinished(f) if ev.agent_id == main => main_end = Some(f.clone()),
            EventKind::HookRan(h)
                if h.hook_event == HookEvent::UserPromptSubmit
                    && matches!(h.decision, HookDecision::Block | HookDecision::Stop) =>
            {
                let reason = h.message.clone().unwrap_or_else(|| "a UserPromptSubmit hook blocked the prompt".into());
                live.end_turn(|_| TurnEnd::Refused(reason));
            }
            _ => {}
        }
        *live.usage.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = events.states().total_usage();
        // A subagent's result may wake the main agent again: the turn ends when all is quiet.
        if events.states().is_idle()
            && let Some(end) = main_end.take()
        {
            let total = events.states().total_usage();
            live.end_turn(|before| TurnEnd::Finished { end, usage: minus(&total, before) });
        }
    }
    live.alive.store(false, Ordering::SeqCst);
    live.end_turn(|_| TurnEnd::Gone);
}

/// The turn's share of the session's usage.
fn minus(total: &Usage, before: &Usage) -> Usage {
    Usage {
        input_tokens: total.input_tokens.saturating_sub(before.input_tokens),
        output_tokens: total.output_tokens.saturating_sub(before.output_tokens),
        cache_read_tokens: total.cache_read_tokens.saturating_sub(before.cache_read_tokens),
        cache_write_tokens: total.cache_write_tokens.saturating_sub(before.cache_write_tokens),
        cost_usd: match (total.cost_usd, before.cost_usd) {
            (Some(t), Some(b)) => Some((t - b).max(0.0)),
            (t, _) => t,
        },
    }
}

/// One approval asked of the client.
struct Ask {
    host: Arc<Host>,
    cx: ConnectionTo<Client>,
    route: String,
    request: ApprovalRequest,
    session: arbor_protocol::SessionId,
    /// Told when the request is resolved (by the client's answer, a rule, a Stop), with
    /// whom to tell once the client's question is withdrawn.
    resolved: oneshot::Receiver<oneshot::Sender<()>>,
}

impl Ask {
    async fn run(self) {
        let r = &self.request;
        let who = r.agent_path.join(" › ");
        let tool = &r.tool_name;
        let mcp = match &r.preview {
            Some(arbor_protocol::ApprovalPreview::Mcp { server, tool }) => Some((server.as_str(), tool.as_str())),
            _ => None,
        };
        let fields = acp::ToolCallUpdateFields::new()
            .title(format!("{who}: {}", title(tool, &r.tool_args, mcp)))
            .kind(kind(tool))
            .status(acp::ToolCallStatus::Pending)
            .raw_input(r.tool_args.clone())
            .content(diff_of(tool, &r.tool_args, r.preview.as_ref()));
        let options = options_of(r, &who);
        let ask = acp::RequestPermissionRequest::new(
            self.route.clone(),
            acp::ToolCallUpdate::new(r.call_id.clone(), fields),
            options,
        );
        // Boxed, so that it can be dropped (its `$/cancel_request` sent) before the withdrawal is told.
        let mut asked = Box::pin(self.cx.send_request(ask).block_task());
        let response = tokio::select! {
            response = asked.as_mut() => response,
            // Resolved otherwise (a rule another answer set, a Stop, its session closing): the
            // question is dropped, and dropping it sends the client `$/cancel_request` for it.
            Ok(withdrawn) = self.resolved => {
                drop(asked);
                tracing::info!(request = %r.request_id, "permission request withdrawn from the ACP client");
                let _ = withdrawn.send(());
                return;
            }
        };
        let answer = match response {
            Ok(response) => answer_of(&r.request_id, &response.outcome),
            Err(e) => {
                // The request waits in the session, to be answered when it is continued.
                tracing::warn!(request = %r.request_id, "the ACP client did not answer a permission request: {e}");
                return;
            }
        };
        if let Err(e) = self.host.send(&self.session, Command::ResolveApproval(answer)) {
            // Answered meanwhile (a rule, a Stop): nothing waits on it any more.
            tracing::info!(request = %r.request_id, "permission answer not applied: {}", e.message);
        }
    }
}

/// The options the client offers: an external agent's own answers in its words, else Arbor's
/// four. Each option's id is its kind's wire name (`allow_once`, …), which `answer_of` reads back.
fn options_of(r: &ApprovalRequest, who: &str) -> Vec<acp::PermissionOption> {
    let option = |approved: bool, scope: ApprovalScope, name: String| {
        let kind = arbor_core::kind_of_answer(approved, scope);
        acp::PermissionOption::new(arbor_protocol::wire::name(&kind), name, kind)
    };
    if r.options.is_empty() {
        let tool = &r.tool_name;
        return vec![
            option(true, ApprovalScope::Once, "Allow once".into()),
            option(true, ApprovalScope::Agent, format!("Always allow {tool} for {who}")),
            option(false, ApprovalScope::Once, "Reject".into()),
            option(false, ApprovalScope::Agent, format!("Always reject {tool} for {who}")),
        ];
    }
    r.options.iter().map(|o| option(o.approved, o.scope, o.name.clone())).collect()
}

/// The client's choice as Arbor's answer: "always" is a rule for this agent; anything else
/// (a cancel, an id it did not offer) denies once.
pub fn answer_of(request_id: &str, outcome: &acp::RequestPermissionOutcome) -> ApprovalAnswer {
    let chosen = match outcome {
        acp::RequestPermissionOutcome::Selected(s) => Some(s.option_id.0.to_string()),
        _ => None,
    };
    let kind = chosen
        .as_ref()
        .and_then(|id| serde_json::from_value::<acp::PermissionOptionKind>(serde_json::Value::from(id.as_str())).ok());
    let (approved, scope) = kind.as_ref().and_then(arbor_core::answer_of_kind).unwrap_or((false, ApprovalScope::Once));
    let mut answer = ApprovalAnswer::new(request_id, approved, scope);
    if chosen.is_none() {
        answer.reason = Some("the turn was cancelled in the editor".into());
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(options: Vec<arbor_protocol::AgentOption>) -> ApprovalRequest {
        ApprovalRequest {
            request_id: "r".into(),
            call_id: "c".into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            agent_path: vec!["main".into(), "Claude".into()],
            preview: None,
            options,
        }
    }

    #[test]
    fn the_editor_is_offered_an_external_agents_own_answers_and_each_comes_back_as_itself() {
        let option = |name: &str, approved, scope| arbor_protocol::AgentOption { name: name.into(), approved, scope };
        let r = request(vec![
            option("Always Allow", true, ApprovalScope::Agent),
            option("Allow", true, ApprovalScope::Once),
            option("Reject", false, ApprovalScope::Once),
        ]);
        let offered = options_of(&r, "main › Claude");
        let names: Vec<&str> = offered.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["Always Allow", "Allow", "Reject"]);
        for (o, want) in offered.iter().zip(&r.options) {
            let chosen =
                acp::RequestPermissionOutcome::Selected(acp::SelectedPermissionOutcome::new(o.option_id.clone()));
            let a = answer_of("r", &chosen);
            assert_eq!((a.approved, a.scope), (want.approved, want.scope), "{}", o.name);
        }
        // Arbor's own agents: Arbor's four answers.
        let ours = options_of(&request(Vec::new()), "main");
        let ids: Vec<&str> = ours.iter().map(|o| o.option_id.0.as_ref()).collect();
        assert_eq!(ids, ["allow_once", "allow_always", "reject_once", "reject_always"], "ACP's own kind names");
        assert_eq!(ours[1].name, "Always allow Write for main");
    }
}
