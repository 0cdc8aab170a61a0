//! A model conversation in provider-neutral form. Providers translate it to
//! their wire formats; the store keeps it so an agent can be resumed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User { content: Vec<UserBlock> },
    Assistant { content: Vec<AssistantBlock> },
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::User { content: vec![UserBlock::Text { text: text.into() }] }
    }

    /// The text blocks of an assistant message, joined; empty for user messages.
    pub fn assistant_text(&self) -> String {
        match self {
            Self::Assistant { content } => content
                .iter()
                .filter_map(|b| match b {
                    AssistantBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(""),
            Self::User { .. } => String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserBlock {
    Text { text: String },
    ToolResult { call_id: String, content: String, is_error: bool },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantBlock {
    Text {
        text: String,
    },
    /// Anthropic needs the signature sent back with the thinking in tool-use loops.
    Thinking {
        thinking: String,
        signature: Option<String>,
    },
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}
