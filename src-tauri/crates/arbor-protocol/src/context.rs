//! An agent's context window as a resource: what a compaction of its
//! conversation did (`context_compacted`). The transcript keeps everything;
//! only what the model is sent from then on is shorter.

use crate::Usage;
use serde::{Deserialize, Serialize};

/// Why an agent's conversation was compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The provider refused a request as longer than the model's window; it was compacted and sent again.
    Overflow,
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
