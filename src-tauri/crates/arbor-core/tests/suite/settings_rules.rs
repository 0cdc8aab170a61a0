//! Claude Code's permission rules from settings files through the real runtime:
//! a rule refuses, asks or lets a call run, and the call says which rule decided.

use super::hooks::{bash_twice, decided_by};
use super::*;
use arbor_protocol::{ApprovalAnswer, ApprovalScope, DecidedBy, HookOrigin};
use serde_json::{Value, json};

/// Permission rules as a settings file would give them.
fn permission_rules(permissions: Value, origin: HookOrigin) -> arbor_core::permissions::PermissionRules {
    let known = |t: &str| ["Bash", "Read", "Write", "Edit", "Grep", "Glob", "Task"].contains(&t);
    let loaded = arbor_core::permissions::parse(
        &permissions,
        std::path::Path::new("/w/.claude/settings.json"),
        origin,
        &known,
        (std::path::Path::new("/w"), None),
    );
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    arbor_core::permissions::PermissionRules::new(loaded.rules)
}

#[tokio::test]
async fn settings_rules_refuse_ask_or_let_run_and_say_which_rule_decided() {
    // Allow under a policy that asks: runs unasked. Deny: refused with the rule named.
    let h = Harness::new(bash_twice("echo one", "curl https://example.com"), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    config.permissions =
        permission_rules(json!({"allow": ["Bash(echo:*)"], "deny": ["Bash(curl:*)"]}), HookOrigin::Workspace);
    let run = h.run_with(config, "go").await;
    assert!(!run.types().contains(&"approval_request"), "nobody was asked");
    let outputs = run.outputs();
    assert!(!outputs[0].1, "{outputs:?}");
    assert!(outputs[1].1 && outputs[1].0.contains("denied by the rule Bash(curl:*)"), "{outputs:?}");
    assert_eq!(
        decided_by(&run.events, "one"),
        Some(DecidedBy::Setting { rule: "Bash(echo:*)".into(), source: "/w/.claude/settings.json".into() })
    );
    assert!(matches!(decided_by(&run.events, "two"), Some(DecidedBy::Setting { rule, .. }) if rule == "Bash(curl:*)"));

    // Ask under a policy that allows all: the person is asked.
    let h = Harness::new(bash_twice("git push origin main", "echo ok"), Api::OpenAi).await;
    let mut config = h.config();
    config.permissions = permission_rules(json!({"ask": ["Bash(git push:*)"]}), HookOrigin::Workspace);
    let (session, mut events) = h.start(config, "go");
    let asked = arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request").await;
    let Ok(arbor_protocol::AgentEvent { kind: EventKind::ApprovalRequest(r), .. }) = asked else { panic!("asked") };
    assert_eq!(r.tool_args["command"], "git push origin main");
    session.submit(Command::ResolveApproval(ApprovalAnswer::new(&r.request_id, false, ApprovalScope::Once))).unwrap();
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert_eq!(rest.iter().filter(|e| e.kind.type_name() == "approval_request").count(), 0, "echo ok was not asked");
}
