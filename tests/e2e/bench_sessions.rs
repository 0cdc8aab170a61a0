//! The UI benchmark's figures for several live sessions (issue 25), in the real
//! webview against the scripted model server: three live sessions with 200
//! subagents between them, their models streaming about 15,000 chunks a second:
//! - frame intervals while a person watches, and while they use the tree;
//! - switching sessions: a click in the sessions list to the painted, settled view
//!   (the other session's tree and its selected agent's output), while they stream
//!   and again once the stream has ended; beside each, the floor under any switch:
//!   a frame that repaints the whole window and changes nothing else;
//! - typing in the prompt box meanwhile, and again once the stream has ended: keystroke
//!   to painted character (three bursts pooled), where each key's wait went (queued,
//!   to its frame, the frame's render), and when each burst caught up; on the still
//!   page, what-if style sheets too (`ARBOR_BENCH_QUIET_CSS`, docs/speed.md), each with
//!   its whole-window repaint;
//! - what the store writes: the model's chunks against the events stored, which
//!   the runtime's coalescing of a model's chunks per agent makes fewer;
//! - memory (PSS) of the app and its WebKit processes with the three sessions
//!   live and idle.

use super::bench_speed::{
    PAINTED_JS, Recording, clear_prompt, events_applied, reset_probe, spent, summary, type_into, until_quiet,
};
use super::harness::{App, shown};
use super::{floats, memory};
use arbor_testkit::ScriptedServer;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Live sessions, and subagents between them.
const SESSIONS: usize = 3;
const AGENTS: usize = 200;
/// Subagents running at once in each session: 15 × 3 agents, each sent a
/// 16-character chunk every 3 ms, is ~15,000 chunks a second from the model.
const PARALLEL: usize = 15;
const CHUNK_MS: u64 = 3;
/// Session switches per switching figure.
const SWITCHES: usize = 15;
/// Bursts typed per typing figure.
const BURSTS: usize = 3;
/// Where a keystroke's wait went (`inputParts` in ui/src/lib/perf.ts).
const INPUT_PARTS: [&str; 3] = ["queued", "toFrame", "render"];
/// Characters each subagent streams: 4,000 chunks, 12 s each (the stream lasts past the last typing).
const CHARS: usize = 64_000;

/// The subagents of session `s`: 67, 67 and 66.
fn agents_of(s: usize) -> usize {
    AGENTS / SESSIONS + usize::from(s < AGENTS % SESSIONS)
}

fn prompt_of(s: usize) -> String {
    format!("BENCH-SESSION-{s}")
}

/// What the main agent's output shows of session `s` (its Task cards' descriptions).
fn marker_of(s: usize) -> String {
    format!("S{s} agent")
}

/// The scripted model's rules for these runs.
pub fn rules() -> Vec<Value> {
    let text = "lorem ipsum ".repeat(CHARS / 12);
    let mut rules = Vec::new();
    for s in 0..SESSIONS {
        for i in 0..agents_of(s) {
            rules.push(json!({
                "match": { "first_user_contains": format!("S{s}-{i:02}:") },
                "turns": [ { "text": text, "chunk_delay_ms": CHUNK_MS } ]
            }));
        }
        let calls: Vec<Value> = (0..agents_of(s))
            .map(|i| {
                json!({ "name": "Task", "input": { "description": format!("{} {i:02}", marker_of(s)), "prompt": format!("S{s}-{i:02}: stream") } })
            })
            .collect();
        rules.push(json!({
            "match": { "first_user_contains": prompt_of(s) },
            "turns": [ { "text": format!("Session {s}: starting {}.", agents_of(s)), "tool_calls": calls }, { "text": "done" } ]
        }));
    }
    rules
}

/// Three live sessions, 200 subagents between them, ~15,000 model chunks a second.
pub async fn three_sessions(bin: &Path, server: &ScriptedServer) {
    let env = [("ANTHROPIC_BASE_URL", server.anthropic_base_url()), ("ANTHROPIC_API_KEY", "bench".to_string())];
    let settings = json!({
        "limits": { "max_parallel": PARALLEL, "max_subagents": AGENTS, "max_depth": 1, "subagent_max_turns": 10, "main_max_turns": 10 },
        "budgets": { "max_spawns_per_minute": 0 }
    });
    let app = App::launch_with(bin, &env, Some(&settings)).await;
    app.client.execute("localStorage.setItem('arborPerf', '1'); location.reload();", vec![]).await.ok();
    tokio::time::sleep(Duration::from_millis(800)).await;
    super::bench_speed::inject_what_ifs(&app).await;
    // The same burst typed with nothing running: WebDriver's own pace, what "caught up" is measured against.
    let burst = "The quick brown fox jumps over the lazy dog while three sessions stream 0123456789";
    let (inputs, caught_up) = type_into(&app, "[data-testid=prompt-input]", burst, "sessions-typing-idle").await;
    println!(
        "typing in the prompt box with nothing running: {}",
        summary("keystroke to painted character (ms)", inputs)
    );
    println!("  the {}-character burst caught up {caught_up:.0} ms after the first key", burst.len());
    clear_prompt(&app).await;
    let sent_at_start = server.events_sent();
    let started = Instant::now();
    // Each session: New session (but the first), its prompt, then its main agent's id once its children show.
    let mut mains = Vec::new();
    for s in 0..SESSIONS {
        if s > 0 {
            app.click("[data-testid=new-session]").await;
            app.wait("a fresh page", || async { app.all("[data-testid=tree-node]").await.is_empty().then_some(()) })
                .await;
        }
        app.send_prompt(&format!("{}: go", prompt_of(s))).await;
        let main = app
            .wait(&format!("session {s}'s subagents"), || async {
                let rows = app.all("[data-testid=tree-node]").await;
                if rows.len() <= PARALLEL {
                    return None;
                }
                rows[0].attr("data-agent-id").await.ok().flatten()
            })
            .await;
        mains.push(json!({ "prompt": prompt_of(s), "main": main, "marker": marker_of(s) }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let load = |from: (u64, Instant)| {
        let chunks = server.events_sent() - from.0;
        chunks as f64 / from.1.elapsed().as_secs_f64().max(0.001)
    };

    // Watching: nothing but the stream.
    reset_probe(&app).await;
    let pid = super::app_pid();
    let cpu_before = pid.map(super::cpu_ticks).unwrap_or_default();
    let mark = (server.events_sent(), Instant::now());
    let applied_before = events_applied(&app).await;
    let recording = Recording::start("sessions-watch").await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    recording.stop();
    let secs = mark.1.elapsed().as_secs_f64();
    let cpu = super::cpu_shares(&cpu_before, &pid.map(super::cpu_ticks).unwrap_or_default(), secs);
    println!(
        "{SESSIONS} live sessions, {AGENTS} subagents ({PARALLEL} running in each): the model sent {:.0} chunks/s; the page applied {:.0} events/s",
        load(mark),
        (events_applied(&app).await - applied_before) / secs
    );
    println!("  watching, 5 s: {}", summary("frame interval (ms)", super::bench_speed::probe(&app, "frames").await));
    println!("  {}", summary("UI work per applied batch (ms)", super::bench_speed::probe(&app, "work").await));
    println!("  {}", spent(&app).await);
    println!("  CPU meanwhile {cpu}");

    // Switching sessions: a click on a row of the list to the other session's tree and output, painted.
    reset_probe(&app).await;
    super::bench_speed::bench_report(&app, "before switching").await;
    let mark = (server.events_sent(), Instant::now());
    let recording = Recording::start("sessions-switch").await;
    let switched = switch_sessions(&app, &mains).await;
    recording.stop();
    println!("  switching sessions, {SWITCHES} times while they stream (the model sent {:.0} chunks/s):", load(mark));
    println!("{}", switch_figures(&switched));
    println!("    the page's own work over the {SWITCHES}, {}", spent(&app).await);
    println!("    {}", summary("frame interval meanwhile (ms)", super::bench_speed::probe(&app, "frames").await));
    super::bench_speed::bench_report(&app, "after switching").await;
    // The floor under any switch: the same window repainted with no script and no new layout.
    let mark = (server.events_sent(), Instant::now());
    let floor = repaints(&app).await;
    println!(
        "  repainting the whole window {SWITCHES} times while they stream (the model sent {:.0} chunks/s):",
        load(mark)
    );
    println!("    {}", summary("a frame that repaints it and changes nothing else (ms)", floor));

    // The tree of the shown session: select, fold, scroll.
    reset_probe(&app).await;
    let mark = (server.events_sent(), Instant::now());
    let answers = super::bench_speed::tree_interactions(&app, 10).await;
    println!("  using the tree of one (the model sent {:.0} chunks/s):", load(mark));
    for k in ["select", "fold", "scroll"] {
        println!("    tree {k}: {}", summary("input to painted frame (ms)", floats(&answers[k])));
    }
    println!(
        "    the selected agent's output: {}",
        summary("input to painted frame with it (ms)", floats(&answers["selectOutput"]))
    );
    println!("    {}", summary("frame interval meanwhile (ms)", super::bench_speed::probe(&app, "frames").await));

    // Typing in the prompt box meanwhile: with the main agent shown (its output still), then
    // with a streaming subagent's output shown beside the box.
    for (row, shown) in [(0, "the main agent shown"), (2, "a streaming subagent shown")] {
        app.all("[data-testid=tree-node]").await[row].click().await.unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mark = (server.events_sent(), Instant::now());
        let figures = type_bursts(&app, burst).await;
        println!("  typing in the prompt box, {shown}, {BURSTS} bursts (the model sent {:.0} chunks/s):", load(mark));
        println!("{figures}");
    }
    app.screenshot("three-sessions").await;

    // The rest of the stream, then the three sessions live and idle.
    until_quiet(&app, Duration::from_secs(2), Duration::from_secs(240)).await;
    // The same page with nothing streaming: what typing costs in it alone.
    println!("  typing in the prompt box once the stream has ended, {BURSTS} bursts:");
    println!("{}", type_bursts(&app, burst).await);
    // What-ifs on the still page, each measured the same way (`||` between style sheets).
    for css in std::env::var("ARBOR_BENCH_QUIET_CSS").unwrap_or_default().split("||").filter(|c| !c.trim().is_empty()) {
        super::bench_speed::add_style_sheet(&app, "bench-what-if", css).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        println!("  the same, with {css}:");
        // A what-if may hide the prompt box (say, all of the page, to weigh painting it).
        let prompt = app.client.find(fantoccini::Locator::Css("[data-testid=prompt-input]")).await;
        match prompt {
            Ok(field) if field.is_displayed().await.unwrap_or(false) => println!("{}", type_bursts(&app, burst).await),
            _ => println!("    typing: not measured, this style sheet hides the prompt box"),
        }
        println!("{}", still_repaints(&app).await);
        app.client.execute("document.getElementById('bench-what-if')?.remove();", vec![]).await.unwrap();
    }
    // The same switches on the still page: what they cost the app alone, without the stream's load.
    super::bench_speed::bench_report(&app, "before switching on the still page").await;
    reset_probe(&app).await;
    let still = switch_sessions(&app, &mains).await;
    println!("  switching sessions, {SWITCHES} times once the stream has ended:");
    println!("{}", switch_figures(&still));
    println!("    the page's own work over the {SWITCHES}, {}", spent(&app).await);
    println!("{}", still_repaints(&app).await);
    super::bench_speed::bench_report(&app, "after switching on the still page").await;
    let chunks = server.events_sent() - sent_at_start;
    let stored = stored_events(&app);
    println!(
        "  the whole run: the model sent {chunks} SSE events in {:.1} s; the store holds {stored} events of the {SESSIONS} sessions ({:.2} per model event)",
        started.elapsed().as_secs_f64(),
        stored as f64 / chunks.max(1) as f64
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    if let Some(pid) = pid {
        let (pss, rss, each) = memory(pid);
        println!("  idle with {SESSIONS} live sessions: PSS {pss:.0} MiB (RSS {rss:.0} MiB); per process {each:?}");
    }
    app.close().await;
}

/// Switches among the live sessions `mains` (their prompts, main agents' ids and
/// output markers) [`SWITCHES`] times, each a click on its row in the sessions list,
/// timed in the page: to the rendered DOM, to its tree in a frame, to the
/// settled view (its tree and its main agent's output) painted.
async fn switch_sessions(app: &App, mains: &[Value]) -> Value {
    let script = [
        PAINTED_JS,
        "const [mains, n, TREE, OUTPUT] = arguments; const done = arguments[arguments.length - 1]; const out = { settled: [], js: [], tree: [], late: 0 }; \
             const rendered = () => new Promise(r => queueMicrotask(r)); \
             const tree = (m) => document.querySelector(TREE)?.dataset.agentId === m.main; \
             const settled = (m) => tree(m) && (document.querySelector(OUTPUT)?.textContent || '').includes(m.marker); \
             (async () => { \
               for (let i = 0; i < n; i++) { const m = mains[i % mains.length]; \
                 const row = [...document.querySelectorAll('[data-testid=session-row]')].find(r => r.textContent.includes(m.prompt)); \
                 const t = performance.now(); row.querySelector('.session-open').click(); await rendered(); out.js.push(performance.now() - t); \
                 let treeAt = null; \
                 while (!settled(m) && performance.now() - t < 3000) { if (treeAt === null && tree(m)) treeAt = performance.now() - t; \
                   await new Promise(r => requestAnimationFrame(r)); } \
                 out.tree.push(treeAt ?? performance.now() - t); \
                 if (!settled(m)) out.late++; \
                 await painted(); out.settled.push(performance.now() - t); \
                 await new Promise(r => setTimeout(r, 250)); } \
               done(out); })();",
    ]
    .concat();
    app.client
        .execute_async(
            &script,
            vec![
                Value::Array(mains.to_vec()),
                json!(SWITCHES),
                json!(shown("[data-testid=tree-node]")),
                json!(shown("[data-testid=output]")),
            ],
        )
        .await
        .unwrap()
}

/// A [`switch_sessions`] answer as the bench prints it.
fn switch_figures(switched: &Value) -> String {
    let settled = floats(&switched["settled"]);
    // In order, so a slow switch can be told from a slow session (they take turns).
    let in_order = settled.iter().map(|ms| format!("{ms:.0}")).collect::<Vec<_>>().join(", ");
    [
        summary("click to the settled view painted (ms)", settled),
        format!("  each, in order: {in_order}"),
        summary("click to rendered DOM (ms)", floats(&switched["js"])),
        summary("click to the other session's tree in a frame (ms)", floats(&switched["tree"])),
        format!("not settled within 3 s: {}", switched["late"]),
    ]
    .map(|line| format!("    {line}"))
    .join("\n")
}

/// [`SWITCHES`] frames that repaint the whole window and change nothing else: an opaque
/// cover over the page is shown (one frame), then hidden, and the frame that paints
/// the page again is timed from its start (`requestAnimationFrame`) to the task
/// after it, as a switch's settled mark is (tasks queued before that one, such as
/// the stream's, count in both). No script of the app's runs in it and nothing is
/// laid out anew: the least the bench can measure for a switch, which repaints
/// most of the window.
async fn repaints(app: &App) -> Vec<f64> {
    let script = [
        PAINTED_JS,
        "const [n] = arguments; const done = arguments[arguments.length - 1]; \
             const cover = document.createElement('div'); \
             cover.style.cssText = 'position:fixed;inset:0;background:#000;z-index:2147483647;pointer-events:none;visibility:hidden'; \
             document.body.appendChild(cover); \
             (async () => { const out = []; \
               for (let i = 0; i < n; i++) { \
                 cover.style.visibility = 'visible'; await painted(); \
                 cover.style.visibility = 'hidden'; const started = await painted(); out.push(performance.now() - started); \
                 await new Promise(r => setTimeout(r, 250)); } \
               cover.remove(); done(out); })();",
    ]
    .concat();
    floats(&app.client.execute_async(&script, vec![json!(SWITCHES)]).await.unwrap())
}

/// [`repaints`] on the still page as the bench prints it, after its switches and after
/// each what-if style sheet alike, so the lines compare.
async fn still_repaints(app: &App) -> String {
    format!(
        "    {}",
        summary("a frame that repaints the whole window and changes nothing else (ms)", repaints(app).await)
    )
}

/// Events stored for every session of the app's store (seq is gap-free from 1).
fn stored_events(app: &App) -> u64 {
    let Ok(store) = arbor_store::Store::open(&app.store_path()) else { return 0 };
    let query = arbor_store::SessionQuery { limit: 0, ..Default::default() };
    store.sessions(&query).unwrap_or_default().iter().filter_map(|s| store.last_seq(&s.id).ok()).sum()
}

/// `BURSTS` bursts typed in the prompt box, their keys pooled (a p95 of one burst's 82 keys
/// is its fifth-slowest key): the latency, where it went, when each burst caught up, frames.
/// An `ARBOR_BENCH_JS` what-if's report is printed before and after them.
async fn type_bursts(app: &App, burst: &str) -> String {
    super::bench_speed::bench_report(app, "before typing").await;
    let (mut inputs, mut caught, mut frames) = (Vec::new(), Vec::new(), Vec::new());
    let mut parts = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..BURSTS {
        let (keys, caught_up) = type_into(app, "[data-testid=prompt-input]", burst, "sessions-typing").await;
        inputs.extend(keys);
        for (part, name) in parts.iter_mut().zip(INPUT_PARTS) {
            part.extend(super::bench_speed::probe(app, &format!("inputParts?.{name}")).await);
        }
        caught.push(format!("{caught_up:.0}"));
        frames.extend(super::bench_speed::probe(app, "frames").await);
        clear_prompt(app).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let mut out = vec![format!("    {}", summary("keystroke to painted character (ms)", inputs))];
    for (part, name) in parts.into_iter().zip(INPUT_PARTS) {
        out.push(format!("      of which {}", summary(&format!("{name} (ms)"), part)));
    }
    out.push(format!(
        "    each {}-character burst caught up {} ms after its first key",
        burst.len(),
        caught.join(", ")
    ));
    out.push(format!("    {}", summary("frame interval meanwhile (ms)", frames)));
    super::bench_speed::bench_report(app, "while typing").await;
    out.join("\n")
}
