//! Glob: finds files by name pattern, newest first.
//!
//! Walks like ripgrep does (honouring .gitignore and .ignore, skipping hidden
//! files) so build output and dependencies do not drown the results, and sorts
//! by modification time because recently touched files are usually the relevant ones.

use super::output::{MAX_TOOL_OUTPUT_CHARS, cap_output, thousands};
use super::{Tool, ToolClass, ToolContext, ToolResult, parse_input, resolve, schema_of};
use async_trait::async_trait;
use globset::GlobBuilder;
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

/// Finds files of the workspace whose path matches a glob pattern.
pub struct GlobTool;

const MAX_RESULTS: usize = 1000;

const DESCRIPTION: &str = "Fast file pattern matching tool that works with any codebase size.
- Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\"; patterns are matched against paths relative to the searched directory (\"*\" does not cross \"/\", \"**\" does).
- Returns matching file paths (relative to the workspace root) sorted by modification time, newest first.
- Files ignored by .gitignore/.ignore and hidden files are skipped.
- Use this tool when you need to find files by name patterns. To search file contents, use Grep.
- You can call multiple tools in a single response. It is always better to speculatively perform multiple searches in parallel if they are potentially useful.";

#[derive(Deserialize, JsonSchema)]
struct GlobInput {
    /// The glob pattern to match files against
    pattern: String,
    /// The directory to search in (absolute, or relative to the workspace root). If not specified, the workspace root is used. IMPORTANT: omit this field to use the default directory; do not enter "undefined" or "null"
    path: Option<String>,
}

#[async_trait]
impl Tool for GlobTool {
    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<GlobInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::ReadOnly
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: GlobInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let path = input.path.as_deref().filter(|p| !p.trim().is_empty());
        let (root, shown) = match resolve(&ctx.workspace, path.unwrap_or(".")) {
            Ok(r) => (r.path, r.shown),
            Err(r) => return r,
        };
        match tokio::fs::metadata(&root).await {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return ToolResult::error(format!(
                    "{shown} is not a directory; Glob searches a directory (use Read for a file)"
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return ToolResult::error(format!("Path does not exist: {shown}"));
            }
            Err(e) => return ToolResult::error(format!("Cannot search {shown}: {e}")),
        }
        // An absolute pattern under the search root means the same as its relative tail.
        let root_prefix = format!("{}/", root.display());
        let pattern = input.pattern.strip_prefix(&root_prefix).unwrap_or(&input.pattern);
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        let matcher = match GlobBuilder::new(pattern).literal_separator(true).build() {
            Ok(g) => g.compile_matcher(),
            Err(e) => return ToolResult::error(format!("Invalid glob pattern: {e}")),
        };
        let cancel = ctx.cancel.clone();
        let walk_root = root.clone();
        let job = tokio::task::spawn_blocking(move || {
            let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
            for entry in WalkBuilder::new(&walk_root).require_git(false).build() {
                if cancel.is_cancelled() {
                    return None;
                }
                // Unreadable entries are skipped, as ripgrep does.
                let Ok(entry) = entry else { continue };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let Ok(rel) = entry.path().strip_prefix(&walk_root) else {
                    continue;
                };
                if matcher.is_match(rel) {
                    let mtime = entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
                    found.push((mtime, entry.into_path()));
                }
            }
            found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            Some(found)
        });
        let found = match job.await {
            Ok(Some(found)) => found,
            Ok(None) => return ToolResult::error("Glob cancelled"),
            Err(e) => return ToolResult::error(format!("Glob failed: {e}")),
        };
        if found.is_empty() {
            return ToolResult::ok("No files found");
        }
        let total = found.len();
        let mut out: Vec<String> = found.iter().take(MAX_RESULTS).map(|(_, p)| ctx.workspace.display(p)).collect();
        if total > MAX_RESULTS {
            out.push(format!(
                "(Results are truncated: showing the {} most recently modified of {} files. Use a more specific path or pattern.)",
                thousands(MAX_RESULTS),
                thousands(total)
            ));
        }
        ToolResult::ok(cap_output(&out.join("\n"), MAX_TOOL_OUTPUT_CHARS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_ctx;
    use serde_json::json;
    use std::path::Path;
    use std::time::Duration;

    fn touch(dir: &Path, rel: &str, age_secs: u64) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let f = std::fs::File::create(&p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_secs)).unwrap();
    }

    async fn glob(dir: &Path, input: Value) -> ToolResult {
        GlobTool.call(input, &test_ctx(dir)).await
    }

    #[tokio::test]
    async fn matches_relative_to_the_search_root_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "a.rs", 300);
        touch(dir.path(), "src/b.rs", 100);
        touch(dir.path(), "src/deep/c.rs", 200);
        touch(dir.path(), "src/d.ts", 0);
        let r = glob(dir.path(), json!({"pattern": "**/*.rs"})).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(r.content, "src/b.rs\nsrc/deep/c.rs\na.rs");
        let r = glob(dir.path(), json!({"pattern": "*.rs"})).await;
        assert_eq!(r.content, "a.rs");
        let r = glob(dir.path(), json!({"pattern": "src/*.{ts,rs}"})).await;
        assert_eq!(r.content, "src/d.ts\nsrc/b.rs");
        let r = glob(dir.path(), json!({"pattern": "*.rs", "path": "src"})).await;
        assert_eq!(r.content, "src/b.rs");
        let r = glob(dir.path(), json!({"pattern": "*.py"})).await;
        assert!(!r.is_error);
        assert_eq!(r.content, "No files found");
    }

    #[tokio::test]
    async fn respects_gitignore_and_skips_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n").unwrap();
        touch(dir.path(), "keep.rs", 0);
        touch(dir.path(), "target/debug/gen.rs", 0);
        touch(dir.path(), "app.log", 0);
        touch(dir.path(), ".hidden/x.rs", 0);
        let r = glob(dir.path(), json!({"pattern": "**/*"})).await;
        assert_eq!(r.content, "keep.rs");
    }

    #[tokio::test]
    async fn caps_results() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(MAX_RESULTS + 5) {
            std::fs::write(dir.path().join(format!("f{i}.txt")), "").unwrap();
        }
        let r = glob(dir.path(), json!({"pattern": "*.txt"})).await;
        assert_eq!(r.content.lines().count(), MAX_RESULTS + 1);
        assert!(r.content.contains("of 1,005 files"), "{}", r.content);
    }

    #[tokio::test]
    async fn errors_and_refusals() {
        let outside = tempfile::tempdir().unwrap();
        touch(outside.path(), "secret.rs", 0);
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "f.rs", 0);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        for p in ["../x", "/etc", "link"] {
            let r = glob(dir.path(), json!({"pattern": "*", "path": p})).await;
            assert!(r.is_error, "{p}");
            assert!(r.content.contains("outside the workspace"), "{p}: {}", r.content);
        }
        let r = glob(dir.path(), json!({"pattern": "a[", "path": ""})).await;
        assert!(r.is_error);
        assert!(r.content.contains("Invalid glob pattern"), "{}", r.content);
        let r = glob(dir.path(), json!({"pattern": "*", "path": "f.rs"})).await;
        assert!(r.is_error);
        assert!(r.content.contains("not a directory"));
        let r = glob(dir.path(), json!({"pattern": "*", "path": "missing"})).await;
        assert!(r.content.contains("Path does not exist: missing"));
        // The symlinked directory is not followed by the walk either.
        let r = glob(dir.path(), json!({"pattern": "**/*.rs"})).await;
        assert_eq!(r.content, "f.rs");
    }
}
