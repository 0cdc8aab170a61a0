//! The subagent types found for a workspace (agent files in Claude Code's
//! format), shaped for the UI, with every file that failed to load.

use arbor_core::definitions::{self, AgentDefinition, Catalog, DefinitionSource};
use serde::Serialize;
use std::path::Path;

/// Reads `<workspace>/.claude/agents`, `<workspace>/.arbor/agents` and the
/// user's own, `<config dir>/agents`.
pub fn load(workspace: &Path, config_dir: Option<&Path>) -> Catalog {
    let user = config_dir.map(|d| d.join("agents"));
    definitions::load(&definitions::search_dirs(workspace, user.as_deref()))
}

pub fn source_name(s: Option<DefinitionSource>) -> &'static str {
    match s {
        Some(DefinitionSource::ClaudeProject) => "workspace .claude/agents",
        Some(DefinitionSource::ArborProject) => "workspace .arbor/agents",
        Some(DefinitionSource::User) => "user config",
        None => "built in",
    }
}

/// One subagent type as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct AgentTypeInfo {
    pub name: String,
    pub description: String,
    /// None: inherits the parent's model.
    pub model: Option<String>,
    pub provider: Option<String>,
    pub source: String,
    pub file: Option<String>,
    /// The command an external ACP agent of this type runs (never its environment); None: Arbor's own loop.
    pub acp: Option<String>,
    /// From the user's own file (their config folder), which Settings may remove; not a workspace's.
    pub user: bool,
}

impl AgentTypeInfo {
    pub fn from_definition(d: &AgentDefinition) -> Self {
        Self {
            name: d.name.clone(),
            description: d.description.clone(),
            model: d.model.clone(),
            provider: d.provider.clone(),
            source: source_name(d.source).to_string(),
            file: d.file.as_ref().map(|f| f.display().to_string()),
            acp: d.acp.as_ref().map(|a| a.display()),
            user: d.source == Some(DefinitionSource::User),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct DefinitionProblemInfo {
    pub file: String,
    pub field: Option<String>,
    pub reason: String,
    /// True: the file was not loaded; false: a warning.
    pub skipped: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct CatalogReport {
    pub definitions: Vec<AgentTypeInfo>,
    pub problems: Vec<DefinitionProblemInfo>,
}

impl From<&Catalog> for CatalogReport {
    fn from(c: &Catalog) -> Self {
        Self {
            definitions: c.definitions.iter().map(AgentTypeInfo::from_definition).collect(),
            problems: c
                .problems
                .iter()
                .map(|p| DefinitionProblemInfo {
                    file: p.file.display().to_string(),
                    field: p.field.clone(),
                    reason: p.reason.clone(),
                    skipped: p.skipped,
                })
                .collect(),
        }
    }
}
