//! Where agents' model histories are kept as they grow, so a session can be
//! continued after it ends or its process dies. The store implements
//! [`Journal`]; the runtime only reports what changed and knows no SQL.

use arbor_protocol::{AgentId, Message, SessionId};

/// Receives each agent's history as it grows. Called from agents' tasks, so an
/// implementation should hand the messages to a writer rather than block on I/O.
pub trait Journal: Send + Sync {
    /// The agent's messages from index `start` on replace what was kept from
    /// there. `start` is at most one before the previous call's end: the last
    /// message may have grown since (user text merges into a trailing user message).
    fn history(&self, session: &SessionId, agent: &AgentId, start: usize, messages: &[Message]);
}
