//! Tests of the Grep tool, kept apart so grep.rs stays readable.

use super::*;
use crate::tools::test_ctx;
use serde_json::json;
use std::time::Duration;

fn write(dir: &Path, rel: &str, text: &str, age_secs: u64) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    let f = std::fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age_secs)).unwrap();
}

async fn grep(dir: &Path, input: Value) -> ToolResult {
    GrepTool.call(input, &test_ctx(dir)).await
}

/// A small tree: two Rust files, a TypeScript one, an ignored one and a binary one.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/main.rs", "fn main() {\n    let x = Foo::new();\n    x.run();\n}\n", 100);
    write(d, "src/lib.rs", "pub struct Foo;\n// foo is lower case here\n", 50);
    write(d, "web/app.ts", "const foo = 1;\n", 10);
    write(d, ".gitignore", "target/\n", 0);
    write(d, "target/gen.rs", "Foo in build output\n", 0);
    std::fs::write(d.join("blob.bin"), b"Foo\x00\x01\x02binary").unwrap();
    dir
}

#[tokio::test]
async fn files_with_matches_is_the_default_newest_first() {
    let dir = tree();
    let r = grep(dir.path(), json!({"pattern": "Foo"})).await;
    assert!(!r.is_error, "{}", r.content);
    // target/ is gitignored and blob.bin is binary.
    assert_eq!(r.content, "src/lib.rs\nsrc/main.rs");
}

#[tokio::test]
async fn case_insensitive_and_glob_filter() {
    let dir = tree();
    let r = grep(dir.path(), json!({"pattern": "foo", "-i": true})).await;
    assert_eq!(r.content, "web/app.ts\nsrc/lib.rs\nsrc/main.rs");
    let r = grep(dir.path(), json!({"pattern": "foo", "-i": true, "glob": "*.rs"})).await;
    assert_eq!(r.content, "src/lib.rs\nsrc/main.rs");
    let r = grep(dir.path(), json!({"pattern": "foo", "-i": true, "glob": "**/*.{ts,tsx}"})).await;
    assert_eq!(r.content, "web/app.ts");
    let r = grep(dir.path(), json!({"pattern": "foo", "-i": true, "glob": "src/m*.rs"})).await;
    assert_eq!(r.content, "src/main.rs");
    let r = grep(dir.path(), json!({"pattern": "foo", "-i": true, "type": "ts"})).await;
    assert_eq!(r.content, "web/app.ts");
}

#[tokio::test]
async fn content_mode_with_line_numbers() {
    let dir = tree();
    let r = grep(dir.path(), json!({"pattern": "Foo", "output_mode": "content"})).await;
    assert_eq!(r.content, "src/lib.rs:1:pub struct Foo;\nsrc/main.rs:2:    let x = Foo::new();");
    let r =
        grep(dir.path(), json!({"pattern": "Foo", "output_mode": "content", "-n": false, "path": "src/lib.rs"})).await;
    assert_eq!(r.content, "src/lib.rs:pub struct Foo;");
}

#[tokio::test]
async fn content_mode_with_context() {
    let dir = tempfile::tempdir().unwrap();
    let text: String =
        (1..=9).map(|i| if i == 2 || i == 8 { "hit\n".to_string() } else { format!("l{i}\n") }).collect();
    write(dir.path(), "f.txt", &text, 0);
    let r = grep(dir.path(), json!({"pattern": "hit", "output_mode": "content", "-C": 1})).await;
    assert_eq!(r.content, "f.txt-1-l1\nf.txt:2:hit\nf.txt-3-l3\n--\nf.txt-7-l7\nf.txt:8:hit\nf.txt-9-l9");
    let r = grep(dir.path(), json!({"pattern": "hit", "output_mode": "content", "-A": 1, "path": "f.txt"})).await;
    assert_eq!(r.content, "f.txt:2:hit\nf.txt-3-l3\n--\nf.txt:8:hit\nf.txt-9-l9");
    let r = grep(dir.path(), json!({"pattern": "l1", "output_mode": "content", "-B": 2})).await;
    assert_eq!(r.content, "f.txt:1:l1");
}

#[tokio::test]
async fn count_mode_and_head_limit() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "x\nx\ny\nx\n", 0);
    write(dir.path(), "b.txt", "x\n", 0);
    let r = grep(dir.path(), json!({"pattern": "x", "output_mode": "count"})).await;
    assert_eq!(r.content, "a.txt:3\nb.txt:1");
    let r = grep(dir.path(), json!({"pattern": "x", "output_mode": "content", "head_limit": 2})).await;
    assert!(r.content.starts_with("a.txt:1:x\na.txt:2:x\n\n"), "{}", r.content);
    assert!(r.content.contains("lines 1-2 of 4; use offset=2"), "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "x", "output_mode": "content", "offset": 2, "head_limit": 5})).await;
    assert_eq!(r.content, "a.txt:4:x\nb.txt:1:x");
}

#[tokio::test]
async fn multiline_patterns() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "f", "struct A {\n  b: u8,\n}\n", 0);
    let r = grep(dir.path(), json!({"pattern": "A \\{\\n  b", "output_mode": "content"})).await;
    assert!(r.is_error, "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "A \\{.*?b:", "output_mode": "content", "multiline": true})).await;
    assert_eq!(r.content, "f:1:struct A {\nf:2:  b: u8,");
}

#[tokio::test]
async fn no_match_invalid_regex_and_bad_input() {
    let dir = tree();
    let r = grep(dir.path(), json!({"pattern": "nothing-like-this"})).await;
    assert!(!r.is_error);
    assert_eq!(r.content, "No matches found");
    let r = grep(dir.path(), json!({"pattern": "foo("})).await;
    assert!(r.is_error);
    assert!(r.content.contains("Invalid regex pattern \"foo(\""), "{}", r.content);
    assert!(r.content.to_lowercase().contains("unclosed"), "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "x", "output_mode": "lines"})).await;
    assert!(r.is_error);
    assert!(r.content.contains("files_with_matches"), "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "x", "glob": "a["})).await;
    assert!(r.content.contains("Invalid glob"), "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "x", "type": "no-such-type"})).await;
    assert!(r.content.contains("Invalid type"), "{}", r.content);
    let r = grep(dir.path(), json!({"pattern": "x", "path": "missing"})).await;
    assert_eq!(r.content, "Path does not exist: missing");
}

#[tokio::test]
async fn binary_files_are_skipped_even_when_named() {
    let dir = tree();
    let r = grep(dir.path(), json!({"pattern": "Foo", "path": "blob.bin"})).await;
    assert_eq!(r.content, "No matches found");
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "password\n", 0);
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
    for p in ["../x", "/etc/passwd", "link", "link/secret.txt"] {
        let r = grep(dir.path(), json!({"pattern": "password", "path": p})).await;
        assert!(r.is_error, "{p}");
        assert!(r.content.contains("outside the workspace"), "{p}: {}", r.content);
    }
    // Walking the workspace does not follow the symlink out of it.
    let r = grep(dir.path(), json!({"pattern": "password"})).await;
    assert_eq!(r.content, "No matches found");
}
