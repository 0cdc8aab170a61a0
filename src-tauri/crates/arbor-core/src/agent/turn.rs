//! One model turn: stream a response, passing its deltas on as events, and retry
//! with backoff on retryable failures, but only while nothing has been shown yet.

use super::AgentRun;
use super::pieces::{self, Pieces};
use crate::provider::{ModelRequest, ModelResponse, ProviderError, StreamEvent, ToolSpec};
use crate::shared::Shared;
use arbor_protocol::{AssistantBlock, EventKind, Text, ToolInputChunk};
use futures::StreamExt;
use tracing::{Instrument, info_span, warn};

pub(crate) enum TurnError {
    Cancelled,
    Provider(ProviderError),
}

pub(crate) async fn model_turn(
    shared: &Shared,
    agent: &AgentRun,
    tools: &[ToolSpec],
    number: u32,
) -> Result<ModelResponse, TurnError> {
    let span = info_span!("turn", n = number);
    async move {
        let started = tokio::time::Instant::now();
        let policy = &shared.ctx.retry;
        let mut attempt = 0u32;
        loop {
            let mut shown = false;
            match stream_once(shared, agent, tools, &mut shown).await {
                Err(TurnError::Provider(e)) if e.is_retryable() && !shown && attempt < policy.max_retries => {
                    let delay = policy.delay(attempt, e.retry_after(), shared.jitter());
                    let waited = started.elapsed();
                    if waited + delay >= policy.budget {
                        let gave_up = ProviderError::GaveUp {
                            waited,
                            attempts: attempt + 1,
                            budget: policy.budget,
                            last: Box::new(e),
                        };
                        return Err(TurnError::Provider(gave_up));
                    }
                    warn!(error = %e, attempt = attempt + 1, delay_ms = delay.as_millis() as u64, "retrying model request");
                    tokio::select! {
                        _ = agent.cancel.cancelled() => return Err(TurnError::Cancelled),
                        _ = tokio::time::sleep(delay) => {}
                    }
                    attempt += 1;
                }
                // Out of retries: say how long it all took, not only the last attempt.
                Err(TurnError::Provider(e)) if attempt > 0 && e.is_retryable() && !shown => {
                    return Err(TurnError::Provider(ProviderError::GaveUp {
                        waited: started.elapsed(),
                        attempts: attempt + 1,
                        budget: policy.budget,
                        last: Box::new(e),
                    }));
                }
                other => return other,
            }
        }
    }
    .instrument(span)
    .await
}

async fn stream_once(
    shared: &Shared,
    agent: &AgentRun,
    tools: &[ToolSpec],
    shown: &mut bool,
) -> Result<ModelResponse, TurnError> {
    let request = ModelRequest {
        model: &agent.spec.model,
        system: &agent.spec.system,
        messages: &agent.history,
        tools,
        max_tokens: shared.ctx.max_tokens,
    };
    let mut stream = tokio::select! {
        _ = agent.cancel.cancelled() => return Err(TurnError::Cancelled),
        s = agent.spec.provider.stream(request) => s.map_err(TurnError::Provider)?,
    };
    // Pieces are merged for a moment before they become events (pieces.rs); whatever
    // ends the stream emits the held one first, so nothing received is lost or reordered.
    let mut pieces = Pieces::default();
    let emit = |ready: Option<EventKind>| {
        if let Some(kind) = ready {
            shared.emit(&agent.id, kind);
        }
    };
    let hold = |pieces: &mut Pieces, kind: EventKind| emit(pieces.push(kind));
    let flush = |pieces: &mut Pieces| emit(pieces.take());
    loop {
        let due = pieces.due();
        let item = tokio::select! {
            biased;
            _ = agent.cancel.cancelled() => {
                flush(&mut pieces);
                return Err(TurnError::Cancelled);
            }
            _ = pieces::until(due) => {
                flush(&mut pieces);
                continue;
            }
            item = stream.next() => item,
        };
        match item {
            Some(Ok(StreamEvent::TextDelta(d))) => {
                *shown = true;
                hold(&mut pieces, EventKind::ResponseChunk(Text { content: d }));
            }
            Some(Ok(StreamEvent::ThinkingDelta(d))) => {
                *shown = true;
                hold(&mut pieces, EventKind::ThoughtsChunk(Text { content: d }));
            }
            Some(Ok(StreamEvent::ToolInputDelta { call_id, name, json })) => {
                *shown = true;
                let chunk = ToolInputChunk { call_id, tool_name: name, content: json };
                hold(&mut pieces, EventKind::ToolInputChunk(chunk));
            }
            Some(Ok(StreamEvent::Completed(mut response))) => {
                flush(&mut pieces);
                let thinking: String = response
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::Thinking { thinking, .. } => Some(thinking.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n");
                if !thinking.is_empty() {
                    shared.emit(&agent.id, EventKind::Thoughts(Text { content: thinking }));
                }
                let text = arbor_protocol::Message::Assistant { content: response.content.clone() }.assistant_text();
                if !text.is_empty() {
                    shared.emit(&agent.id, EventKind::Response(Text { content: text }));
                }
                response.usage.cost_usd = crate::provider::price_usage(&agent.spec.model, &response.usage);
                shared.emit(&agent.id, EventKind::Usage(response.usage.clone()));
                return Ok(response);
            }
            Some(Err(e)) => {
                flush(&mut pieces);
                return Err(TurnError::Provider(e));
            }
            None => {
                flush(&mut pieces);
                return Err(TurnError::Provider(ProviderError::StreamBroken {
                    provider: "model",
                    reason: "the stream ended without a complete response".to_string(),
                }));
            }
        }
    }
}
