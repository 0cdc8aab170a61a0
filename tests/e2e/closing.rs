//! Closing the window while agents work, in the real webview and a real X
//! display: the desktop's close asks first; "Keep running" hides the window
//! while the session goes on (asked over an open Delegate… form, Escape goes back
//! to the form with its draft); a second launch on the same data dir brings the
//! window back and starts nothing, the card still answerable; "Stop and quit"
//! ends the app with the session interrupted, and the next start offers to
//! continue it, asking its waiting call again.

use crate::harness::{App, exists};
use crate::scripted;

/// Presses a button of the close dialog from a script: WebDriver's own click waits for
/// the page's next paint, which a window that hides (or an app that quits) never gives.
async fn press_while_it_still_paints(app: &App, testid: &str) {
    app.find(&format!("[data-testid={testid}]")).await;
    let script = format!("document.querySelector('[data-testid={testid}]').click()");
    // Its answer may be lost with the paint it waits for (WebKitWebDriver: "unknown error").
    let _ = app.client.execute(&script, vec![]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn closing_the_window_asks_keeps_running_or_stops_and_a_second_launch_brings_it_back() {
    let server = scripted("sessions_e2e").await;
    let app = App::launch_scripted(&server).await;
    app.send_prompt("SESS-A: write a").await;
    app.wait_cards(1).await;
    assert!(app.window_shown());

    // The desktop's close button: the window asks first, and Cancel keeps it.
    app.close_window_as_the_desktop_does();
    app.find("[data-testid=close-dialog]").await;
    // The display's framebuffer shows the dialog a moment after the page has it.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    app.screenshot("close-dialog").await;
    app.click("[data-testid=close-cancel]").await;
    app.wait("the dialog gone", || async { app.all("[data-testid=close-dialog]").await.is_empty().then_some(()) })
        .await;
    assert!(app.window_shown(), "Cancel keeps the window");

    // Asked while a Delegate… form is open: the question comes over it, and Escape goes back
    // to the form with what the person had typed.
    let main = app.node("main").await;
    main.find(fantoccini::Locator::Css("[data-testid=node-delegate]")).await.unwrap().click().await.unwrap();
    app.find("[data-testid=delegate-prompt]").await.send_keys("Count the text files").await.unwrap();
    app.close_window_as_the_desktop_does();
    app.find("[data-testid=close-dialog]").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    app.screenshot("close-dialog-over-delegate").await;
    let key = app.client.active_element().await.unwrap();
    assert_eq!(key.attr("data-testid").await.unwrap().as_deref(), Some("close-keep"), "the keys are the question's");
    key.send_keys(&char::from(fantoccini::key::Key::Escape).to_string()).await.unwrap();
    app.wait("the question gone", || async { app.all("[data-testid=close-dialog]").await.is_empty().then_some(()) })
        .await;
    let prompt = app.client.active_element().await.unwrap();
    assert_eq!(prompt.attr("data-testid").await.unwrap().as_deref(), Some("delegate-prompt"), "back in the form");
    assert_eq!(
        prompt.prop("value").await.unwrap().as_deref(),
        Some("Count the text files"),
        "the draft is still there"
    );
    prompt.send_keys(&char::from(fantoccini::key::Key::Escape).to_string()).await.unwrap();
    app.wait("the form gone", || async { app.all("[data-testid=delegate-form]").await.is_empty().then_some(()) }).await;

    // Keep running: the window hides, the session waits on.
    app.close_window_as_the_desktop_does();
    press_while_it_still_paints(&app, "close-keep").await;
    app.wait("the window hidden", || async { (!app.window_shown()).then_some(()) }).await;

    // A second launch brings it back and starts nothing; the card is still answerable.
    let second = app.second_launch();
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "the second launch ends well: {said}");
    assert!(said.contains("already running"), "it says why it started nothing: {said}");
    app.wait("the window back on screen", || async { app.window_shown().then_some(()) }).await;
    app.find("[data-testid=approval] [data-testid=approve]").await.click().await.unwrap();
    app.wait("a.txt written", || async { exists(&app.file("a.txt")).then_some(()) }).await;
    app.node_status("main", "completed").await;

    // A second session waits; Stop and quit ends the app, the session interrupted.
    app.click("[data-testid=new-session]").await;
    app.send_prompt("SESS-B: write b").await;
    app.wait_cards(1).await;
    app.close_window_as_the_desktop_does();
    press_while_it_still_paints(&app, "close-stop").await;

    // The next start offers it; Continue asks the waiting call again, and it runs once approved.
    let app = app.relaunch().await;
    app.find("[data-testid=interrupted-banner]").await;
    let offered = app.all("[data-testid=interrupted-session]").await;
    assert_eq!(offered.len(), 1, "only the session at work is offered");
    assert!(app.text_of(&offered[0]).await.contains("SESS-B"));
    app.click("[data-testid=interrupted-continue]").await;
    app.wait_cards(1).await;
    app.wait_text("[data-testid=approval]", "b.txt").await;
    assert!(!exists(&app.file("b.txt")), "nothing ran before the answer");
    app.find("[data-testid=approval] [data-testid=approve]").await.click().await.unwrap();
    app.wait("b.txt written", || async { exists(&app.file("b.txt")).then_some(()) }).await;
    app.node_status("main", "completed").await;
    app.close().await;
    server.shutdown().await;
}

/// A close while no page listens (the window's page is loading: here it shows
/// another document first) is held for the page: the window stays, and the app's
/// page asks once it is back. Closing again a moment later, with still no page
/// listening, quits as "Stop and quit" does: the next start offers the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_close_while_the_page_loads_is_asked_by_the_page_once_it_listens() {
    let server = scripted("sessions_e2e").await;
    let app = App::launch_scripted(&server).await;
    app.send_prompt("SESS-A: write a").await;
    app.wait_cards(1).await;
    let page = app.client.current_url().await.unwrap();
    let held = |log: &str| log.matches("closing the window waits for the page loading to ask").count();

    app.client.goto("about:blank").await.unwrap();
    app.close_window_as_the_desktop_does();
    app.wait("the close held for a page", || async { (held(&app.log()) == 1).then_some(()) }).await;
    assert!(app.window_shown(), "the window stays for the page to ask");

    // The app's page again: it joins the session and asks.
    app.client.goto(page.as_str()).await.unwrap();
    let dialog = app.find("[data-testid=close-dialog]").await;
    assert!(app.text_of(&dialog).await.contains("Agents are at work in a session."));
    app.click("[data-testid=close-cancel]").await;
    app.wait("the dialog gone", || async { app.all("[data-testid=close-dialog]").await.is_empty().then_some(()) })
        .await;
    app.wait_cards(1).await;
    assert!(app.window_shown(), "Cancel keeps the window");

    // Closed again while no page listens: a double click is one close; a close a moment
    // later quits, the session interrupted.
    app.client.goto("about:blank").await.unwrap();
    app.close_window_as_the_desktop_does();
    app.close_window_as_the_desktop_does();
    app.wait("both closes held", || async { (held(&app.log()) == 3).then_some(()) }).await;
    assert!(app.window_shown(), "a double click is one close");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    app.close_window_as_the_desktop_does();
    let app = app.relaunch().await;
    assert!(app.log().contains("closed again before the page could ask: the app quits"), "{}", app.log());
    let offered = app.find("[data-testid=interrupted-session]").await;
    assert!(app.text_of(&offered).await.contains("SESS-A"));
    assert!(!exists(&app.file("a.txt")), "nothing ran without an answer");
    app.close().await;
    server.shutdown().await;
}
