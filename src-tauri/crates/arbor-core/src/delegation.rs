//! What the rest of the runtime knows of the tools a model delegates with: their
//! names, and which of them start or wait on agents. A leaf: the tools
//! themselves, and the door children start through, are in [`crate::children`].

/// What a model that calls Task at the depth limit is told.
pub(crate) const DEPTH_LIMIT_MESSAGE: &str = "subagent depth limit reached: do this subtask yourself";

pub(crate) const TASK: &str = arbor_protocol::TASK_TOOL;
pub(crate) const TASK_OUTPUT: &str = "TaskOutput";
pub(crate) const TASK_STOP: &str = "TaskStop";
pub(crate) const LIST_AGENTS: &str = "ListAgents";

/// The subagent tools whose approval a person may choose (the others only read),
/// with their class.
pub fn choosable_tools() -> [(&'static str, crate::tools::ToolClass); 2] {
    [(TASK, crate::tools::ToolClass::Delegation), (TASK_STOP, crate::tools::ToolClass::Delegation)]
}

/// The tools that exist only below the depth limit.
pub(crate) fn is_subagent_tool(name: &str) -> bool {
    matches!(name, TASK | TASK_OUTPUT | TASK_STOP | LIST_AGENTS)
}

/// Whether a call is a Task call that forks its caller (`fork: true`).
pub(crate) fn forks(name: &str, input: &serde_json::Value) -> bool {
    name == TASK && matches!(input.get("fork"), Some(serde_json::Value::Bool(true)))
}

/// Calls that may wait for other agents to finish.
pub(crate) fn waits_on_agents(name: &str) -> bool {
    matches!(name, TASK | TASK_OUTPUT)
}

/// Why a model's Task call at `depth` is refused before anyone is asked: a fork past
/// the depth limit keeps Task in its list (its requests are its parent's) but may not use it.
pub(crate) fn refused_at_depth(name: &str, depth: u32, max_depth: u32) -> Option<String> {
    (name == TASK && depth + 1 > max_depth).then(|| DEPTH_LIMIT_MESSAGE.to_string())
}
