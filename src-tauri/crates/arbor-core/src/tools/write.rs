//! Write: creates or overwrites a whole file, making its parent directories.

use super::preview::{self, Preview};
use super::{Tool, ToolClass, ToolContext, ToolResult, parse_input, resolve, schema_of};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::io;

/// Writes a whole file of the workspace.
pub struct WriteTool;

const DESCRIPTION: &str = "Writes a file to the workspace.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- file_path may be absolute or relative to the workspace root. Missing parent directories are created.
- If this is an existing file, you MUST use the Read tool first to read the file's contents, so you do not lose anything.
- ALWAYS prefer editing existing files with the Edit tool. NEVER write new files unless they are needed for the task.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the user.";

#[derive(Deserialize, JsonSchema)]
struct WriteInput {
    /// The path of the file to write (absolute, or relative to the workspace root)
    file_path: String,
    /// The content to write to the file
    content: String,
}

#[async_trait]
impl Tool for WriteTool {
    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<WriteInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::Mutating
    }

    fn writes(&self, input: &Value, ctx: &ToolContext) -> Option<Vec<std::path::PathBuf>> {
        let file = parse_input::<WriteInput>(self.name(), input.clone()).ok().map(|i| i.file_path);
        Some(file.and_then(|f| resolve(&ctx.workspace, &f).ok()).map(|r| r.path).into_iter().collect())
    }

    async fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<Preview> {
        let input: WriteInput = parse_input(self.name(), input.clone()).ok()?;
        let resolved = resolve(&ctx.workspace, &input.file_path).ok()?;
        Some(preview::file_change(&resolved.path, resolved.shown, |_| Ok(input.content)).await)
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: WriteInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let (path, shown) = match resolve(&ctx.workspace, &input.file_path) {
            Ok(r) => (r.path, r.shown),
            Err(r) => return r,
        };
        let existed = match tokio::fs::metadata(&path).await {
            Ok(m) if m.is_dir() => {
                return ToolResult::error(format!("{shown} is a directory; give the path of a file"));
            }
            Ok(m) if !m.is_file() => {
                return ToolResult::error(format!("{shown} is not a regular file"));
            }
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return ToolResult::error(format!("Cannot write {shown}: {e}")),
        };
        if let Some(parent) = path.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return ToolResult::error(format!("Cannot create the directory for {shown}: {e}"));
        }
        if let Err(e) = tokio::fs::write(&path, input.content.as_bytes()).await {
            return ToolResult::error(format!("Cannot write {shown}: {e}"));
        }
        let verb = if existed { "Updated" } else { "Created" };
        let lines = input.content.lines().count();
        let noun = if lines == 1 { "line" } else { "lines" };
        ToolResult { content: format!("{verb} {shown} ({lines} {noun})"), is_error: false, files_modified: vec![path] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_ctx;
    use serde_json::json;

    #[tokio::test]
    async fn creates_nested_file_then_updates_it() {
        let dir = tempfile::tempdir().unwrap();
        let c = test_ctx(dir.path());
        let r = WriteTool.call(json!({"file_path": "a/b/c.txt", "content": "x\ny\n"}), &c).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(r.content, "Created a/b/c.txt (2 lines)");
        let abs = c.workspace.root().join("a/b/c.txt");
        assert_eq!(r.files_modified, vec![abs.clone()]);
        assert_eq!(std::fs::read_to_string(&abs).unwrap(), "x\ny\n");

        let r = WriteTool.call(json!({"file_path": abs.to_str().unwrap(), "content": "z"}), &c).await;
        assert_eq!(r.content, "Updated a/b/c.txt (1 line)");
        assert_eq!(std::fs::read_to_string(&abs).unwrap(), "z");
    }

    #[tokio::test]
    async fn empty_content_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let c = test_ctx(dir.path());
        let r = WriteTool.call(json!({"file_path": "e", "content": ""}), &c).await;
        assert_eq!(r.content, "Created e (0 lines)");
        let r = WriteTool.call(json!({"file_path": "d", "content": "x"}), &c).await;
        assert!(r.is_error);
        assert!(r.content.contains("is a directory"));
        let r = WriteTool.call(json!({"file_path": "f"}), &c).await;
        assert!(r.is_error);
        assert!(r.content.contains("content"), "{}", r.content);
    }

    #[tokio::test]
    async fn paths_outside_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let c = test_ctx(dir.path());
        for p in ["../x", "/etc/passwd", "link/new.txt"] {
            let r = WriteTool.call(json!({"file_path": p, "content": "pwned"}), &c).await;
            assert!(r.is_error, "{p}");
            assert!(r.content.contains("outside the workspace"), "{p}: {}", r.content);
            assert!(r.files_modified.is_empty());
        }
        assert!(!outside.path().join("new.txt").exists());
    }
}
