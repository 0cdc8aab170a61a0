//! End-to-end tests of the desktop app in the real WebKit webview, through
//! WebDriver, against the scripted model server (design.md §5). They need the
//! web UI embedded in the binary: `scripts/test.sh` builds with
//! `--features custom-protocol` after building `ui/dist`.

// Test code: a failed step should fail the test loudly, where it happened.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approvals;
mod closing;
mod context;
mod external;
mod harness;
mod hooks;
mod isolation;
mod layout;
mod reload;
mod review;
mod sessions;
mod xwd;

use arbor_testkit::{Scenario, ScriptedServer};
use harness::{App, exists};
use std::path::Path;

async fn scripted(name: &str) -> ScriptedServer {
    ScriptedServer::start(Scenario::load(name).unwrap()).await.unwrap()
}

/// Whether the main agent's model request number `turn` (0-based) contains `needle`.
fn main_request_contains(server: &ScriptedServer, turn: usize, needle: &str) -> bool {
    server
        .requests()
        .iter()
        .any(|r| r.first_user_text.contains("E2E-START") && r.turn == turn && r.body.to_string().contains(needle))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_session_with_subagents_is_watched_approved_stopped_and_delegated_with_the_mouse() {
    let server = scripted("desktop_e2e").await;
    let app = App::launch_scripted(&server).await;

    // Start a session from the prompt box.
    let prompt = app.find("[data-testid=prompt-input]").await;
    prompt.send_keys("E2E-START: split this into subagents").await.unwrap();
    app.click("[data-testid=send]").await;

    // The main agent and its three subagents appear, nested under it, with their descriptions.
    let main = app.node("main").await;
    let main_id = main.attr("data-agent-id").await.unwrap().unwrap();
    for label in ["Write the greeting", "Write the farewell", "Survey the repository"] {
        let node = app.node(label).await;
        assert_eq!(node.attr("data-parent-id").await.unwrap().as_deref(), Some(main_id.as_str()), "{label} under main");
    }

    // Both writes wait for approval at once; each card names its subagent.
    let cards = app
        .wait("two approval cards", || async {
            let cards = app.approval_cards().await;
            (cards.len() == 2).then_some(cards)
        })
        .await;
    app.wait_count("count-approvals", 2).await;
    app.wait_count("count-waiting", 2).await;
    app.screenshot("approval-inbox").await;
    let mut greeting = None;
    let mut farewell = None;
    for card in cards {
        let label =
            app.text_of(&card.find(fantoccini::Locator::Css("[data-testid=approval-agent]")).await.unwrap()).await;
        let agent = card.attr("data-agent-id").await.unwrap().unwrap();
        assert!(label.contains(&agent), "the card names the agent's id: {label}");
        if label.contains("Write the greeting") {
            greeting = Some(card);
        } else if label.contains("Write the farewell") {
            farewell = Some(card);
        } else {
            panic!("an approval card that names neither subagent: {label}");
        }
    }
    let (greeting, farewell) = (greeting.unwrap(), farewell.unwrap());
    greeting.find(fantoccini::Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();
    // Answering one leaves the other pending.
    app.wait_cards(1).await;
    farewell.find(fantoccini::Locator::Css("[data-testid=deny]")).await.unwrap().click().await.unwrap();

    app.node_status("Write the greeting", "completed").await;
    app.node_status("Write the farewell", "completed").await;
    assert!(exists(&app.file("greeting.txt")), "the approved Write ran");
    assert!(!exists(&app.file("farewell.txt")), "the denied Write did not");
    app.wait_count("count-running", 1).await;
    app.screenshot("tree-running-subagents").await;

    // Stop the slow subagent from its node: it ends cancelled and the main agent goes on.
    let slow = app.node("Survey the repository").await;
    slow.click().await.unwrap();
    slow.find(fantoccini::Locator::Css("[data-testid=node-stop]")).await.unwrap().click().await.unwrap();
    app.node_status("Survey the repository", "cancelled").await;
    app.node_status("main", "completed").await;
    app.wait_count("count-completed", 2).await;
    app.wait_count("count-failed", 0).await;
    app.wait_count("count-running", 0).await;
    assert!(main_request_contains(&server, 1, "stopped by the user"), "the main agent was told the survey was stopped");

    // Delegate… from the main agent's node: the new subagent's result reaches the main agent.
    let main = app.node("main").await;
    main.click().await.unwrap();
    main.find(fantoccini::Locator::Css("[data-testid=node-delegate]")).await.unwrap().click().await.unwrap();
    app.find("[data-testid=delegate-form]").await;
    app.find("[data-testid=delegate-prompt]").await.send_keys("E2E-DELEGATED: count the text files").await.unwrap();
    app.find("[data-testid=delegate-description]").await.send_keys("Count text files").await.unwrap();
    app.click("[data-testid=delegate-submit]").await;
    let delegated = app.node("Count text files").await;
    assert_eq!(delegated.attr("data-parent-id").await.unwrap().as_deref(), Some(main_id.as_str()));
    app.node_status("Count text files", "completed").await;
    app.wait("the main agent to read the delegated result", || async {
        main_request_contains(&server, 2, "the workspace holds 2 text files").then_some(())
    })
    .await;
    app.wait_count("count-completed", 3).await;
    app.screenshot("status-bar-after-delegation").await;

    app.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn first_run_without_a_provider_offers_setup_and_the_demo() {
    let app = App::launch(&[]).await;
    app.wait_text("body", "Try the demo").await;
    app.screenshot("first-run").await;
    // What the page logs reaches the app's output, which a failed wait quotes.
    app.client.execute("console.error('E2E-CONSOLE-PROBE')", vec![]).await.unwrap();
    app.wait("the page's console in the app's output", || async {
        app.console().contains("E2E-CONSOLE-PROBE").then_some(())
    })
    .await;
    app.click("[data-testid=try-demo]").await;
    // The demo's main agent starts two subagents in parallel.
    app.node("Find TODOs").await;
    app.node("Review the tests").await;
    // It reaches its first approval (the demo runs under the default policy: edits ask).
    let card = app.find("[data-testid=approval]").await;
    let label = app.text_of(&card.find(fantoccini::Locator::Css("[data-testid=approval-agent]")).await.unwrap()).await;
    assert!(label.contains("agent-"), "the approval names its agent: {label}");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_finished_session_is_reviewed_from_history_and_found_by_transcript_search() {
    let server = scripted("history_e2e").await;
    // The harness gives the app a fresh temporary ARBOR_DATA_DIR: the history holds this test's sessions only.
    let app = App::launch_scripted(&server).await;

    // A session with two subagents runs to the end.
    let prompt = app.find("[data-testid=prompt-input]").await;
    prompt.send_keys("HIST-START: survey the pond with two subagents").await.unwrap();
    app.click("[data-testid=send]").await;
    app.node_status("Find the fish", "completed").await;
    app.node_status("Count the birds", "completed").await;
    app.node_status("main", "completed").await;
    app.wait_text("[data-testid=output]", "Both surveys are in").await;
    // The prompt is shown once, from the backend's user_message (no local echo).
    let output = app.text_of(&app.find("[data-testid=output]").await).await;
    assert_eq!(output.matches("HIST-START: survey the pond").count(), 1, "the prompt appears once: {output}");
    // The live figure (sent with the event frames) is what the store will hold for the session.
    let live_tokens = app.text_of(&app.find("[data-testid=total-tokens]").await).await;
    assert!(!live_tokens.starts_with("0 "), "the session used tokens: {live_tokens}");

    // A second session follows; it is the live one from now on.
    app.click("[data-testid=new-session]").await;
    app.wait("an empty window", || async { app.rows().await.is_empty().then_some(()) }).await;
    app.find("[data-testid=prompt-input]").await.send_keys("HIST-SECOND: say hello").await.unwrap();
    app.click("[data-testid=send]").await;
    app.node_status("main", "completed").await;
    app.wait_text("[data-testid=output]", "Hello from the second session").await;

    // History lists both, newest first, each with its prompt; the filter narrows them.
    app.click("[data-testid=history-button]").await;
    app.find("[data-testid=history-panel]").await;
    let prompts = app
        .wait("both sessions in the history list", || async {
            let rows = app.all("[data-testid=history-row]").await;
            let mut texts = Vec::new();
            for r in &rows {
                texts.push(app.text_of(r).await);
            }
            (texts.len() == 2).then_some(texts)
        })
        .await;
    assert!(prompts[0].contains("HIST-SECOND: say hello") && prompts[0].contains("live"), "newest first: {prompts:?}");
    assert!(prompts[1].contains("HIST-START: survey the pond"), "{prompts:?}");
    assert!(prompts[1].contains("3 agents"), "the row counts the agents: {prompts:?}");
    app.screenshot("history-list").await;
    app.find("[data-testid=history-filter]").await.send_keys("pond").await.unwrap();
    app.wait("the filter to leave one session", || async {
        (app.all("[data-testid=history-row]").await.len() == 1).then_some(())
    })
    .await;
    let row = app.first_containing("[data-testid=history-row]", "HIST-START: survey the pond").await.unwrap();
    assert_eq!(row.attr("data-status").await.unwrap().as_deref(), Some("completed"));

    // Opened, it is read-only: the same tree with the final statuses, no actions.
    row.click().await.unwrap();
    app.wait_text("[data-testid=review-banner]", "read-only").await;
    app.wait_text("[data-testid=review-banner]", "Past session").await;
    // Reviewed, the figure comes from the stored agents: the same.
    app.wait_text("[data-testid=total-tokens]", &live_tokens).await;
    let main = app.node("main").await;
    let main_id = main.attr("data-agent-id").await.unwrap().unwrap();
    for label in ["Find the fish", "Count the birds"] {
        let node = app.node(label).await;
        assert_eq!(node.attr("data-parent-id").await.unwrap().as_deref(), Some(main_id.as_str()), "{label} under main");
        app.node_status(label, "completed").await;
    }
    app.node_status("main", "completed").await;
    assert_eq!(app.rows().await.len(), 3, "main and its two subagents");
    for action in ["node-stop", "node-delegate", "node-message", "node-resume", "approve", "deny", "send"] {
        assert!(app.all(&format!("[data-testid={action}]")).await.is_empty(), "no {action} in a review");
    }
    app.find("[data-testid=resume-session]").await;
    app.find("[data-testid=back-to-live]").await;
    app.wait_text("[data-testid=output]", "Both surveys are in").await;
    app.screenshot("history-review").await;

    // Search every transcript: a hit in the fish subagent's transcript, named by its path.
    app.click("[data-testid=history-button]").await;
    let search = app.find("[data-testid=search-input]").await;
    search.send_keys(&format!("ZEBRAFISH{}", char::from(fantoccini::key::Key::Enter))).await.unwrap();
    let hit = app
        .wait("a search hit in the fish subagent", || async {
            app.first_containing("[data-testid=search-hit]", "Find the fish").await
        })
        .await;
    let path = app.text_of(&hit.find(fantoccini::Locator::Css("[data-testid=search-hit-path]")).await.unwrap()).await;
    assert!(path.ends_with(" › Find the fish"), "the hit names the subagent's path: {path}");
    let marked = app.text_of(&hit.find(fantoccini::Locator::Css("mark")).await.unwrap()).await;
    assert_eq!(marked, "ZEBRAFISH");
    let fish_id = hit.attr("data-agent-id").await.unwrap().unwrap();
    assert_ne!(fish_id, main_id);
    app.screenshot("search-hits").await;

    // Clicking it opens the session at that subagent, with the word in its output.
    hit.click().await.unwrap();
    app.wait_text("[data-testid=review-banner]", "read-only").await;
    let selected = format!("[data-testid=tree-node][data-agent-id='{fish_id}'][aria-selected=true]");
    app.find(&selected).await;
    app.wait_text("[data-testid=output]", "ZEBRAFISH").await;
    app.wait_text(".output-header", "Find the fish").await;
    app.screenshot("search-opened").await;

    // Back to the live session, the second one, with its actions.
    app.click("[data-testid=back-to-live]").await;
    app.wait("the review to close", || async { app.all("[data-testid=review-banner]").await.is_empty().then_some(()) })
        .await;
    app.wait_text("[data-testid=output]", "Hello from the second session").await;
    assert_eq!(app.rows().await.len(), 1, "the second session has only its main agent");
    app.find("[data-testid=node-delegate]").await;

    app.close().await;
    server.shutdown().await;
}

#[tokio::test]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn an_mcp_tool_call_shows_in_the_output_and_the_server_with_its_tools_in_settings() {
    let server = scripted("mcp_e2e").await;
    let app = App::launch_scripted(&server).await;
    let everything = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/node_modules/.bin/mcp-server-everything");
    assert!(everything.exists(), "run `npm --prefix tests/mcp ci` (scripts/test.sh does)");
    let config = serde_json::json!({"mcpServers": {"everything": {"command": everything}}});
    std::fs::write(app.file(".mcp.json"), config.to_string()).unwrap();

    app.find("[data-testid=prompt-input]").await.send_keys("Echo something through MCP").await.unwrap();
    app.click("[data-testid=send]").await;
    // The workspace's .mcp.json names a command: it runs only once trusted.
    app.click("[data-testid=mcp-trust-accept]").await;
    app.node_status("main", "completed").await;
    app.wait_text("[data-testid=output]", "The echo came back from the MCP server").await;
    // A call that may change things (an MCP tool without a read-only hint) starts open and shows the server's answer.
    let head = app.find("[data-testid=output] .tool-head").await;
    assert_eq!(head.attr("aria-expanded").await.unwrap().as_deref(), Some("true"));
    let output = app.wait_text("[data-testid=output]", "Echo: hello from the desktop").await;
    assert!(output.contains("everything") && output.contains("echo"), "the call names its server and tool: {output}");
    let status = app.find("[data-testid=mcp-status]").await;
    assert!(app.text_of(&status).await.contains("everything"), "the agent's connection is shown");
    app.screenshot("mcp-output").await;

    app.click("[data-testid=open-settings]").await;
    let row = app
        .wait("the everything server listed as ready", || async {
            for r in app.all("[data-testid=mcp-server-row]").await {
                if r.attr("data-state").await.ok().flatten().as_deref() == Some("ready") {
                    return Some(r);
                }
            }
            None
        })
        .await;
    let text = app.text_of(&row).await;
    assert!(text.contains("everything") && text.contains(".mcp.json"), "name and where it is configured: {text}");
    app.client
        .execute("document.querySelector('[data-testid=mcp-servers]').scrollIntoView({block: 'start'})", vec![])
        .await
        .unwrap();
    app.screenshot("mcp-settings").await;
}
