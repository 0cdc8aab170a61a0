//! Compaction: an agent whose conversation no longer fits its model's window
//! goes on with a shorter one. First older tool results are cleared (the call
//! stays, with a marker saying what was cleared and that the transcript keeps
//! it); if that is not enough, the older part of the conversation is replaced
//! by a summary the agent's model writes, keeping the task, the latest turns
//! verbatim and the ids of children still running. A `tool_use` is never
//! parted from its `tool_result`: the verbatim tail starts at an assistant
//! message. Only what the model is sent changes; the events keep everything.

use super::AgentRun;
use crate::provider::{ModelRequest, ProviderError, StreamEvent, ToolSpec};
use crate::shared::Shared;
use arbor_protocol::{AssistantBlock, CompactTrigger, ContextCompacted, EventKind, Message, Usage, UserBlock};
use futures::StreamExt;
use tracing::info;

/// The most of a command's or an MCP tool's output the model is sent (Claude Code's default
/// for Bash): a longer one goes in as its head and tail.
pub(crate) const OUTPUT_CAP: usize = 30_000;

/// Assistant turns kept verbatim, with their results.
const KEEP_TURNS: usize = 2;
/// Tool results shorter than this are left as they are: clearing them saves little.
const CLEAR_AT_LEAST: usize = 400;
/// A compaction aims at this share of the window, leaving room to go on.
const TARGET_PERCENT: u64 = 60;
/// The most of each block the summary request quotes.
const QUOTE_CHARS: usize = 1_500;
/// The summary's own length limit.
const SUMMARY_MAX_TOKENS: u32 = 4_096;

const SUMMARY_SYSTEM: &str = "You summarize a software agent's conversation so that it can continue its task \
    with the summary in place of the conversation. Keep what the work needs: the task and its constraints, what \
    was done and found (files, commands, results, decisions), what failed and why, and what remains. Name files, \
    functions and identifiers exactly. Write plain prose and short lists; no preamble.";

/// What the agent is told in place of the summarized part.
const SUMMARY_HEADER: &str = "[Arbor compacted the earlier part of this conversation to fit the model's context \
    window. Its summary follows; the transcript keeps everything.]";

/// Why a compaction could not make the conversation fit.
#[derive(Debug)]
pub(crate) enum CompactError {
    /// Nothing older than the latest turns is left to clear or summarize.
    NothingToCompact,
    /// Writing the summary failed.
    Summary(ProviderError),
    Cancelled,
}

impl CompactError {
    /// The agent's error, in words that say what happened and what to do.
    pub(crate) fn explain(&self, refusal: &ProviderError) -> String {
        let cause = match self {
            Self::NothingToCompact => "nothing older than its latest turns is left to compact".to_string(),
            Self::Summary(e) => format!("summarizing the conversation failed: {e}"),
            Self::Cancelled => "it was stopped while compacting".to_string(),
        };
        format!(
            "the conversation is longer than the model's context window and could not be compacted to fit ({cause}); \
             the model said: {refusal}. Use a model with a larger window, or give the agent a smaller task."
        )
    }
}

/// A call's output as the model gets it: a `Bash` or MCP output over [`OUTPUT_CAP`]
/// as its head and tail around a marker naming what was left out. The event
/// (and so the transcript and the UI) keeps it whole.
pub(crate) fn into_context(tool: &str, content: String) -> String {
    if content.len() <= OUTPUT_CAP || !(tool == "Bash" || crate::mcp::server_of(tool).is_some()) {
        return content;
    }
    let (head, omitted, tail) = head_and_tail(&content, OUTPUT_CAP / 2, OUTPUT_CAP / 2);
    format!(
        "{}\n\n[… {} bytes of this output left out: it was longer than Arbor passes to the model ({OUTPUT_CAP} bytes). \
         The transcript keeps it all; narrow the command (grep, head, tail) to see that part.]\n\n{}",
        head, omitted, tail
    )
}

/// The error of an agent whose compacted conversation still does not fit.
pub(crate) fn still_too_long(refusal: &ProviderError) -> String {
    format!(
        "the conversation does not fit the model's context window even after compaction; the model said: {refusal}. \
         The latest turns alone are too long: use a model with a larger window, or give the agent a smaller task."
    )
}

/// Arbor's estimate of a request's tokens: its text over four.
fn estimate(history: &[Message], fixed_chars: usize) -> u64 {
    let chars: usize = history
        .iter()
        .map(|m| match m {
            Message::User { content } => content
                .iter()
                .map(|b| match b {
                    UserBlock::Text { text } => text.len(),
                    UserBlock::ToolResult { content, call_id, .. } => content.len() + call_id.len() + 16,
                })
                .sum::<usize>(),
            Message::Assistant { content } => content
                .iter()
                .map(|b| match b {
                    AssistantBlock::Text { text } => text.len(),
                    AssistantBlock::Thinking { thinking, .. } => thinking.len(),
                    AssistantBlock::RedactedThinking { data } => data.len(),
                    AssistantBlock::ToolUse { id, name, input } => id.len() + name.len() + input.to_string().len(),
                })
                .sum::<usize>(),
        })
        .sum();
    arbor_protocol::estimated_tokens(chars + fixed_chars)
}

/// Where the verbatim tail starts: the assistant message KEEP_TURNS from the end,
/// or fewer turns when that leaves nothing before it but the task (a few long
/// messages can fill a small window by themselves). None: only the latest turn is left.
fn tail_start(history: &[Message]) -> Option<usize> {
    let assistants: Vec<usize> = history
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| matches!(m, Message::Assistant { .. }))
        .map(|(i, _)| i)
        .take(KEEP_TURNS)
        .collect();
    assistants.into_iter().rev().find(|&at| at > 1)
}

/// Replaces the larger tool results before `end` by a marker; how many it cleared.
fn clear_results(history: &mut [Message], end: usize) -> u32 {
    let mut cleared = 0;
    for msg in &mut history[..end] {
        let Message::User { content } = msg else { continue };
        for block in content {
            if let UserBlock::ToolResult { content, .. } = block
                && content.len() >= CLEAR_AT_LEAST
                && !content.starts_with(CLEARED_MARK)
            {
                *content = format!(
                    "{CLEARED_MARK} ({} bytes) to fit the context window; the transcript keeps it. Run the call \
                     again if you need it.]",
                    content.len()
                );
                cleared += 1;
            }
        }
    }
    cleared
}

const CLEARED_MARK: &str = "[Arbor cleared this output";

/// The older part of a conversation as text for the summary request, each block quoted in part.
fn quote(history: &[Message]) -> String {
    let clip = |s: &str| -> String {
        if s.len() <= QUOTE_CHARS {
            return s.to_string();
        }
        let (head, more, _) = head_and_tail(s, QUOTE_CHARS, 0);
        format!("{head}… [{more} more bytes]")
    };
    let mut out = String::new();
    for m in history {
        match m {
            Message::User { content } => {
                for b in content {
                    match b {
                        UserBlock::Text { text } => out.push_str(&format!("USER:\n{}\n\n", clip(text))),
                        UserBlock::ToolResult { call_id, content, is_error } => {
                            let kind = if *is_error { "ERROR" } else { "RESULT" };
                            out.push_str(&format!("{kind} of {call_id}:\n{}\n\n", clip(content)));
                        }
                    }
                }
            }
            Message::Assistant { content } => {
                for b in content {
                    match b {
                        AssistantBlock::Text { text } => out.push_str(&format!("ASSISTANT:\n{}\n\n", clip(text))),
                        AssistantBlock::ToolUse { id, name, input } => {
                            out.push_str(&format!("CALL {id}: {name} {}\n\n", clip(&input.to_string())));
                        }
                        AssistantBlock::Thinking { .. } | AssistantBlock::RedactedThinking { .. } => {}
                    }
                }
            }
        }
    }
    out
}

/// About `head` bytes from the start of a longer `text` and `tail` from its end (on char
/// boundaries), and how many bytes between them are left out.
fn head_and_tail(text: &str, head: usize, tail: usize) -> (&str, usize, &str) {
    let mut h = head.min(text.len());
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = text.len().saturating_sub(tail).max(h);
    while !text.is_char_boundary(t) {
        t += 1;
    }
    (&text[..h], t - h, &text[t..])
}

/// At most `max` bytes of a quoted conversation: its start (the task) and, mostly, its end.
fn within(quoted: String, max: usize) -> String {
    if quoted.len() <= max {
        return quoted;
    }
    let (head, omitted, tail) = head_and_tail(&quoted, max / 5, max - max / 5);
    format!("{head}\n\n[… {omitted} bytes of the middle left out …]\n\n{tail}")
}

/// The agent's task: the text of its first message.
fn task_of(history: &[Message]) -> Vec<UserBlock> {
    match history.first() {
        Some(Message::User { content }) => {
            content.iter().filter(|b| matches!(b, UserBlock::Text { .. })).cloned().collect()
        }
        _ => Vec::new(),
    }
}

/// A fork's own task, when the part about to be summarized holds it: the first message is
/// its parent's task, and its own was appended to the parent's last user turn (the last
/// text there). Once compacted, the head keeps it.
fn fork_task(agent: &AgentRun, end: usize) -> Option<UserBlock> {
    let at = (agent.spec.fork?.messages as usize).checked_sub(1)?;
    let compacted = match agent.history.first() {
        Some(Message::User { content }) => {
            content.iter().any(|b| matches!(b, UserBlock::Text { text } if text.starts_with(SUMMARY_HEADER)))
        }
        _ => false,
    };
    if compacted || at == 0 || at >= end {
        return None;
    }
    match agent.history.get(at) {
        Some(Message::User { content }) => content.iter().rev().find(|b| matches!(b, UserBlock::Text { .. })).cloned(),
        _ => None,
    }
}

/// The characters of what every request carries besides the conversation.
pub(crate) fn fixed_chars(agent: &AgentRun, specs: &[ToolSpec]) -> usize {
    agent.spec.system.len()
        + specs.iter().map(|s| s.name.len() + s.description.len() + s.input_schema.to_string().len()).sum::<usize>()
}

/// Compacts the agent's conversation after the provider refused it as too
/// long, emitting `context_compacted` (and the summary's `usage`).
pub(crate) async fn on_overflow(
    shared: &Shared,
    agent: &mut AgentRun,
    specs: &[ToolSpec],
    refusal: &ProviderError,
) -> Result<(), CompactError> {
    let (said, named) = refusal.overflow_sizes();
    let known = shared.registry().get(&agent.id).and_then(|r| r.state.context_window).map(|w| w.tokens);
    let estimated = estimate(&agent.history, fixed_chars(agent, specs)).max(1);
    let before = said.unwrap_or(estimated);
    let window = named.or(known);
    let target = window.unwrap_or(before) * TARGET_PERCENT / 100;
    compact(shared, agent, specs, CompactTrigger::Overflow, (before, window), target).await.map(|_| ())
}

/// The agent's window as its run starts: the person's figure, else one a provider
/// named for it earlier, else what its server says it serves, else the model's;
/// announced when it is new.
pub(crate) async fn announce_window(shared: &Shared, agent: &AgentRun) {
    let known = shared.registry().get(&agent.id).and_then(|r| r.state.context_window);
    let configured = agent.spec.context.window;
    let served = match configured {
        Some(_) => None,
        None => agent.spec.provider.served_window(&agent.spec.model).await,
    };
    let fresh = match served {
        Some(tokens) => arbor_protocol::ContextWindow { tokens, source: arbor_protocol::WindowSource::Provider },
        None => crate::provider::context_window(&agent.spec.model, configured),
    };
    let window = match known {
        Some(k)
            if k.source == arbor_protocol::WindowSource::Provider
                && fresh.source != arbor_protocol::WindowSource::Configured =>
        {
            k
        }
        _ => fresh,
    };
    if known != Some(window) {
        shared.emit(&agent.id, EventKind::ContextWindow(window));
    }
}

/// Compacts the conversation before a request that would fill the agent's
/// window past its threshold. Ok(false): not due. `floor` is what the last such
/// compaction left: it is not tried again until a tenth of the window was added
/// since, so a conversation it cannot shrink is not summarized every turn.
pub(crate) async fn at_threshold(
    shared: &Shared,
    agent: &mut AgentRun,
    specs: &[ToolSpec],
    floor: &mut Option<u64>,
) -> Result<bool, CompactError> {
    let Some(window) = shared.registry().get(&agent.id).and_then(|r| r.state.context_window) else {
        return Ok(false);
    };
    let next = next_request(shared, agent, specs);
    let threshold = window.tokens * u64::from(agent.spec.context.compact_at_percent.clamp(1, 100)) / 100;
    if next < threshold || floor.is_some_and(|f| next < f + window.tokens / 10) {
        return Ok(false);
    }
    let target = threshold * 3 / 4;
    let after = compact(shared, agent, specs, CompactTrigger::Threshold, (next, Some(window.tokens)), target).await?;
    *floor = Some(after);
    Ok(true)
}

/// The next request's tokens: the last request's input as the provider counted it,
/// plus what was added since (before any answer, Arbor's estimate of it all).
fn next_request(shared: &Shared, agent: &AgentRun, specs: &[ToolSpec]) -> u64 {
    let used = shared.registry().get(&agent.id).map_or(0, |r| r.state.context_used);
    match agent.last_cost {
        Some((_, from)) if used > 0 => used + estimate(&agent.history[from.min(agent.history.len())..], 0),
        _ => estimate(&agent.history, fixed_chars(agent, specs)),
    }
}

/// Compacts the conversation before the next request when a person asked for it
/// (`Command::Compact`): older results cleared and everything before the latest
/// turns summarized. Ok(false): not asked, or nothing older to compact.
pub(crate) async fn if_asked(shared: &Shared, agent: &mut AgentRun, specs: &[ToolSpec]) -> Result<bool, CompactError> {
    let asked = shared.registry().get_mut(&agent.id).is_some_and(|r| std::mem::take(&mut r.compact_asked));
    if !asked {
        return Ok(false);
    }
    let window = shared.registry().get(&agent.id).and_then(|r| r.state.context_window).map(|w| w.tokens);
    let before = next_request(shared, agent, specs);
    match compact(shared, agent, specs, CompactTrigger::Manual, (before, window), 0).await {
        Ok(_) => Ok(true),
        Err(CompactError::NothingToCompact) => {
            info!("asked to compact, with nothing older than its latest turns");
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// Runs the PreCompact hooks (Claude Code's triggers: `manual`, or `auto` for the
/// threshold and a refusal); they are told, and cannot stop it.
async fn pre_compact(shared: &Shared, agent: &AgentRun, trigger: CompactTrigger) {
    use super::hooked::{self, Firing};
    if !hooked::wanted(&agent.spec, arbor_protocol::HookEvent::PreCompact) {
        return;
    }
    let trigger = match trigger {
        CompactTrigger::Manual => "manual",
        CompactTrigger::Threshold | CompactTrigger::Overflow => "auto",
    };
    hooked::write_transcript(shared, &agent.id, &agent.history);
    let firing = Firing::new(arbor_protocol::HookEvent::PreCompact, Some(trigger))
        .field("trigger", trigger)
        .field("custom_instructions", "");
    hooked::fire(shared, &agent.id, &agent.spec, &agent.cancel, firing).await;
}

/// Clears older results, then summarizes if that leaves it above `target`; `sizes`:
/// the request's tokens before, as counted, and the window when known.
async fn compact(
    shared: &Shared,
    agent: &mut AgentRun,
    specs: &[ToolSpec],
    trigger: CompactTrigger,
    (before, window): (u64, Option<u64>),
    target: u64,
) -> Result<u64, CompactError> {
    let fixed = fixed_chars(agent, specs);
    let estimated = estimate(&agent.history, fixed).max(1);
    // The provider's tokens per estimated token, so estimates are compared in its terms.
    let scale = |e: u64| e.saturating_mul(before) / estimated;
    let end = tail_start(&agent.history).ok_or(CompactError::NothingToCompact)?;
    pre_compact(shared, agent, trigger).await;

    let cleared = clear_results(&mut agent.history, end);
    let mut event = ContextCompacted {
        trigger,
        before_tokens: before,
        window_tokens: window,
        after_tokens: scale(estimate(&agent.history, fixed)),
        cleared_results: cleared,
        summarized_messages: 0,
        summary: None,
        usage: None,
    };
    if event.after_tokens > target {
        // The summary request must fit the window itself: half of it, in characters.
        let budget = window.map_or(usize::MAX, |w| usize::try_from(w.saturating_mul(2)).unwrap_or(usize::MAX));
        let (summary, usage) = summarize(shared, agent, &agent.history[..end], budget).await?;
        let mut head = task_of(&agent.history);
        head.extend(fork_task(agent, end));
        let mut text = format!("{SUMMARY_HEADER}\n\n{summary}");
        let running: Vec<String> = shared
            .registry()
            .children(&agent.id)
            .filter(|c| !c.state.status.is_terminal())
            .map(|c| format!("- {} ({})", c.state.id, c.state.description))
            .collect();
        if !running.is_empty() {
            text.push_str(&format!(
                "\n\nSubagents you started that are still running (TaskOutput reads their results):\n{}",
                running.join("\n")
            ));
        }
        head.push(UserBlock::Text { text });
        let summarized = end as u32;
        agent.history.splice(..end, [Message::User { content: head }]);
        event.summarized_messages = summarized;
        event.summary = Some(summary);
        event.after_tokens = scale(estimate(&agent.history, fixed));
        event.usage = Some(usage);
    }
    info!(
        before = event.before_tokens,
        after = event.after_tokens,
        cleared = event.cleared_results,
        summarized = event.summarized_messages,
        "conversation compacted"
    );
    let after = event.after_tokens;
    shared.emit(&agent.id, EventKind::ContextCompacted(event));
    shared.rewrite_history(&agent.id, &agent.history);
    Ok(after)
}

/// A summary of `older`, written by the summary model chosen in Settings when there is
/// one (falling back to the agent's own model if that fails), else the agent's model;
/// its usage is the agent's.
async fn summarize(
    shared: &Shared,
    agent: &AgentRun,
    older: &[Message],
    max_chars: usize,
) -> Result<(String, Usage), CompactError> {
    let text = format!(
        "Summarize this conversation of a software agent for it to continue from. It follows between the markers.\n\n\
         <conversation>\n{}</conversation>",
        within(quote(older), max_chars)
    );
    let messages = [Message::user_text(text)];
    let own = agent.spec.model.as_str();
    if let Some(model) = agent.spec.context.summary_model.as_deref().filter(|m| *m != own) {
        match summarize_with(shared, agent, model, &messages).await {
            Err(CompactError::Summary(e)) => {
                tracing::warn!(model, error = %e, "the summary model failed; the agent's own model writes the summary");
            }
            done => return done,
        }
    }
    summarize_with(shared, agent, own, &messages).await
}

async fn summarize_with(
    shared: &Shared,
    agent: &AgentRun,
    model: &str,
    messages: &[Message],
) -> Result<(String, Usage), CompactError> {
    let request = ModelRequest {
        model,
        system: SUMMARY_SYSTEM,
        messages,
        tools: &[],
        max_tokens: SUMMARY_MAX_TOKENS.min(shared.ctx.max_tokens),
    };
    let mut stream = tokio::select! {
        _ = agent.cancel.cancelled() => return Err(CompactError::Cancelled),
        s = agent.spec.provider.stream(request) => s.map_err(CompactError::Summary)?,
    };
    loop {
        let item = tokio::select! {
            _ = agent.cancel.cancelled() => return Err(CompactError::Cancelled),
            item = stream.next() => item,
        };
        match item {
            Some(Ok(StreamEvent::Completed(response))) => {
                let summary = Message::Assistant { content: response.content }.assistant_text();
                let mut usage = response.usage;
                usage.cost_usd = crate::provider::price_usage(model, &usage);
                // Its cost is the agent's, and counts toward its budget like any request.
                shared.emit(&agent.id, EventKind::Usage(usage.clone()));
                if summary.trim().is_empty() {
                    return Err(CompactError::Summary(ProviderError::Decode {
                        provider: "model",
                        reason: "the summary came back empty".to_string(),
                    }));
                }
                return Ok((summary, usage));
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(CompactError::Summary(e)),
            None => {
                return Err(CompactError::Summary(ProviderError::StreamBroken {
                    provider: "model",
                    reason: "the stream ended without a complete response".to_string(),
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(i: usize, size: usize) -> [Message; 2] {
        [
            Message::Assistant {
                content: vec![AssistantBlock::ToolUse { id: format!("c{i}"), name: "Bash".into(), input: json!({}) }],
            },
            Message::User {
                content: vec![UserBlock::ToolResult {
                    call_id: format!("c{i}"),
                    content: "x".repeat(size),
                    is_error: false,
                }],
            },
        ]
    }

    #[test]
    fn older_results_are_cleared_and_the_latest_turns_and_every_call_stay() {
        let mut history = vec![Message::user_text("read them all")];
        for i in 0..6 {
            history.extend(turn(i, 8_000));
        }
        let before = estimate(&history, 0);
        let end = tail_start(&history).unwrap();
        // The tail starts at an assistant message: a call is never parted from its result.
        assert!(matches!(history[end], Message::Assistant { .. }));
        assert_eq!(history.len() - end, 2 * KEEP_TURNS);
        assert_eq!(clear_results(&mut history, end), 4);
        assert!(estimate(&history, 0) < before / 2);
        let results: Vec<&str> = history
            .iter()
            .flat_map(|m| match m {
                Message::User { content } => content
                    .iter()
                    .filter_map(|b| match b {
                        UserBlock::ToolResult { content, .. } => Some(content.as_str()),
                        UserBlock::Text { .. } => None,
                    })
                    .collect::<Vec<_>>(),
                Message::Assistant { .. } => Vec::new(),
            })
            .collect();
        assert_eq!(results.len(), 6);
        assert!(results[..4].iter().all(|r| r.starts_with(CLEARED_MARK) && r.contains("8000 bytes")));
        assert!(results[4..].iter().all(|r| r.len() == 8_000));
        // Cleared once: a second pass finds nothing more.
        assert_eq!(clear_results(&mut history, end), 0);
    }

    #[test]
    fn a_long_command_or_mcp_output_goes_in_as_head_and_tail_and_others_whole() {
        let long = format!("{}é{}", "a".repeat(20_000), "z".repeat(20_000));
        let capped = into_context("Bash", long.clone());
        assert!(capped.len() < OUTPUT_CAP + 400, "{}", capped.len());
        assert!(capped.starts_with("aaaa") && capped.ends_with("zzzz"));
        assert!(capped.contains("bytes of this output left out") && capped.contains("transcript keeps it all"));
        assert!(into_context("mcp__files__read", long.clone()).contains("left out"));
        // A file read has its own limits; a short output is never touched.
        assert_eq!(into_context("Read", long.clone()), long);
        assert_eq!(into_context("Bash", "short".into()), "short");
    }

    #[test]
    fn the_latest_two_turns_are_kept_or_the_latest_one_when_nothing_else_is_older() {
        let mut history = vec![Message::user_text("task")];
        history.extend(turn(0, 100));
        assert_eq!(tail_start(&history), None);
        // Two turns: the older is compacted and only the latest kept (long pastes fill small windows).
        history.extend(turn(1, 100));
        assert_eq!(tail_start(&history), Some(3));
        history.extend(turn(2, 100));
        assert_eq!(tail_start(&history), Some(3));
        history.extend(turn(3, 100));
        assert_eq!(tail_start(&history), Some(5));
    }

    #[test]
    fn a_quote_longer_than_the_summary_request_may_be_keeps_its_start_and_mostly_its_end() {
        let quoted = format!("TASK{}é{}END", "m".repeat(50_000), "n".repeat(50_000));
        let kept = within(quoted.clone(), 10_000);
        assert!(kept.starts_with("TASK") && kept.ends_with("END") && kept.len() < 10_100, "{}", kept.len());
        assert!(kept.contains("of the middle left out"));
        assert_eq!(within(quoted.clone(), usize::MAX), quoted);
    }

    #[test]
    fn the_quoted_conversation_clips_long_blocks_on_a_char_boundary() {
        let history = vec![Message::user_text("é".repeat(QUOTE_CHARS))];
        let q = quote(&history);
        assert!(q.contains("more bytes]"));
        assert!(q.len() < QUOTE_CHARS + 100);
    }
}
