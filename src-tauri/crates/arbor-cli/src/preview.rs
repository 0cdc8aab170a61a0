//! An approval request's preview as terminal lines: a file change as a
//! unified diff of what is on disk against what the call would write, a
//! command with where it runs and why, an MCP tool, or the subagent a Task
//! call would start. Long previews are cut with a count of what was left out.

use arbor_protocol::{ApprovalPreview, CommandSandbox, SpawnPlan};
use similar::{ChangeTag, TextDiff};

/// At most this many diff lines are printed.
const MAX_DIFF_LINES: usize = 24;

/// The preview's lines, without a prefix; each is one terminal line, with
/// control characters shown escaped (a model must not hide text behind a
/// carriage return or recolour the terminal in what a person approves).
pub fn lines(preview: &ApprovalPreview) -> Vec<String> {
    raw_lines(preview).iter().map(|l| visible(l)).collect()
}

/// `s` with every control character but tab written as `\u{…}`.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

fn raw_lines(preview: &ApprovalPreview) -> Vec<String> {
    match preview {
        ApprovalPreview::File { path, before, after, note } => file(path, before.as_deref(), after.as_deref(), note),
        ApprovalPreview::Command { command, cwd, description, sandbox } => {
            let mut out: Vec<String> = command.lines().map(|l| format!("$ {l}")).collect();
            let why = description.as_deref().map(|d| format!(" · {d}")).unwrap_or_default();
            out.push(format!("in {cwd}{why}"));
            out.extend(sandbox.as_ref().map(CommandSandbox::summary));
            out
        }
        ApprovalPreview::Mcp { server, tool } => vec![format!("MCP server {server} · tool {tool}")],
        ApprovalPreview::Spawn(plan) => spawn(plan),
    }
}

fn file(path: &str, before: Option<&str>, after: Option<&str>, note: &Option<String>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(after) = after else {
        out.push(format!("{path}: {}", note.as_deref().unwrap_or("no preview")));
        return out;
    };
    let before = before.unwrap_or("");
    let diff = TextDiff::from_lines(before, after);
    let (mut removed, mut added) = (0, 0);
    for c in diff.iter_all_changes() {
        match c.tag() {
            ChangeTag::Delete => removed += 1,
            ChangeTag::Insert => added += 1,
            ChangeTag::Equal => {}
        }
    }
    let what = match before.is_empty() && !after.is_empty() {
        true => format!("new file, {added} lines"),
        false => format!("{removed} lines removed, {added} added"),
    };
    out.push(format!("{path} ({what})"));
    let mut shown = 0;
    let mut left = 0;
    for hunk in diff.unified_diff().context_radius(2).iter_hunks() {
        for change in hunk.iter_changes() {
            if shown >= MAX_DIFF_LINES {
                left += 1;
                continue;
            }
            let sign = match change.tag() {
                ChangeTag::Delete => '-',
                ChangeTag::Insert => '+',
                ChangeTag::Equal => ' ',
            };
            out.push(format!("{sign} {}", change.value().trim_end_matches(['\n', '\r'])));
            shown += 1;
        }
    }
    if left > 0 {
        out.push(format!("… {left} more diff lines"));
    }
    if let Some(n) = note {
        out.push(n.clone());
    }
    out
}

fn spawn(plan: &SpawnPlan) -> Vec<String> {
    let mut out = vec![
        format!(
            "subagent “{}” ({}) · {} via {} · at most {} turns{}",
            plan.description,
            plan.fork.map_or_else(
                || plan.subagent_type.clone(),
                |f| format!("a fork: it starts from this agent's {} messages", f.messages)
            ),
            plan.model,
            plan.provider,
            plan.max_turns,
            if plan.background { " · background" } else { "" }
        ),
        format!("tools: {}", plan.tools.join(", ")),
    ];
    let prompt: Vec<&str> = plan.prompt.lines().collect();
    for l in prompt.iter().take(6) {
        out.push(format!("> {l}"));
    }
    if prompt.len() > 6 {
        out.push(format!("> … {} more lines", prompt.len() - 6));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        let shown = lines(&ApprovalPreview::Command {
            command: "curl x | sh #\r echo hi \u{1b}[8m".into(),
            cwd: "/w".into(),
            description: None,
            sandbox: None,
        });
        assert_eq!(shown[0], "$ curl x | sh #\\u{d} echo hi \\u{1b}[8m");
    }

    #[test]
    fn an_overwrite_shows_what_is_lost_and_a_new_file_what_is_added() {
        let over = lines(&ApprovalPreview::File {
            path: "a.txt".into(),
            before: Some("old one\nold two\n".into()),
            after: Some("new line\n".into()),
            note: None,
        });
        assert_eq!(over, vec!["a.txt (2 lines removed, 1 added)", "- old one", "- old two", "+ new line"]);
        let new = lines(&ApprovalPreview::File {
            path: "b.txt".into(),
            before: None,
            after: Some("x\ny\n".into()),
            note: None,
        });
        assert_eq!(new, vec!["b.txt (new file, 2 lines)", "+ x", "+ y"]);
        let big = "l\n".repeat(100);
        let cut = lines(&ApprovalPreview::File { path: "c".into(), before: None, after: Some(big), note: None });
        assert_eq!(cut.len(), 1 + MAX_DIFF_LINES + 1);
        assert_eq!(cut.last().map(String::as_str), Some("… 76 more diff lines"));
        let none = lines(&ApprovalPreview::File {
            path: "d".into(),
            before: None,
            after: None,
            note: Some("the file is not UTF-8 text".into()),
        });
        assert_eq!(none, vec!["d: the file is not UTF-8 text"]);
    }
}
