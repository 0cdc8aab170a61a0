//! An agent's context window as a resource: how large it is and where that
//! figure came from (`context_window`), and what a compaction of its
//! conversation did (`context_compacted`). The transcript keeps everything;
//! only what the model is sent from then on is shorter. How full each
//! agent's context is derives from these and `usage` (`StoredAgent::apply`).

use crate::Usage;
use serde::{Deserialize, Serialize};

/// Arbor's estimate of text's tokens where no provider counted them (a budget's
/// next request, a compaction's result, what a child's result adds to its
/// parent): about four characters a token.
pub const CHARS_PER_TOKEN: u64 = 4;

/// `chars` characters in estimated tokens, rounded up.
pub fn estimated_tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(CHARS_PER_TOKEN)
}

/// Where an agent's context window figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WindowSource {
    /// Arbor's table of the models it knows.
    Model,
    /// Set by the person (Settings, `--context-window`).
    Configured,
    /// The provider said so: its server reports it (llama.cpp's `/props`, Ollama's `/api/show`),
    /// or a refusal named its maximum.
    Provider,
    /// Unknown model: a stated default, shown as a guess.
    Guess,
}

/// How many tokens an agent's model takes in one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct ContextWindow {
    pub tokens: u64,
    pub source: WindowSource,
}

/// Why an agent's conversation was compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The provider refused a request as longer than the model's window; it was compacted and sent again.
    Overflow,
    /// The next request would have passed the agent's threshold (a share of its window).
    Threshold,
    /// A person asked for it (the app's Compact, `{"type":"compact"}` on the CLI's stdin).
    Manual,
}

/// One compaction of an agent's conversation: the context it is sent from now on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ContextCompacted {
    pub trigger: CompactTrigger,
    /// The request's size before (the provider's count when it gave one, else Arbor's estimate).
    pub before_tokens: u64,
    /// The model's window, when known (the provider's refusal names it).
    pub window_tokens: Option<u64>,
    /// Arbor's estimate of the conversation after it.
    pub after_tokens: u64,
    /// Older tool results replaced by a marker (the calls stay).
    pub cleared_results: u32,
    /// Older messages replaced by the summary; 0 when clearing results was enough.
    pub summarized_messages: u32,
    /// The summary the model wrote of them, sent in their place.
    pub summary: Option<String>,
    /// What writing the summary cost (also counted in the agent's usage).
    pub usage: Option<Usage>,
}

/// "42k" for 42,310 tokens: figures people read at a glance.
fn short(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..10_000 => format!("{:.1}k", n as f64 / 1e3),
        10_000..1_000_000 => format!("{}k", (n + 500) / 1_000),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

impl crate::StoredAgent {
    /// How full its context is, in whole percent of its window (None: no window known).
    pub fn context_percent(&self) -> Option<u64> {
        let w = self.context_window?;
        Some(self.context_used.saturating_mul(100).checked_div(w.tokens).unwrap_or(0))
    }

    /// "context 12k of 200k (6%)", "(the window a guess)" when it is: the CLI's and the exports' words.
    pub fn context_figure(&self) -> Option<String> {
        let (w, percent) = (self.context_window?, self.context_percent()?);
        let guess = if w.source == WindowSource::Guess { " (the window a guess)" } else { "" };
        Some(format!("context {} of {} ({percent}%){guess}", short(self.context_used), short(w.tokens)))
    }
}

impl ContextCompacted {
    /// "31830 → 6200 tokens (window 30000) · 12 older results cleared · 20 messages summarized":
    /// the CLI's line and the exports' note.
    pub fn describe(&self) -> String {
        let mut text = format!("{} → {} tokens", self.before_tokens, self.after_tokens);
        if let Some(w) = self.window_tokens {
            text.push_str(&format!(" (window {w})"));
        }
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        if self.cleared_results > 0 {
            text.push_str(&format!(" · {} older result{} cleared", self.cleared_results, plural(self.cleared_results)));
        }
        if self.summarized_messages > 0 {
            let n = self.summarized_messages;
            text.push_str(&format!(" · {n} message{} summarized", plural(n)));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_context_reads_as_used_of_its_window_and_a_guess_says_so() {
        let started = crate::AgentStarted {
            parent_id: None,
            parent_call_id: None,
            depth: 0,
            description: "main".into(),
            subagent_type: None,
            model: "m".into(),
            provider: "p".into(),
            background: false,
            call_seq: None,
            fork: None,
            external: None,
        };
        let mut a = crate::StoredAgent::new(crate::AgentId("agent-1".into()), &started, 0);
        assert_eq!(a.context_figure(), None);
        a.context_used = 12_400;
        a.context_window = Some(ContextWindow { tokens: 200_000, source: WindowSource::Model });
        assert_eq!(a.context_figure().as_deref(), Some("context 12k of 200k (6%)"));
        a.context_window = Some(ContextWindow { tokens: 128_000, source: WindowSource::Guess });
        assert_eq!(a.context_figure().as_deref(), Some("context 12k of 128k (9%) (the window a guess)"));
    }
}
