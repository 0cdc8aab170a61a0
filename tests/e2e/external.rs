//! An external ACP agent as a node in the real webview: the testkit's scripted ACP
//! agent, a person's own agent type, started by the main agent's Task call. Its node
//! is marked ACP with the command it runs, its Write is a card in the one inbox naming
//! its path, the file is written (through Arbor's fs) only once approved, and its
//! output and result show like any agent's. Screenshots at 1024×700 and 1440×900.

use crate::harness::App;
use arbor_testkit::{Scenario, ScriptedServer};
use fantoccini::Locator;
use serde_json::json;

fn scripted_acp() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(|d| d.parent()).unwrap().join("arbor-scripted-acp");
    assert!(bin.exists(), "{} is missing: build it with `cargo build -p arbor-testkit --bins`", bin.display());
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn an_external_acp_agent_is_a_node_with_its_approvals_in_the_inbox() {
    let scenario = json!({"rules": [{"match": {}, "repeat_last": true, "turns": [
        {"tool_calls": [{"name": "Task", "input": {
            "description": "Scripted agent writes", "prompt": "write out.md", "subagent_type": "scripted"}}]},
        {"text": "EXTERNAL-DONE: the scripted agent wrote out.md."}
    ]}]});
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    let root = app.workspace.parent().unwrap().to_path_buf();
    std::fs::create_dir_all(root.join("config/agents")).unwrap();
    std::fs::write(
        root.join("config/agents/scripted.md"),
        format!(
            "---\nname: scripted\ndescription: A scripted ACP agent.\nacp:\n  command: {}\n  args: [ok]\n---\n",
            scripted_acp().display()
        ),
    )
    .unwrap();

    app.resize(1440, 900).await;
    app.send_prompt("Have the scripted agent write out.md").await;
    let node = app.node("Scripted agent writes").await;
    let badge = node.find(Locator::Css("[data-testid=tree-external]")).await.unwrap();
    assert_eq!(app.text_of(&badge).await, "ACP");
    assert!(badge.attr("title").await.unwrap().unwrap_or_default().contains("arbor-scripted-acp"));

    // Its Write asks in the one inbox, naming the node; nothing is written before the answer.
    app.wait_cards(1).await;
    let card = app.approval_cards().await.remove(0);
    let said = app.text_of(&card).await;
    // It names no tool, so its kind and input say which: an edit of a whole file, a Write.
    assert!(
        said.contains("main › Scripted agent writes") && said.contains("Write") && said.contains("+scripted"),
        "{said}"
    );
    assert!(!app.file("out.md").exists());
    app.screenshot("external-approval").await;
    // Its own answers, in its words, in place of Arbor's scopes.
    let options = card.find_all(Locator::Css("[data-testid=agent-option]")).await.unwrap();
    let mut names = Vec::new();
    for o in &options {
        names.push(app.text_of(o).await.trim().to_string());
    }
    assert_eq!(names, ["Allow", "Reject"]);
    assert!(card.find(Locator::Css("[data-testid=approval-scope]")).await.is_err(), "no scope options");
    options[0].click().await.unwrap();

    app.node_status("Scripted agent writes", "completed").await;
    app.node_status("main", "completed").await;
    assert_eq!(std::fs::read_to_string(app.file("out.md")).unwrap(), "scripted");
    app.wait_text("[data-testid=output]", "EXTERNAL-DONE").await;
    // The Task's card says what runs the child, and where its process runs.
    let said = app.wait_text("[data-testid=task-external]", "arbor-scripted-acp").await;
    assert!(said.contains("outside Arbor's sandbox"), "{said}");

    // Its own output: what it said, its call, its result; the header says what runs it.
    app.node("Scripted agent writes").await.click().await.unwrap();
    // Its own output, not the main agent's (whose Task card quotes the result too): its change line.
    let output = app.wait_text("[data-testid=output]", "created out.md").await;
    assert!(output.contains("Write") && output.contains("scripted done"), "the call and its result: {output}");
    // Its call named the file by its whole path; the card names it in the workspace.
    let summary = app.find("[data-testid=output] .tool-summary").await;
    assert_eq!(app.text_of(&summary).await, "out.md");
    let whole = summary.attr("title").await.unwrap().unwrap_or_default();
    assert_eq!(whole, app.file("out.md").to_string_lossy(), "the whole path on hover");
    // Its plan, as it last stated each one: both steps done by its end.
    let plans = app.all("[data-testid=plan]").await;
    let last = plans.last().expect("the agent's plan shows in its output");
    let mut marks = Vec::new();
    for step in last.find_all(Locator::Css("li")).await.unwrap() {
        let text = step.find(Locator::Css(".plan-text")).await.unwrap();
        marks.push((app.text_of(&text).await, step.attr("data-status").await.unwrap().unwrap_or_default()));
    }
    let done = |s: &str| (s.to_string(), "completed".to_string());
    assert_eq!(marks, vec![done("Write out.md"), done("Check out.md")]);
    let header = app.find("[data-testid=header-external]").await;
    assert_eq!(app.text_of(&header).await, "ACP · unsandboxed", "what its process runs in, said");
    app.screenshot("external-node-1440").await;
    app.resize(1024, 700).await;
    app.screenshot("external-node-1024").await;
    app.close().await;
}

/// An ACP agent added in Settings (the user's agent file, written by Rust through the
/// app's own command) is offered to the main agent and runs as a node of the tree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn an_acp_agent_added_in_settings_runs_as_a_node() {
    let scenario = json!({"rules": [{"match": {}, "repeat_last": true, "turns": [
        {"tool_calls": [{"name": "Task", "input": {
            "description": "Added agent writes", "prompt": "write out.md", "subagent_type": "added"}}]},
        {"text": "ADDED-DONE"}
    ]}]});
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    app.resize(1024, 700).await;
    app.click("[data-testid=open-settings]").await;
    app.client
        .execute("document.querySelector('[data-testid=acp-agents]').scrollIntoView({block: 'start'})", vec![])
        .await
        .unwrap();
    // The presets Rust offers, and what one fills in.
    app.wait_text("[data-testid=acp-preset]", "Claude Code").await;
    app.find("[data-testid=acp-name]").await.send_keys("added").await.unwrap();
    app.find("[data-testid=acp-description]").await.send_keys("Writes what it is told.").await.unwrap();
    app.find("[data-testid=acp-command]").await.send_keys(&scripted_acp().display().to_string()).await.unwrap();
    app.find("[data-testid=acp-args]").await.send_keys("ok").await.unwrap();
    app.click("[data-testid=acp-add]").await;
    let said = app.wait_text("[data-testid=acp-message]", "Added").await;
    assert!(said.contains("arbor-scripted-acp ok"), "{said}");
    let row = app.wait_text("[data-testid=acp-agent][data-name=added]", "arbor-scripted-acp").await;
    assert!(row.contains("user config"), "{row}");
    let file = app.workspace.parent().unwrap().join("config/agents/added.md");
    assert!(file.is_file(), "the user's own agent file");
    app.screenshot("settings-acp-agents-1024").await;
    app.click("[data-testid=settings-back]").await;

    app.send_prompt("Have the added agent write out.md").await;
    let node = app.node("Added agent writes").await;
    node.find(Locator::Css("[data-testid=tree-external]")).await.unwrap();
    app.wait_cards(1).await;
    let card = app.approval_cards().await.remove(0);
    card.find(Locator::Css("[data-testid=agent-option]")).await.unwrap().click().await.unwrap();
    app.node_status("Added agent writes", "completed").await;
    assert_eq!(std::fs::read_to_string(app.file("out.md")).unwrap(), "scripted");
    app.close().await;
}
