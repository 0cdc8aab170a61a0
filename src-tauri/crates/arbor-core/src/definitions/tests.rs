//! Agent files as Claude Code writes them, broken ones, and the search order.
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
            approve_spawn: false,
            sandbox: None,
            isolation: Default::default(),
            budget: Default::default(),
            context: Default::default(),
            hooks: Default::default(),
            acp: None,
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
    let (d, warnings) = parse(&agent("a", "skills: [x]\nmemory: user\n")).unwrap();
    assert_eq!(d.name, "a");
    let fields: Vec<_> = warnings.iter().map(|w| (w.field.as_deref(), w.skipped)).collect();
    assert_eq!(fields, vec![(Some("memory"), false), (Some("skills"), false)]);
}

#[test]
fn a_types_hooks_load_as_settings_hooks_do_and_a_workspace_files_are_the_workspaces() {
    let front = "hooks:\n  PostToolUse:\n    - matcher: \"Edit|Write\"\n      hooks:\n        - type: command\n          command: ./fmt.sh\n  Bogus:\n    - hooks: []\n";
    let (d, warnings) = parse(&agent("a", front)).unwrap();
    let hooks: Vec<_> = d.hooks.hooks().collect();
    assert_eq!(hooks.len(), 1);
    assert_eq!((hooks[0].event, hooks[0].command.as_str()), (arbor_protocol::HookEvent::PostToolUse, "./fmt.sh"));
    assert_eq!(hooks[0].matcher.as_deref(), Some("Edit|Write"));
    assert_eq!(hooks[0].origin, arbor_protocol::HookOrigin::Workspace, "{:?}", d.source);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].reason.contains("Bogus") && warnings[0].field.as_deref() == Some("hooks"));
}

#[test]
fn a_type_sets_its_own_window_and_threshold_over_the_sessions() {
    let (d, warnings) = parse(&agent("reader", "contextWindow: 32_000\ncompactAt: \"70%\"\n")).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(d.context, ContextOverride { window: Some(32_000), compact_at_percent: Some(70) });
    let session = crate::ContextConfig { window: None, compact_at_percent: 80, summary_model: Some("small".into()) };
    let typed =
        crate::ContextConfig { window: Some(32_000), compact_at_percent: 70, summary_model: Some("small".into()) };
    assert_eq!(session.clone().overridden_by(&d.context), typed);
    // A type that says nothing keeps the session's.
    let (plain, _) = parse(&agent("plain", "")).unwrap();
    assert_eq!(session.clone().overridden_by(&plain.context), session);
}

#[test]
fn bad_fields_skip_the_file_and_name_the_field() {
    let cases: [(&str, String, Option<&str>); 16] = [
        ("missing name", "---\ndescription: d\n---\nb".into(), Some("name")),
        ("name with a space", agent("code reviewer", ""), Some("name")),
        ("name with a slash", agent("a/b", ""), Some("name")),
        ("missing description", "---\nname: a\n---\nb".into(), Some("description")),
        ("empty description", "---\nname: a\ndescription: ''\n---\nb".into(), Some("description")),
        ("bad maxTurns", agent("a", "maxTurns: 0\n"), Some("maxTurns")),
        ("bad permissionMode", agent("a", "permissionMode: yolo\n"), Some("permissionMode")),
        ("zero maxTokens", agent("a", "maxTokens: 0\n"), Some("maxTokens")),
        ("words for maxCostUsd", agent("a", "maxCostUsd: lots\n"), Some("maxCostUsd")),
        ("negative maxDurationSeconds", agent("a", "maxDurationSeconds: -5\n"), Some("maxDurationSeconds")),
        ("zero contextWindow", agent("a", "contextWindow: 0\n"), Some("contextWindow")),
        ("compactAt over 100", agent("a", "compactAt: 120\n"), Some("compactAt")),
        ("words for compactAt", agent("a", "compactAt: soon\n"), Some("compactAt")),
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
fn budget_fields_sit_beside_claude_codes() {
    let text = agent("a", "maxTokens: 50_000\nmaxCostUsd: \"$1.50\"\nmaxDurationSeconds: 600\nmaxSubagents: 3\n");
    let (d, warnings) = parse(&text).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let b = d.budget;
    assert_eq!(
        (b.max_tokens, b.max_cost_usd, b.max_duration_seconds, b.max_subagents),
        (Some(50_000), Some(1.5), Some(600), Some(3))
    );
    assert!(parse(&agent("b", "")).unwrap().0.budget.is_empty());
}

#[test]
fn unquoted_colons_in_a_value_load_as_claude_code_does() {
    let description =
        r#"Use this agent to review a PR. Examples:\n<example>\nContext: A PR.\nuser: "Review PR 78"\n</example>"#;
    let text = format!("---\nname: pr-reviewer\ndescription: {description}\nmodel: opus\n---\nReview.\nNote: kept\n");
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

#[test]
fn nested_and_linked_directories_load_once_and_a_link_cycle_ends() {
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents");
    fs::create_dir_all(agents.join("team/deep")).unwrap();
    fs::write(agents.join("team/deep/reviewer.md"), agent("reviewer", "")).unwrap();
    let shared = dir.path().join("dotfiles");
    fs::create_dir_all(&shared).unwrap();
    fs::write(shared.join("linked.md"), agent("linked", "")).unwrap();
    std::os::unix::fs::symlink(&shared, agents.join("from-dotfiles")).unwrap();
    // A link back up the tree must not loop.
    std::os::unix::fs::symlink(&agents, agents.join("team/back-up")).unwrap();
    fs::write(agents.join("notes.txt"), "not an agent").unwrap();
    let catalog = load(&[(agents, DefinitionSource::User)]);
    let names: Vec<&str> = catalog.definitions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["linked", "reviewer"]);
    assert!(catalog.problems.is_empty(), "{:?}", catalog.problems);
}
