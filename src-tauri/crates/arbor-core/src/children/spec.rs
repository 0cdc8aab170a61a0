//! How a child would start, before anything is registered: its type found, its
//! spec built from its parent's and its type's (model, provider, tools, policy,
//! sandbox, hooks, and the external program that runs it, for an ACP type), its
//! budget worked out. What a spawn card shows, and what a person's edit changes.

use super::SpawnRequest;
use crate::definitions::{AgentDefinition, DefinitionSource, GENERAL_PURPOSE};
use crate::error::SpawnError;
use crate::prompt;
use crate::registry::AgentSpec;
use crate::shared::{Context, Shared};
use arbor_protocol::{AgentId, Message, SpawnEdit, SpawnPlan};
use std::sync::Arc;

/// A child as it would start: its type found, its spec built, nothing registered yet.
pub(crate) struct Plan {
    pub(super) subagent_type: String,
    pub(super) spec: AgentSpec,
    pub(super) provider_name: String,
    pub(super) depth: u32,
    /// Its budget before it is carved from its ancestors' remainders, and where it came from.
    pub(super) budget: (arbor_protocol::Budget, arbor_protocol::BudgetOrigin),
}

/// Validates a request and works out the child it would start (what a spawn
/// card shows). Nothing is registered or counted.
pub(crate) fn plan(shared: &Arc<Shared>, req: &SpawnRequest) -> Result<Plan, SpawnError> {
    let ctx = &shared.ctx;
    if ctx.root_cancel.is_cancelled() {
        return Err(SpawnError::Closed);
    }
    if req.prompt.trim().is_empty() {
        return Err(SpawnError::EmptyPrompt);
    }
    if let Some(conversation) = &req.fork {
        return plan_fork(shared, req, conversation);
    }
    let types = ctx.agent_types();
    let def = match req.subagent_type.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(name) => match types.get(name) {
            Some(d) => Some(d),
            None if name == GENERAL_PURPOSE => None,
            None => {
                return Err(SpawnError::UnknownType {
                    name: name.to_string(),
                    available: super::type_names(&types).join(", "),
                });
            }
        },
    };
    let (parent_spec, parent_provider, depth) = {
        let reg = shared.registry();
        let parent = reg.get(&req.parent).ok_or_else(|| SpawnError::UnknownParent(req.parent.clone()))?;
        (parent.spec.clone(), parent.state.provider.clone(), parent.state.depth + 1)
    };
    if !req.by_user && depth > ctx.limits.max_depth {
        return Err(SpawnError::DepthLimit);
    }
    // Built outside the lock: a type's system prompt reads the workspace's instructions from disk.
    let (spec, provider_name) = child_spec(ctx, &parent_spec, &parent_provider, def, req, depth)?;
    if spec.isolation == arbor_protocol::Isolation::Worktree
        && crate::worktree::repository_of(spec.workspace.root()).is_none()
    {
        let root = spec.workspace.root().display().to_string();
        return Err(crate::worktree::WorktreeError::NotARepository(root).into());
    }
    let subagent_type = def.map_or(GENERAL_PURPOSE, |d| d.name.as_str()).to_string();
    let budget =
        crate::budget::wanted(&ctx.limits.subagent_budget, def.map(|d| &d.budget), req.budget.as_ref(), req.by_user);
    Ok(Plan { subagent_type, spec, provider_name, depth, budget })
}

/// A fork of the caller: its spec is its parent's, byte for byte where the request
/// is concerned (system prompt, tools, model), so its first request reads the
/// parent's whole conversation from the provider's cache.
fn plan_fork(shared: &Arc<Shared>, req: &SpawnRequest, conversation: &[Message]) -> Result<Plan, SpawnError> {
    let ctx = &shared.ctx;
    let (parent_spec, provider_name, parent_type, depth) = {
        let reg = shared.registry();
        let parent = reg.get(&req.parent).ok_or_else(|| SpawnError::UnknownParent(req.parent.clone()))?;
        let kind = parent.state.subagent_type.clone().unwrap_or_else(|| GENERAL_PURPOSE.to_string());
        (parent.spec.clone(), parent.state.provider.clone(), kind, parent.state.depth + 1)
    };
    if req.subagent_type.as_deref().map(str::trim).is_some_and(|t| !t.is_empty() && t != parent_type) {
        return Err(SpawnError::ForkChanges("subagent_type"));
    }
    let model = req.model.as_deref().and_then(|m| resolve_model(m, parent_spec.provider.name()));
    if model.is_some_and(|m| m != parent_spec.model) {
        return Err(SpawnError::ForkChanges("model"));
    }
    if !req.by_user && depth > ctx.limits.max_depth {
        return Err(SpawnError::DepthLimit);
    }
    let max_turns = req.max_turns.unwrap_or(ctx.limits.subagent_max_turns).clamp(1, ctx.limits.max_turns_cap.max(1));
    let fork = arbor_protocol::Fork { messages: u32::try_from(conversation.len()).unwrap_or(u32::MAX) };
    let mut spec = fork_spec(&parent_spec, depth, max_turns, fork);
    spec.isolation = req.isolation.unwrap_or_default();
    if spec.isolation == arbor_protocol::Isolation::Worktree
        && crate::worktree::repository_of(spec.workspace.root()).is_none()
    {
        let root = spec.workspace.root().display().to_string();
        return Err(crate::worktree::WorktreeError::NotARepository(root).into());
    }
    let budget = crate::budget::wanted(&ctx.limits.subagent_budget, None, req.budget.as_ref(), req.by_user);
    Ok(Plan { subagent_type: parent_type, spec, provider_name, depth, budget })
}

/// A child that runs as `parent` does, one level down, in its parent's tree.
pub(crate) fn as_parent(parent: &AgentSpec, depth: u32, max_turns: u32) -> AgentSpec {
    AgentSpec {
        depth,
        max_turns,
        scheduled: true,
        isolation: arbor_protocol::Isolation::Shared,
        worktree: None,
        fork: None,
        external: None,
        hosted: false,
        ..parent.clone()
    }
}

/// How a fork of `parent` runs: as its parent does, marked a fork.
pub(crate) fn fork_spec(parent: &AgentSpec, depth: u32, max_turns: u32, fork: arbor_protocol::Fork) -> AgentSpec {
    AgentSpec { fork: Some(fork), ..as_parent(parent, depth, max_turns) }
}

impl Plan {
    /// Every tool the child would be offered: its built-ins and subagent tools,
    /// and its MCP servers' (a server not yet listed stands as `mcp__<server>`).
    fn tools(&self, shared: &Arc<Shared>, parent: &AgentId) -> Vec<String> {
        let mut names: Vec<String> = super::tools_of(shared, parent, &self.spec).names().map(str::to_string).collect();
        for server in self.spec.mcp.iter() {
            let info = server.info();
            let listed: Vec<String> = if info.tools.is_empty() {
                vec![crate::mcp::server_entry(server.name())]
            } else {
                info.tools.into_iter().map(|t| t.name).collect()
            };
            names.extend(listed.into_iter().filter(|n| self.spec.tools.admits(n)));
        }
        names
    }

    /// What a spawn card shows of this child.
    pub(crate) fn summary(&self, shared: &Arc<Shared>, req: &SpawnRequest) -> SpawnPlan {
        SpawnPlan {
            subagent_type: self.subagent_type.clone(),
            description: super::describe_or(req.description.as_deref(), &req.prompt),
            model: self.spec.model.clone(),
            provider: self.provider_name.clone(),
            tools: self.tools(shared, &req.parent),
            max_turns: self.spec.max_turns,
            background: req.background,
            prompt: req.prompt.clone(),
            fork: self.spec.fork,
        }
    }

    /// Makes the child what a person edited: its prompt, model, turn limit, and
    /// a narrower set of tools (never one it would not have had).
    pub(crate) fn apply(&mut self, shared: &Arc<Shared>, req: &mut SpawnRequest, edit: &SpawnEdit) {
        if let Some(prompt) = edit.prompt.as_ref().filter(|p| !p.trim().is_empty()) {
            req.prompt = prompt.clone();
        }
        if let Some(model) = edit.model.as_deref().and_then(|m| resolve_model(m, self.spec.provider.name())) {
            self.spec.model = model;
        }
        if let Some(n) = edit.max_turns {
            self.spec.max_turns = n.clamp(1, shared.ctx.limits.max_turns_cap.max(1));
        }
        if let Some(wanted) = &edit.tools {
            let (kept, dropped): (Vec<String>, Vec<String>) =
                self.tools(shared, &req.parent).into_iter().partition(|t| wanted.contains(t));
            self.spec.tools.allow = Some(kept);
            // Denied too: a deny list is what every descendant inherits, whatever its type's
            // own tools, so a withheld tool cannot come back one level down.
            for t in dropped {
                if !self.spec.tools.deny.contains(&t) {
                    self.spec.tools.deny.push(t);
                }
            }
        }
    }
}

impl Plan {
    /// A stricter approval mode for the child; looser ones change nothing
    /// (a person's delegation may narrow, never widen).
    pub(crate) fn tighten(&mut self, mode: arbor_protocol::PermissionMode) {
        self.spec.policy = Arc::new(self.spec.policy.for_child(mode, false));
    }

    /// The sandbox a person chose for the child (it may be looser than its parent's: they decide).
    pub(crate) fn choose_sandbox(&mut self, asked: &arbor_protocol::SandboxRequest) {
        let jail = &self.spec.sandbox;
        let policy = jail.policy().chosen(asked, self.spec.workspace.root(), jail.machine().home());
        self.spec.sandbox = Arc::new(jail.child(policy, self.spec.workspace.root()));
    }
}

/// How the child runs: its type's prompt, model, provider, tools and policy,
/// or its parent's for general-purpose. Returns the provider's name too.
pub(crate) fn child_spec(
    ctx: &Context,
    parent: &AgentSpec,
    parent_provider: &str,
    def: Option<&AgentDefinition>,
    req: &SpawnRequest,
    depth: u32,
) -> Result<(AgentSpec, String), SpawnError> {
    let type_name = def.map_or(GENERAL_PURPOSE, |d| d.name.as_str());
    let external = match def.and_then(|d| d.acp.as_ref()) {
        Some(acp) => match &acp.blocked {
            Some(why) => return Err(SpawnError::External { agent_type: type_name.to_string(), why: why.clone() }),
            None => Some(Arc::new(acp.clone())),
        },
        None => None,
    };
    let (provider_name, provider) = match def.and_then(|d| d.provider.as_deref()) {
        // The external program runs its own model: the parent's provider stays unused.
        _ if external.is_some() => (arbor_protocol::ACP_PROVIDER.to_string(), parent.provider.clone()),
        Some(p) if p != parent_provider => {
            let provider = ctx.providers.get(p).cloned().ok_or_else(|| SpawnError::UnknownProvider {
                agent_type: type_name.to_string(),
                provider: p.to_string(),
            })?;
            (p.to_string(), provider)
        }
        _ => (parent_provider.to_string(), parent.provider.clone()),
    };
    let asked = req.model.clone().or_else(|| def.and_then(|d| d.model.clone()));
    let model = match asked.and_then(|m| resolve_model(&m, provider.name())) {
        _ if let Some(acp) = &external => acp.display(),
        Some(m) => m,
        None if provider_name == parent_provider => parent.model.clone(),
        None => return Err(SpawnError::NoModel(type_name.to_string())),
    };
    let max_turns = req
        .max_turns
        .or_else(|| def.and_then(|d| d.max_turns))
        .unwrap_or(ctx.limits.subagent_max_turns)
        .clamp(1, ctx.limits.max_turns_cap.max(1));
    let (system, tools, policy, mcp) = match def {
        None => (parent.system.clone(), parent.tools.clone(), parent.policy.clone(), parent.mcp.clone()),
        Some(d) => {
            let system =
                prompt::main_system_prompt(&d.system_prompt, ctx.workspace.root(), &ctx.today, &ctx.instructions);
            // What the parent may never call, the child may not either.
            let mut tools = d.tools.clone();
            for t in &parent.tools.deny {
                if !tools.deny.contains(t) {
                    tools.deny.push(t.clone());
                }
            }
            let trusted = d.source == Some(DefinitionSource::User);
            let mut policy = parent.policy.for_child(d.permission_mode, trusted);
            if d.approve_spawn {
                policy.ask_before_spawning();
            }
            let policy = Arc::new(policy);
            (system, tools, policy, ctx.mcp.servers_for(Some(&d.name)))
        }
    };
    let sandbox = match def.and_then(|d| d.sandbox.as_ref().map(|s| (s, d.source == Some(DefinitionSource::User)))) {
        None => parent.sandbox.clone(),
        Some((asked, trusted)) => {
            let (now, root, home) = (parent.sandbox.policy(), parent.workspace.root(), parent.sandbox.machine().home());
            // The user's own agent file is the user's choice; a workspace's file may only tighten.
            let policy = if trusted { now.chosen(asked, root, home) } else { now.tightened(asked, root, home) };
            Arc::new(parent.sandbox.child(policy, root))
        }
    };
    let spec = AgentSpec {
        system,
        model,
        provider,
        tools,
        max_turns,
        policy,
        depth,
        scheduled: true,
        mcp,
        workspace: parent.workspace.clone(),
        sandbox,
        changes: parent.changes.clone(),
        isolation: req.isolation.or(def.map(|d| d.isolation)).unwrap_or_default(),
        worktree: None,
        fork: None,
        context: def.map_or_else(|| parent.context.clone(), |d| ctx.context.clone().overridden_by(&d.context)),
        // A type's hooks are its own agents' (as in Claude Code); a general-purpose child runs the settings'.
        hooks: def.map_or_else(|| ctx.hooks.clone(), |d| Arc::new(ctx.hooks.with(&d.hooks))),
        external,
        hosted: false,
    };
    Ok((spec, provider_name))
}

/// Claude Code's model aliases on Anthropic; elsewhere an alias means the parent's model.
fn resolve_model(model: &str, provider_kind: &str) -> Option<String> {
    let model = model.trim();
    let alias = match model {
        "" | "inherit" => return None,
        "sonnet" => "claude-sonnet-4-5",
        "opus" => "claude-opus-4-1",
        "haiku" => "claude-haiku-4-5",
        other => return Some(other.to_string()),
    };
    (provider_kind == "anthropic").then(|| alias.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_resolve_on_anthropic_only() {
        assert_eq!(resolve_model("sonnet", "anthropic").as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(resolve_model("sonnet", "openai"), None);
        assert_eq!(resolve_model("inherit", "anthropic"), None);
        assert_eq!(resolve_model("gpt-4.1-mini", "openai").as_deref(), Some("gpt-4.1-mini"));
    }
}
