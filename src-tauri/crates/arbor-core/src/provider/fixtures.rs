//! Test fixtures both providers' body tests share: one history with every kind
//! of block, and two tool specs.

use super::ToolSpec;
use arbor_protocol::{AssistantBlock, Message, UserBlock};
use serde_json::json;

/// Every kind of block, empty ones, and runs of one role.
pub(crate) fn rich_history() -> Vec<Message> {
    vec![
        Message::user_text("hi \"there\" é"),
        Message::user_text(""),
        Message::user_text("second user text"),
        Message::Assistant {
            content: vec![
                AssistantBlock::Text { text: String::new() },
                AssistantBlock::Thinking { thinking: "t".into(), signature: None },
                AssistantBlock::Thinking { thinking: "signed".into(), signature: Some("sig".into()) },
                AssistantBlock::RedactedThinking { data: "xx".into() },
                AssistantBlock::Text { text: "let me look".into() },
                AssistantBlock::ToolUse {
                    id: "t1".into(),
                    name: "Read".into(),
                    input: json!({"file_path": "a", "n": [1, 2.5, null]}),
                },
                AssistantBlock::ToolUse { id: "t2".into(), name: "Glob".into(), input: json!({}) },
            ],
        },
        Message::User {
            content: vec![
                UserBlock::ToolResult { call_id: "t1".into(), content: "x".into(), is_error: false },
                UserBlock::ToolResult { call_id: "t2".into(), content: "".into(), is_error: true },
                UserBlock::Text { text: "steer".into() },
                UserBlock::Text { text: "".into() },
                UserBlock::Text { text: "steer 2".into() },
            ],
        },
        Message::user_text("and then"),
        Message::Assistant { content: vec![AssistantBlock::Text { text: String::new() }] },
        Message::Assistant {
            content: vec![AssistantBlock::Text { text: "a".into() }, AssistantBlock::Text { text: "b".into() }],
        },
        Message::Assistant { content: vec![AssistantBlock::Text { text: "c".into() }] },
        Message::User { content: vec![] },
    ]
}

pub(crate) fn two_tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "A".into(),
            description: "a".into(),
            input_schema: json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        },
        ToolSpec { name: "B".into(), description: "b\nline".into(), input_schema: json!({"type": "object"}) },
    ]
}
