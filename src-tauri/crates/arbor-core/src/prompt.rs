//! The main agent's default system prompt, and the project instructions
//! (AGENTS.md, CLAUDE.md) that well-known coding agents add to it.

use std::path::Path;

pub const DEFAULT_SYSTEM_PROMPT: &str = "\
You are Arbor's main agent: a careful software engineer working in the user's workspace.
Use the tools to read, search, edit and create files and to run commands. Paths may be \
absolute or relative to the workspace root; tools refuse paths outside it.
Read before you edit; keep changes small and focused; run the project's checks when you \
change code. When the task is done, answer with a short summary of what you did and found.";

/// Files read from the workspace root, in this order, when present.
const INSTRUCTION_FILES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// Instructions longer than this are cut, so a stray huge file cannot fill the context.
const MAX_INSTRUCTIONS: usize = 40_000;

/// The workspace's project instruction files, each under its own heading ("" when
/// it has none). Read once, at the session's start: the main agent's prompt and every
/// subagent type's take them from there, so a spawn never waits on the file system.
pub fn project_instructions(workspace: &Path) -> String {
    let mut out = String::new();
    for name in INSTRUCTION_FILES {
        let Ok(text) = std::fs::read_to_string(workspace.join(name)) else { continue };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let text = crate::tools::cap_output(text, MAX_INSTRUCTIONS);
        out.push_str(&format!(
            "\n\n# Project instructions ({name})\nThe user keeps these in {name} at the workspace root; follow them.\n\n{text}"
        ));
    }
    out
}

/// `base` plus the workspace's location and its `instructions` ([`project_instructions`]).
pub fn main_system_prompt(base: &str, workspace: &Path, today: &str, instructions: &str) -> String {
    format!("{base}\n\nWorkspace root: {}\nToday's date: {today}{instructions}", workspace.display())
}

/// `YYYY-MM-DD` of a Unix time in milliseconds (UTC), without a date crate.
pub fn iso_date(ms: i64) -> String {
    arbor_protocol::time::date(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_computed_in_utc() {
        assert_eq!(iso_date(0), "1970-01-01");
        assert_eq!(iso_date(1_795_305_600_000), "2026-11-22");
        assert_eq!(iso_date(951_782_400_000), "2000-02-29");
    }

    #[test]
    fn project_instructions_are_appended_when_present() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "Use tabs.").unwrap();
        std::fs::write(dir.path().join("CLAUDE.md"), "Run make test.").unwrap();
        let p = main_system_prompt("base", dir.path(), "2026-11-22", &project_instructions(dir.path()));
        assert!(p.starts_with("base"));
        assert!(p.contains("(AGENTS.md)") && p.contains("Use tabs."));
        assert!(p.contains("(CLAUDE.md)") && p.contains("Run make test."));
        assert!(p.find("Use tabs.") < p.find("Run make test."));
        let without = main_system_prompt("base", dir.path(), "2026-11-22", "");
        assert!(!without.contains("Use tabs."));
    }
}
