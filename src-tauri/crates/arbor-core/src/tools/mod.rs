//! The one tool trait and the registry of tools an agent is offered.
//!
//! Built-in tools are named and shaped as Claude Code's so models trained on
//! them, and agent files that list them, work unchanged (design.md §3.2).

mod bash;
mod edit;
mod filter;
mod glob;
mod grep;
mod input;
mod output;
mod preview;
mod read;
mod write;

pub use bash::BashTool;
pub(crate) use bash::{command_env, shell};
pub use edit::EditTool;
pub use filter::ToolFilter;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use input::{QUOTE_CHARS, ResolvedPath, parse_input, resolve, schema_of};
pub(crate) use output::MAX_TOOL_OUTPUT_CHARS;
pub use output::cap_output;
pub use preview::{Fingerprint, Preview};
pub use read::ReadTool;
pub use write::WriteTool;

use crate::workspace::Workspace;
use async_trait::async_trait;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Whether a tool can change anything; the approval policy's default depends on it.
pub use arbor_protocol::ToolClass;

/// What a running tool gets from the agent that calls it.
#[derive(Clone)]
pub struct ToolContext {
    pub workspace: Workspace,
    /// Cancelled when the agent is stopped; long-running tools must honour it.
    pub cancel: CancellationToken,
    /// Streamed output (Bash); each chunk becomes a `tool_output_chunk` event.
    pub chunks: Option<mpsc::UnboundedSender<String>>,
    /// The model's id for this call (a child's `parent_call_id`).
    pub call_id: String,
    /// The seq of this call's `tool_call` event, when it was announced in this run.
    pub call_seq: Option<u64>,
    /// What a person changed in a spawn card before approving it (Task only).
    pub edit: Option<arbor_protocol::SpawnEdit>,
    /// What the agent's commands run in.
    pub sandbox: Arc<crate::sandbox::Jail>,
    /// The calling agent's conversation before the response that made this call: given
    /// only to a Task call that forks (`fork: true`), whose child starts from it.
    pub conversation: Option<Arc<Vec<arbor_protocol::Message>>>,
    /// What [`Tool::preview`] made of the input, kept for [`Tool::call`] on the same
    /// call, so a tool that parses and plans (Task) does it once.
    pub prepared: Prepared,
}

/// A tool's own reading of a call's input, from its preview to its call.
/// Clones share it: the call that was previewed is the one that runs.
#[derive(Clone, Default)]
pub struct Prepared(Arc<std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>>);

impl Prepared {
    pub fn put<T: Send + 'static>(&self, value: T) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Box::new(value));
    }

    pub fn take<T: Send + 'static>(&self) -> Option<T> {
        let taken = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()?;
        taken.downcast::<T>().ok().map(|b| *b)
    }
}

impl ToolContext {
    pub fn send_chunk(&self, chunk: impl Into<String>) {
        if let Some(tx) = &self.chunks {
            // The receiver is gone only when the agent stopped listening; nothing to do then.
            let _ = tx.send(chunk.into());
        }
    }
}

/// A tool's answer to the model. Errors are results too: the model reads them and goes on.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    pub content: String,
    pub is_error: bool,
    /// Files this call wrote, absolute.
    pub files_modified: Vec<PathBuf>,
}

impl ToolResult {
    pub fn ok(content: impl Into<String>) -> Self {
        Self { content: content.into(), ..Self::default() }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self { content: content.into(), is_error: true, ..Self::default() }
    }
}

#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    /// What the model reads to decide when and how to call it.
    fn description(&self) -> &str;
    /// JSON schema of the input object.
    fn input_schema(&self) -> Value;
    fn class(&self) -> ToolClass;
    /// Which server's tool this is, for an MCP tool.
    fn mcp(&self) -> Option<arbor_protocol::McpToolRef> {
        None
    }
    /// What the call would do, for the person deciding on it; asked only
    /// when a person will be. None: the card shows the arguments alone.
    async fn preview(&self, _input: &Value, _ctx: &ToolContext) -> Option<Preview> {
        None
    }
    /// The files the call writes, when it can say (Write, Edit): only they are
    /// checked for changes. None: anything in the tree may change (it is walked).
    fn writes(&self, _input: &Value, _ctx: &ToolContext) -> Option<Vec<PathBuf>> {
        None
    }
    /// Whether the call would run inside the OS sandbox, so that a policy may
    /// let it run without asking (the sandbox, not the person, holds it).
    fn contained(&self, _ctx: &ToolContext) -> bool {
        false
    }
    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult;
}

/// A context over `dir` with nothing streamed and nothing cancelled, for tools' tests.
#[cfg(test)]
pub(crate) fn test_ctx(dir: &std::path::Path) -> ToolContext {
    ToolContext {
        workspace: Workspace::new(dir, &[]).unwrap(),
        cancel: CancellationToken::new(),
        chunks: None,
        call_id: "call-test".to_string(),
        call_seq: None,
        edit: None,
        sandbox: Arc::new(crate::sandbox::Jail::none(dir)),
        conversation: None,
        prepared: Default::default(),
    }
}

/// The tools an agent may call, by name, in a stable order for the model.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// Read, Write, Edit, Glob, Grep and Bash.
    pub fn builtins() -> Self {
        let mut r = Self::default();
        r.insert(Arc::new(ReadTool));
        r.insert(Arc::new(WriteTool));
        r.insert(Arc::new(EditTool));
        r.insert(Arc::new(GlobTool));
        r.insert(Arc::new(GrepTool));
        r.insert(Arc::new(BashTool::default()));
        r
    }

    pub fn insert(&mut self, tool: Arc<dyn Tool>) {
        self.tools.insert(tool.name().to_string(), tool);
    }

    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.remove(name)
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Keeps only the tools `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Tool) -> bool) {
        self.tools.retain(|_, t| keep(t.as_ref()));
    }
}
