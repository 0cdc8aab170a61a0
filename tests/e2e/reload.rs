//! A window's page reloaded while its sessions wait for a person (a person's
//! reload, the crash screen's Reload), and its web process killed as a crash
//! or the OOM killer would, in the real webview: the sessions go on in the
//! process, and the new page joins them: both come back live with their cards
//! (a subagent's too), the one it showed is shown again with its transcript,
//! and a card's answer runs its call. A session whose start was under way as
//! the page went is joined by the new page too.

use crate::harness::{App, PATIENCE, exists, make_fifo};
use crate::scripted;
use crate::sessions::card_of_session;
use fantoccini::Locator;
use std::io::Write;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_reloaded_window_shows_its_running_sessions_again_and_their_cards_still_answer() {
    let server = scripted("reload_e2e").await;
    let app = App::launch_scripted(&server).await;

    // One session waits to Write; beside it, another's subagent waits to Write.
    app.send_prompt("RELOAD-SIDE: write the side file").await;
    app.wait_cards(1).await;
    app.click("[data-testid=new-session]").await;
    app.wait("a fresh page", || async { app.rows().await.is_empty().then_some(()) }).await;
    app.send_prompt("RELOAD-MAIN: delegate the notes").await;
    app.wait_cards(2).await;
    app.node_status("Write the notes", "waiting_approval").await;

    app.client.refresh().await.unwrap();

    // The same two cards, each naming its session; the one shown before is shown again.
    app.wait_cards(2).await;
    card_of_session(&app, "RELOAD-SIDE").await;
    let notes = card_of_session(&app, "RELOAD-MAIN").await;
    app.node_status("Write the notes", "waiting_approval").await;
    app.node_status("main", "running").await;
    let output = app.wait_text("[data-testid=output]", "Delegating the notes.").await;
    assert_eq!(output.matches("Delegating the notes.").count(), 1, "the main agent's text once: {output}");
    app.wait("the OS window's title to count both", || async {
        app.os_window_titles().iter().any(|t| t == "(2) Arbor").then_some(())
    })
    .await;
    assert_eq!(app.all("[data-testid=session-row]").await.len(), 2, "both sessions listed");
    app.screenshot("reloaded").await;
    for (width, height) in [(1024, 700), (1440, 900)] {
        app.resize(width, height).await;
        app.screenshot(&format!("reloaded-{width}x{height}")).await;
    }
    app.resize(1280, 800).await;

    // The subagent's transcript, read from the store.
    app.node("Write the notes").await.click().await.unwrap();
    app.wait_text("[data-testid=output]", "Writing the notes.").await;

    // Its card still answers: the call runs, the subagent ends, and its parent goes on live.
    notes.find(Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();
    app.wait("notes.md written", || async { exists(&app.file("notes.md")).then_some(()) }).await;
    app.node_status("Write the notes", "completed").await;
    app.node_status("main", "completed").await;
    app.node("main").await.click().await.unwrap();
    let output = app.wait_text("[data-testid=output]", "Main done").await;
    assert_eq!(output.matches("Delegating the notes.").count(), 1, "nothing twice after the frames: {output}");

    // The web process dies (as a crash or the OOM killer would end it) while the other session
    // waits: the app loads the page again in a new one, which joins it with its card. WebDriver
    // ends its session with the page, so the new page is seen through the app's log and the OS
    // window's title, which a new page sets to "Arbor" (nothing pending) until it has joined.
    app.wait_cards(1).await;
    let before = app.log().matches("a page attached to the session").count();
    assert!(!app.kill_web_process().is_empty());
    app.wait("the page loaded again and joined the running session", || async {
        let log = app.log();
        let reloaded = log.contains("the window's page is loaded again in a new web process");
        let attached = log.matches("a page attached to the session").count() > before;
        let titled = app.os_window_titles().iter().any(|t| t == "(1) Arbor");
        (reloaded && attached && titled).then_some(())
    })
    .await;
    assert!(!app.log().contains("the page is not loaded again"), "{}", app.log());
    assert!(!exists(&app.file("side.txt")), "the other session still waits");
    app.close().await;
    server.shutdown().await;
}

/// A session whose start is still under way when the page reloads: it starts
/// with no page to show it (the one that asked has gone), and the shell tells
/// the new page to join it, card and all. The start is held on Claude Code's
/// user settings file, made a FIFO that the start reads and the test writes
/// only once the new page is up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_session_started_as_the_page_reloads_is_joined_by_the_new_page() {
    let server = scripted("reload_e2e").await;
    let app = App::launch_scripted(&server).await;
    let claude = app.claude_dir();
    std::fs::create_dir_all(&claude).unwrap();
    let settings = claude.join("settings.json");
    make_fifo(&settings);

    app.send_prompt("RELOAD-LATE: write the late file").await;
    // The FIFO opens to write (without waiting) once the start has opened it to read: the start
    // then waits for the text.
    let mut held = app.fifo_read_by_app(&settings, "the start to read Claude Code's settings").await;

    // Tauri's page script sends a command whose request the reload aborts once more as its
    // page goes. Run twice, the start would also hold the app's runtime threads (on two cores,
    // all of them, and the page would never load again).
    tokio::time::timeout(PATIENCE, app.client.refresh())
        .await
        .expect("the page never loaded again: was the start run a second time?")
        .unwrap();
    app.find("[data-testid=prompt-input]").await;
    assert!(app.all("[data-testid=session-row]").await.is_empty(), "nothing runs yet");
    held.write_all(b"{}").unwrap();
    drop(held);

    // The session starts with no page, and the new page joins it: listed, its card answerable.
    let card = card_of_session(&app, "RELOAD-LATE").await;
    assert_eq!(app.all("[data-testid=session-row]").await.len(), 1, "the session listed once");
    assert!(app.log().contains("a page attached to the session"), "joined, not started by this page");
    assert!(
        app.log().contains("refused a command the window's page sent again"),
        "the page that went sent the start again, and the shell refused it: {}",
        app.log()
    );
    card.find(Locator::Css("[data-testid=approve]")).await.unwrap().click().await.unwrap();
    app.wait("late.txt written", || async { exists(&app.file("late.txt")).then_some(()) }).await;
    app.click("[data-testid=session-row]").await;
    let output = app.wait_text("[data-testid=output]", "Late done").await;
    assert_eq!(output.matches("Writing the late file.").count(), 1, "its text once: {output}");
    app.close().await;
    server.shutdown().await;
}
