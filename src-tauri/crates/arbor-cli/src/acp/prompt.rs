//! `session/prompt`: a prompt turn, from the client's content blocks to the stop
//! reason; and the small translations the handlers share (the client's MCP
//! servers, ids, times).

use super::live::{self, Live, TurnEnd};
use super::{Entry, Server, Starting, app_error};
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Client, Error, v1::ConnectionTo};
use arbor_app::{LaunchSpec, Start};
use arbor_core::mcp::{McpServerConfig, McpTransport};
use arbor_protocol::{Command, SessionId};
use std::sync::Arc;

impl Server {
    pub(super) async fn prompt(
        &self,
        req: acp::PromptRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<acp::PromptResponse, Error> {
        let text = prompt_text(&req.prompt)?;
        let key = req.session_id.0.to_string();
        // Decided under the lock: a second prompt, a cancel or a close while the session
        // starts find it starting.
        let starting = {
            let mut sessions = self.sessions();
            let resume = || Start::Resume { session: SessionId(key.clone()), prompt: Some(text.clone()) };
            let found = match sessions.get(&key) {
                Some(Entry::Live(l)) if l.is_alive() => Ok(l.clone()),
                // Closed behind the editor's back (Arbor's cap on live sessions): continued again.
                Some(Entry::Live(l)) => Err((resume(), l.place.clone(), None)),
                Some(Entry::Starting(_)) => {
                    return Err(Error::invalid_request().data("a prompt is already running in this session"));
                }
                Some(Entry::New(p)) => {
                    Err((Start::New { prompt: text.clone() }, p.clone(), Some(SessionId(key.clone()))))
                }
                Some(Entry::Stored(p)) => Err((resume(), p.clone(), None)),
                None => return Err(Error::invalid_params().data(format!("no session {key}: create or load it first"))),
            };
            found.map_err(|(start, place, id)| {
                let flag = Starting::new();
                sessions.insert(key.clone(), Entry::Starting(flag.clone()));
                (start, place, id, flag)
            })
        };
        let (live, done) = match starting {
            Ok(live) => {
                let Some(done) = live.begin_turn() else {
                    return Err(Error::invalid_request().data("a prompt is already running in this session"));
                };
                if let Err(e) = self.host.send(&live.info.session_id, Command::SendMessage { agent_id: None, text }) {
                    return Err(app_error(e));
                }
                (live, done)
            }
            Err((start, place, id, flag)) => {
                let back = match &start {
                    Start::New { .. } => Entry::New(place.clone()),
                    _ => Entry::Stored(place.clone()),
                };
                let mut tuning = self.tuning(&place);
                tuning.session_id = id;
                let spec = LaunchSpec {
                    workspace: Some(place.cwd.clone()),
                    start,
                    provider: self.args.provider.map(Into::into),
                    model: self.args.model.clone(),
                    tuning,
                };
                let launched = match self.host.launch(spec).await {
                    Ok(l) => l,
                    Err(e) => {
                        // Not started: as it was, unless it was closed meanwhile.
                        if !flag.closed() {
                            self.sessions().insert(key.clone(), back);
                        }
                        return Err(app_error(e));
                    }
                };
                for w in &launched.info.warnings {
                    tracing::warn!(session = %launched.info.session_id, "{w}");
                }
                let live = Live::new(launched.info.clone(), place, launched.events.states().total_usage());
                // The turn is registered before any event is forwarded, so its end cannot be missed.
                let Some(done) = live.begin_turn() else {
                    return Err(Error::internal_error().data("a new session already had a turn"));
                };
                if flag.closed() {
                    // Closed while it started: it is stored, and ends here.
                    live.mark_cancelled();
                    self.host.close_and_settle(&launched.info.session_id).await;
                    return Ok(acp::PromptResponse::new(acp::StopReason::Cancelled));
                }
                self.sessions().insert(key.clone(), Entry::Live(live.clone()));
                let subagents = self.client().subagents;
                tokio::spawn(live::pump(self.host.clone(), live.clone(), launched.events, cx, subagents));
                if flag.cancelled() {
                    self.cancel(&key);
                }
                (live, done)
            }
        };
        let end = done.await.unwrap_or(TurnEnd::Gone);
        respond(&live, end)
    }
}

/// How the turn ended, as ACP's stop reason (a failure is an error, with its message).
fn respond(live: &Arc<Live>, end: TurnEnd) -> Result<acp::PromptResponse, Error> {
    if live.was_cancelled() {
        return Ok(acp::PromptResponse::new(acp::StopReason::Cancelled));
    }
    match end {
        TurnEnd::Finished { end, usage } => {
            let Some(reason) = super::updates::stop_reason(end.status) else {
                let why = end.error.unwrap_or_else(|| "the main agent failed".into());
                return Err(Error::new(-32603, why));
            };
            let figures = acp::Usage::new(usage.total_tokens(), usage.input_tokens, usage.output_tokens)
                .cached_read_tokens(usage.cache_read_tokens)
                .cached_write_tokens(usage.cache_write_tokens);
            Ok(acp::PromptResponse::new(reason).usage(figures))
        }
        TurnEnd::Refused(why) => {
            tracing::info!(session = %live.info.session_id, "prompt refused: {why}");
            Ok(acp::PromptResponse::new(acp::StopReason::Refusal))
        }
        TurnEnd::Gone => Err(Error::internal_error().data("the session ended before the turn did")),
    }
}

/// The prompt as text: text blocks as they are, an embedded file inline with its name,
/// a link by its URI. Images and audio are refused (the capabilities say so).
fn prompt_text(blocks: &[acp::ContentBlock]) -> Result<String, Error> {
    let mut parts = Vec::new();
    for b in blocks {
        match b {
            acp::ContentBlock::Text(t) => parts.push(t.text.clone()),
            acp::ContentBlock::ResourceLink(l) => parts.push(format!("@{}", l.uri)),
            acp::ContentBlock::Resource(r) => match &r.resource {
                acp::EmbeddedResourceResource::TextResourceContents(t) => {
                    parts.push(format!("<file uri=\"{}\">\n{}\n</file>", t.uri, t.text));
                }
                _ => return Err(Error::invalid_params().data("Arbor takes text resources only")),
            },
            _ => return Err(Error::invalid_params().data("Arbor takes text prompts (no images or audio)")),
        }
    }
    let text = parts.join("\n");
    if text.trim().is_empty() {
        return Err(Error::invalid_params().data("the prompt is empty"));
    }
    Ok(text)
}

/// The client's MCP servers as Arbor's. SSE (deprecated by MCP) is refused: the
/// capabilities do not offer it.
pub fn mcp_servers(given: &[acp::McpServer]) -> Result<Vec<McpServerConfig>, Error> {
    given
        .iter()
        .map(|s| match s {
            acp::McpServer::Stdio(s) => Ok(McpServerConfig {
                name: s.name.clone(),
                transport: McpTransport::Stdio {
                    command: s.command.display().to_string(),
                    args: s.args.clone(),
                    env: s.env.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
                    cwd: None,
                },
            }),
            acp::McpServer::Http(h) => Ok(McpServerConfig {
                name: h.name.clone(),
                transport: McpTransport::Http {
                    url: h.url.clone(),
                    headers: h.headers.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
                },
            }),
            _ => Err(Error::invalid_params().data("Arbor connects to MCP servers over stdio or HTTP, not SSE")),
        })
        .collect()
}

/// A fresh session id, told to the client before the session starts.
pub fn new_session_id() -> SessionId {
    let mut random = [0u8; 10];
    random.iter_mut().for_each(|b| *b = fastrand::u8(..));
    SessionId::new(arbor_core::Clock::now_ms(&arbor_core::SystemClock), random)
}

/// Milliseconds since the epoch as ACP's timestamps (RFC 3339, UTC).
pub fn rfc3339(ms: i64) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms).map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}
