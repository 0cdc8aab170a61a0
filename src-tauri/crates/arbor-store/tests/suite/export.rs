//! The JSON and Markdown exports.

use super::*;

#[test]
fn the_json_export_round_trips() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 10);
    let export = store.export(&sid("sess-1"), None).unwrap();
    assert_eq!(export.events, log.events);
    assert_eq!(export.agents, store.session(&sid("sess-1")).unwrap().agents);
    let text = serde_json::to_string_pretty(&export).unwrap();
    let back: SessionExport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, export);
    // The derived figures: each agent's own usage and its subtree's (the main agent's is the session's).
    let main = export.figures.agents.iter().find(|a| a.agent_id == aid(MAIN)).unwrap();
    assert_eq!(main.subtree.tokens, export.session.usage.tokens);
    assert_eq!(export.figures.agents.len(), 3);

    let one = store.export(&sid("sess-1"), Some(&aid(WRITER))).unwrap();
    assert_eq!(one.agents.len(), 1);
    assert_eq!(one.agents[0].id, aid(WRITER));
    assert!(!one.events.is_empty());
    assert!(one.events.iter().all(|e| e.agent_id == aid(WRITER)));
    assert_eq!(one.figures.agents.len(), 2, "the agent and the one above it");
    assert_eq!(one.session, export.session);
    assert!(matches!(
        store.export(&sid("sess-1"), Some(&aid("agent-ffff"))),
        Err(arbor_store::StoreError::UnknownAgent(_))
    ));
}

#[test]
fn the_markdown_export_reads_as_a_transcript() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    let md = store.export_markdown(&sid("sess-1"), None).unwrap();
    for needle in [
        "# Fix the parser bug in lexer.rs",
        "Workspace: `/work/sess-1`",
        "Started: 1970-01-01 00:00:01 UTC",
        "Status: completed",
        "190 in, 38 out",
        "## Fix the bug\n",
        "### Fix the bug › Read lexer\n",
        "### Fix the bug › Write tests\n",
        "> Fix the parser bug in lexer.rs",
        "> Read lexer.rs and summarise it",
        "> Write tests for the tokenizer",
        "<details><summary>Thinking</summary>\n\nLet me look",
        "I'll delegate.",
        "**Tool call** `Read` (`c2`)",
        "\"file_path\": \"src/lexer.rs\"",
        "```\nfn lex() -> Tokens { todo!() }\n```",
        "**Result** (completed, 2 turns, 2000 ms):\n\nThe lexer tokenises identifiers greedily",
        "**Error:** model refused to continue",
        "Done: the parser is fixed",
        "`tests/lexer.rs`",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
    assert!(!md.contains("I'll dele\n"), "superseded chunks are left out");
    let main_at = md.find("## Fix the bug\n").unwrap();
    let reader_at = md.find("### Fix the bug › Read lexer").unwrap();
    assert!(main_at < reader_at, "parents first");

    let one = store.export_markdown(&sid("sess-1"), Some(&aid(READER))).unwrap();
    assert!(one.contains("### Fix the bug › Read lexer"));
    assert!(!one.contains("Write tests for the tokenizer"));
}

#[test]
fn the_markdown_export_records_every_decision_with_its_scope_and_origin() {
    use arbor_protocol::{
        ApprovalOutcome, ApprovalRequest, ApprovalResolved, ApprovalRule, ApprovalScope, DecidedBy, RuleRevoked,
        ToolOutput,
    };
    let (_dir, store) = store();
    begin(&store, "s", 0);
    let m = aid(MAIN);
    let mut log = Log::new("s", 0);
    log.push(&m, started(None, None, 0, "main"));
    let rule = ApprovalRule {
        rule_id: "rule-7".into(),
        tool: "Write".into(),
        scope: ApprovalScope::Subtree,
        agent_id: m.clone(),
        approved: true,
        request_id: "r1".into(),
        created_at: 5_000,
    };
    let request = |id: &str, call: &str| {
        EventKind::ApprovalRequest(ApprovalRequest {
            request_id: id.into(),
            call_id: call.into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            agent_path: vec!["main".into()],
            preview: None,
            options: Vec::new(),
        })
    };
    let resolved = |id: &str, outcome, by, rule: Option<ApprovalRule>, reason: Option<&str>| {
        EventKind::ApprovalResolved(ApprovalResolved {
            request_id: id.into(),
            outcome,
            scope: rule.as_ref().map_or(ApprovalScope::Once, |r| r.scope),
            decided_by: Some(by),
            reason: reason.map(str::to_string),
            rule,
            edit: None,
        })
    };
    let out = |call: &str, by| {
        EventKind::ToolOutput(ToolOutput {
            call_id: call.into(),
            content: "ok".into(),
            is_error: false,
            decided_by: Some(by),
        })
    };
    log.push(&m, call("c1", "Write", serde_json::json!({})));
    log.push(&m, request("r1", "c1"));
    log.push(&m, resolved("r1", ApprovalOutcome::Approved, DecidedBy::Person, Some(rule.clone()), None));
    log.push(&m, out("c1", DecidedBy::Person));
    log.push(&m, call("c2", "Write", serde_json::json!({})));
    log.push(&m, out("c2", DecidedBy::Rule { rule: rule.clone() }));
    log.push(&m, EventKind::RuleRevoked(RuleRevoked { rule_id: "rule-7".into() }));
    log.push(&m, call("c3", "Write", serde_json::json!({})));
    log.push(&m, request("r3", "c3"));
    log.push(&m, resolved("r3", ApprovalOutcome::Denied, DecidedBy::Person, None, Some("wrong file")));
    store.append(&log.events).unwrap();
    let md = store.export_markdown(&sid("s"), None).unwrap();
    for needle in [
        "**Approval asked** for `Write` (`c1`, request `r1`)",
        "**Approved** by the person (request `r1`; it set a rule: allow Write for “main” and all its subagents (rule `rule-7`, set 1970-01-01 00:00:05 UTC))",
        "Output (`c2`, by a rule: allow Write for “main” and all its subagents (rule `rule-7`",
        "*Rule `rule-7` revoked: the calls it covered ask again.*",
        "**Denied** by the person (request `r3`)",
        "Reason given: wrong file",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
}

#[test]
fn the_markdown_export_tells_runs_budgets_changes_and_keeps_its_outline() {
    use arbor_protocol::{
        Budget, BudgetKind, BudgetOrigin, BudgetSet, BudgetUse, BudgetWarning, ChangeKind, FileChanged, Kept,
    };
    let (_dir, store) = store();
    begin(&store, "s", 0);
    let m = aid(MAIN);
    let mut log = Log::new("s", 0);
    log.push(&m, started(None, None, 0, "main"));
    let budget = Budget { max_tokens: Some(1000), ..Budget::default() };
    log.push(
        &m,
        EventKind::BudgetSet(BudgetSet { budget: budget.clone(), origin: BudgetOrigin::Session, carved: vec![] }),
    );
    for run in 1..=2 {
        log.push(&m, status(AgentStatus::Running));
        log.push(&m, usage(400 + run, 25, None));
        log.push(&m, text(EventKind::Response, &format!("# Plan {run}\nsteps\n```\n# kept\n```")));
        if run == 1 {
            let standing = budget.standing(BudgetUse { tokens: 850, ..BudgetUse::default() }, 0);
            log.push(&m, EventKind::BudgetWarning(BudgetWarning { kind: BudgetKind::Tokens, standing }));
            log.push(
                &m,
                EventKind::FileChanged(FileChanged {
                    change_id: "chg-1".into(),
                    call_id: None,
                    root: "/work/s".into(),
                    path: "a.txt".into(),
                    kind: ChangeKind::Created,
                    before_hash: None,
                    after_hash: Some("00".into()),
                    lines_added: 1,
                    lines_removed: 0,
                    before: Kept::Absent,
                    after: Kept::Text { text: "x\n".into() },
                    ambiguous_with: Vec::new(),
                    revert_of: Vec::new(),
                }),
            );
        }
        log.push(&m, status(AgentStatus::Completed));
        log.push(&m, finished(AgentStatus::Completed, &format!("## Done {run}"), None, 1, &[]));
    }
    store.append(&log.events).unwrap();
    let md = store.export_markdown(&sid("s"), None).unwrap();
    for needle in [
        "· 2 turns in 2 runs ·",
        "Budget of its subtree: 1,000 tokens · used 85%: 853 of 1,000 tokens",
        "*Budget: 1,000 tokens (from session).*",
        "**Budget warning:** 85% used (850 of 1,000 tokens); its agents were told to wrap up.",
        "*File created:* `a.txt` (+1 −0)",
        "### Plan 1\nsteps\n```\n# kept\n```",
        "**Result of run 2 of 2** (completed, 1 turn,",
        "#### Done 2",
        "Time its agents waited for a person: 0 ms",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
    assert!(!md.contains("\n# Plan"), "no agent heading sits at the export's top level:\n{md}");
}
