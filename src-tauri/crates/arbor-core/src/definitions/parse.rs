//! Reading one agent file: front matter field by field, so every error names
//! its field and file; the body is the system prompt, kept byte for byte.

use super::Isolation;
use super::{
    AgentDefinition, DELIMITER, DefinitionProblem, DefinitionSource, KNOWN_FIELDS, PERMISSION_MODES, PermissionMode,
};
use crate::tools::ToolFilter;
use arbor_protocol::{SandboxMode, SandboxRequest};
use gray_matter::engine::YAML;
use gray_matter::{Matter, Pod};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Reads one agent file's text. The warnings are notes on a definition that still loaded.
pub fn parse_definition(
    text: &str,
    file: &Path,
    source: DefinitionSource,
) -> Result<(AgentDefinition, Vec<DefinitionProblem>), DefinitionProblem> {
    // Editors on Windows may save a BOM, which would hide the opening delimiter.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // gray_matter treats a missing or unclosed block as "no data", which would surface as a
    // confusing "missing name"; these checks give the real reason.
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some(DELIMITER) {
        return Err(DefinitionProblem::error(
            file,
            None,
            "no front matter: an agent file starts with a `---` line, then `field: value` lines, then another `---`",
        ));
    }
    if !lines.any(|line| line.trim_end() == DELIMITER) {
        return Err(DefinitionProblem::error(file, None, "the front matter has no closing `---` line"));
    }
    let matter = Matter::<YAML>::new();
    let mut warnings = Vec::new();
    let parsed = match matter.parse::<Pod>(text) {
        Ok(parsed) => parsed,
        Err(error) => {
            let invalid = |e: gray_matter::Error| {
                let detail = match e {
                    gray_matter::Error::DeserializeError(message) => message,
                    other => other.to_string(),
                };
                DefinitionProblem::error(
                    file,
                    None,
                    format!("the front matter is not valid YAML: {detail} (lines counted from the one after `---`)"),
                )
            };
            let (repaired, quoted) = quote_colon_values(text);
            if quoted.is_empty() {
                return Err(invalid(error));
            }
            let parsed = matter.parse::<Pod>(&repaired).map_err(|_| invalid(error))?;
            warnings.extend(quoted.iter().map(|field| {
                DefinitionProblem::warning(
                    file,
                    Some(field),
                    "the value contains an unquoted `: `, which YAML does not allow; read as plain text (quote it)",
                )
            }));
            parsed
        }
    };
    let map = match parsed.data {
        None | Some(Pod::Null) => HashMap::new(),
        Some(Pod::Hash(map)) => map,
        Some(other) => {
            return Err(DefinitionProblem::error(
                file,
                None,
                format!("the front matter must be `field: value` lines (got {})", shown(&other)),
            ));
        }
    };
    let mut fields = Fields { file, map: &map, warnings: Vec::new() };
    let name = fields.name()?;
    let description = fields.required_string("description")?;
    let allow = fields.tool_list("tools")?;
    let deny = fields.tool_list("disallowedTools")?.unwrap_or_default();
    let model = fields.optional_string("model")?.filter(|m| m != "inherit");
    let provider = fields.optional_string("provider")?;
    let permission_mode = fields.permission_mode()?;
    let max_turns = fields.max_turns()?;
    let mcp_servers = fields.mcp_servers()?;
    let color = fields.optional_string("color")?;
    let approve_spawn = fields.optional_bool("approveSpawn")?.unwrap_or(false);
    let sandbox = fields.sandbox()?;
    let isolation = fields.isolation()?;
    let budget = arbor_protocol::Budget {
        max_tokens: fields.positive("maxTokens")?,
        max_cost_usd: fields.dollars("maxCostUsd")?,
        max_duration_seconds: fields.positive("maxDurationSeconds")?,
        max_subagents: fields.positive("maxSubagents")?.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
    };
    let context = super::ContextOverride {
        window: fields.positive("contextWindow")?,
        compact_at_percent: fields.percent("compactAt")?,
    };
    let hooks = fields.hooks(source);
    let acp = fields.acp()?;

    let mut unknown: Vec<&String> = map.keys().filter(|k| !KNOWN_FIELDS.contains(&k.as_str())).collect();
    unknown.sort();
    warnings.extend(fields.warnings);
    warnings.extend(
        unknown.into_iter().map(|key| DefinitionProblem::warning(file, Some(key), "not a field Arbor reads; ignored")),
    );

    let definition = AgentDefinition {
        name,
        description,
        system_prompt: parsed.content.trim().to_string(),
        tools: ToolFilter { allow, deny },
        model,
        provider,
        max_turns,
        permission_mode,
        mcp_servers,
        color,
        approve_spawn,
        sandbox,
        isolation,
        budget,
        context,
        hooks,
        acp,
        file: Some(file.to_path_buf()),
        source: Some(source),
    };
    Ok((definition, warnings))
}

/// The front matter of one file, read field by field so each error names its field.
struct Fields<'a> {
    file: &'a Path,
    map: &'a HashMap<String, Pod>,
    warnings: Vec<DefinitionProblem>,
}

impl Fields<'_> {
    fn bad(&self, field: &str, reason: impl Into<String>) -> DefinitionProblem {
        DefinitionProblem::error(self.file, Some(field), reason)
    }

    /// Null counts as absent: `model:` with nothing after it is how YAML spells "not given".
    fn get(&self, field: &str) -> Option<&Pod> {
        self.map.get(field).filter(|v| !matches!(v, Pod::Null))
    }

    fn name(&self) -> Result<String, DefinitionProblem> {
        let name = self.required_string("name")?;
        // The name travels in Task calls and agent paths, so it must be one plain word.
        if name.chars().any(char::is_whitespace) {
            return Err(
                self.bad("name", format!("must be one word without spaces, e.g. `code-reviewer` (got {name:?})"))
            );
        }
        if name.contains(['/', '\\']) || name.chars().any(char::is_control) {
            return Err(self.bad("name", format!("must not contain slashes or control characters (got {name:?})")));
        }
        Ok(name)
    }

    fn required_string(&self, field: &str) -> Result<String, DefinitionProblem> {
        match self.optional_string(field)? {
            Some(value) => Ok(value),
            None => Err(self.bad(field, "is required and must not be empty")),
        }
    }

    /// An empty string counts as absent, like a missing field.
    fn optional_string(&self, field: &str) -> Result<Option<String>, DefinitionProblem> {
        match self.get(field) {
            None => Ok(None),
            Some(Pod::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
            Some(other) => Err(self.bad(field, format!("must be a string (got {})", shown(other)))),
        }
    }

    fn optional_bool(&self, field: &str) -> Result<Option<bool>, DefinitionProblem> {
        match self.get(field) {
            None => Ok(None),
            Some(Pod::Boolean(b)) => Ok(Some(*b)),
            Some(other) => Err(self.bad(field, format!("must be true or false (got {})", shown(other)))),
        }
    }

    /// `tools` / `disallowedTools`: `Read, Grep` or a YAML list. None: not given (or `*`, all tools).
    fn tool_list(&mut self, field: &str) -> Result<Option<Vec<String>>, DefinitionProblem> {
        let expected = "must be a comma-separated string or a list of tool names";
        let entries: Vec<&str> = match self.get(field) {
            None => return Ok(None),
            // Claude Code treats an empty string like an absent field (it is falsy there).
            Some(Pod::String(s)) if s.trim().is_empty() => return Ok(None),
            Some(Pod::String(s)) => s.split(',').collect(),
            Some(Pod::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Pod::String(s) => Ok(s.as_str()),
                    other => Err(self.bad(field, format!("{expected} (got the entry {})", shown(other)))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(self.bad(field, format!("{expected} (got {})", shown(other)))),
        };
        let mut names: Vec<String> = Vec::new();
        let mut notes = Vec::new();
        for entry in entries {
            let entry = entry.trim();
            // Claude Code's permission rules (`Bash(git:*)`) narrow a tool by its arguments;
            // Arbor filters whole tools only, so the rule widens (tools) or narrows (disallowedTools).
            let name = match entry.split_once('(') {
                Some((name, _)) => {
                    let effect = if field == "tools" { "offered" } else { "denied" };
                    notes.push(format!(
                        "`{entry}`: argument patterns are not supported; the whole `{}` tool is {effect}",
                        name.trim()
                    ));
                    name.trim()
                }
                None => entry,
            };
            if !name.is_empty() && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
        self.warnings.extend(notes.into_iter().map(|note| DefinitionProblem::warning(self.file, Some(field), note)));
        if field == "tools" && names.iter().any(|n| n == "*") {
            return Ok(None);
        }
        Ok(Some(names))
    }

    fn permission_mode(&self) -> Result<PermissionMode, DefinitionProblem> {
        let Some(value) = self.optional_string("permissionMode")? else {
            return Ok(PermissionMode::Default);
        };
        match arbor_protocol::wire::parse(&PERMISSION_MODES, &value) {
            Some(mode) => Ok(mode),
            None => {
                let accepted: Vec<String> = PERMISSION_MODES.iter().map(|m| format!("`{}`", m.as_str())).collect();
                Err(self.bad("permissionMode", format!("must be one of {} (got {value:?})", accepted.join(", "))))
            }
        }
    }

    /// `sandbox: strict`, or `sandbox: {mode: workspace, network: true, write: [build]}`.
    fn sandbox(&mut self) -> Result<Option<SandboxRequest>, DefinitionProblem> {
        let modes = || SandboxMode::ALL.map(|m| format!("`{}`", m.as_str())).join(", ");
        let mode_of = |s: &str| {
            SandboxMode::parse(s)
                .ok_or_else(|| self.bad("sandbox", format!("mode must be one of {} (got {s:?})", modes())))
        };
        let map = match self.get("sandbox") {
            None => return Ok(None),
            Some(Pod::String(s)) => return Ok(Some(SandboxRequest { mode: Some(mode_of(s)?), ..Default::default() })),
            Some(Pod::Hash(map)) => map,
            Some(other) => {
                return Err(self.bad(
                    "sandbox",
                    format!("must be a mode ({}) or a map with mode, network, write (got {})", modes(), shown(other)),
                ));
            }
        };
        let mut req = SandboxRequest::default();
        let mut unknown = Vec::new();
        for (key, value) in map {
            match (key.as_str(), value) {
                ("mode", Pod::String(s)) => req.mode = Some(mode_of(s)?),
                ("network", Pod::Boolean(b)) => req.network = Some(*b),
                ("write", Pod::String(s)) => req.write = Some(vec![s.trim().to_string()]),
                ("write", Pod::Array(items)) => {
                    let paths = items.iter().map(|i| match i {
                        Pod::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
                        other => {
                            Err(self.bad("sandbox", format!("write must list paths (got the entry {})", shown(other))))
                        }
                    });
                    req.write = Some(paths.collect::<Result<_, _>>()?);
                }
                ("mode" | "network" | "write", other) => {
                    return Err(self.bad("sandbox", format!("{key} has the wrong type (got {})", shown(other))));
                }
                _ => unknown.push(key.clone()),
            }
        }
        unknown.sort();
        for key in unknown {
            self.warnings.push(DefinitionProblem::warning(
                self.file,
                Some("sandbox"),
                format!("`{key}` is not a sandbox setting Arbor reads (mode, network, write); ignored"),
            ));
        }
        Ok(Some(req))
    }

    /// Claude Code's `isolation`: `worktree`, or absent.
    fn isolation(&self) -> Result<Isolation, DefinitionProblem> {
        match self.optional_string("isolation")?.as_deref() {
            None => Ok(Isolation::Shared),
            Some("worktree") => Ok(Isolation::Worktree),
            Some(other) => Err(self.bad("isolation", format!("must be `worktree` (got {other:?})"))),
        }
    }

    /// A whole number of at least 1 (a budget's limit), or absent.
    fn positive(&self, field: &str) -> Result<Option<u64>, DefinitionProblem> {
        let Some(value) = self.get(field) else { return Ok(None) };
        let n = match value {
            Pod::Integer(n) => u64::try_from(*n).ok(),
            Pod::String(s) => s.trim().replace('_', "").parse::<u64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n >= 1 => Ok(Some(n)),
            _ => Err(self.bad(field, format!("must be a whole number of at least 1 (got {})", shown(value)))),
        }
    }

    /// A percentage from 1 to 100 (`compactAt: 70`, or `"70%"`), or absent.
    fn percent(&self, field: &str) -> Result<Option<u8>, DefinitionProblem> {
        let Some(value) = self.get(field) else { return Ok(None) };
        let n = match value {
            Pod::Integer(n) => u8::try_from(*n).ok(),
            Pod::String(s) => s.trim().trim_end_matches('%').trim().parse::<u8>().ok(),
            _ => None,
        };
        match n {
            Some(n) if (1..=100).contains(&n) => Ok(Some(n)),
            _ => Err(self.bad(field, format!("must be a percentage from 1 to 100 (got {})", shown(value)))),
        }
    }

    /// Dollars above zero (`maxCostUsd: 2.5`), or absent.
    fn dollars(&self, field: &str) -> Result<Option<f64>, DefinitionProblem> {
        let Some(value) = self.get(field) else { return Ok(None) };
        let n = match value {
            Pod::Integer(n) => Some(*n as f64),
            Pod::Float(f) => Some(*f),
            Pod::String(s) => s.trim().trim_start_matches('$').parse::<f64>().ok(),
            _ => None,
        };
        match n {
            Some(n) if n > 0.0 && n.is_finite() => Ok(Some(n)),
            _ => Err(self.bad(field, format!("must be a number of dollars above 0 (got {})", shown(value)))),
        }
    }

    fn max_turns(&self) -> Result<Option<u32>, DefinitionProblem> {
        let Some(value) = self.get("maxTurns") else { return Ok(None) };
        let turns = match value {
            Pod::Integer(n) => u32::try_from(*n).ok(),
            // A quoted number is still clearly a number.
            Pod::String(s) => s.trim().parse::<u32>().ok(),
            _ => None,
        };
        match turns {
            Some(n) if n >= 1 => Ok(Some(n)),
            _ => Err(self.bad("maxTurns", format!("must be an integer of at least 1 (got {})", shown(value)))),
        }
    }

    /// `acp: {command, args, env}`: the external ACP agent this type runs as.
    fn acp(&self) -> Result<Option<super::AcpCommand>, DefinitionProblem> {
        let Some(value) = self.get("acp") else { return Ok(None) };
        let expected = "must be {command, args, env}: a command, a list of arguments, a map of variables";
        let Pod::Hash(map) = value else { return Err(self.bad("acp", format!("{expected} (got {})", shown(value)))) };
        let command = match map.get("command") {
            Some(Pod::String(c)) if !c.trim().is_empty() => c.trim().to_string(),
            _ => return Err(self.bad("acp", format!("{expected}: `command` is missing"))),
        };
        let args = match map.get("args") {
            None => Vec::new(),
            Some(Pod::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Pod::String(s) => Ok(s.clone()),
                    Pod::Integer(n) => Ok(n.to_string()),
                    other => Err(self.bad("acp", format!("{expected}: an argument is {}", shown(other)))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(self.bad("acp", format!("{expected}: `args` is {}", shown(other)))),
        };
        let env = match map.get("env") {
            None => BTreeMap::new(),
            Some(Pod::Hash(vars)) => vars
                .iter()
                .map(|(k, v)| match v {
                    Pod::String(s) => Ok((k.clone(), s.clone())),
                    Pod::Integer(n) => Ok((k.clone(), n.to_string())),
                    Pod::Boolean(b) => Ok((k.clone(), b.to_string())),
                    other => Err(self.bad("acp", format!("{expected}: `env.{k}` is {}", shown(other)))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => return Err(self.bad("acp", format!("{expected}: `env` is {}", shown(other)))),
        };
        Ok(Some(super::AcpCommand { command, args, env, blocked: None, sandboxed: self.get("sandbox").is_some() }))
    }

    /// `hooks`, as a settings file's: what cannot be used is a warning, the rest loads.
    fn hooks(&mut self, source: DefinitionSource) -> crate::hooks::HookSet {
        let Some(pod) = self.get("hooks") else { return crate::hooks::HookSet::default() };
        let origin = match source {
            DefinitionSource::User => arbor_protocol::HookOrigin::User,
            DefinitionSource::ClaudeProject | DefinitionSource::ArborProject => arbor_protocol::HookOrigin::Workspace,
        };
        let (hooks, problems) = crate::hooks::parse(&to_json(pod), self.file, origin);
        let file = self.file;
        self.warnings.extend(problems.into_iter().map(|p| {
            // The problem names the file already; the warning names it too.
            let note = p.split_once(": ").map_or(p.as_str(), |(_, rest)| rest).to_string();
            DefinitionProblem::warning(file, Some("hooks"), note)
        }));
        crate::hooks::HookSet::new(hooks)
    }

    /// A list of server names and inline configs, or a map of name → config (made `{name: config}`).
    fn mcp_servers(&self) -> Result<Vec<Value>, DefinitionProblem> {
        let expected = "must be a list of server names or configs, or a map of server name to config";
        match self.get("mcpServers") {
            None => Ok(Vec::new()),
            Some(Pod::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Pod::String(s) if !s.trim().is_empty() => Ok(Value::String(s.trim().to_string())),
                    Pod::Hash(_) => Ok(to_json(item)),
                    other => Err(self.bad("mcpServers", format!("{expected} (got the entry {})", shown(other)))),
                })
                .collect(),
            Some(Pod::Hash(map)) => {
                // HashMap order is random; sort so the same file always loads the same way.
                let sorted: BTreeMap<&String, &Pod> = map.iter().collect();
                Ok(sorted
                    .into_iter()
                    .map(|(name, config)| Value::Object([(name.clone(), to_json(config))].into_iter().collect()))
                    .collect())
            }
            Some(other) => Err(self.bad("mcpServers", format!("{expected} (got {})", shown(other)))),
        }
    }
}

/// Claude Code loads files whose single-line values contain `: ` (its `/agents` generator writes
/// descriptions like `Use this agent when... Examples: <example>Context: ...`), which strict YAML
/// rejects. Such a line is never valid YAML, so quoting its value changes nothing that parsed before.
/// Only top-level `key: value` lines of the front matter are touched; the body is kept byte for byte.
/// Returns the new text and the keys whose values were quoted (none: nothing to repair).
fn quote_colon_values(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len() + 64);
    let mut keys = Vec::new();
    let mut lines = text.split_inclusive('\n');
    out.extend(lines.next());
    for line in lines.by_ref() {
        let content = line.trim_end();
        if content == DELIMITER {
            out.push_str(line);
            break;
        }
        let quotable = content.split_once(": ").filter(|(key, value)| {
            let value = value.trim();
            !key.is_empty()
                && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                && (value.contains(": ") || value.ends_with(':'))
                && !value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!', '#'])
        });
        match quotable {
            Some((key, value)) => {
                // Single quotes take everything literally, so backslashes stay as written.
                out.push_str(&format!("{key}: '{}'\n", value.trim().replace('\'', "''")));
                keys.push(key.to_string());
            }
            None => out.push_str(line),
        }
    }
    out.extend(lines);
    (out, keys)
}

fn to_json(pod: &Pod) -> Value {
    match pod {
        Pod::Null => Value::Null,
        Pod::String(s) => Value::String(s.clone()),
        Pod::Integer(n) => Value::from(*n),
        Pod::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
        Pod::Boolean(b) => Value::Bool(*b),
        Pod::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Pod::Hash(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
    }
}

/// A value as it appears in an error message: JSON, cut short so a pasted essay stays readable.
fn shown(pod: &Pod) -> String {
    const MAX_CHARS: usize = 60;
    let text = to_json(pod).to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
