//! Subagent types: Claude Code's agent files (Markdown with YAML front matter)
//! read from the workspace and the user's config dir (design.md §3.6).
//!
//! Files written for Claude Code load unchanged: unknown fields are noted and
//! ignored, since Claude Code adds fields over time. A bad file is reported and
//! skipped; it never stops the others from loading. What a definition's fields
//! are allowed to do (e.g. whether `permissionMode` may loosen the parent's
//! policy) is decided where agents are started, not here.

use crate::config::ToolFilter;
use gray_matter::engine::YAML;
use gray_matter::{Matter, Pod};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The type a Task call names when it gives no `subagent_type`: a child that
/// inherits its parent's model, provider, system prompt and tools.
pub use arbor_protocol::GENERAL_PURPOSE;

/// Where a definition was found; later sources win on a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefinitionSource {
    /// `<workspace>/.claude/agents/`
    ClaudeProject,
    /// `<workspace>/.arbor/agents/`
    ArborProject,
    /// The user's config dir (`~/.config/arbor/agents/`).
    User,
}

/// Claude Code's `permissionMode`. Arbor never lets a definition loosen its
/// parent's policy unless it comes from the user's own config dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// The parent's policy.
    #[default]
    Default,
    /// File edits run without asking.
    AcceptEdits,
    /// Everything runs without asking.
    BypassPermissions,
    /// Read-only: anything that changes something is refused.
    Plan,
    /// Whatever would ask is refused instead.
    DontAsk,
}

/// The spellings `permissionMode` accepts, as Claude Code writes them.
const PERMISSION_MODES: [(&str, PermissionMode); 5] = [
    ("default", PermissionMode::Default),
    ("acceptEdits", PermissionMode::AcceptEdits),
    ("bypassPermissions", PermissionMode::BypassPermissions),
    ("plan", PermissionMode::Plan),
    ("dontAsk", PermissionMode::DontAsk),
];

/// One subagent type.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// What a Task call's `subagent_type` names it by.
    pub name: String,
    /// When to use it: shown to the parent's model so it can choose.
    pub description: String,
    /// The Markdown body.
    pub system_prompt: String,
    /// `tools` (None: all the parent's) and `disallowedTools`.
    pub tools: ToolFilter,
    /// None or `inherit`: the parent's model. Claude Code's aliases (sonnet, opus, haiku) are kept as written.
    pub model: Option<String>,
    /// Arbor's addition: a key of the session's providers; None: the parent's.
    pub provider: Option<String>,
    /// `maxTurns`; None: the session's default for subagents.
    pub max_turns: Option<u32>,
    /// `permissionMode`; [`PermissionMode::Default`] when not given.
    pub permission_mode: PermissionMode,
    /// `mcpServers` as written (names of configured servers, or inline configs).
    pub mcp_servers: Vec<serde_json::Value>,
    /// `color`: how the UI marks this type's agents.
    pub color: Option<String>,
    /// The file it came from; None for built-in types.
    pub file: Option<PathBuf>,
    /// Which directory the file came from; None for built-in types.
    pub source: Option<DefinitionSource>,
}

/// What loading found: the definitions (later sources winning on a name clash, sorted by name) and every problem.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// One per name, sorted by name.
    pub definitions: Vec<AgentDefinition>,
    /// Skipped files and notes on loaded ones, in the order the files were read.
    pub problems: Vec<DefinitionProblem>,
}

impl Catalog {
    /// The definition named `name`. [`GENERAL_PURPOSE`] is None unless a file defines it:
    /// the built-in type is made from the parent, which this catalog does not know.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// Every name a Task call may give, sorted; [`GENERAL_PURPOSE`] is always one.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
        if !names.contains(&GENERAL_PURPOSE) {
            names.push(GENERAL_PURPOSE);
        }
        names.sort_unstable();
        names
    }
}

/// A file that was skipped (error) or loaded with a note (warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionProblem {
    /// The agent file (or a directory that could not be read).
    pub file: PathBuf,
    /// The front-matter field at fault, as written in the file (`maxTurns`); None for the file as a whole.
    pub field: Option<String>,
    /// What is wrong, for a person to read.
    pub reason: String,
    /// True: nothing from this file was loaded. False: a warning; the definition loaded.
    pub skipped: bool,
}

impl DefinitionProblem {
    fn error(file: &Path, field: Option<&str>, reason: impl Into<String>) -> Self {
        Self { file: file.to_path_buf(), field: field.map(str::to_string), reason: reason.into(), skipped: true }
    }

    fn warning(file: &Path, field: Option<&str>, reason: impl Into<String>) -> Self {
        Self { skipped: false, ..Self::error(file, field, reason) }
    }
}

impl fmt::Display for DefinitionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file.display())?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.reason)?;
        if self.skipped {
            f.write_str("; the file was skipped")?;
        }
        Ok(())
    }
}

impl std::error::Error for DefinitionProblem {}

/// Larger than any real agent file: a bigger one is a mistake, not a prompt.
const MAX_FILE_BYTES: usize = 1 << 20;

const DELIMITER: &str = "---";

/// The fields read; any other is noted and ignored.
const KNOWN_FIELDS: [&str; 10] = [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "provider",
    "permissionMode",
    "maxTurns",
    "mcpServers",
    "color",
];

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
        match PERMISSION_MODES.iter().find(|(spelling, _)| *spelling == value) {
            Some((_, mode)) => Ok(*mode),
            None => {
                let accepted: Vec<String> = PERMISSION_MODES.iter().map(|(s, _)| format!("`{s}`")).collect();
                Err(self.bad("permissionMode", format!("must be one of {} (got {value:?})", accepted.join(", "))))
            }
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

/// The directories searched, in order (later wins): `<workspace>/.claude/agents`,
/// `<workspace>/.arbor/agents`, then `user_dir` if given.
pub fn search_dirs(workspace: &Path, user_dir: Option<&Path>) -> Vec<(PathBuf, DefinitionSource)> {
    let mut dirs = vec![
        (workspace.join(".claude").join("agents"), DefinitionSource::ClaudeProject),
        (workspace.join(".arbor").join("agents"), DefinitionSource::ArborProject),
    ];
    dirs.extend(user_dir.map(|dir| (dir.to_path_buf(), DefinitionSource::User)));
    dirs
}

/// Loads every `*.md` file under each directory (sub-directories too, as Claude Code does).
/// A missing directory is skipped silently; a bad file is reported in [`Catalog::problems`]
/// and the rest still load. Within a directory the later path wins a name clash (with a
/// warning); across directories the later directory wins silently, since overriding a
/// project's type from the user's dir is the point of the order.
pub fn load(dirs: &[(PathBuf, DefinitionSource)]) -> Catalog {
    let mut by_name: BTreeMap<String, AgentDefinition> = BTreeMap::new();
    let mut problems = Vec::new();
    for (dir, source) in dirs {
        let mut files = Vec::new();
        collect_files(dir, &mut HashSet::new(), &mut files, &mut problems);
        files.sort();
        let mut in_dir: BTreeMap<String, AgentDefinition> = BTreeMap::new();
        for file in files {
            match read_text(&file).and_then(|text| parse_definition(&text, &file, *source)) {
                Ok((definition, warnings)) => {
                    problems.extend(warnings);
                    if let Some(earlier) = in_dir.get(&definition.name).and_then(|d| d.file.as_ref()) {
                        problems.push(DefinitionProblem::warning(
                            &file,
                            Some("name"),
                            format!(
                                "`{}` is also defined by {}; this file replaces it",
                                definition.name,
                                earlier.display()
                            ),
                        ));
                    }
                    in_dir.insert(definition.name.clone(), definition);
                }
                Err(problem) => problems.push(problem),
            }
        }
        by_name.extend(in_dir);
    }
    Catalog { definitions: by_name.into_values().collect(), problems }
}

/// Gathers `*.md` files under `dir`, following symlinks (agent dirs are often linked from
/// dotfiles) but entering each real directory once, so a link cycle cannot loop.
fn collect_files(
    dir: &Path,
    seen: &mut HashSet<PathBuf>,
    files: &mut Vec<PathBuf>,
    problems: &mut Vec<DefinitionProblem>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            problems.push(DefinitionProblem::error(dir, None, format!("could not read the directory: {e}")));
            return;
        }
    };
    if !seen.insert(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())) {
        return;
    }
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(e) => {
                problems.push(DefinitionProblem::error(dir, None, format!("could not list the directory: {e}")));
                continue;
            }
        };
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => collect_files(&path, seen, files, problems),
            Ok(_) if path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("md")) => files.push(path),
            Ok(_) => {}
            // A dangling symlink to something that was never an agent file is not worth a report.
            Err(_) if path.extension().is_none_or(|ext| !ext.eq_ignore_ascii_case("md")) => {}
            Err(e) => problems.push(DefinitionProblem::error(&path, None, format!("could not read the file: {e}"))),
        }
    }
}

fn read_text(file: &Path) -> Result<String, DefinitionProblem> {
    let unreadable = |e: std::io::Error| DefinitionProblem::error(file, None, format!("could not read the file: {e}"));
    let mut bytes = Vec::new();
    // Read one byte past the limit rather than trusting the size from metadata, which may change.
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(unreadable)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(DefinitionProblem::error(file, None, "larger than 1 MiB, too large for an agent file"));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        DefinitionProblem::error(file, None, format!("not UTF-8 text (invalid bytes at offset {offset})"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const CODE_REVIEWER: &str = "---
name: code-reviewer
description: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash
model: inherit
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
2. Focus on modified files
3. Begin review immediately
";

    const FULL: &str = "---
name: planner
description: Plans changes without making them.
tools:
  - Read
  - Grep
  - Bash(git log:*)
model: sonnet
provider: openai
permissionMode: plan
maxTurns: 5
color: blue
mcpServers: [github]
disallowedTools: Write, Edit
---
Plan only.
";

    fn parse(text: &str) -> Result<(AgentDefinition, Vec<DefinitionProblem>), DefinitionProblem> {
        parse_definition(text, Path::new("/w/.claude/agents/x.md"), DefinitionSource::ClaudeProject)
    }

    fn parse_err(text: &str) -> DefinitionProblem {
        match parse(text) {
            Ok((definition, _)) => panic!("expected an error, loaded {definition:?}"),
            Err(problem) => problem,
        }
    }

    fn agent(name: &str, extra: &str) -> String {
        format!("---\nname: {name}\ndescription: The {name} agent.\n{extra}---\nBody of {name}.\n")
    }

    #[test]
    fn a_claude_code_agent_file_loads_unchanged() {
        let (definition, warnings) = parse(CODE_REVIEWER).unwrap();
        assert_eq!(
            definition,
            AgentDefinition {
                name: "code-reviewer".into(),
                description: "Expert code review specialist. Proactively reviews code for quality, security, and \
                              maintainability. Use immediately after writing or modifying code."
                    .into(),
                system_prompt: "You are a senior code reviewer ensuring high standards of code quality and \
                                security.\n\nWhen invoked:\n1. Run git diff to see recent changes\n2. Focus on \
                                modified files\n3. Begin review immediately"
                    .into(),
                tools: ToolFilter {
                    allow: Some(vec!["Read".into(), "Grep".into(), "Glob".into(), "Bash".into()]),
                    deny: vec![],
                },
                model: None,
                provider: None,
                max_turns: None,
                permission_mode: PermissionMode::Default,
                mcp_servers: vec![],
                color: None,
                file: Some(PathBuf::from("/w/.claude/agents/x.md")),
                source: Some(DefinitionSource::ClaudeProject),
            }
        );
        assert_eq!(warnings, vec![]);
    }

    #[test]
    fn every_field_is_read() {
        let (d, warnings) = parse(FULL).unwrap();
        assert_eq!(d.tools.allow, Some(vec!["Read".to_string(), "Grep".into(), "Bash".into()]));
        assert_eq!(d.tools.deny, vec!["Write".to_string(), "Edit".into()]);
        assert_eq!(d.model.as_deref(), Some("sonnet"));
        assert_eq!(d.provider.as_deref(), Some("openai"));
        assert_eq!(d.permission_mode, PermissionMode::Plan);
        assert_eq!(d.max_turns, Some(5));
        assert_eq!(d.color.as_deref(), Some("blue"));
        assert_eq!(d.mcp_servers, vec![serde_json::json!("github")]);
        assert_eq!(d.system_prompt, "Plan only.");
        // The pattern is dropped, which widens what the agent may run: say so.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].field.as_deref(), Some("tools"));
        assert!(warnings[0].reason.contains("Bash(git log:*)") && !warnings[0].skipped);
    }

    #[test]
    fn tool_lists_drop_empty_entries_and_keep_mcp_names() {
        let (d, _) = parse(&agent("a", "tools: Read, , mcp__github__create_issue,\n")).unwrap();
        assert_eq!(d.tools.allow, Some(vec!["Read".to_string(), "mcp__github__create_issue".into()]));
        let (d, _) = parse(&agent("a", "tools: '*'\n")).unwrap();
        assert_eq!(d.tools.allow, None);
        let (d, _) = parse(&agent("a", "tools: []\n")).unwrap();
        assert_eq!(d.tools.allow, Some(vec![]));
    }

    #[test]
    fn mcp_servers_as_a_map_become_one_object_each() {
        let extra = "mcpServers:\n  zeta: {command: z}\n  alpha:\n    command: npx\n    args: [srv]\n";
        let (d, _) = parse(&agent("a", extra)).unwrap();
        assert_eq!(
            d.mcp_servers,
            vec![
                serde_json::json!({"alpha": {"command": "npx", "args": ["srv"]}}),
                serde_json::json!({"zeta": {"command": "z"}}),
            ]
        );
        let (d, _) = parse(&agent("a", "mcpServers:\n  - github\n  - local: {command: srv}\n")).unwrap();
        assert_eq!(d.mcp_servers, vec![serde_json::json!("github"), serde_json::json!({"local": {"command": "srv"}})]);
    }

    #[test]
    fn unknown_fields_are_warnings() {
        let (d, warnings) = parse(&agent("a", "skills: [x]\nhooks: {}\n")).unwrap();
        assert_eq!(d.name, "a");
        let fields: Vec<_> = warnings.iter().map(|w| (w.field.as_deref(), w.skipped)).collect();
        assert_eq!(fields, vec![(Some("hooks"), false), (Some("skills"), false)]);
    }

    #[test]
    fn bad_fields_skip_the_file_and_name_the_field() {
        let cases: [(&str, String, Option<&str>); 10] = [
            ("missing name", "---\ndescription: d\n---\nb".into(), Some("name")),
            ("name with a space", agent("code reviewer", ""), Some("name")),
            ("name with a slash", agent("a/b", ""), Some("name")),
            ("missing description", "---\nname: a\n---\nb".into(), Some("description")),
            ("empty description", "---\nname: a\ndescription: ''\n---\nb".into(), Some("description")),
            ("bad maxTurns", agent("a", "maxTurns: 0\n"), Some("maxTurns")),
            ("bad permissionMode", agent("a", "permissionMode: yolo\n"), Some("permissionMode")),
            ("no front matter", "# Just markdown\n".into(), None),
            ("unclosed front matter", "---\nname: a\ndescription: d\n".into(), None),
            ("invalid YAML", "---\nname: [a\ndescription: d\n---\nb".into(), None),
        ];
        for (case, text, field) in cases {
            let problem = parse_err(&text);
            assert_eq!(problem.field.as_deref(), field, "{case}: {problem}");
            assert!(problem.skipped, "{case}");
            assert_eq!(problem.file, Path::new("/w/.claude/agents/x.md"), "{case}");
        }
    }

    #[test]
    fn unquoted_colons_in_a_value_load_as_claude_code_does() {
        let description =
            r#"Use this agent to review a PR. Examples:\n<example>\nContext: A PR.\nuser: "Review PR 78"\n</example>"#;
        let text =
            format!("---\nname: pr-reviewer\ndescription: {description}\nmodel: opus\n---\nReview.\nNote: kept\n");
        let (d, warnings) = parse(&text).unwrap();
        assert_eq!(d.description, description);
        assert_eq!(d.model.as_deref(), Some("opus"));
        assert_eq!(d.system_prompt, "Review.\nNote: kept");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!((warnings[0].field.as_deref(), warnings[0].skipped), (Some("description"), false));
        // Errors the quoting cannot explain are still reported as invalid YAML.
        let problem = parse_err("---\nname: [a\ndescription: x: y\n---\n");
        assert!(problem.reason.contains("not valid YAML"), "{problem}");
    }

    #[test]
    fn problems_read_well() {
        let problem = parse_err(&agent("a", "maxTurns: ten\n"));
        assert_eq!(
            problem.to_string(),
            "/w/.claude/agents/x.md: field `maxTurns`: must be an integer of at least 1 (got \"ten\"); \
             the file was skipped"
        );
        let problem = parse_err(&agent("a", "permissionMode: yolo\n"));
        assert!(problem.reason.contains("`acceptEdits`") && problem.reason.contains("`dontAsk`"), "{problem}");
        assert!(parse_err("---\nname: [a\n---\n").reason.contains("not valid YAML"));
    }

    #[test]
    fn a_bad_file_is_reported_and_the_rest_load() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("good.md"), CODE_REVIEWER).unwrap();
        fs::write(dir.path().join("bad.md"), agent("bad", "maxTurns: ten\n")).unwrap();
        fs::write(dir.path().join("notes.txt"), "not an agent").unwrap();
        fs::create_dir(dir.path().join("nested")).unwrap();
        fs::write(dir.path().join("nested/deep.md"), agent("deep", "")).unwrap();
        fs::write(dir.path().join("latin1.md"), b"---\nname: caf\xe9\n---\n").unwrap();
        let catalog = load(&[(dir.path().to_path_buf(), DefinitionSource::ArborProject)]);
        assert_eq!(catalog.names(), vec!["code-reviewer", "deep", "general-purpose"]);
        let skipped: Vec<_> = catalog.problems.iter().filter(|p| p.skipped).map(|p| p.file.clone()).collect();
        assert_eq!(skipped, vec![dir.path().join("bad.md"), dir.path().join("latin1.md")]);
        assert!(catalog.problems[1].reason.contains("UTF-8"), "{}", catalog.problems[1]);
        assert_eq!(catalog.get("deep").unwrap().source, Some(DefinitionSource::ArborProject));
    }

    #[test]
    fn an_oversized_file_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let text = agent("big", "") + &"x".repeat(MAX_FILE_BYTES);
        fs::write(dir.path().join("big.md"), text).unwrap();
        let catalog = load(&[(dir.path().to_path_buf(), DefinitionSource::User)]);
        assert!(catalog.definitions.is_empty());
        assert!(catalog.problems[0].skipped && catalog.problems[0].reason.contains("1 MiB"));
    }

    #[test]
    fn the_later_directory_wins_and_missing_ones_are_silent() {
        let workspace = tempfile::tempdir().unwrap();
        let user = tempfile::tempdir().unwrap();
        let claude = workspace.path().join(".claude/agents");
        fs::create_dir_all(&claude).unwrap();
        fs::write(claude.join("r.md"), agent("reviewer", "model: haiku\n")).unwrap();
        fs::write(claude.join("only.md"), agent("only-claude", "")).unwrap();
        fs::write(user.path().join("r.md"), agent("reviewer", "model: opus\n")).unwrap();
        // `.arbor/agents` does not exist.
        let catalog = load(&search_dirs(workspace.path(), Some(user.path())));
        assert_eq!(catalog.problems, vec![]);
        assert_eq!(catalog.names(), vec!["general-purpose", "only-claude", "reviewer"]);
        let reviewer = catalog.get("reviewer").unwrap();
        assert_eq!(reviewer.model.as_deref(), Some("opus"));
        assert_eq!(reviewer.source, Some(DefinitionSource::User));
    }

    #[test]
    fn a_name_clash_within_a_directory_warns_and_the_later_file_wins() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), agent("twin", "color: red\n")).unwrap();
        fs::write(dir.path().join("b.md"), agent("twin", "color: green\n")).unwrap();
        let catalog = load(&[(dir.path().to_path_buf(), DefinitionSource::ClaudeProject)]);
        assert_eq!(catalog.get("twin").unwrap().color.as_deref(), Some("green"));
        assert_eq!(catalog.problems.len(), 1);
        let warning = &catalog.problems[0];
        assert!(!warning.skipped && warning.file == dir.path().join("b.md"), "{warning}");
        assert!(warning.reason.contains("a.md"), "{warning}");
    }

    #[test]
    fn search_dirs_are_in_precedence_order() {
        let dirs = search_dirs(Path::new("/w"), Some(Path::new("/home/u/.config/arbor/agents")));
        assert_eq!(
            dirs,
            vec![
                (PathBuf::from("/w/.claude/agents"), DefinitionSource::ClaudeProject),
                (PathBuf::from("/w/.arbor/agents"), DefinitionSource::ArborProject),
                (PathBuf::from("/home/u/.config/arbor/agents"), DefinitionSource::User),
            ]
        );
        assert_eq!(search_dirs(Path::new("/w"), None).len(), 2);
    }

    #[test]
    fn general_purpose_is_always_a_name() {
        assert_eq!(Catalog::default().names(), vec![GENERAL_PURPOSE]);
        let catalog = load(&[]);
        assert!(catalog.get(GENERAL_PURPOSE).is_none());
    }

    #[test]
    fn crlf_and_bom_are_accepted() {
        let text = format!("\u{feff}{}", CODE_REVIEWER.replace('\n', "\r\n"));
        let (d, _) = parse(&text).unwrap();
        assert_eq!(d.name, "code-reviewer");
        assert!(d.system_prompt.ends_with("3. Begin review immediately"));
        assert!(!d.system_prompt.contains('\r'));
    }
}
