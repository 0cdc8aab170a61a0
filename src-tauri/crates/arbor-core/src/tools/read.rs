//! Read: shows a text file, or a page of it, with line numbers in `cat -n` style.
//!
//! Pages by lines rather than bytes so the model can ask for the next page
//! with `offset`. UTF-8 text is shown as it is; text in a legacy 8-bit encoding
//! (Latin-1, Windows-1252) is decoded and says so; binary files are refused:
//! bytes decoded as garbage would only waste context and mislead the model.

use super::output::{cap_output, thousands};
use super::{Tool, ToolClass, ToolContext, ToolResult, parse_input, resolve, schema_of};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// Reads a file of the workspace.
pub struct ReadTool;

const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
/// A page stops early past this many characters, whatever `limit` says.
const MAX_READ_CHARS: usize = 100_000;

const DESCRIPTION: &str = "Reads a file from the workspace.

Usage:
- file_path may be absolute or relative to the workspace root.
- By default, it reads up to 2000 lines starting from the beginning of the file.
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters.
- Any lines longer than 2000 characters will be truncated.
- Results are returned using cat -n format, with line numbers starting at 1. The line-number prefix (spaces, number, tab) is not part of the file: never include it in Edit's old_string or new_string.
- This tool reads text files: UTF-8, or a legacy 8-bit encoding (Latin-1, Windows-1252), which it decodes and names. It cannot read directories (use Glob, or ls via Bash) or binary files.
- You can call multiple tools in a single response. It is always better to speculatively read multiple potentially useful files in parallel.";

#[derive(Deserialize, JsonSchema)]
struct ReadInput {
    /// The path of the file to read (absolute, or relative to the workspace root)
    file_path: String,
    /// The line number to start reading from (1-based). Only provide if the file is too large to read at once
    #[schemars(range(min = 1))]
    offset: Option<usize>,
    /// The number of lines to read. Only provide if the file is too large to read at once
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

#[async_trait]
impl Tool for ReadTool {
    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<ReadInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::ReadOnly
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: ReadInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let (path, shown) = match resolve(&ctx.workspace, &input.file_path) {
            Ok(r) => (r.path, r.shown),
            Err(r) => return r,
        };
        let meta = match tokio::fs::metadata(&path).await {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return ToolResult::error(format!("File does not exist: {shown}"));
            }
            Err(e) => return ToolResult::error(format!("Cannot read {shown}: {e}")),
        };
        if meta.is_dir() {
            return ToolResult::error(format!(
                "{shown} is a directory; use Glob to find files in it (or ls via Bash), then Read a file"
            ));
        }
        // A FIFO or device would block the read forever, or never end.
        if !meta.is_file() {
            return ToolResult::error(format!("{shown} is not a regular file"));
        }
        // Models often count from 0; line 0 can only mean the first line.
        let offset = input.offset.unwrap_or(1).max(1);
        let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 {
            return ToolResult::error("limit must be at least 1");
        }
        let size = meta.len();
        let job = tokio::task::spawn_blocking(move || match read_page(&path, offset, limit, Encoding::Utf8) {
            Err(PageError::NotUtf8) => read_page(&path, offset, limit, Encoding::Windows1252),
            other => other,
        });
        let page = match job.await {
            Ok(Ok(page)) => page,
            Ok(Err(PageError::NotText(why))) => {
                return ToolResult::error(format!(
                    "{shown} is not text ({why}; probably a binary file, {} bytes). Read only shows text files; inspect it with Bash (e.g. `file`, `xxd | head`) if needed",
                    thousands(size as usize)
                ));
            }
            Ok(Err(PageError::Io(e))) => {
                return ToolResult::error(format!("Cannot read {shown}: {e}"));
            }
            // Windows-1252 decodes every byte: it is never reported as not UTF-8.
            Ok(Err(PageError::NotUtf8)) => return ToolResult::error(format!("Cannot read {shown} as text")),
            Err(e) => return ToolResult::error(format!("Cannot read {shown}: {e}")),
        };
        let mut out = cap_output(&render(&page, offset, &shown), MAX_READ_CHARS);
        if page.encoding == Encoding::Windows1252 {
            out.push_str(
                "\n\n(The file is not UTF-8: shown decoded as Windows-1252 / Latin-1. Edit cannot change it as it is; \
                 Write saves UTF-8.)",
            );
        }
        ToolResult::ok(out)
    }
}

enum PageError {
    NotText(String),
    /// Text, but not UTF-8: read it again as a legacy encoding.
    NotUtf8,
    Io(io::Error),
}

/// How a file's bytes become text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    /// A superset of Latin-1's printable characters; decodes any byte.
    Windows1252,
}

/// C0 control bytes that text files do not hold (tab, newlines, form feed and escape aside).
fn is_binary_control(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b)
}

impl From<io::Error> for PageError {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

struct Page {
    encoding: Encoding,
    /// Formatted lines, already numbered.
    body: String,
    /// Number of the last line shown; 0 when none was.
    last: usize,
    total: usize,
}

/// Reads the whole file to check it is text and count its lines, keeping only the page asked for.
fn read_page(path: &Path, offset: usize, limit: usize, encoding: Encoding) -> Result<Page, PageError> {
    let mut reader = BufReader::new(std::fs::File::open(path)?);
    let mut buf = Vec::new();
    let mut body = String::new();
    let (mut total, mut last) = (0, 0);
    let end = offset.saturating_add(limit);
    let mut page_full = false;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        total += 1;
        if buf.contains(&0) {
            return Err(PageError::NotText(format!("line {total} contains NUL bytes")));
        }
        let text = match encoding {
            Encoding::Utf8 => match std::str::from_utf8(&buf) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => return Err(PageError::NotUtf8),
            },
            Encoding::Windows1252 => {
                if buf.iter().filter(|b| is_binary_control(**b)).count() > 2 {
                    return Err(PageError::NotText(format!("line {total} has control bytes")));
                }
                encoding_rs::WINDOWS_1252.decode_without_bom_handling(&buf).0
            }
        };
        let text = text.as_ref();
        if total < offset || total >= end || page_full {
            continue;
        }
        let mut line = text.strip_suffix('\n').unwrap_or(text);
        line = line.strip_suffix('\r').unwrap_or(line);
        if total == 1 {
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&format!("{total:>6}\t"));
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => {
                body.push_str(&line[..cut]);
                body.push('…');
            }
            None => body.push_str(line),
        }
        last = total;
        page_full = body.len() >= MAX_READ_CHARS;
    }
    Ok(Page { encoding, body, last, total })
}

fn render(page: &Page, offset: usize, shown: &str) -> String {
    if page.total == 0 {
        return "(file is empty)".to_string();
    }
    if page.last == 0 {
        return format!(
            "offset {offset} is beyond the end of {shown}, which has {} lines; use a smaller offset",
            page.total
        );
    }
    let mut out = page.body.clone();
    let remaining = page.total - page.last;
    if remaining > 0 {
        out.push_str(&format!(
            "\n\n(Showing lines {offset}-{} of {}; {remaining} more lines. Call Read with offset={} to continue.)",
            page.last,
            page.total,
            page.last + 1
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_ctx;
    use serde_json::json;

    async fn read(dir: &Path, input: Value) -> ToolResult {
        ReadTool.call(input, &test_ctx(dir)).await
    }

    #[tokio::test]
    async fn reads_with_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\r\nthree").unwrap();
        let r = read(dir.path(), json!({"file_path": "a.txt"})).await;
        assert!(!r.is_error, "{}", r.content);
        assert_eq!(r.content, "     1\tone\n     2\ttwo\n     3\tthree");
        let abs = dir.path().join("a.txt");
        let r = read(dir.path(), json!({"file_path": abs.to_str().unwrap()})).await;
        assert!(r.content.starts_with("     1\tone"));
    }

    #[tokio::test]
    async fn offset_and_limit_page_through() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=10).map(|i| format!("line{i}\n")).collect();
        std::fs::write(dir.path().join("f"), text).unwrap();
        let r = read(dir.path(), json!({"file_path": "f", "offset": 3, "limit": 2})).await;
        assert!(r.content.starts_with("     3\tline3\n     4\tline4\n\n"), "{}", r.content);
        assert!(r.content.contains("6 more lines"), "{}", r.content);
        assert!(r.content.contains("offset=5"), "{}", r.content);
        let r = read(dir.path(), json!({"file_path": "f", "offset": 9})).await;
        assert_eq!(r.content, "     9\tline9\n    10\tline10");
        let r = read(dir.path(), json!({"file_path": "f", "offset": 0, "limit": 1})).await;
        assert!(r.content.starts_with("     1\tline1\n\n"));
    }

    #[tokio::test]
    async fn default_limit_is_2000_lines() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
        std::fs::write(dir.path().join("f"), text).unwrap();
        let r = read(dir.path(), json!({"file_path": "f"})).await;
        assert!(r.content.contains("  2000\t2000\n"));
        assert!(!r.content.contains("  2001\t"));
        assert!(r.content.contains("500 more lines"));
        assert!(r.content.contains("offset=2001"));
    }

    #[tokio::test]
    async fn long_lines_are_truncated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), format!("{}\nshort\n", "é".repeat(2500))).unwrap();
        let r = read(dir.path(), json!({"file_path": "f"})).await;
        let first = r.content.lines().next().unwrap();
        assert_eq!(first, format!("     1\t{}…", "é".repeat(2000)));
        assert!(r.content.ends_with("     2\tshort"));
    }

    #[tokio::test]
    async fn empty_file_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("e"), "").unwrap();
        let r = read(dir.path(), json!({"file_path": "e"})).await;
        assert!(!r.is_error);
        assert_eq!(r.content, "(file is empty)");
    }

    #[tokio::test]
    async fn offset_past_the_end_is_explained() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "a\nb\n").unwrap();
        let r = read(dir.path(), json!({"file_path": "f", "offset": 10})).await;
        assert!(r.content.contains("beyond the end"), "{}", r.content);
        assert!(r.content.contains("2 lines"), "{}", r.content);
    }

    #[tokio::test]
    async fn missing_file_directory_and_bad_input_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let r = read(dir.path(), json!({"file_path": "nope.txt"})).await;
        assert!(r.is_error);
        assert_eq!(r.content, "File does not exist: nope.txt");
        let r = read(dir.path(), json!({"file_path": "sub"})).await;
        assert!(r.is_error);
        assert!(r.content.contains("is a directory; use Glob"), "{}", r.content);
        let r = read(dir.path(), json!({"path": "x"})).await;
        assert!(r.is_error);
        assert!(r.content.contains("file_path"), "{}", r.content);
        std::fs::write(dir.path().join("f"), "a").unwrap();
        let r = read(dir.path(), json!({"file_path": "f", "limit": 0})).await;
        assert!(r.is_error);
    }

    #[tokio::test]
    async fn binary_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bin"), [0xff, 0xfe, 0x00, 0x80]).unwrap();
        let r = read(dir.path(), json!({"file_path": "bin"})).await;
        assert!(r.is_error);
        assert!(r.content.contains("not text"), "{}", r.content);
        assert!(r.content.contains("4 bytes"), "{}", r.content);
        // Not UTF-8 and full of control bytes: binary, whatever the encoding.
        std::fs::write(dir.path().join("blob"), b"\x01\x02\x03\x04\xff\xfe\n").unwrap();
        let r = read(dir.path(), json!({"file_path": "blob"})).await;
        assert!(r.is_error, "{}", r.content);
        assert!(r.content.contains("control bytes"), "{}", r.content);
    }

    #[tokio::test]
    async fn latin1_and_windows_1252_text_is_decoded_and_named() {
        let dir = tempfile::tempdir().unwrap();
        // "café" in Latin-1, "€5 – naïve" in Windows-1252 (0x80 is the euro sign, 0x96 an en dash).
        std::fs::write(dir.path().join("notes.txt"), b"caf\xe9\n\x805 \x96 na\xefve\n").unwrap();
        let r = read(dir.path(), json!({"file_path": "notes.txt"})).await;
        assert!(!r.is_error, "{}", r.content);
        assert!(r.content.starts_with("     1\tcafé\n     2\t€5 – naïve"), "{}", r.content);
        assert!(r.content.contains("Windows-1252"), "{}", r.content);
        std::fs::write(dir.path().join("utf8.txt"), "café\n").unwrap();
        let r = read(dir.path(), json!({"file_path": "utf8.txt"})).await;
        assert_eq!(r.content, "     1\tcafé", "UTF-8 needs no note");
    }

    #[tokio::test]
    async fn paths_outside_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link")).unwrap();
        for p in ["../x", "/etc/passwd", "link"] {
            let r = read(dir.path(), json!({"file_path": p})).await;
            assert!(r.is_error, "{p}");
            assert!(r.content.contains("outside the workspace"), "{p}: {}", r.content);
        }
    }

    #[tokio::test]
    async fn fifos_are_refused_rather_than_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let made = std::process::Command::new("mkfifo").arg(dir.path().join("pipe")).status().unwrap();
        assert!(made.success());
        let r = read(dir.path(), json!({"file_path": "pipe"})).await;
        assert!(r.is_error);
        assert!(r.content.contains("not a regular file"), "{}", r.content);
    }

    #[test]
    fn schema_requires_file_path() {
        let s = ReadTool.input_schema();
        assert_eq!(s["required"], json!(["file_path"]));
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(s["type"], "object");
        assert_eq!(
            s["properties"]["offset"],
            json!({
                "type": "integer",
                "minimum": 1,
                "description": "The line number to start reading from (1-based). Only provide if the file is too large to read at once"
            }),
            "optional, not nullable, described by its doc comment"
        );
        assert_eq!(ReadTool.class(), ToolClass::ReadOnly);
    }
}
