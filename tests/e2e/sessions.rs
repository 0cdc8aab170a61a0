//! Several live sessions in one window, in the real webview: a session waiting
//! for approval goes on when New session starts another; both wait side by
//! side in one inbox whose cards name their session; each is answered in its
//! own session from the other's page, with the mouse and the keyboard; the
//! sessions list orders them (waiting first) and switching brings each back
//! as it was left, its panes kept mounted out of view and out of reach
//! meanwhile. The window title counts them all.

use crate::harness::{App, exists};
use crate::scripted;
use fantoccini::{Locator, elements::Element};

/// The card whose session line names `prompt`.
pub(crate) async fn card_of_session(app: &App, prompt: &str) -> Element {
    app.wait(&format!("a card of the session {prompt:?}"), || async {
        for card in app.approval_cards().await {
            let line = card.find(Locator::Css("[data-testid=approval-session]")).await.ok()?;
            if app.text_of(&line).await.contains(prompt) {
                return Some(card);
            }
        }
        None
    })
    .await
}

/// The sessions list's rows as (group, text), in the list's order.
async fn session_rows(app: &App) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for row in app.all("[data-testid=session-row]").await {
        let group = row.attr("data-group").await.ok().flatten().unwrap_or_default();
        out.push((group, app.text_of(&row).await));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn two_live_sessions_wait_side_by_side_and_one_inbox_answers_each_in_its_own() {
    let server = scripted("sessions_e2e").await;
    let app = App::launch_scripted(&server).await;

    // A first session waits to Write; New session leaves it waiting, its card in the inbox.
    app.send_prompt("SESS-A: write a").await;
    app.wait_cards(1).await;
    app.node_status("main", "waiting_approval").await;
    app.click("[data-testid=new-session]").await;
    app.wait("a fresh page", || async { app.rows().await.is_empty().then_some(()) }).await;
    assert_eq!(app.approval_cards().await.len(), 1, "the first session's card stays in the inbox");
    let listed = session_rows(&app).await;
    assert_eq!(listed.len(), 1, "the running session is listed: {listed:?}");
    assert_eq!(listed[0].0, "waiting");
    assert!(listed[0].1.contains("SESS-A"), "{listed:?}");

    // A second session beside it: two cards, each naming its session; the title counts both.
    app.send_prompt("SESS-B: write b").await;
    app.wait_cards(2).await;
    let a = card_of_session(&app, "SESS-A").await;
    card_of_session(&app, "SESS-B").await;
    app.wait("the OS window's title to count both", || async {
        app.os_window_titles().iter().any(|t| t == "(2) Arbor").then_some(())
    })
    .await;
    app.wait_count("count-approvals", 2).await;
    app.screenshot("two-sessions").await;
    // The status bar's longest line (the main agent waiting, approvals pending): its tokens and
    // cost stay in the window; at 1024 they wrapped below its edge.
    for (width, height) in [(800, 600), (1024, 700), (1440, 900), (1280, 800)] {
        app.resize(width, height).await;
        if width != 1280 {
            app.screenshot(&format!("two-sessions-{width}x{height}")).await;
        }
        // The top bar's controls neither overlap nor leave the window (at 800 a button spilled
        // over its neighbour).
        let overlaps = app
            .client
            .execute(
                "const els = [...document.querySelectorAll('.topbar > *, .topbar .workspace > *')] \
                   .filter(e => !e.classList.contains('workspace') && !e.classList.contains('spacer') && e.getBoundingClientRect().width > 0); \
                 const out = []; \
                 for (const a of els) { const r = a.getBoundingClientRect(); \
                   if (r.right > window.innerWidth + 0.5) out.push('out: ' + a.textContent); \
                   for (const b of els) { if (a === b || a.contains(b) || b.contains(a)) continue; const q = b.getBoundingClientRect(); \
                     if (r.left < q.left && r.right > q.left + 0.5) out.push(a.textContent + ' over ' + b.textContent); \
                     const inner = [...a.querySelectorAll('*')].find(e => { const x = e.getBoundingClientRect(); return x.right > q.left + 0.5 && x.left < q.left && r.left < q.left; }); \
                     if (inner) out.push(a.textContent + ' spills over ' + b.textContent); } } \
                 return out;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(overlaps, serde_json::json!([]), "{width}×{height}: the top bar's controls");
        for part in ["total-tokens", "main-status", "count-approvals", "count-failed"] {
            let css = format!("[data-testid={part}]");
            assert!(app.whole_in_window(&css).await, "{width}×{height}: the status bar's {part} is in the window");
        }
        // A session's figures are each shown whole or not at all (the elapsed time was cut to
        // its first digit at 1024); its tokens always show.
        let figures = app
            .client
            .execute(
                "return [...document.querySelectorAll('.session-figures')].map(f => { \
                   const box = f.getBoundingClientRect(); \
                   return [...f.children].map(e => { const b = e.getBoundingClientRect(); \
                     const hidden = b.top >= box.bottom - 0.5 || b.width === 0; \
                     const whole = b.right <= box.right + 0.5 && b.bottom <= box.bottom + 1 && e.scrollWidth <= e.clientWidth + 1; \
                     return { state: hidden ? 'hidden' : whole || e.classList.contains('session-workspace') ? 'whole' : 'cut', \
                       text: e.textContent, at: [b.top, b.bottom, b.right, box.bottom, box.right] }; }); });",
                vec![],
            )
            .await
            .unwrap();
        for row in figures.as_array().unwrap() {
            let parts = row.as_array().unwrap();
            let is = |p: &serde_json::Value, state: &str| p["state"] == state;
            assert!(!parts.iter().any(|p| is(p, "cut")), "{width}×{height}: a session's figures: {row}");
            assert!(
                parts.iter().any(|p| is(p, "whole") && p["text"].as_str().is_some_and(|t| t.ends_with(" tok"))),
                "{width}×{height}: a session's tokens: {row}"
            );
        }
    }

    // The first session's card, answered from the second's page, runs there; the page stays on the second.
    a.find(Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();
    app.wait("a.txt written by the first session", || async { exists(&app.file("a.txt")).then_some(()) }).await;
    app.wait_cards(1).await;
    assert!(!exists(&app.file("b.txt")), "the second session still waits");
    app.node_status("main", "waiting_approval").await;
    // The list: the one waiting first, the finished one after it.
    let listed = app
        .wait("the first session finished in the list", || async {
            let rows = session_rows(&app).await;
            (rows.len() == 2 && rows[1].0 == "finished").then_some(rows)
        })
        .await;
    assert!(listed[0].1.contains("SESS-B") && listed[1].1.contains("SESS-A"), "waiting first: {listed:?}");

    // The second session's card from the keyboard ("a" from anywhere answers the first waiting card).
    app.find("[data-testid=keys-hint]").await;
    app.client.active_element().await.unwrap().send_keys("a").await.unwrap();
    app.wait("b.txt written by the second session", || async { exists(&app.file("b.txt")).then_some(()) }).await;
    app.node_status("main", "completed").await;

    // Switching: the first session comes back as it is now, its main agent done: its tree kept
    // mounted out of view meanwhile (the very element comes back), and only the shown one on screen.
    app.client
        .execute("document.querySelector('[data-pane=hidden] [data-testid=tree-node]').dataset.kept = 'yes';", vec![])
        .await
        .unwrap();
    let first = app.wait_containing("[data-testid=session-row]", "SESS-A").await;
    first.find(Locator::Css(".session-open")).await.unwrap().click().await.unwrap();
    app.wait_text("[data-testid=output]", "A done").await;
    app.node_status("main", "completed").await;
    let kept = app.find("[data-testid=tree-node]").await;
    assert_eq!(
        kept.attr("data-kept").await.unwrap().as_deref(),
        Some("yes"),
        "the first session's tree was built anew"
    );
    let panes = app
        .client
        .execute(
            "const node = document.querySelector('[data-pane=shown] [data-testid=tree-node]').getBoundingClientRect(); \
             const hit = document.elementFromPoint(node.left + node.width / 2, node.top + node.height / 2); \
             document.querySelector('[data-pane=hidden] [data-testid=tree-node]').focus(); \
             const focused = document.activeElement; \
             return { hit: hit?.closest('[data-pane]')?.dataset.pane ?? null, \
               focusIn: focused?.closest('[data-pane]')?.dataset.pane ?? (focused === document.body ? 'body' : focused?.tagName ?? null), \
               panes: [...document.querySelectorAll('.session-pane')].map(p => { \
                 const r = p.getBoundingClientRect(), cell = p.parentElement.getBoundingClientRect(); \
                 return [p.dataset.pane, p.getAttribute('aria-hidden') === 'true', r.right > cell.left + 1 && r.left < cell.right - 1]; }) };",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(panes["hit"], "shown", "{panes}");
    // Focus sent into a hidden pane goes on past it.
    assert_ne!(panes["focusIn"], "hidden", "{panes}");
    let mut seen: Vec<String> = panes["panes"].as_array().unwrap().iter().map(|p| p.to_string()).collect();
    seen.sort();
    // A tree and a centre for each session: the shown ones on screen and read, the others neither.
    assert_eq!(
        seen,
        [r#"["hidden",true,false]"#, r#"["hidden",true,false]"#, r#"["shown",false,true]"#, r#"["shown",false,true]"#],
        "{panes}"
    );
    assert_eq!(std::fs::read_to_string(app.file("a.txt")).unwrap(), "from session a\n");

    // Both are in the store, each its own log, and the tree's statuses are the store's: the
    // window shows what Rust derived.
    let store = arbor_store::Store::open(&app.store_path()).unwrap();
    let stored = store.sessions(&arbor_store::SessionQuery { limit: 0, ..Default::default() }).unwrap();
    assert_eq!(stored.len(), 2, "{stored:?}");
    for s in &stored {
        let detail = store.session(&s.id).unwrap();
        assert!(detail.agents.iter().all(|a| a.status == arbor_protocol::AgentStatus::Completed), "{detail:?}");
    }
    app.close().await;
    server.shutdown().await;
}
