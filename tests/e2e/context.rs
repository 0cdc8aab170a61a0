//! A session longer than its model's window, in the real webview: the agent
//! compacts and goes on; its output shows the compaction as a divider whose
//! summary unfolds, the transcript above it whole; its tree row and header
//! say how full its context is, against the window the provider named; the
//! timeline marks the compaction; a fork it starts shows as one in the tree.

use crate::harness::App;
use arbor_testkit::{Scenario, ScriptedServer};
use fantoccini::Locator;
use serde_json::json;

const PARTS: usize = 14;

fn scenario() -> Scenario {
    let talk = "Reading on, noting each measurement as it comes. ".repeat(60);
    let fork = json!({ "tool_calls": [ { "name": "Task", "input": { "fork": true, "description": "Double-check the parts",
        "prompt": "FORK-SIDE: check the parts you read for a reading out of tolerance." } } ] });
    let mut rules = vec![
        json!({
            "match": { "system_contains": "You summarize" }, "repeat_last": true,
            "turns": [ { "text": "SUMMARY: parts 1 to 9 hold the measurements, all within tolerance; keep reading in order." } ]
        }),
        json!({ "match": { "last_user_contains": "FORK-SIDE" }, "repeat_last": true,
            "turns": [ { "text": "FORK-ANSWER: none is out of tolerance." } ] }),
        json!({ "match": { "last_tool_result_contains": "FORK-ANSWER" }, "repeat_last": true,
            "turns": [ { "text": "CTX-DONE: every part was read; all within tolerance." } ] }),
    ];
    for i in 1..=PARTS {
        let next = if i == PARTS {
            fork.clone()
        } else {
            json!({ "text": talk, "tool_calls": [ { "name": "Bash", "input": { "command": format!("cat part-{:02}.txt", i + 1) } } ] })
        };
        rules.push(json!({ "match": { "last_tool_result_contains": format!("END-{i:02}") }, "turns": [next], "repeat_last": true }));
    }
    rules.push(json!({
        "match": { "first_user_contains": "CTX-READ" }, "repeat_last": true,
        "turns": [ { "text": talk, "tool_calls": [ { "name": "Bash", "input": { "command": "cat part-01.txt" } } ] } ]
    }));
    Scenario::from_json(&json!({ "context_window": 14_000, "rules": rules }).to_string()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_session_that_outgrows_its_window_compacts_and_shows_where_and_how_full() {
    let server = ScriptedServer::start(scenario()).await.unwrap();
    let app = App::launch_scripted(&server).await;
    for i in 1..=PARTS {
        std::fs::write(app.file(&format!("part-{i:02}.txt")), format!("part {i:02} within tolerance\nEND-{i:02}\n"))
            .unwrap();
    }
    app.resize(1440, 900).await;
    app.send_prompt("CTX-READ: read part-01.txt to part-14.txt in order, one per turn").await;
    // Its first Bash asks; "Bash anywhere in this session" answers the rest.
    let card = app.wait("the Bash card", || async { app.approval_cards().await.into_iter().next() }).await;
    app.choose_scope(&card, "session").await;
    card.find(Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();
    app.wait_text("[data-testid=output]", "CTX-DONE").await;

    // Where it was compacted: a divider with its figures; its summary unfolds on a click.
    let divider = app.wait_containing("[data-testid=compaction]", "Context compacted").await;
    let text = app.text_of(&divider).await;
    assert!(text.contains("(window 14k)") && text.contains("messages summarized"), "{text}");
    divider.find(Locator::Css("button")).await.unwrap().click().await.unwrap();
    let summary = app.wait_text("[data-testid=compaction-summary]", "SUMMARY: parts 1 to 9").await;
    assert!(summary.contains("in place of the earlier conversation"), "{summary}");

    // How full: the row's meter and the header, against the 14k the provider named.
    let meter = app.find("[data-testid=tree-node] [data-testid=tree-context]").await;
    let title = meter.attr("title").await.unwrap().unwrap_or_default();
    assert!(title.contains(" of 14k tokens in context"), "{title}");
    let header = app.text_of(&app.find("[data-testid=header-context]").await).await;
    assert!(header.ends_with("/ 14k context"), "{header}");
    app.screenshot("context-1440").await;
    app.resize(1024, 700).await;
    app.screenshot("context-1024").await;
    // The meter stays on the row at 1024 wide, beside the figures.
    assert!(meter.is_displayed().await.unwrap(), "the context meter shows at 1024");

    // The fork it started is marked so in the tree, and its Task card says so.
    let fork = app.find("[data-testid=tree-node] [data-testid=tree-fork]").await;
    let title = fork.attr("title").await.unwrap().unwrap_or_default();
    assert!(title.starts_with("A fork of its parent: it started from its parent's"), "{title}");
    app.find("[data-testid=output] .badge.fork").await;

    // The timeline marks the compaction in its own colour (the legend names it).
    app.resize(1440, 900).await;
    app.click("[data-testid=timeline-view-tab]").await;
    app.wait_text(".timeline-legend", "Compacting").await;
    let painted = "const c = document.querySelector('[data-testid=timeline-canvas]'); \
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
        for (let i = 0; i < d.length; i += 4) { \
          if (Math.abs(d[i] - 0x4b) < 3 && Math.abs(d[i + 1] - 0x55) < 3 && Math.abs(d[i + 2] - 0x66) < 3) return true; \
        } return false;";
    app.wait("a compaction painted on the timeline", || async {
        app.client.execute(painted, vec![]).await.ok().and_then(|v| v.as_bool()).filter(|&b| b)
    })
    .await;
    app.screenshot("context-timeline-1440").await;
    app.resize(1024, 700).await;
    app.screenshot("context-timeline-1024").await;
    app.click("[data-testid=agent-view-tab]").await;

    // Settings › Context: the window every model is taken to have, and when agents compact.
    app.click("[data-testid=open-settings]").await;
    let window = app.find("[data-testid=context-window]").await;
    app.client
        .execute("arguments[0].scrollIntoView({block: 'center'})", vec![serde_json::to_value(&window).unwrap()])
        .await
        .unwrap();
    assert_eq!(window.prop("placeholder").await.unwrap().as_deref(), Some("Each model's own"));
    assert_eq!(app.find("[data-testid=compact-at]").await.prop("value").await.unwrap().as_deref(), Some("80"));
    // The display's framebuffer catches up with the scroll a moment later.
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    app.screenshot("settings-context-1024").await;
    app.close().await;
}
