//! The harness every scenario test uses: a scripted server, a temporary
//! workspace, a session against either API, and helpers to wait for events.

mod agent_loop;
mod approval_rules;
mod approvals;
mod budgets;
mod cancel;
mod changes;
mod compaction;
mod contracts;
mod faults;
mod forks;
mod hooks;
mod hooks_answers;
mod limits_and_input;
mod llama;
mod main_type;
mod mcp;
mod mcp_faults;
mod mcp_server;
mod module_graph;
mod resume;
mod sandbox;
mod settings_rules;
mod subagents;
mod subagents_approvals;
mod subagents_background;
mod subagents_limits;
mod subagents_scheduler;
mod subagents_stop;
mod subagents_types;
mod tools;
mod worktrees;

use arbor_core::provider::{
    AnthropicConfig, AnthropicProvider, ApiKey, OpenAiConfig, OpenAiProvider, Provider, RetryPolicy, Timeouts,
};
use arbor_core::{ApprovalPolicy, EventStream, Session, SessionConfig};
use arbor_protocol::{AgentEvent, AgentFinished, AgentId, Command, EventKind};
use arbor_testkit::{Api, RecordedRequest, Scenario, ScriptedServer, collect_until};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub const WAIT: Duration = Duration::from_secs(20);

/// The seed of [`Harness::config`]'s sessions, so tests can predict agent ids.
pub const SEED: u64 = 7;

pub struct Harness {
    pub server: ScriptedServer,
    pub dir: tempfile::TempDir,
    pub api: Api,
}

impl Harness {
    pub async fn new(scenario: serde_json::Value, api: Api) -> Self {
        let scenario = Scenario::from_json(&scenario.to_string()).expect("scenario");
        let server = ScriptedServer::start(scenario).await.expect("server");
        Self { server, dir: tempfile::tempdir().expect("tempdir"), api }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("root")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn provider(&self) -> Arc<dyn Provider> {
        provider(self.api, &self.server, fast_timeouts())
    }

    /// A config with approvals off, fast retries and this harness's provider.
    pub fn config(&self) -> SessionConfig {
        let name = match self.api {
            Api::Anthropic => "anthropic",
            Api::OpenAi => "openai",
        };
        let mut c = SessionConfig::new(self.dir.path(), name, self.provider(), "claude-sonnet-4-5");
        c.approval = ApprovalPolicy::allow_all();
        c.retry = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
            ..RetryPolicy::default()
        };
        c.seed = Some(SEED);
        c
    }

    /// Starts a session with `config` and sends `prompt` to its main agent.
    pub fn start(&self, config: SessionConfig, prompt: &str) -> (Session, EventStream) {
        let (session, events) = Session::start(config).expect("session");
        session.submit(Command::SendMessage { agent_id: None, text: prompt.into() }).expect("send");
        (session, events)
    }

    /// Runs `prompt` to the end with the default config.
    pub async fn run(&self, prompt: &str) -> Run {
        self.run_with(self.config(), prompt).await
    }

    pub async fn run_with(&self, config: SessionConfig, prompt: &str) -> Run {
        let (session, mut events) = self.start(config, prompt);
        let evs = until_finished(&mut events, session.main_agent_id()).await;
        Run { events: evs, session, requests: self.server.requests() }
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.requests()
    }
}

pub fn provider(api: Api, server: &ScriptedServer, timeouts: Timeouts) -> Arc<dyn Provider> {
    let key = Some(ApiKey::new("test-key"));
    match api {
        Api::Anthropic => Arc::new(
            AnthropicProvider::new(AnthropicConfig {
                base_url: server.anthropic_base_url(),
                api_key: key,
                timeouts,
                ..Default::default()
            })
            .expect("provider"),
        ),
        Api::OpenAi => Arc::new(
            OpenAiProvider::new(OpenAiConfig { base_url: server.openai_base_url(), api_key: key, timeouts })
                .expect("provider"),
        ),
    }
}

pub fn fast_timeouts() -> Timeouts {
    Timeouts { connect: Duration::from_secs(2), response: Duration::from_secs(10), idle: Duration::from_secs(10) }
}

/// Delegates through `submit`, the one way in, and returns the subagent it started.
pub fn delegate(
    session: &Session,
    request: arbor_protocol::DelegateRequest,
) -> Result<AgentId, arbor_core::SessionError> {
    match session.submit(Command::Delegate(request))? {
        arbor_protocol::CommandReply::Delegated { agent_id } => Ok(agent_id),
        other => panic!("a delegation answered {other:?}"),
    }
}

/// Events up to and including `agent`'s `agent_finished`.
pub async fn until_finished(events: &mut EventStream, agent: &AgentId) -> Vec<AgentEvent> {
    collect_until(events, WAIT, |e| matches!(e.kind, EventKind::AgentFinished(_)) && e.agent_id == *agent)
        .await
        .expect("agent_finished")
}

pub struct Run {
    pub events: Vec<AgentEvent>,
    pub session: Session,
    pub requests: Vec<RecordedRequest>,
}

impl Run {
    pub fn finished(&self) -> &AgentFinished {
        self.events
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::AgentFinished(f) => Some(f),
                _ => None,
            })
            .expect("finished")
    }

    pub fn types(&self) -> Vec<&'static str> {
        self.events.iter().map(|e| e.kind.type_name()).collect()
    }

    /// (content, is_error) of every call's tool_output, in call order (events
    /// themselves arrive as calls complete).
    pub fn outputs(&self) -> Vec<(String, bool)> {
        let calls = self.events.iter().filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) => Some(c.call_id.clone()),
            _ => None,
        });
        calls
            .map(|id| {
                self.events
                    .iter()
                    .find_map(|e| match &e.kind {
                        EventKind::ToolOutput(o) if o.call_id == id => Some((o.content.clone(), o.is_error)),
                        _ => None,
                    })
                    .expect("every call has an output")
            })
            .collect()
    }

    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ResponseChunk(t) => Some(t.content.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// The tool results a request carried in its last message, as (id, content), for either API.
pub fn tool_results(req: &RecordedRequest) -> Vec<(String, String)> {
    let msgs = req.body["messages"].as_array().cloned().unwrap_or_default();
    match req.api {
        Api::Anthropic => msgs
            .last()
            .and_then(|m| m["content"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| {
                (b["tool_use_id"].as_str().unwrap_or("").to_string(), b["content"].as_str().unwrap_or("").to_string())
            })
            .collect(),
        Api::OpenAi => {
            let mut out: Vec<_> = msgs
                .iter()
                .rev()
                .skip_while(|m| m["role"] != "tool")
                .take_while(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or("").to_string(),
                        m["content"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect();
            out.reverse();
            out
        }
    }
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
