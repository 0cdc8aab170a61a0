//! Answers approval requests from the terminal: JSON lines on stdin with
//! `--json`, a y/n prompt naming the agent on a terminal, or a refusal (with a
//! note) when there is no way to ask.

use crate::printer::Printer;
use crate::setup::warn;
use arbor_app::Host;
use arbor_protocol::{
    AgentId, ApprovalAnswer, ApprovalRequest, ApprovalScope, Command, DelegateRequest, SessionId, SpawnEdit,
};
use serde::Deserialize;
use std::collections::VecDeque;
use std::io::{BufRead, IsTerminal};
use tokio::sync::mpsc;

/// A line a script may send on stdin in `--json` mode.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Input {
    Approval {
        request_id: String,
        approved: bool,
        #[serde(default)]
        scope: ApprovalScope,
        /// Given to the agent with a denial.
        #[serde(default)]
        reason: Option<String>,
        /// A spawn's edits: what the child gets.
        #[serde(default)]
        edit: Option<SpawnEdit>,
    },
    /// Withdraw a standing rule (its id is in the `approval_resolved` that set it).
    Revoke {
        rule_id: String,
    },
    Message {
        #[serde(default)]
        agent_id: Option<AgentId>,
        text: String,
    },
    Cancel {
        agent_id: AgentId,
    },
    /// Compact an agent's conversation before its next request (default: the main agent's).
    Compact {
        #[serde(default)]
        agent_id: Option<AgentId>,
    },
    /// A new run of an agent that stopped, as the UI's "Resume".
    Resume {
        agent_id: AgentId,
        #[serde(default)]
        text: Option<String>,
    },
    /// Change an agent's budget (default: the main agent's, the session's): the limits
    /// given replace its own; an agent its budget stopped resumes if they leave room.
    Budget {
        #[serde(default)]
        agent_id: Option<AgentId>,
        #[serde(flatten)]
        budget: arbor_protocol::Budget,
    },
    /// A subagent under `parent_id` (default: the main agent), as the UI's "Delegate…".
    Delegate {
        #[serde(default)]
        parent_id: Option<AgentId>,
        prompt: String,
        #[serde(default)]
        description: Option<String>,
        #[serde(default)]
        subagent_type: Option<String>,
        #[serde(default)]
        model: Option<String>,
        #[serde(default)]
        max_turns: Option<u32>,
        #[serde(default)]
        tools: Option<Vec<String>>,
        #[serde(default)]
        permission_mode: Option<arbor_protocol::PermissionMode>,
        #[serde(default)]
        sandbox: Option<arbor_protocol::SandboxRequest>,
        #[serde(default)]
        isolation: Option<arbor_protocol::Isolation>,
        /// `max_tokens`, `max_cost_usd`, `max_duration_seconds`, `max_subagents`, as the Task tool's.
        #[serde(flatten)]
        budget: arbor_protocol::Budget,
    },
}

/// The session commands go to: the API, and the main agent a delegation goes under by default.
pub struct Target<'a> {
    pub host: &'a Host,
    pub session: SessionId,
    pub main: AgentId,
}

impl Target<'_> {
    fn send(&self, command: Command) -> Result<arbor_protocol::CommandReply, arbor_app::AppError> {
        self.host.send(&self.session, command)
    }
}

enum Mode {
    Json,
    Prompt,
    /// Nobody can answer: requests are denied, once explained.
    Refuse {
        explained: bool,
    },
}

pub struct Answerer {
    mode: Mode,
    lines: Option<mpsc::UnboundedReceiver<String>>,
    queue: VecDeque<(ApprovalRequest, AgentId)>,
    stdin_closed: bool,
}

impl Answerer {
    /// Only `--approve ask` ever sees a request; the other modes decide by policy.
    pub fn new(json: bool) -> Self {
        let mode = if json {
            Mode::Json
        } else if std::io::stdin().is_terminal() {
            Mode::Prompt
        } else {
            Mode::Refuse { explained: false }
        };
        let lines = match mode {
            Mode::Json | Mode::Prompt => Some(read_stdin_lines()),
            Mode::Refuse { .. } => None,
        };
        Self { mode, lines, queue: VecDeque::new(), stdin_closed: false }
    }

    /// The next line from stdin; pending forever when stdin is not read.
    pub async fn next_line(&mut self) -> Option<String> {
        match &mut self.lines {
            Some(rx) => rx.recv().await,
            None => std::future::pending().await,
        }
    }

    pub fn on_request(&mut self, req: &ApprovalRequest, agent: &AgentId, session: &Target<'_>, printer: &mut Printer) {
        match &mut self.mode {
            Mode::Json if !self.stdin_closed => {}
            Mode::Prompt if !self.stdin_closed => {
                self.queue.push_back((req.clone(), agent.clone()));
                // Answers go to the oldest request; with output in between, say again which one that is.
                if let Some((front, front_agent)) = self.queue.front() {
                    if self.queue.len() > 1 {
                        printer.note(&format!("  {} approvals waiting; answering them in order:", self.queue.len()));
                    }
                    prompt(printer, front, front_agent);
                }
            }
            Mode::Refuse { explained } => {
                if !*explained {
                    warn(
                        "approval needed but stdin is not a terminal: denying (use --approve all, or --json to answer on stdin)",
                    );
                    *explained = true;
                }
                answer(session, &req.request_id, false, ApprovalScope::Once);
            }
            Mode::Json | Mode::Prompt => answer(session, &req.request_id, false, ApprovalScope::Once),
        }
    }

    /// A request ended (answered here, by a rule another answer set, or
    /// withdrawn): it is no longer asked about; the next one is, if it was first.
    pub fn on_resolved(&mut self, request_id: &str, printer: &mut Printer) {
        let Some(at) = self.queue.iter().position(|(r, _)| r.request_id == request_id) else { return };
        self.queue.remove(at);
        if at == 0
            && let Some((next, agent)) = self.queue.front()
        {
            prompt(printer, next, agent);
        }
    }

    /// Handles one stdin line, or its end (None).
    pub fn on_line(&mut self, line: Option<String>, session: &Target<'_>, printer: &mut Printer) {
        let Some(line) = line else {
            self.stdin_closed = true;
            self.lines = None;
            // Nobody is left to answer what is queued.
            for (req, _) in self.queue.drain(..) {
                answer(session, &req.request_id, false, ApprovalScope::Once);
            }
            return;
        };
        match self.mode {
            Mode::Json => json_line(&line, session),
            Mode::Prompt => {
                let Some((req, agent)) = self.queue.front().cloned() else { return };
                let Some(mut a) = typed_answer(&line, &req.request_id) else {
                    printer.note(
                        "  answer y (yes), n or n <reason> (no), a (this agent), t (it and its subagents), s (the session)",
                    );
                    prompt(printer, &req, &agent);
                    return;
                };
                self.queue.pop_front();
                a.request_id = req.request_id.clone();
                if let Err(e) = session.send(Command::ResolveApproval(a)) {
                    warn(&e.message);
                }
                if let Some((next, agent)) = self.queue.front() {
                    prompt(printer, next, agent);
                }
            }
            Mode::Refuse { .. } => {}
        }
    }
}

/// The request itself is on the line above (the event); the prompt adds the
/// choices, each saying exactly what it covers.
fn prompt(printer: &mut Printer, req: &ApprovalRequest, agent: &AgentId) {
    let who = req.agent_path.last().map_or("this agent", String::as_str);
    let tool = &req.tool_name;
    printer.note(&format!(
        "  allow {tool} for {} ({agent})? [y] just this call · [n] no (n <reason>: tell it why) · [a] {tool} for “{who}” · [t] {tool} for “{who}” and all its subagents · [s] {tool} anywhere in this session",
        req.agent_path.join(" › "),
    ));
    if let Some(own) = own_answers(req) {
        printer.note(&own);
    }
}

/// The answers a person types: each key, the words that mean the same, and the answer.
const KEYS: [(&str, &[&str], bool, ApprovalScope); 5] = [
    ("y", &["yes"], true, ApprovalScope::Once),
    ("n", &["no"], false, ApprovalScope::Once),
    ("a", &["agent", "always"], true, ApprovalScope::Agent),
    ("t", &["tree"], true, ApprovalScope::Subtree),
    ("s", &["session"], true, ApprovalScope::Session),
];

/// An external agent's own answers, each with the key that gives it; None for Arbor's agents.
fn own_answers(req: &ApprovalRequest) -> Option<String> {
    let keyed: Vec<String> = req
        .options
        .iter()
        .filter_map(|o| {
            let (key, ..) = KEYS.iter().find(|(_, _, approved, scope)| *approved == o.approved && *scope == o.scope)?;
            Some(format!("“{}” [{key}]", o.name))
        })
        .collect();
    (!keyed.is_empty()).then(|| format!("  its own answers: {}", keyed.join(" · ")))
}

/// A typed answer (`y`, `n`, `n <reason>`, `a`, `t`, `s`), or None when it is not one.
/// The request id is filled in by the caller.
fn typed_answer(line: &str, request_id: &str) -> Option<ApprovalAnswer> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let word = word.to_lowercase();
    let &(_, _, approved, scope) =
        KEYS.iter().find(|(key, words, ..)| *key == word || words.contains(&word.as_str()))?;
    // Only a denial carries a reason; anything else after the letter is a typo.
    if !rest.is_empty() && approved {
        return None;
    }
    let mut a = ApprovalAnswer::new(request_id, approved, scope);
    a.reason = (!rest.is_empty()).then(|| rest.to_string());
    Some(a)
}

fn json_line(line: &str, session: &Target<'_>) {
    match command_of(line, &session.main) {
        Ok(None) => {}
        Ok(Some(command)) => {
            if let Err(e) = session.send(command) {
                warn(&e.message);
            }
        }
        Err(e) => warn(&e),
    }
}

/// The command a stdin line asks for (None for a blank line), or why it is not one.
/// The error quotes at most a short prefix of the line.
fn command_of(line: &str, main: &AgentId) -> Result<Option<Command>, String> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let command = match serde_json::from_str::<Input>(line) {
        Ok(Input::Approval { request_id, approved, scope, reason, edit }) => {
            Command::ResolveApproval(ApprovalAnswer { request_id, approved, scope, reason, edit })
        }
        Ok(Input::Revoke { rule_id }) => Command::RevokeRule { rule_id },
        Ok(Input::Message { agent_id, text }) => Command::SendMessage { agent_id, text },
        Ok(Input::Resume { agent_id, text }) => Command::Resume { agent_id, text },
        Ok(Input::Cancel { agent_id }) => Command::Cancel { agent_id },
        Ok(Input::Compact { agent_id }) => Command::Compact { agent_id: agent_id.unwrap_or_else(|| main.clone()) },
        Ok(Input::Delegate {
            parent_id,
            prompt,
            description,
            subagent_type,
            model,
            max_turns,
            tools,
            permission_mode,
            sandbox,
            isolation,
            budget,
        }) => Command::Delegate(DelegateRequest {
            parent_id: parent_id.unwrap_or_else(|| main.clone()),
            prompt,
            description,
            subagent_type,
            model,
            max_turns,
            tools,
            permission_mode,
            sandbox,
            isolation,
            budget: (!budget.is_empty()).then_some(budget),
        }),
        Ok(Input::Budget { agent_id, budget }) => {
            Command::SetBudget { agent_id: agent_id.unwrap_or_else(|| main.clone()), budget }
        }
        Err(e) => {
            return Err(format!(
                "ignored a stdin line that is not a known command ({}): {}",
                arbor_protocol::text::quote(&e.to_string(), 200),
                arbor_protocol::text::quote(line, 200)
            ));
        }
    };
    Ok(Some(command))
}

fn answer(session: &Target<'_>, request_id: &str, approved: bool, scope: ApprovalScope) {
    let a = ApprovalAnswer::new(request_id, approved, scope);
    if let Err(e) = session.send(Command::ResolveApproval(a)) {
        warn(&e.message);
    }
}

/// Stdin is blocking; a thread reads it and hands lines to the async side.
fn read_stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_testkit::fuzz::{fuzz, json_value, key};
    use proptest::prelude::*;

    /// A Write request from the main agent, with no options of its own.
    fn request(id: &str) -> ApprovalRequest {
        ApprovalRequest {
            request_id: id.into(),
            call_id: "c".into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            agent_path: vec!["main".into()],
            preview: None,
            options: Vec::new(),
        }
    }

    #[test]
    fn a_request_answered_elsewhere_leaves_the_prompt_queue() {
        let agent = AgentId("agent-0001".into());
        let mut a = Answerer { mode: Mode::Prompt, lines: None, queue: VecDeque::new(), stdin_closed: false };
        for id in ["r1", "r2", "r3"] {
            a.queue.push_back((request(id), agent.clone()));
        }
        let mut printer = Printer::new(true);
        // A rule set by the answer to r1 answered r2: the person is never asked about it.
        a.on_resolved("r2", &mut printer);
        a.on_resolved("r1", &mut printer);
        let left: Vec<&str> = a.queue.iter().map(|(r, _)| r.request_id.as_str()).collect();
        assert_eq!(left, vec!["r3"]);
        a.on_resolved("unknown", &mut printer);
        assert_eq!(a.queue.len(), 1);
    }

    #[test]
    fn an_external_agents_own_answers_are_listed_with_the_keys_that_give_them() {
        let option = |name: &str, approved, scope| arbor_protocol::AgentOption { name: name.into(), approved, scope };
        let mut req = request("r");
        assert_eq!(own_answers(&req), None, "Arbor's own agents: only Arbor's answers");
        req.options = vec![
            option("Always Allow", true, ApprovalScope::Agent),
            option("Allow", true, ApprovalScope::Once),
            option("Reject", false, ApprovalScope::Once),
            option("Never", false, ApprovalScope::Agent),
        ];
        assert_eq!(
            own_answers(&req).as_deref(),
            Some("  its own answers: “Always Allow” [a] · “Allow” [y] · “Reject” [n]"),
            "an answer no key gives is left out"
        );
    }

    #[test]
    fn typed_answers_name_their_scope_and_a_denial_may_say_why() {
        let a = |l: &str| typed_answer(l, "r").map(|a| (a.approved, a.scope, a.reason));
        assert_eq!(a("y"), Some((true, ApprovalScope::Once, None)));
        assert_eq!(a(" T "), Some((true, ApprovalScope::Subtree, None)));
        assert_eq!(a("s"), Some((true, ApprovalScope::Session, None)));
        assert_eq!(a("n  use the other file "), Some((false, ApprovalScope::Once, Some("use the other file".into()))));
        assert_eq!(a("y please"), None, "a reason only goes with a denial");
        assert_eq!(a("maybe"), None);
        assert_eq!(a(""), None);
    }

    #[test]
    fn stdin_lines_become_commands_or_short_errors() {
        let main = AgentId("agent-0001".into());
        let line = r#"{"type":"approval","request_id":"approval-1","approved":true,"scope":"session"}"#;
        assert!(matches!(command_of(line, &main), Ok(Some(Command::ResolveApproval(a))) if a.approved));
        let line = r#"{"type":"approval","request_id":"approval-2","approved":false,"reason":"use the staging db"}"#;
        assert!(matches!(command_of(line, &main),
            Ok(Some(Command::ResolveApproval(a))) if a.reason.as_deref() == Some("use the staging db")));
        let line = r#"{"type":"approval","request_id":"a","approved":true,"edit":{"prompt":"p","tools":["Read"],"max_turns":2}}"#;
        let Ok(Some(Command::ResolveApproval(a))) = command_of(line, &main) else { panic!("an edit") };
        let edit = a.edit.expect("edit");
        assert_eq!(
            (edit.prompt.as_deref(), edit.tools, edit.max_turns),
            (Some("p"), Some(vec!["Read".to_string()]), Some(2))
        );
        let line = r#"{"type":"revoke","rule_id":"rule-1"}"#;
        assert_eq!(command_of(line, &main).unwrap(), Some(Command::RevokeRule { rule_id: "rule-1".into() }));
        // Compact: the main agent's unless it names another.
        let line = r#"{"type":"compact"}"#;
        assert_eq!(command_of(line, &main).unwrap(), Some(Command::Compact { agent_id: main.clone() }));
        let line = r#"{"type":"compact","agent_id":"agent-0002"}"#;
        assert_eq!(command_of(line, &main).unwrap(), Some(Command::Compact { agent_id: AgentId("agent-0002".into()) }));
        let line = r#"{"type":"delegate","prompt":"look"}"#;
        assert!(matches!(command_of(line, &main), Ok(Some(Command::Delegate(d))) if d.parent_id == main));
        assert_eq!(command_of("  ", &main).unwrap(), None);
        let huge = format!("{{\"type\":\"{}\"}}", "x".repeat(1_000_000));
        let err = command_of(&huge, &main).unwrap_err();
        assert!(err.len() < 1_000, "{} characters", err.len());
    }

    #[test]
    fn fuzz_cli_stdin_json_lines() {
        let main = AgentId("agent-0001".into());
        let line = prop_oneof![
            ".{0,80}",
            json_value().prop_map(|v| v.to_string()),
            (
                prop::sample::select(&["approval", "message", "cancel", "delegate", "resume", "compact", "x"][..]),
                prop::collection::vec((key(), json_value()), 0..6)
            )
                .prop_map(|(t, fields)| {
                    let mut m: serde_json::Map<String, serde_json::Value> = fields.into_iter().collect();
                    m.insert("type".into(), t.into());
                    serde_json::Value::Object(m).to_string()
                }),
        ];
        fuzz("CLI stdin lines", 5, line, |l| {
            if let Err(e) = command_of(&l, &main) {
                assert!(e.len() < 1_000);
            }
        });
    }
}
