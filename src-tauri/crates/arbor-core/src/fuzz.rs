//! Fuzzing what the core parses from files and models: agent files' front
//! matter, MCP config files (and `${VAR}` expansion), and the built-in tools'
//! arguments (every tool but Bash, run for real in a scratch workspace). Goal:
//! a clear error, never a panic or a hang.
//! `ARBOR_FUZZ_SECONDS=600 cargo test -p arbor-core --release fuzz_` runs each for ten minutes.

use crate::definitions::{DefinitionSource, parse_definition};
use crate::mcp::config::{expand, parse_servers};
use crate::tools::{EditTool, GlobTool, GrepTool, ReadTool, Tool, WriteTool, test_ctx};
use arbor_testkit::fuzz::{fuzz, json_value, key, text};
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;

/// An agent file: front matter of known and unknown keys with odd values, or anything.
fn agent_file() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        text(),
        json_value().prop_map(|v| v.to_string()),
        Just("[Read, Grep]".to_string()),
        Just("inherit".to_string()),
        Just("|\n  block\n  text".to_string()),
        Just("{ a: [1, 2".to_string()),
    ];
    let field = (
        prop_oneof![
            3 => prop::sample::select(&[
                "name", "description", "tools", "disallowedTools", "model", "permissionMode", "maxTurns",
                "mcpServers", "color", "provider",
            ][..]).prop_map(str::to_string),
            1 => key(),
        ],
        value,
    );
    let structured = (prop::collection::vec(field, 0..10), text(), any::<bool>()).prop_map(|(fields, body, closed)| {
        let mut s = String::from("---\n");
        for (k, v) in fields {
            s.push_str(&format!("{k}: {v}\n"));
        }
        if closed {
            s.push_str("---\n");
        }
        s.push_str(&body);
        s
    });
    prop_oneof![4 => structured, 1 => text()]
}

#[test]
fn fuzz_agent_file_front_matter() {
    fuzz("agent files", 5, agent_file(), |text| {
        let _ = parse_definition(&text, Path::new("/x/agent.md"), DefinitionSource::ArborProject);
    });
}

#[test]
fn fuzz_mcp_config_files() {
    let env = |name: &str| (name == "HOME").then(|| "/home/x".to_string());
    let servers = prop_oneof![
        json_value(),
        prop::collection::vec((key(), json_value()), 0..4).prop_map(|s| { Value::Object(s.into_iter().collect()) }),
    ];
    fuzz("mcp configs", 5, (servers, text()), |(map, s)| {
        let _ = parse_servers(&map, &env);
        let _ = expand(&s, &env);
    });
}

#[test]
fn fuzz_builtin_tool_arguments() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();
    let ctx = test_ctx(dir.path());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let tools: Vec<Box<dyn Tool>> =
        vec![Box::new(ReadTool), Box::new(GlobTool), Box::new(GrepTool), Box::new(WriteTool), Box::new(EditTool)];
    let input = (0..tools.len(), json_value(), prop::collection::vec((key(), json_value()), 0..5));
    fuzz("tool arguments (Read, Glob, Grep, Write, Edit)", 5, input, |(t, v, fields)| {
        let tool = &tools[t];
        // Half the time an object with the tool's own field names, else anything.
        let args = if fields.is_empty() { v } else { Value::Object(fields.into_iter().collect()) };
        let result = rt.block_on(tool.call(args, &ctx));
        assert!(
            result.content.chars().count() <= 101_000,
            "{} answered {} characters",
            tool.name(),
            result.content.len()
        );
    });
}
