//! Claude Code's settings in the real webview: a workspace's hook waits for
//! trust (the dialog lists its command), a main agent chosen as one of the
//! workspace's types, each hook run a line in the output, the calls a hook or
//! a settings rule decided marked so, and the settings' rules under Active
//! rules with their files. Screenshots at 1024×700 and 1440×900.

use crate::harness::App;
use arbor_testkit::{Scenario, ScriptedServer};
use serde_json::json;

fn scenario() -> Scenario {
    Scenario::from_json(
        &json!({"rules": [{"match": {}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "echo formatted", "description": "Format"}}]},
            {"tool_calls": [{"name": "Bash", "input": {"command": "rm -rf keep", "description": "Clean up"}}]},
            {"text": "HOOKS-DONE: formatted, and the clean-up was refused."}
        ]}]})
        .to_string(),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn hooks_rules_and_a_typed_main_agent_show_in_the_app() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    let root = app.workspace.parent().unwrap().to_path_buf();
    // The person's own settings: a rule that lets echo run unasked, one that refuses curl.
    std::fs::create_dir_all(root.join("claude")).unwrap();
    std::fs::write(
        root.join("claude/settings.json"),
        json!({"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Bash(curl:*)"]}}).to_string(),
    )
    .unwrap();
    // The workspace's: a guard against rm -rf, and a reviewer type.
    std::fs::create_dir_all(app.file(".claude/agents")).unwrap();
    std::fs::create_dir_all(app.file("keep")).unwrap();
    let guard = "grep -q 'rm -rf' && { echo 'rm -rf is not allowed here' >&2; exit 2; }; exit 0";
    std::fs::write(
        app.file(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}]}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(
        app.file(".claude/agents/code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews and tidies code\ntools: Bash, Read\n---\nYou review code.\n",
    )
    .unwrap();

    app.resize(1440, 900).await;
    // The main agent's type, from the workspace's agent files.
    let select = app.find("[data-testid=main-type-select]").await;
    app.wait("the workspace's types offered", || async {
        let text = app.text_of(&select).await;
        text.contains("as code-reviewer").then_some(())
    })
    .await;
    select.select_by_value("code-reviewer").await.unwrap();
    app.screenshot("hooks-main-type").await;

    app.send_prompt("Tidy the workspace").await;
    // The workspace names a hook: it runs only once trusted, and the dialog shows its command.
    let dialog = app.wait_text("[data-testid=mcp-trust-dialog]", "PreToolUse hook").await;
    assert!(
        dialog.contains("rm -rf is not allowed here") && dialog.contains("outside the agents' sandbox"),
        "{dialog}"
    );
    app.screenshot("hooks-trust").await;
    app.click("[data-testid=mcp-trust-accept]").await;

    app.node_status("main", "completed").await;
    app.wait_text("[data-testid=output]", "HOOKS-DONE").await;
    assert!(app.file("keep").exists(), "the hook refused rm -rf");
    let runs = app.all("[data-testid=hook-run]").await;
    assert_eq!(runs.len(), 2, "one run per Bash call");
    assert_eq!(runs[1].attr("data-decision").await.unwrap().as_deref(), Some("deny"));
    assert!(app.text_of(&runs[1]).await.contains("rm -rf is not allowed here"));
    let marks: Vec<String> = {
        let mut out = Vec::new();
        for m in app.all("[data-testid=decided-by]").await {
            out.push(format!("{}:{}", m.attr("data-kind").await.unwrap().unwrap_or_default(), app.text_of(&m).await));
        }
        out
    };
    assert!(marks.iter().any(|m| m.starts_with("setting:") && m.contains("Bash(echo:*)")), "{marks:?}");
    assert!(marks.iter().any(|m| m.starts_with("hook:") && m.contains("refused by a PreToolUse hook")), "{marks:?}");
    assert!(app.text_of(&app.find("[data-testid=session-runs]").await).await.contains("code-reviewer · "));
    app.screenshot("hooks-output").await;
    app.resize(1024, 700).await;
    app.screenshot("hooks-output-1024").await;

    // The settings' rules, under Active rules with their files.
    app.resize(1440, 900).await;
    app.click("[data-testid=open-settings]").await;
    let rules = app.wait_text("[data-testid=active-rules]", "Bash(curl:*)").await;
    assert!(rules.contains("Bash(echo:*)") && rules.contains("claude/settings.json"), "{rules}");
    app.client
        .execute(
            "[...document.querySelectorAll('[data-testid=active-rules]')].pop().scrollIntoView({block: 'start'})",
            vec![],
        )
        .await
        .unwrap();
    app.screenshot("hooks-active-rules").await;
    app.close().await;
    server.shutdown().await;
}
