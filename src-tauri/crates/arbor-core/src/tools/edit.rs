//! Edit: replaces an exact string in a file, once (it must be unique) or everywhere.
//!
//! Requiring the old text to match exactly and uniquely is what makes the edit
//! safe: the model must have read the current file and said precisely where.

use super::output::thousands;
use super::preview::{self, Preview};
use super::{Tool, ToolClass, ToolContext, ToolResult, parse_input, resolve, schema_of};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::io;

/// Performs exact string replacements in a file of the workspace.
pub struct EditTool;

const DESCRIPTION: &str = "Performs exact string replacements in files.

Usage:
- You must use the Read tool at least once before editing a file, so that old_string matches its current content.
- When editing text from Read output, preserve the exact indentation (tabs/spaces) as it appears AFTER the line-number prefix. The line-number prefix format is: spaces + line number + tab. Everything after that tab is the actual file content to match. Never include any part of the line-number prefix in old_string or new_string.
- ALWAYS prefer editing existing files. NEVER write new files unless explicitly required.
- The edit will FAIL if old_string is not found in the file, or if it is found more than once. Either provide a larger string with more surrounding context to make it unique, or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file, for instance to rename a variable.";

#[derive(Deserialize, JsonSchema)]
struct EditInput {
    /// The path of the file to modify (absolute, or relative to the workspace root)
    file_path: String,
    /// The text to replace
    old_string: String,
    /// The text to replace it with (must be different from old_string)
    new_string: String,
    /// Replace all occurrences of old_string (default false)
    #[serde(default)]
    replace_all: bool,
}

#[async_trait]
impl Tool for EditTool {
    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<EditInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::Mutating
    }

    fn writes(&self, input: &Value, ctx: &ToolContext) -> Option<Vec<std::path::PathBuf>> {
        let file = parse_input::<EditInput>(self.name(), input.clone()).ok().map(|i| i.file_path);
        Some(file.and_then(|f| resolve(&ctx.workspace, &f).ok()).map(|r| r.path).into_iter().collect())
    }

    async fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<Preview> {
        let input: EditInput = parse_input(self.name(), input.clone()).ok()?;
        let resolved = resolve(&ctx.workspace, &input.file_path).ok()?;
        let shown = resolved.shown.clone();
        Some(
            preview::file_change(&resolved.path, resolved.shown, |before| {
                check(&input)?;
                let text = before.ok_or_else(|| format!("{shown} does not exist, so the edit cannot apply"))?;
                apply(text, &input, &shown).map(|(edited, _)| edited)
            })
            .await,
        )
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: EditInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let (path, shown) = match resolve(&ctx.workspace, &input.file_path) {
            Ok(r) => (r.path, r.shown),
            Err(r) => return r,
        };
        if let Err(why) = check(&input) {
            return ToolResult::error(why);
        }
        match tokio::fs::metadata(&path).await {
            Ok(m) if m.is_dir() => {
                return ToolResult::error(format!("{shown} is a directory, not a file"));
            }
            Ok(m) if !m.is_file() => {
                return ToolResult::error(format!("{shown} is not a regular file"));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return ToolResult::error(format!("File does not exist: {shown}. To create a file, use Write"));
            }
            Err(e) => return ToolResult::error(format!("Cannot read {shown}: {e}")),
        }
        let bytes = match tokio::fs::read(&path).await {
            Ok(b) => b,
            Err(e) => return ToolResult::error(format!("Cannot read {shown}: {e}")),
        };
        let size = bytes.len();
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                return ToolResult::error(format!(
                    "{shown} is not UTF-8 text (probably a binary file, {} bytes); Edit only changes text files",
                    thousands(size)
                ));
            }
        };
        let (edited, count) = match apply(&text, &input, &shown) {
            Ok(r) => r,
            Err(why) => return ToolResult::error(why),
        };
        if let Err(e) = tokio::fs::write(&path, edited.as_bytes()).await {
            return ToolResult::error(format!("Cannot write {shown}: {e}"));
        }
        let noun = if count == 1 { "occurrence" } else { "occurrences" };
        ToolResult {
            content: format!("Edited {shown}: replaced {count} {noun}"),
            is_error: false,
            files_modified: vec![path],
        }
    }
}

/// What makes an edit meaningless whatever the file holds.
fn check(input: &EditInput) -> Result<(), String> {
    if input.old_string.is_empty() {
        return Err("old_string is empty; to create a file or replace all of its content, use Write".to_string());
    }
    if input.old_string == input.new_string {
        return Err("old_string and new_string are the same; there is nothing to change".to_string());
    }
    Ok(())
}

/// `text` with the edit applied, and how many places changed; or why it cannot apply.
fn apply(text: &str, input: &EditInput, shown: &str) -> Result<(String, usize), String> {
    let Some((old, new)) = matching_pair(text, &input.old_string, &input.new_string) else {
        return Err(format!(
            "old_string was not found in {shown}. It must match the file exactly, including whitespace and indentation; Read the file again to see its current content"
        ));
    };
    let count = text.matches(old.as_str()).count();
    if count > 1 && !input.replace_all {
        return Err(format!(
            "old_string was found {count} times in {shown}. Include more surrounding context to make it unique, or set replace_all to true to replace every occurrence"
        ));
    }
    let edited =
        if input.replace_all { text.replace(old.as_str(), &new) } else { text.replacen(old.as_str(), &new, 1) };
    Ok((edited, count))
}

/// The strings to replace with: as given, or with `\r\n` line endings when the file
/// uses them and the model wrote plain `\n` (Read shows lines without their `\r`).
fn matching_pair(text: &str, old: &str, new: &str) -> Option<(String, String)> {
    if text.contains(old) {
        return Some((old.to_string(), new.to_string()));
    }
    if old.contains('\n') && !old.contains('\r') && text.contains("\r\n") {
        let old = old.replace('\n', "\r\n");
        if text.contains(&old) {
            return Some((old, new.replace('\n', "\r\n")));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_ctx;
    use serde_json::json;
    use std::path::Path;

    async fn edit(dir: &Path, input: Value) -> ToolResult {
        EditTool.call(input, &test_ctx(dir)).await
    }

    #[tokio::test]
    async fn replaces_a_unique_string() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f.rs");
        std::fs::write(&f, "fn a() {}\nfn b() {}\n").unwrap();
        let r = edit(dir.path(), json!({"file_path": "f.rs", "old_string": "fn b", "new_string": "fn c"})).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(r.content, "Edited f.rs: replaced 1 occurrence");
        assert_eq!(r.files_modified, vec![f.canonicalize().unwrap()]);
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "fn a() {}\nfn c() {}\n");
    }

    #[tokio::test]
    async fn ambiguous_match_needs_replace_all() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, "x = 1; x = 2; x = 3").unwrap();
        let input = json!({"file_path": "f", "old_string": "x", "new_string": "y"});
        let r = edit(dir.path(), input.clone()).await;
        assert!(r.is_error);
        assert!(r.content.contains("found 3 times"), "{}", r.content);
        assert!(r.content.contains("replace_all"), "{}", r.content);
        assert!(r.files_modified.is_empty());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "x = 1; x = 2; x = 3");

        let mut input = input;
        input["replace_all"] = json!(true);
        let r = edit(dir.path(), input).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(r.content, "Edited f: replaced 3 occurrences");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "y = 1; y = 2; y = 3");
    }

    #[tokio::test]
    async fn crlf_files_match_lf_old_string() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, "a\r\nb\r\nc\r\n").unwrap();
        let r = edit(dir.path(), json!({"file_path": "f", "old_string": "a\nb", "new_string": "a\nB\nb"})).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "a\r\nB\r\nb\r\nc\r\n");
    }

    #[tokio::test]
    async fn error_cases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "hello").unwrap();
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe, 0x00, 0x80]).unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let cases = [
            (json!({"file_path": "nope", "old_string": "a", "new_string": "b"}), "File does not exist: nope"),
            (json!({"file_path": "bin", "old_string": "a", "new_string": "b"}), "not UTF-8 text"),
            (json!({"file_path": "f", "old_string": "", "new_string": "b"}), "old_string is empty"),
            (json!({"file_path": "f", "old_string": "he", "new_string": "he"}), "the same"),
            (json!({"file_path": "f", "old_string": "bye", "new_string": "b"}), "not found in f"),
            (json!({"file_path": "d", "old_string": "a", "new_string": "b"}), "directory"),
            (json!({"file_path": "f", "old_string": "a"}), "new_string"),
        ];
        for (input, expected) in cases {
            let r = edit(dir.path(), input.clone()).await;
            assert!(r.is_error, "{input}");
            assert!(r.content.contains(expected), "{input}: {}", r.content);
            assert!(r.files_modified.is_empty());
        }
        assert_eq!(std::fs::read_to_string(dir.path().join("f")).unwrap(), "hello");
    }

    #[tokio::test]
    async fn paths_outside_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        for p in ["../x", "/etc/passwd", "link"] {
            let r = edit(dir.path(), json!({"file_path": p, "old_string": "s", "new_string": "t"})).await;
            assert!(r.is_error, "{p}");
            assert!(r.content.contains("outside the workspace"), "{p}: {}", r.content);
        }
        assert_eq!(std::fs::read_to_string(outside.path().join("secret")).unwrap(), "s");
    }
}
