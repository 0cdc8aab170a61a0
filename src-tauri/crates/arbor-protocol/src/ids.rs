//! Agent and session identifiers: string ids on the wire (design.md §6.11).

use serde::{Deserialize, Serialize};
use std::fmt;

/// `agent-` followed by 4 to 8 lowercase hex digits, unique within a session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
#[serde(transparent)]
pub struct AgentId(pub String);

impl AgentId {
    pub const PREFIX: &'static str = "agent-";

    /// Builds the id from its hex suffix, which the caller draws (no hidden randomness here).
    pub fn from_suffix(n: u32) -> Self {
        Self(format!("{}{n:08x}", Self::PREFIX))
    }

    /// Whether `s` has the shape of an agent id.
    pub fn is_valid(s: &str) -> bool {
        s.strip_prefix(Self::PREFIX).is_some_and(|hex| {
            (4..=8).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A session: one main agent and its tree of subagents.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
#[serde(transparent)]
pub struct SessionId(pub String);

/// A UUID v7 from a time and random bits the caller draws (no hidden clock or
/// randomness here): ids sort by creation time and stay unique across machines
/// and merged stores.
pub fn uuid_v7(unix_ms: i64, random: [u8; 10]) -> String {
    let ms = u64::try_from(unix_ms).unwrap_or(0);
    uuid::Builder::from_unix_timestamp_millis(ms, &random).into_uuid().hyphenated().to_string()
}

impl SessionId {
    pub const PREFIX: &'static str = "sess-";

    /// `sess-` and a UUID v7.
    pub fn new(unix_ms: i64, random: [u8; 10]) -> Self {
        Self(format!("{}{}", Self::PREFIX, uuid_v7(unix_ms, random)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_documented_shape() {
        let id = AgentId::from_suffix(0xab12);
        assert_eq!(id.as_str(), "agent-0000ab12");
        assert!(AgentId::is_valid(id.as_str()));
        assert!(AgentId::is_valid("agent-a3f2"));
        assert!(!AgentId::is_valid("agent-A3F2"));
        assert!(!AgentId::is_valid("agent-123"));
        assert!(!AgentId::is_valid("agent-123456789"));
        assert!(!AgentId::is_valid("task-a3f2"));
    }

    #[test]
    fn session_ids_are_uuid_v7_and_sort_by_time() {
        let a = SessionId::new(1_700_000_000_000, [7; 10]);
        let b = SessionId::new(1_700_000_000_001, [0; 10]);
        assert!(a.as_str().starts_with("sess-"));
        let u = uuid::Uuid::parse_str(&a.as_str()["sess-".len()..]).unwrap();
        assert_eq!(u.get_version_num(), 7);
        assert!(a < b, "later ids sort after earlier ones");
        assert_ne!(SessionId::new(1, [1; 10]), SessionId::new(1, [2; 10]));
    }
}
