//! Which tools of the registry an agent is offered: Claude Code's `tools` and
//! `disallowedTools`, an MCP server's name standing for all of its tools.

/// Which tools of the registry an agent is offered.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolFilter {
    /// Only these, when given (Claude Code's `tools`).
    pub allow: Option<Vec<String>>,
    /// Never these (Claude Code's `disallowedTools`).
    pub deny: Vec<String>,
}

impl ToolFilter {
    pub fn admits(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|a| a.iter().any(|n| names(n, name)))
            && !self.deny.iter().any(|n| names(n, name))
    }
}

/// Whether a tools entry stands for `tool`: its own name, or, as in Claude Code,
/// `mcp__<server>` or `mcp__<server>__*` for every tool of that server.
fn names(entry: &str, tool: &str) -> bool {
    if entry == tool {
        return true;
    }
    let server = entry.strip_suffix("__*").unwrap_or(entry);
    server.starts_with("mcp__")
        && !server["mcp__".len()..].contains("__")
        && tool.strip_prefix(server).is_some_and(|rest| rest.starts_with("__"))
}
