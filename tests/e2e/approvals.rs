//! Approvals a person can trust, end to end in the real webview: live requests
//! answerable while a past session is open, a session-wide rule that answers a
//! pending sibling and marks the calls it decides, revoking it, an overwrite's
//! diff, the keyboard, a denial's reason reaching the model, a spawn card whose
//! edits the child gets, and a workspace's MCP servers trusted before they run
//! (a `.mcp.json` that hangs when read keeps that question waiting, not the window).

use crate::harness::{App, make_fifo};
use crate::scripted;
use fantoccini::Locator;
use fantoccini::elements::Element;
use fantoccini::key::Key;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// The pending card whose agent label contains `agent`.
async fn card_of(app: &App, agent: &str) -> Element {
    app.wait(&format!("an approval card from {agent:?}"), || async {
        for card in app.approval_cards().await {
            let label = card.find(Locator::Css("[data-testid=approval-agent]")).await.ok()?;
            if app.text_of(&label).await.contains(agent) {
                return Some(card);
            }
        }
        None
    })
    .await
}

/// Brings `el` into the middle of the view, so a click lands on it and not on what scrolls over it.
async fn scroll_to(app: &App, el: &Element) {
    let arg = serde_json::to_value(el).unwrap();
    app.client.execute("arguments[0].scrollIntoView({block: 'center'})", vec![arg]).await.unwrap();
}

/// Whether a model request of the agent whose task contains `task` carried `needle`.
fn request_of_contains(server: &arbor_testkit::ScriptedServer, task: &str, needle: &str) -> bool {
    server.requests().iter().any(|r| r.first_user_text.contains(task) && r.body.to_string().contains(needle))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn live_approvals_are_answered_from_a_past_session_with_rules_and_the_keyboard() {
    let server = scripted("approvals_e2e").await;
    let app = App::launch_scripted(&server).await;

    // A first session, left in the history.
    app.find("[data-testid=prompt-input]").await.send_keys("APPR-FIRST: say hello").await.unwrap();
    app.click("[data-testid=send]").await;
    app.node_status("main", "completed").await;
    app.click("[data-testid=new-session]").await;
    app.wait("an empty window", || async { app.rows().await.is_empty().then_some(()) }).await;

    // The second: two subagents each wait to Write.
    app.find("[data-testid=prompt-input]").await.send_keys("APPR-START: update the docs").await.unwrap();
    app.click("[data-testid=send]").await;
    app.wait_cards(2).await;

    // Settings and the history list keep the live requests in view.
    app.click("[data-testid=open-settings]").await;
    app.find("[data-testid=save-settings]").await;
    app.wait_cards(2).await;
    app.screenshot("settings-with-inbox").await;
    app.click("[data-testid=history-button]").await;
    app.find("[data-testid=history-panel]").await;
    app.wait_cards(2).await;
    // The first session opened in review: the live requests stay in view and answerable.
    let row = app.wait_containing("[data-testid=history-row]", "APPR-FIRST").await;
    row.click().await.unwrap();
    app.wait_text("[data-testid=review-banner]", "Past session").await;
    app.wait_cards(2).await;
    app.wait_count("count-approvals", 2).await;
    app.wait_text("[data-testid=history-button]", "2").await;
    let title = app.client.title().await.unwrap();
    assert!(title.contains('2'), "the window title shows the live count: {title:?}");
    // The OS window's title too: the taskbar says how many wait.
    app.wait("the OS window's title to count the approvals", || async {
        app.os_window_titles().iter().any(|t| t == "(2) Arbor").then_some(())
    })
    .await;

    // The overwrite's diff shows the line it loses.
    let readme = card_of(&app, "Update readme").await;
    let diff = readme.find(Locator::Css("[data-testid=approval-diff]")).await.unwrap();
    let mut removed = Vec::new();
    for line in diff.find_all(Locator::Css("[data-testid=diff-line][data-kind=del]")).await.unwrap() {
        removed.push(app.text_of(&line).await);
    }
    assert!(removed.iter().any(|l| l.contains("# e2e workspace")), "the lost line is shown removed: {removed:?}");
    app.screenshot("approval-inbox").await;
    // The smallest window it is meant for, to look at.
    app.resize(1024, 700).await;
    app.screenshot("approval-inbox-1024x700").await;
    app.resize(1440, 900).await;
    app.screenshot("approval-inbox-1440x900").await;
    app.resize(1280, 800).await;

    // "Write anywhere in this session": it also answers the changelog's pending Write.
    let session_scope = app.choose_scope(&readme, "session").await;
    let label = app.text_of(&session_scope).await;
    assert!(label.contains("Write anywhere in this session"), "the option says what it covers: {label}");
    readme.find(Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();

    // The changelog's Bash is the next card: the rule answered both of its Writes.
    let bash = card_of(&app, "Update changelog").await;
    app.wait_text("[data-testid=approval]", "ls").await;
    assert!(app.file("CHANGELOG.md").exists() && app.file("CHANGES-2.md").exists(), "both ran on the rule");
    assert_eq!(std::fs::read_to_string(app.file("README.md")).unwrap(), "# A new readme\n\nWritten by a subagent.\n");

    // Back to the live session: the call the rule decided is marked with the rule.
    app.click("[data-testid=back-to-live]").await;
    app.node("Update changelog").await.click().await.unwrap();
    let mark = app
        .wait("a call marked as decided by the rule", || async {
            for m in app.all("[data-testid=decided-by][data-kind=rule]").await {
                let t = app.text_of(&m).await;
                if t.contains("Write anywhere in this session") {
                    return Some(t);
                }
            }
            None
        })
        .await;
    assert!(mark.contains("Update readme"), "whose answer set it: {mark}");

    // The rule is listed; revoked, the next Write asks again.
    let rules = app.find("[data-testid=active-rules]").await;
    let listed = rules.find_all(Locator::Css("[data-testid=rule]")).await.unwrap();
    assert_eq!(listed.len(), 1);
    app.screenshot("active-rules").await;
    listed[0].find(Locator::Css("[data-testid=rule-revoke]")).await.unwrap().click().await.unwrap();
    app.wait("the rule gone from the list", || async {
        app.all("[data-testid=active-rules] [data-testid=rule]").await.is_empty().then_some(())
    })
    .await;

    // The keyboard: approve the Bash with "a"…
    drop(bash);
    app.find("[data-testid=keys-hint]").await;
    card_of(&app, "Update changelog").await.send_keys("a").await.unwrap();
    // …the changelog's third Write asks (the rule is gone); deny it with a reason ("r").
    // The third Write asks again.
    let again = app.wait_containing("[data-testid=approval]", "CHANGES-3.md").await;
    again.send_keys("r").await.unwrap();
    let reason = app.find("[data-testid=deny-reason]").await;
    reason.send_keys(&format!("keep it in CHANGELOG.md{}", char::from(Key::Enter))).await.unwrap();
    app.node_status("main", "completed").await;
    assert!(!app.file("CHANGES-3.md").exists(), "the denied Write did not run");
    assert!(
        request_of_contains(&server, "APPR-CL", "keep it in CHANGELOG.md"),
        "the model's next request carried the reason"
    );
    app.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_spawn_card_is_edited_before_the_child_starts_and_the_child_gets_the_edit() {
    let server = scripted("spawn_e2e").await;
    let app = App::launch_scripted(&server).await;
    // "Ask before starting subagents", from Settings.
    app.click("[data-testid=open-settings]").await;
    let ask = app.find("[data-testid=ask-before-spawning]").await;
    scroll_to(&app, &ask).await;
    ask.click().await.unwrap();
    app.click("[data-testid=save-settings]").await;
    app.click("[data-testid=settings-back]").await;

    app.find("[data-testid=prompt-input]").await.send_keys("SPAWN-START: survey the code").await.unwrap();
    app.click("[data-testid=send]").await;
    let card = app.find("[data-testid=spawn-card]").await;
    let prompt = card.find(Locator::Css("[data-testid=spawn-prompt]")).await.unwrap();
    assert!(app.text_of(&card).await.contains("general-purpose"));
    prompt.clear().await.unwrap();
    prompt.send_keys("SPAWN-CHILD: survey src only").await.unwrap();
    card.find(Locator::Css("[data-testid=spawn-tool][data-tool=Bash]")).await.unwrap().click().await.unwrap();
    // The card says what approving will change before anyone relies on it.
    app.wait_text("[data-testid=spawn-card]", "prompt, tools").await;
    app.screenshot("spawn-card").await;
    app.click("[data-testid=spawn-card] [data-testid=approve]").await;
    app.node_status("main", "completed").await;

    let requests = server.requests();
    let child = requests.iter().find(|r| r.first_user_text.contains("SPAWN-CHILD")).expect("the child ran");
    assert_eq!(child.first_user_text, "SPAWN-CHILD: survey src only", "the edited prompt");
    let tools: Vec<&str> = child.body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(!tools.contains(&"Bash") && tools.contains(&"Read"), "Bash was removed: {tools:?}");
    app.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_workspace_mcp_server_starts_only_once_the_person_trusts_it() {
    let server = scripted("mcp_e2e").await;
    let app = App::launch_scripted(&server).await;
    let everything = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/node_modules/.bin/mcp-server-everything");
    assert!(everything.exists(), "run `npm --prefix tests/mcp ci` (scripts/test.sh does)");
    // The server is started through a script that leaves a mark: no mark, no process ever ran.
    let marker = app.file("../server-started");
    let wrapper = app.file("../start-everything.sh");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\ntouch '{}'\nexec '{}' \"$@\"\n", marker.display(), everything.display()),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config =
        serde_json::json!({"mcpServers": {"everything": {"command": wrapper, "env": {"EVERYTHING_TOKEN": "x"}}}});
    std::fs::write(app.file(".mcp.json"), config.to_string()).unwrap();

    // Asked first; started without them, nothing runs.
    app.find("[data-testid=prompt-input]").await.send_keys("Echo something through MCP").await.unwrap();
    app.click("[data-testid=send]").await;
    let dialog = app.find("[data-testid=mcp-trust-dialog]").await;
    let text = app.text_of(&dialog).await;
    assert!(text.contains("start-everything.sh") && text.contains("EVERYTHING_TOKEN"), "command and env names: {text}");
    assert!(!text.contains("\"x\""), "never the values");
    app.screenshot("mcp-trust").await;
    app.click("[data-testid=mcp-trust-skip]").await;
    app.node_status("main", "completed").await;
    assert!(!marker.exists(), "no server process before trust");

    // Trusted: the next session starts it and the call goes through.
    app.click("[data-testid=new-session]").await;
    app.wait("an empty window", || async { app.rows().await.is_empty().then_some(()) }).await;
    app.find("[data-testid=prompt-input]").await.send_keys("Echo something through MCP").await.unwrap();
    app.click("[data-testid=send]").await;
    app.click("[data-testid=mcp-trust-accept]").await;
    app.wait_text("[data-testid=output]", "Echo: hello from the desktop").await;
    assert!(marker.exists(), "started after trust");
    app.close().await;
    server.shutdown().await;
}

/// A workspace whose `.mcp.json` hangs when read (a FIFO here; a file on a dead
/// network mount does the same): the question about its servers waits for the
/// file, the window does not. While the read waits, the page answers clicks and
/// another command is answered (the history's list); once the file reads, the
/// question is asked and the session starts. The commands that read files or the
/// keyring used to run on the window's main thread, which froze with them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_workspace_file_that_hangs_keeps_its_question_waiting_not_the_window() {
    let server = scripted("mcp_e2e").await;
    let app = App::launch_scripted(&server).await;
    app.find("[data-testid=prompt-input]").await;
    let mcp = app.file(".mcp.json");
    make_fifo(&mcp);

    // The FIFO opens to write (without waiting) once the page's question has opened it to read.
    // The send and the wait go together: a window frozen by the read would never finish the click.
    let asked = tokio::time::timeout(Duration::from_secs(30), async {
        let ((), held) = tokio::join!(
            app.send_prompt("Echo something through MCP"),
            app.fifo_read_by_app(&mcp, "the page to read the workspace's .mcp.json")
        );
        app.click("[data-testid=history-button]").await;
        app.find("[data-testid=history-empty]").await;
        app.click("[data-testid=history-close]").await;
        held
    })
    .await;
    // Given up, the FIFO's writer goes with the future: the read ends and the window thaws.
    let Ok(mut held) = asked else { panic!("the window froze while a workspace file hung") };

    // The file as it stays, in place before the waiting read gets its text: the start reads it again.
    let config = serde_json::json!({"mcpServers": {"slow-mount": {"command": "/bin/true"}}}).to_string();
    std::fs::write(app.file(".mcp.json.new"), &config).unwrap();
    std::fs::rename(app.file(".mcp.json.new"), &mcp).unwrap();
    held.write_all(config.as_bytes()).unwrap();
    drop(held);
    let dialog = app.find("[data-testid=mcp-trust-dialog]").await;
    let text = app.text_of(&dialog).await;
    assert!(text.contains("slow-mount"), "asked about the file as it read: {text}");
    app.click("[data-testid=mcp-trust-skip]").await;
    app.node_status("main", "completed").await;
    app.close().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn five_parallel_subagents_are_answered_from_the_keyboard_alone_and_the_review_shows_every_decision() {
    let server = scripted("keyboard_e2e").await;
    let app = App::launch_scripted(&server).await;
    let prompt = app.find("[data-testid=prompt-input]").await;
    prompt.send_keys("KEY-START: five workers").await.unwrap();
    // Ctrl+Enter sends; Tab leaves the prompt box for the inbox's keys.
    prompt.send_keys(&format!("{}{}", char::from(Key::Control), char::from(Key::Enter))).await.unwrap();
    app.client.active_element().await.unwrap().send_keys(&char::from(Key::Tab).to_string()).await.unwrap();

    // Ten requests in all: each Write approved with "a", each command denied with "d".
    let mut answered = 0;
    while answered < 10 {
        wait_for_a_card(&app).await;
        app.client.active_element().await.unwrap().send_keys("j").await.unwrap();
        let focused = app.client.active_element().await.unwrap();
        assert_eq!(focused.attr("data-testid").await.unwrap().as_deref(), Some("approval"), "j reached a card");
        let text = app.text_of(&focused).await;
        let key = if text.contains("Bash") { "d" } else { "a" };
        let id = focused.attr("data-request-id").await.unwrap().unwrap();
        focused.send_keys(key).await.unwrap();
        app.wait("the card to go", || async {
            app.client.find(Locator::Css(&format!("[data-request-id='{id}']"))).await.is_err().then_some(())
        })
        .await;
        answered += 1;
    }
    app.node_status("main", "completed").await;
    for i in 1..=5 {
        assert!(app.file(&format!("part-{i}.txt")).exists(), "the approved Write {i} ran");
    }

    // Afterwards, in the review: each worker's Write approved and its command denied, by the person.
    app.click("[data-testid=history-button]").await;
    app.click("[data-testid=history-row]").await;
    app.wait_text("[data-testid=review-banner]", "Past session").await;
    for i in 1..=5 {
        app.node(&format!("Worker {i}")).await.click().await.unwrap();
        app.wait(&format!("worker {i}'s two decisions"), || async {
            let mut kinds = Vec::new();
            for m in app.all("[data-testid=output] [data-testid=decided-by]").await {
                kinds.push((m.attr("data-kind").await.ok().flatten()?, app.text_of(&m).await));
            }
            let approved = kinds.iter().any(|(k, t)| k == "person" && t.contains("approved"));
            let denied = kinds.iter().any(|(k, t)| k == "person" && t.contains("denied"));
            (approved && denied).then_some(())
        })
        .await;
    }
    app.screenshot("review-decisions").await;
    app.close().await;
    server.shutdown().await;
}

async fn wait_for_a_card(app: &App) {
    app.wait("a pending approval", || async { (!app.approval_cards().await.is_empty()).then_some(()) }).await;
}
