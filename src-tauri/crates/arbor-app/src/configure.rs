//! The session a launch will start, built from the settings, the person's and the
//! workspace's files, the keyring and the launch's own flags. All of it may block
//! (a settings file on a dead mount, a keyring that waits on its unlock prompt), so
//! [`Host::launch`] runs it through [`crate::off_worker`], never on one of the runtime's
//! few worker threads: one hung start must not stall every live session. The MCP
//! listing reads the same files the same way.

use crate::catalog::AgentTypeInfo;
use crate::claude_settings::{Applying, SettingsRule};
use crate::demo;
use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::sessions::{ApprovalMode, LaunchSpec, Start};
use crate::settings::Settings;
use crate::trust::WorkspaceMcp;
use arbor_core::provider::{RetryPolicy, Timeouts};
use arbor_core::tools::{ToolClass, ToolRegistry};
use arbor_core::{ApprovalPolicy, Providers, SandboxPolicy, SessionConfig};
use arbor_protocol::ProviderKind;
use std::path::Path;
use std::time::Duration;

/// Where and on what a launch runs, as decided before it is configured.
pub(crate) struct Target<'a> {
    pub workspace: &'a Path,
    pub kind: ProviderKind,
    pub model: &'a str,
    pub demo: bool,
}

/// A session's configuration, and what the front end is told about it.
pub(crate) struct Configured {
    pub config: SessionConfig,
    pub warnings: Vec<String>,
    pub agent_types: Vec<AgentTypeInfo>,
    pub untrusted_mcp: Option<WorkspaceMcp>,
    pub settings_rules: Vec<SettingsRule>,
}

impl Host {
    /// The configuration of the session `spec` launches on `target`: the
    /// command line's flags over the settings', then the files'.
    pub(crate) fn configure(
        &self,
        spec: &LaunchSpec,
        settings: &Settings,
        target: Target<'_>,
    ) -> Result<Configured, AppError> {
        let Target { workspace, kind, model, demo } = target;
        let timeouts = Timeouts {
            idle: spec.tuning.idle_timeout.unwrap_or(Duration::from_secs(u64::from(settings.timeouts.idle_seconds))),
            ..Timeouts::default()
        };
        let retry = RetryPolicy {
            budget: spec
                .tuning
                .retry_budget
                .unwrap_or(Duration::from_secs(u64::from(settings.timeouts.retry_budget_seconds))),
            ..RetryPolicy::default()
        };
        let providers = if demo {
            let mut p = Providers::new();
            p.insert(kind.name().to_string(), demo::model().map_err(|e| err(AppErrorKind::Demo, e))?);
            p
        } else {
            self.ready_providers(kind, settings, timeouts)?
        };
        let Some(main_provider) = providers.get(kind.name()).cloned() else {
            return Err(AppError::new(AppErrorKind::Provider, format!("the {} provider is not set up", kind.name())));
        };
        let mut config = SessionConfig::new(workspace, kind.name(), main_provider, model);
        // Only a new session takes an id its front end chose.
        config.session_id = spec.tuning.session_id.clone().filter(|_| matches!(spec.start, Start::New { .. }));
        config.providers = providers;
        config.retry = retry;
        config.limits = spec.tuning.limits.clone().unwrap_or_else(|| settings.runtime_limits());
        // The command line's limits leave the settings' budgets be; its own budget flags win.
        config.limits.subagent_budget = settings.budgets.subagent.clone();
        config.limits.max_spawns_per_minute =
            spec.tuning.max_spawns_per_minute.unwrap_or(settings.budgets.max_spawns_per_minute);
        // A resumed session keeps the budget it had (raised, perhaps): only the command line's change it.
        config.budget = match &spec.start {
            Start::Resume { .. } => spec.tuning.budget.clone(),
            _ => settings.budgets.session.changed_by(&spec.tuning.budget),
        };
        config.main_agent.max_turns = spec.tuning.max_turns.unwrap_or(settings.limits.main_max_turns);
        // The command line's flags over the settings'.
        config.context = arbor_core::ContextConfig {
            window: spec.tuning.context_window.or(settings.context.window),
            compact_at_percent: spec.tuning.compact_at_percent.unwrap_or(settings.context.compact_at_percent),
            summary_model: spec
                .tuning
                .summary_model
                .clone()
                .or_else(|| settings.context.summary_model.clone())
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty()),
        };
        config.approval = match (spec.tuning.approval, demo) {
            (None, true) => ApprovalPolicy::default(),
            (None, false) => settings.approval_policy(),
            (Some(ApprovalMode::Ask), _) => ApprovalPolicy::default(),
            (Some(ApprovalMode::All), _) => ApprovalPolicy::allow_all(),
            (Some(ApprovalMode::ReadOnly | ApprovalMode::Deny), _) => ApprovalPolicy::deny_mutating(),
        };
        if spec.tuning.approve_spawn {
            config.approval.ask_before_spawning();
        }
        config.approval.run_sandboxed =
            spec.tuning.run_sandboxed.unwrap_or(settings.sandbox.run_sandboxed_without_asking);
        config.sandboxing = self.sandboxing();
        let home = config.sandboxing.home().map(Path::to_path_buf);
        config.sandbox = SandboxPolicy::default()
            .chosen(&settings.sandbox.request(), workspace, home.as_deref())
            .chosen(&spec.tuning.sandbox, workspace, home.as_deref());
        if spec.tuning.approval == Some(ApprovalMode::ReadOnly) {
            config.main_agent.tools.deny = ToolRegistry::builtins()
                .iter()
                .filter(|t| t.class() == ToolClass::Mutating)
                .map(|t| t.name().to_string())
                .collect();
        }
        let catalog = self.agent_types(workspace);
        let mut warnings: Vec<String> = catalog.problems.iter().map(|p| format!("agent file: {p}")).collect();
        let agent_types = catalog.definitions.iter().map(AgentTypeInfo::from_definition).collect();
        // Loaded from the very text that was trusted; left out when it was not.
        let (trusted, found) = self.trusted_workspace(workspace, &catalog.definitions, spec.tuning.trust_mcp);
        let untrusted_mcp = found.filter(|_| trusted.is_none());
        let (mcp, mcp_problems, _) = self.mcp_catalog(
            workspace,
            &spec.tuning.mcp_files,
            &catalog.definitions,
            trusted.clone(),
            spec.tuning.client_mcp.as_ref(),
        );
        warnings.extend(mcp_problems.into_iter().map(|p| format!("mcp config: {p}")));
        warnings.extend(untrusted_mcp.as_ref().map(crate::trust::untrusted_warning));
        if config.budget.max_cost_usd.is_some()
            && arbor_core::provider::price_usage(model, &Default::default()).is_none()
        {
            warnings.push(format!(
                "budget: the price of {model} is unknown, so the session's dollar budget counts nothing it uses; \
                 set a token budget (--max-tokens, or Settings → Budgets) to cap it"
            ));
        }
        for w in &warnings {
            tracing::warn!("{w}");
        }
        config.mcp = mcp;
        let workspace_trusted = trusted.is_some();
        let from_settings = crate::claude_settings::Sources {
            env: &self.config.env,
            config_dir: self.config.config_dir.as_deref(),
            data_dir: self.config.data_dir.as_deref(),
            workspace,
        }
        .apply(
            &mut config,
            trusted,
            Applying { main_type: spec.tuning.main_type.clone(), explicit: spec.tuning.approval.is_some(), demo },
        );
        warnings.extend(from_settings.warnings);
        let settings_rules = from_settings.rules;
        config.agent_types = if workspace_trusted {
            catalog.definitions
        } else {
            catalog.definitions.into_iter().map(crate::trust::without_workspace_hooks).collect()
        };
        // An external agent's `${VAR}`s, from the front end's environment (as `.mcp.json`'s).
        for acp in config.agent_types.iter_mut().filter_map(|d| d.acp.as_mut()).filter(|a| a.blocked.is_none()) {
            for (name, value) in acp.env.iter_mut() {
                match arbor_core::mcp::config::expand(value, &|v| self.config.env.raw(v)) {
                    Ok(v) => *value = v,
                    Err(e) => acp.blocked = Some(format!("its env {name}: {e}")),
                }
            }
        }
        Ok(Configured { config, warnings, agent_types, untrusted_mcp, settings_rules })
    }
}
