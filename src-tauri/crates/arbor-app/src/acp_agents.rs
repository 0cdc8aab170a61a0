//! External ACP agents a person adds from Settings. An agent type is defined in
//! one place, its file: adding one writes the user's own agent file
//! (`<config dir>/agents/<name>.md`, with `acp:` in its front matter) and reads
//! it back as any agent file is read; removing one deletes that file. The
//! presets are the agents people run this way, with the commands that start them.

use crate::catalog::AgentTypeInfo;
use crate::error::{AppError, AppErrorKind};
use crate::host::Host;
use arbor_core::definitions::{self, DefinitionSource};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// An ACP agent people commonly run, and the command that starts it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct AcpPreset {
    /// What the person picks.
    pub label: String,
    /// The agent type's name (what a Task call's `subagent_type` names).
    pub name: String,
    pub description: String,
    pub command: String,
    pub args: Vec<String>,
    /// What the person needs for it to run.
    pub needs: String,
}

/// The presets Settings offers.
pub fn presets() -> Vec<AcpPreset> {
    let preset = |label: &str, name: &str, description: &str, command: &str, args: &[&str], needs: &str| AcpPreset {
        label: label.into(),
        name: name.into(),
        description: description.into(),
        command: command.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        needs: needs.into(),
    };
    vec![
        preset(
            "Claude Code",
            "claude",
            "Claude Code, run through Zed's ACP adapter: for coding tasks in this workspace.",
            "npx",
            &["-y", "@zed-industries/claude-agent-acp"],
            "Node.js; signed in to Claude Code, or ANTHROPIC_API_KEY set.",
        ),
        preset(
            "Codex",
            "codex",
            "OpenAI's Codex, run through Zed's ACP adapter: for coding tasks in this workspace.",
            "npx",
            &["-y", "@zed-industries/codex-acp"],
            "Node.js; signed in to Codex, or OPENAI_API_KEY set.",
        ),
        preset(
            "Gemini CLI",
            "gemini",
            "Google's Gemini CLI in its ACP mode: for coding tasks in this workspace.",
            "gemini",
            &["--experimental-acp"],
            "The gemini command installed and signed in.",
        ),
    ]
}

/// An ACP agent to add, as the Settings form has it.
#[derive(Debug, Clone, PartialEq, Deserialize, specta::Type)]
pub struct NewAcpAgent {
    pub name: String,
    pub description: String,
    pub command: String,
    pub args: Vec<String>,
}

/// The longest field the form takes: an agent file is small.
const FIELD_MAX: usize = 2_000;

fn invalid(message: impl Into<String>) -> AppError {
    AppError::new(AppErrorKind::Settings, message)
}

/// The name as a file name: one word of letters, digits, `-`, `_` and `.`, not starting with `.`.
fn checked_name(name: &str) -> Result<&str, AppError> {
    let name = name.trim();
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(name)
    } else {
        Err(invalid(format!(
            "an agent's name is one word of letters, digits, '-', '_' or '.', e.g. `claude` (got {})",
            arbor_protocol::text::quote(name, 80)
        )))
    }
}

fn checked_text<'a>(what: &str, text: &'a str) -> Result<&'a str, AppError> {
    if text.len() > FIELD_MAX || text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(invalid(format!("the {what} must be one line of at most {FIELD_MAX} characters")));
    }
    Ok(text.trim())
}

/// The agent file: front matter whose strings are JSON strings (valid YAML, any character quoted).
fn file_text(name: &str, description: &str, command: &str, args: &[&str]) -> String {
    let quote = |s: &str| serde_json::Value::from(s).to_string();
    let args: Vec<String> = args.iter().map(|a| quote(a)).collect();
    format!(
        "---\nname: {}\ndescription: {}\nacp:\n  command: {}\n  args: [{}]\n---\n\n\
         An external ACP agent, added from Arbor's Settings. Arbor starts `{command}` for each task of this type;\n\
         its permission requests come to Arbor's inbox. Edit this file to change it (for example `env:` under `acp:`,\n\
         or `sandbox:` to run it in Arbor's sandbox), or remove it from Settings.\n",
        quote(name),
        quote(description),
        quote(command),
        args.join(", "),
    )
}

impl Host {
    fn user_agents_dir(&self) -> Result<PathBuf, AppError> {
        self.config
            .config_dir
            .as_ref()
            .map(|d| d.join("agents"))
            .ok_or_else(|| invalid("this Arbor has no config folder to keep agent files in"))
    }

    /// Writes the user's agent file for `new` and reads it back: the type as the catalog lists it.
    pub fn add_acp_agent(&self, new: NewAcpAgent) -> Result<AgentTypeInfo, AppError> {
        let name = checked_name(&new.name)?;
        let description = checked_text("description", &new.description)?;
        let command = checked_text("command", &new.command)?;
        if command.is_empty() {
            return Err(invalid("the command that starts the agent is missing"));
        }
        let args: Vec<&str> = new.args.iter().map(|a| checked_text("argument", a)).collect::<Result<_, _>>()?;
        let description = if description.is_empty() { "An external ACP agent." } else { description };
        let dir = self.user_agents_dir()?;
        std::fs::create_dir_all(&dir).map_err(|e| invalid(format!("cannot make {}: {e}", dir.display())))?;
        let path = dir.join(format!("{name}.md"));
        let text = file_text(name, description, command, &args);
        // `create_new`: a file already there (another agent of that name) is never overwritten.
        let written = std::fs::OpenOptions::new().write(true).create_new(true).open(&path).and_then(|mut f| {
            use std::io::Write;
            f.write_all(text.as_bytes())
        });
        if let Err(e) = written {
            return Err(match e.kind() {
                std::io::ErrorKind::AlreadyExists => {
                    invalid(format!("an agent file named {name}.md is already in {}", dir.display()))
                }
                _ => invalid(format!("cannot write {}: {e}", path.display())),
            });
        }
        let catalog = definitions::load(&[(dir, DefinitionSource::User)]);
        match catalog.definitions.iter().find(|d| d.file.as_deref() == Some(path.as_path())) {
            Some(d) => Ok(AgentTypeInfo::from_definition(d)),
            None => {
                // It does not read back: nothing half-made is left behind.
                let _ = std::fs::remove_file(&path);
                let why = catalog.problems.iter().find(|p| p.file == path).map(|p| p.reason.clone());
                Err(invalid(format!("the agent file did not load: {}", why.unwrap_or_else(|| "unknown".into()))))
            }
        }
    }

    /// Deletes the user's agent file of ACP agent `name`; an agent that is not the user's
    /// own, or not an ACP agent, is refused (its file is edited by hand, or is a workspace's).
    pub fn remove_acp_agent(&self, name: &str) -> Result<(), AppError> {
        let dir = self.user_agents_dir()?;
        let catalog = definitions::load(&[(dir.clone(), DefinitionSource::User)]);
        let found = catalog.definitions.iter().find(|d| d.name == name && d.acp.is_some());
        let Some(file) = found.and_then(|d| d.file.clone()) else {
            return Err(AppError::new(
                AppErrorKind::NotFound,
                format!("no ACP agent named {} in {}", arbor_protocol::text::quote(name, 80), dir.display()),
            ));
        };
        remove_inside(&dir, &file)
    }
}

/// Removes `file`, which must be in `dir` itself (a link out of it is refused).
fn remove_inside(dir: &Path, file: &Path) -> Result<(), AppError> {
    let inside = file.parent() == Some(dir) && !file.symlink_metadata().map(|m| m.is_symlink()).unwrap_or(true);
    if !inside {
        return Err(invalid(format!("{} is not an agent file Arbor wrote", file.display())));
    }
    std::fs::remove_file(file).map_err(|e| invalid(format!("cannot remove {}: {e}", file.display())))
}
