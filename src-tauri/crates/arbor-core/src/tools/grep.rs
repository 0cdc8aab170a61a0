//! Grep: searches file contents with a regex, ripgrep style, using ripgrep's own crates.
//!
//! Files ignored by .gitignore and binary files are skipped, as `rg` does, so
//! results stay about source the model can read. Binary detection stops at the
//! first NUL; a file found binary part-way has its earlier hits dropped too.

use super::output::{MAX_TOOL_OUTPUT_CHARS, cap_output};
use super::{Tool, ToolClass, ToolContext, ToolResult, parse_input, resolve, schema_of};
use crate::workspace::Workspace;
use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkFinish, SinkMatch};
use ignore::WalkBuilder;
use ignore::types::TypesBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tokio_util::sync::CancellationToken;

/// Searches the contents of the workspace's files.
pub struct GrepTool;

const MAX_LINE_CHARS: usize = 2000;

const DESCRIPTION: &str = "A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke `grep` or `rg` as a Bash command.
- Supports full regex syntax (e.g. \"log.*Error\", \"function\\s+\\w+\").
- Filter files with the glob parameter (e.g. \"*.js\", \"**/*.tsx\") or the type parameter (e.g. \"js\", \"py\", \"rust\").
- Output modes: \"content\" shows matching lines, \"files_with_matches\" shows only file paths, newest first (default), \"count\" shows match counts.
- Pattern syntax: uses ripgrep (not grep); literal braces need escaping (use `interface\\{\\}` to find `interface{}` in Go code).
- Multiline matching: by default patterns match within single lines only. For cross-line patterns, use multiline: true.
- Files ignored by .gitignore/.ignore, hidden files and binary files are skipped.";

/// "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches"
#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

#[derive(Deserialize, JsonSchema)]
struct GrepInput {
    /// The regular expression pattern to search for in file contents
    pattern: String,
    /// File or directory to search in (absolute, or relative to the workspace root). Defaults to the workspace root
    path: Option<String>,
    /// Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}", "src/**/*.rs"). A pattern without "/" matches file names
    glob: Option<String>,
    /// File type to search, as ripgrep's --type (e.g. js, py, rust, go, java)
    #[serde(rename = "type")]
    file_type: Option<String>,
    output_mode: Option<Mode>,
    /// Case insensitive search
    #[serde(rename = "-i")]
    case_insensitive: Option<bool>,
    /// Show line numbers in output. Requires output_mode: "content". Defaults to true
    #[serde(rename = "-n")]
    line_numbers: Option<bool>,
    /// Number of lines to show after each match. Requires output_mode: "content"
    #[serde(rename = "-A")]
    after: Option<usize>,
    /// Number of lines to show before each match. Requires output_mode: "content"
    #[serde(rename = "-B")]
    before: Option<usize>,
    /// Number of lines to show before and after each match. Requires output_mode: "content"
    #[serde(rename = "-C")]
    context: Option<usize>,
    /// Limit output to the first N lines/entries, like "| head -N". Defaults to no limit (output is still capped at 30,000 characters)
    head_limit: Option<usize>,
    /// Skip the first N lines/entries before applying head_limit. Defaults to 0
    offset: Option<usize>,
    /// Enable multiline mode where . matches newlines and patterns can span lines. Default: false
    multiline: Option<bool>,
}

#[async_trait]
impl Tool for GrepTool {
    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<GrepInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::ReadOnly
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: GrepInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let path = input.path.as_deref().filter(|p| !p.trim().is_empty());
        let (root, shown) = match resolve(&ctx.workspace, path.unwrap_or(".")) {
            Ok(r) => (r.path, r.shown),
            Err(r) => return r,
        };
        if let Err(e) = tokio::fs::metadata(&root).await {
            return ToolResult::error(match e.kind() {
                io::ErrorKind::NotFound => format!("Path does not exist: {shown}"),
                _ => format!("Cannot search {shown}: {e}"),
            });
        }
        let job = match Job::new(&input, root, ctx) {
            Ok(j) => j,
            Err(e) => return ToolResult::error(e),
        };
        let (mode, skip, head) = (job.mode, input.offset.unwrap_or(0), input.head_limit);
        let found = match tokio::task::spawn_blocking(move || job.run()).await {
            Ok(Some(found)) => found,
            Ok(None) => return ToolResult::error("Grep cancelled"),
            Err(e) => return ToolResult::error(format!("Grep failed: {e}")),
        };
        ToolResult::ok(render(found, mode, skip, head))
    }
}

/// Everything the blocking search needs, checked before it starts.
struct Job {
    root: PathBuf,
    mode: Mode,
    matcher: RegexMatcher,
    searcher: Searcher,
    glob: Option<(GlobMatcher, bool)>,
    types: Option<ignore::types::Types>,
    line_numbers: bool,
    workspace: Workspace,
    cancel: CancellationToken,
}

/// What the search found.
struct Found {
    /// Output entries: paths, `path:count` or content lines.
    entries: Vec<String>,
    /// True when the content search stopped early because it had more than fits.
    stopped_early: bool,
}

impl Job {
    fn new(input: &GrepInput, root: PathBuf, ctx: &ToolContext) -> Result<Self, String> {
        let multiline = input.multiline.unwrap_or(false);
        let mut rb = RegexMatcherBuilder::new();
        rb.case_insensitive(input.case_insensitive.unwrap_or(false));
        if multiline {
            rb.multi_line(true).dot_matches_new_line(true);
        } else {
            // Lets the searcher go line by line; a pattern needing "\n" is then rejected clearly.
            rb.line_terminator(Some(b'\n'));
        }
        let matcher =
            rb.build(&input.pattern).map_err(|e| format!("Invalid regex pattern {:?}: {e}", input.pattern))?;
        let mode = input.output_mode.unwrap_or_default();
        let content = mode == Mode::Content;
        let before = input.before.or(input.context).unwrap_or(0);
        let after = input.after.or(input.context).unwrap_or(0);
        let line_numbers = content && input.line_numbers.unwrap_or(true);
        let searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(0))
            .line_number(line_numbers)
            .multi_line(multiline)
            .before_context(if content { before } else { 0 })
            .after_context(if content { after } else { 0 })
            .build();
        let glob = match input.glob.as_deref().filter(|g| !g.is_empty()) {
            None => None,
            Some(g) => {
                let m = GlobBuilder::new(g.strip_prefix("./").unwrap_or(g))
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("Invalid glob {g:?}: {e}"))?;
                Some((m.compile_matcher(), g.contains('/')))
            }
        };
        let types = match input.file_type.as_deref().filter(|t| !t.is_empty()) {
            None => None,
            Some(t) => {
                let mut tb = TypesBuilder::new();
                tb.add_defaults();
                tb.select(t);
                Some(tb.build().map_err(|e| format!("Invalid type {t:?}: {e}"))?)
            }
        };
        Ok(Self {
            root,
            mode,
            matcher,
            searcher,
            glob,
            types,
            line_numbers,
            workspace: ctx.workspace.clone(),
            cancel: ctx.cancel.clone(),
        })
    }

    /// Walks and searches; `None` when cancelled.
    fn run(mut self) -> Option<Found> {
        let mut walk = WalkBuilder::new(&self.root);
        walk.require_git(false).sort_by_file_name(|a, b| a.cmp(b));
        if let Some(types) = self.types.take() {
            walk.types(types);
        }
        let with_context = self.searcher.before_context() > 0 || self.searcher.after_context() > 0;
        let mut hits: Vec<(SystemTime, String, Vec<String>)> = Vec::new();
        let mut chars = 0;
        for entry in walk.build() {
            if self.cancel.is_cancelled() {
                return None;
            }
            let Ok(entry) = entry else { continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) || !self.wanted(entry.path(), entry.depth()) {
                continue;
            }
            let shown = self.workspace.display(entry.path());
            let mut sink = Collect {
                mode: self.mode,
                shown: &shown,
                numbers: self.line_numbers,
                lines: Vec::new(),
                count: 0,
                binary: false,
            };
            // Unreadable files are skipped, as ripgrep does.
            if self.searcher.search_path(&self.matcher, entry.path(), &mut sink).is_err()
                || sink.binary
                || sink.count == 0
            {
                continue;
            }
            let entries = match self.mode {
                Mode::FilesWithMatches => vec![shown.clone()],
                Mode::Count => vec![format!("{shown}:{}", sink.count)],
                Mode::Content => {
                    if with_context && !hits.is_empty() {
                        sink.lines.insert(0, "--".to_string());
                    }
                    sink.lines
                }
            };
            chars += entries.iter().map(|l| l.len() + 1).sum::<usize>();
            let mtime = entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
            hits.push((mtime, shown, entries));
            // Paths and counts are small and must all be seen to sort by mtime; lines may not be.
            if self.mode == Mode::Content && chars > 2 * MAX_TOOL_OUTPUT_CHARS {
                return Some(Found { entries: hits.into_iter().flat_map(|h| h.2).collect(), stopped_early: true });
            }
        }
        if self.mode == Mode::FilesWithMatches {
            hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        }
        Some(Found { entries: hits.into_iter().flat_map(|h| h.2).collect(), stopped_early: false })
    }

    /// Whether the glob filter admits a walked file; a file named as `path` itself always is.
    fn wanted(&self, path: &Path, depth: usize) -> bool {
        let Some((glob, whole_path)) = &self.glob else {
            return true;
        };
        if depth == 0 {
            return true;
        }
        if *whole_path {
            path.strip_prefix(&self.root).is_ok_and(|rel| glob.is_match(rel))
        } else {
            path.file_name().is_some_and(|name| glob.is_match(name))
        }
    }
}

/// Collects one file's results.
struct Collect<'a> {
    mode: Mode,
    shown: &'a str,
    numbers: bool,
    lines: Vec<String>,
    count: u64,
    binary: bool,
}

impl Collect<'_> {
    fn push(&mut self, sep: char, number: Option<u64>, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\n', '\r']);
        let text = match text.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_string(),
        };
        self.lines.push(match number {
            Some(n) if self.numbers => format!("{}{sep}{n}{sep}{text}", self.shown),
            _ => format!("{}{sep}{text}", self.shown),
        });
    }
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        match self.mode {
            // One match is enough to list the file.
            Mode::FilesWithMatches => return Ok(false),
            Mode::Count => {}
            Mode::Content => {
                let first = m.line_number();
                for (i, line) in m.lines().enumerate() {
                    self.push(':', first.map(|n| n + i as u64), line);
                }
            }
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push('-', c.line_number(), c.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        self.lines.push("--".to_string());
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }

    fn finish(&mut self, _: &Searcher, f: &SinkFinish) -> Result<(), io::Error> {
        self.binary |= f.binary_byte_offset().is_some();
        Ok(())
    }
}

fn render(found: Found, mode: Mode, skip: usize, head: Option<usize>) -> String {
    let total = found.entries.len();
    if total == 0 {
        return "No matches found".to_string();
    }
    let shown: Vec<String> = found.entries.into_iter().skip(skip).take(head.unwrap_or(usize::MAX)).collect();
    if shown.is_empty() {
        return format!("No results at offset {skip}: there are only {total}");
    }
    let end = skip + shown.len();
    let mut out = shown.join("\n");
    if found.stopped_early {
        out.push_str(
            "\n\n(Search stopped early: too much output. Narrow it with path, glob, type or a more specific pattern.)",
        );
    } else if end < total {
        let what = if mode == Mode::Content { "lines" } else { "entries" };
        out.push_str(&format!("\n\n(Showing {what} {}-{end} of {total}; use offset={end} to see more.)", skip + 1));
    }
    cap_output(&out, MAX_TOOL_OUTPUT_CHARS)
}

#[cfg(test)]
mod tests;
