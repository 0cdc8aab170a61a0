//! The UI benchmark's figures for how the app feels (issue 17), each measured in
//! the real webview against the scripted model server:
//! - typing: keystroke to painted character in the prompt box, Message… and
//!   Delegate… while ten agents stream;
//! - a 1,500-line Markdown answer: arriving whole, streaming, and reopened from history;
//! - tool calls as they stream: when the first Task card shows, and its prompt growing;
//! - 200 live agents at ~20,000 events/s: frame intervals and tree interactions;
//! - memory (PSS of the app and its WebKit processes) and the binaries' sizes.
//!
//! With `ARBOR_BENCH_PERF=<dir>`, each measured stretch is also recorded with
//! `perf record -g` on the page's process (`WebKitWebProcess`) and the app's,
//! one file each in `<dir>` (`perf report -i <dir>/many-agents.data --sort
//! comm,dso,sym`): where the time of a missed figure goes. The app's symbols
//! need an unstripped build (`CARGO_PROFILE_RELEASE_STRIP=false`).

use super::harness::{App, shown};
use super::{floats, pct};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Agents streaming while a person types.
const TYPING_AGENTS: usize = 10;
/// Agents in the many-agents run.
const MANY: usize = 200;
/// Lines of the long Markdown answer.
const LONG_LINES: usize = 1_500;

/// A 1,500-line answer with what models write: headings, paragraphs, lists, code, tables.
pub fn long_markdown() -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.lines().count() < LONG_LINES {
        i += 1;
        out.push_str(&format!("## Part {i}: what changed in module {i}\n\n"));
        out.push_str(&format!(
            "The parser in `src/module_{i}.rs` now keeps **every** token's span, so errors point at the \
             right column. Before, a multi-byte character shifted them by one.\n\n"
        ));
        for j in 0..4 {
            out.push_str(&format!("- item {j} of part {i}: `fn step_{j}()` returns a `Result<Token, Error>`\n"));
        }
        out.push_str("\n```rust\n");
        for j in 0..6 {
            out.push_str(&format!("let span_{j} = lexer.next_span({j})?; // part {i}\n"));
        }
        out.push_str("```\n\n| file | lines | change |\n|---|---|---|\n");
        for j in 0..3 {
            out.push_str(&format!("| src/module_{i}_{j}.rs | {} | +{} −{} |\n", 100 + j, j * 3, j));
        }
        out.push('\n');
    }
    out.lines().take(LONG_LINES).collect::<Vec<_>>().join("\n")
}

/// The scripted model's rules for these runs.
pub fn rules() -> Vec<Value> {
    let mut rules = Vec::new();
    // 16 characters a chunk, a chunk every 2 ms each: ten agents stream ~5,000 events/s for ~20 s.
    let text = "lorem ipsum ".repeat(160_000 / 12);
    for i in 0..TYPING_AGENTS {
        rules.push(json!({
            "match": { "first_user_contains": format!("TEN-{i:02}:") },
            "turns": [ { "text": text, "chunk_delay_ms": 2 } ]
        }));
    }
    let calls: Vec<Value> = (0..TYPING_AGENTS)
        .map(|i| json!({ "name": "Task", "input": { "description": format!("Stream {i:02}"), "prompt": format!("TEN-{i:02}: stream") } }))
        .collect();
    rules.push(json!({
        "match": { "first_user_contains": "BENCH-TYPING" },
        "turns": [ { "text": "Streaming.", "tool_calls": calls }, { "text": "done" } ]
    }));
    rules.push(json!({
        "match": { "last_user_contains": "BENCH-LONG-WHOLE" },
        "turns": [ { "text": long_markdown() } ], "repeat_last": true
    }));
    rules.push(json!({
        "match": { "last_user_contains": "BENCH-LONG-STREAM" },
        "turns": [ { "text": long_markdown(), "chunk_delay_ms": 1 } ], "repeat_last": true
    }));
    let task_prompt = |i: usize| format!("PART-{i}: read the files of part {i} and report what each does. ").repeat(25);
    let five: Vec<Value> = (0..5)
        .map(|i| json!({ "name": "Task", "input": { "description": format!("Review part {i}"), "prompt": task_prompt(i) } }))
        .collect();
    for i in 0..5 {
        rules.push(json!({ "match": { "first_user_contains": format!("PART-{i}:") }, "turns": [ { "text": format!("part {i} done") } ] }));
    }
    rules.push(json!({
        "match": { "first_user_contains": "BENCH-CALLS" },
        "turns": [ { "text": "I'll split this into five parts.", "tool_calls": five, "chunk_delay_ms": 2 }, { "text": "all done" } ]
    }));
    let many_text = "lorem ipsum ".repeat(16_000 / 12);
    for i in 0..MANY {
        rules.push(json!({
            "match": { "first_user_contains": format!("MANY-{i:03}:") },
            "turns": [ { "text": many_text, "chunk_delay_ms": 3 } ]
        }));
    }
    let many: Vec<Value> = (0..MANY)
        .map(|i| json!({ "name": "Task", "input": { "description": format!("Agent {i:03}"), "prompt": format!("MANY-{i:03}: stream") } }))
        .collect();
    rules.push(json!({
        "match": { "first_user_contains": "BENCH-MANY" },
        "turns": [ { "text": "Starting 200.", "tool_calls": many }, { "text": "done" } ]
    }));
    rules
}

/// A `perf record` of the page's process while a stretch is measured (see the top of this file).
pub struct Recording(Option<std::process::Child>);

impl Recording {
    pub async fn start(name: &str) -> Recording {
        let Some(dir) = std::env::var_os("ARBOR_BENCH_PERF") else { return Recording(None) };
        let newest = |name: &str| {
            std::process::Command::new("pgrep")
                .args(["-n", "-x", name])
                .output()
                .ok()
                .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse::<u32>().ok())
        };
        let (Some(page), Some(app)) = (newest("WebKitWebProces"), newest("arbor-desktop")) else {
            println!("  (perf: no app or WebKitWebProcess to record)");
            return Recording(None);
        };
        let pid = format!("{page},{app}");
        let out = Path::new(&dir).join(format!("{name}.data"));
        let child = std::process::Command::new("perf")
            .args(["record", "-q", "-F", "999", "-g", "-p", &pid, "-o"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match child {
            Ok(c) => {
                // perf attaches before the stretch begins.
                tokio::time::sleep(Duration::from_millis(300)).await;
                println!("  (perf: recording the page's and the app's processes {pid} to {})", out.display());
                Recording(Some(c))
            }
            Err(e) => {
                println!("  (perf: cannot run it: {e})");
                Recording(None)
            }
        }
    }

    /// Ends the recording here (dropping it does the same).
    pub fn stop(self) {}
}

impl Drop for Recording {
    /// Stops `perf` (SIGINT: it writes its file and exits), also when a step of the bench failed.
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = std::process::Command::new("kill").args(["-INT", &c.id().to_string()]).status();
            let _ = c.wait();
        }
    }
}

/// Every event the page has applied, all live sessions together.
pub async fn events_applied(app: &App) -> f64 {
    let v = app.client.execute("return window.__arborEventsApplied || 0", vec![]).await.ok();
    v.and_then(|v| v.as_f64()).unwrap_or(0.0)
}

/// Waits until no live session has applied an event for `quiet` (and one has applied
/// some), or `limit`.
pub async fn until_quiet(app: &App, quiet: Duration, limit: Duration) {
    let started = Instant::now();
    let mut last = -1.0;
    let mut since = Instant::now();
    while started.elapsed() < limit {
        let n = events_applied(app).await;
        if n != last {
            last = n;
            since = Instant::now();
        } else if n > 0.0 && since.elapsed() > quiet {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What-ifs measured on the same build, with no rebuild: `ARBOR_BENCH_CSS`, when set,
/// is added to the page as a style sheet (say, every animation still), and
/// `ARBOR_BENCH_JS` is run in it (say, counting the commands it invokes into
/// `window.__benchReport`, which [`bench_report`] prints).
pub async fn inject_what_ifs(app: &App) {
    if let Ok(css) = std::env::var("ARBOR_BENCH_CSS") {
        println!("  (ARBOR_BENCH_CSS added to the page: {css})");
        add_style_sheet(app, "bench-css", &css).await;
    }
    if let Ok(js) = std::env::var("ARBOR_BENCH_JS") {
        println!("  (ARBOR_BENCH_JS run in the page: {js})");
        app.client.execute(&js, vec![]).await.unwrap();
    }
}

/// Adds `css` to the page as a style sheet with the element id `id` (to remove it by).
pub async fn add_style_sheet(app: &App, id: &str, css: &str) {
    app.client
        .execute(
            "const s = document.createElement('style'); s.id = arguments[0]; s.textContent = arguments[1]; document.head.appendChild(s);",
            vec![Value::String(id.to_string()), Value::String(css.to_string())],
        )
        .await
        .unwrap();
}

/// `window.__benchReport`, as JSON, when an `ARBOR_BENCH_JS` what-if left one.
pub async fn bench_report(app: &App, label: &str) {
    if std::env::var_os("ARBOR_BENCH_JS").is_none() {
        return;
    }
    let v = app.client.execute("const r = window.__benchReport ?? null; window.__benchReport = r && (Array.isArray(r) ? [] : {}); return r;", vec![]).await.unwrap_or(Value::Null);
    println!("  (window.__benchReport {label}: {v})");
}

pub async fn reset_probe(app: &App) {
    app.client
        // A build from before the input probe has no `inputs`: its figures come out empty.
        .execute(
            "const p = window.__arborPerf; p.frames.length = 0; p.work.length = 0; if (p.inputs) p.inputs.length = 0; if (p.inputParts) for (const l of Object.values(p.inputParts)) l.length = 0; if (p.spent) p.spent = {};",
            vec![],
        )
        .await
        .unwrap();
}

pub async fn probe(app: &App, what: &str) -> Vec<f64> {
    let v = app.client.execute(&format!("return window.__arborPerf.{what} || []"), vec![]).await.unwrap();
    floats(&v)
}

/// The page's own work per stage since the probe was cleared (ms; `timed` in ui/src/lib/perf.ts).
pub async fn spent(app: &App) -> String {
    let v = app.client.execute("return window.__arborPerf.spent || {}", vec![]).await.unwrap_or(Value::Null);
    let parts = stages(&v, 1.0, 0);
    if parts.is_empty() {
        "no stage timings (a build without them)".to_string()
    } else {
        format!("stages (ms): {parts}")
    }
}

/// Stage timings (`{ stage: ms }`), each divided by `per`, largest first: "markdown 12, split 4".
fn stages(v: &Value, per: f64, decimals: usize) -> String {
    let mut parts: Vec<(&String, f64)> = v
        .as_object()
        .map(|o| o.iter().map(|(k, v)| (k, v.as_f64().unwrap_or(0.0) / per)).collect())
        .unwrap_or_default();
    parts.sort_by(|a, b| b.1.total_cmp(&a.1));
    parts.iter().map(|(k, v)| format!("{k} {v:.decimals$}")).collect::<Vec<_>>().join(", ")
}

pub fn summary(name: &str, mut v: Vec<f64>) -> String {
    format!(
        "{name} ({} samples): p50 {:.1}, p95 {:.1}, p99 {:.1}, max {:.1}",
        v.len(),
        pct(&mut v, 0.5),
        pct(&mut v, 0.95),
        pct(&mut v, 0.99),
        pct(&mut v, 1.0)
    )
}

/// Types `text` into the field `css` (already on screen), one key at a time as a person does.
pub async fn type_into(app: &App, css: &str, text: &str, name: &str) -> (Vec<f64>, f64) {
    reset_probe(app).await;
    let field = app.find(css).await;
    field.click().await.ok();
    let recording = Recording::start(name).await;
    let started = Instant::now();
    field.send_keys(text).await.unwrap();
    // The burst has caught up when the field holds it all and a frame has painted it.
    let want = text.chars().count();
    app.wait("the typed text painted", || async {
        let n = app
            .client
            .execute(&format!("return document.querySelector('{css}').value.length"), vec![])
            .await
            .ok()?
            .as_u64()?;
        (n as usize >= want).then_some(())
    })
    .await;
    let caught_up = started.elapsed().as_secs_f64() * 1000.0;
    recording.stop();
    tokio::time::sleep(Duration::from_millis(100)).await;
    (probe(app, "inputs").await, caught_up)
}

/// Empties the prompt box as a person would (select all, Backspace), sending nothing.
pub async fn clear_prompt(app: &App) {
    app.client
        .execute("const t = document.querySelector('[data-testid=prompt-input]'); t.select();", vec![])
        .await
        .ok();
    app.find("[data-testid=prompt-input]").await.send_keys("\u{E003}").await.ok();
}

/// Keystroke to painted character while ten agents stream, in the three text fields.
pub async fn typing(app: &App) {
    app.find("[data-testid=prompt-input]").await.send_keys("BENCH-TYPING: go").await.unwrap();
    app.click("[data-testid=send]").await;
    app.wait("the ten streaming agents", || async {
        let n = app
            .client
            .execute(
                "return document.querySelectorAll(arguments[0]).length",
                vec![json!(shown("[data-testid=tree-node]"))],
            )
            .await
            .ok()?;
        (n.as_u64()? as usize > TYPING_AGENTS).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let burst = "The quick brown fox jumps over the lazy dog while ten agents stream 0123456789";
    let (inputs, caught_up) = type_into(app, "[data-testid=prompt-input]", burst, "typing-prompt").await;
    println!(
        "typing in the prompt box while {TYPING_AGENTS} agents stream: {}",
        summary("keystroke to painted character (ms)", inputs)
    );
    println!("  a {}-character burst caught up {caught_up:.0} ms after the first key", burst.len());
    clear_prompt(app).await;
    let frames = probe(app, "frames").await;
    println!("  {}", summary("frame interval meanwhile (ms)", frames));

    // Message… to a streaming child.
    let nodes = app.all("[data-testid=tree-node]").await;
    nodes[2].click().await.unwrap();
    app.click("[data-testid=node-message]").await;
    let (inputs, caught_up) = type_into(app, "[data-testid=message-text]", burst, "typing-message").await;
    println!(
        "typing in Message…: {}; burst caught up in {caught_up:.0} ms",
        summary("keystroke to painted character (ms)", inputs)
    );
    app.client
        .execute("document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));", vec![])
        .await
        .ok();
    app.find("[data-testid=message-text]").await.send_keys("\u{E00C}").await.ok();
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Delegate… under the main agent.
    let nodes = app.all("[data-testid=tree-node]").await;
    nodes[0].click().await.unwrap();
    app.click("[data-testid=node-delegate]").await;
    let (inputs, caught_up) = type_into(app, "[data-testid=delegate-prompt]", burst, "typing-delegate").await;
    println!(
        "typing in Delegate…: {}; burst caught up in {caught_up:.0} ms",
        summary("keystroke to painted character (ms)", inputs)
    );
    app.find("[data-testid=delegate-prompt]").await.send_keys("\u{E00C}").await.ok();
    until_quiet(app, Duration::from_secs(1), Duration::from_secs(90)).await;
}

/// A 1,500-line Markdown answer: whole at once, then streamed.
pub async fn long_answer(app: &App) {
    // Whole: the response arrives in one frame; its batch's work is the time to the painted answer.
    reset_probe(app).await;
    app.client.execute("window.__arborPerf.work.length = 0;", vec![]).await.unwrap();
    let recording = Recording::start("long-whole").await;
    let sent = Instant::now();
    send_prompt(app, "BENCH-LONG-WHOLE: answer").await;
    let shown = app
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; const t0 = performance.now(); \
             const check = () => { const h = [...document.querySelectorAll('.markdown h2')].find(e => e.textContent.startsWith('Part ')); \
               if (h) done(performance.now() - t0); else requestAnimationFrame(check); }; check();",
            vec![],
        )
        .await
        .unwrap();
    recording.stop();
    until_quiet(app, Duration::from_secs(1), Duration::from_secs(30)).await;
    let work = probe(app, "work").await;
    let longest = work.iter().cloned().fold(0.0, f64::max);
    println!(
        "a {LONG_LINES}-line Markdown answer arriving whole: its frame's work (reduce + render) {longest:.1} ms; \
         on screen {:.0} ms after the page began waiting ({:.0} ms after sending)",
        shown.as_f64().unwrap_or(f64::NAN),
        sent.elapsed().as_secs_f64() * 1000.0
    );
    let rows = app.client.execute("return document.querySelectorAll('.md-block').length", vec![]).await.unwrap();
    println!("  block elements in the page after it: {rows}; {}", spent(app).await);

    // Streamed: 16 characters a chunk, a chunk a millisecond.
    reset_probe(app).await;
    send_prompt(app, "BENCH-LONG-STREAM: answer").await;
    until_quiet(app, Duration::from_secs(1), Duration::from_secs(60)).await;
    println!("the same answer streaming: {}", summary("frame interval (ms)", probe(app, "frames").await));
    println!("  {}", summary("UI work per applied batch (ms)", probe(app, "work").await));
}

async fn send_prompt(app: &App, text: &str) {
    app.find("[data-testid=prompt-input]").await.send_keys(text).await.unwrap();
    app.click("[data-testid=send]").await;
}

/// Five Task calls streamed by the model: when their cards show, and whether their prompts grow.
pub async fn streamed_calls(app: &App) {
    send_prompt(app, "BENCH-CALLS: split").await;
    let seen = app
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; const t0 = performance.now(); \
             let text = null, first = null, all = null; const lengths = new Set(); \
             const check = () => { const now = performance.now() - t0; \
               if (text === null && document.body.innerText.includes(\"I'll split this\")) text = now; \
               const writing = document.querySelectorAll('[data-testid=tool-writing]'); \
               if (first === null && writing.length > 0) first = now; \
               if (writing.length > 0) lengths.add(document.querySelector('.tool .tool-body')?.textContent.length ?? 0); \
               const cards = [...document.querySelectorAll('.tool .tool-name')].filter(e => e.textContent === 'Task').length; \
               if (all === null && cards >= 5) all = now; \
               if (all !== null && writing.length === 0 || now > 20000) done({ text, first, all, growth: lengths.size }); \
               else requestAnimationFrame(check); }; check();",
            vec![],
        )
        .await
        .unwrap();
    println!(
        "five streamed Task calls: the text at {:.0} ms, the first Task card at {:.0} ms (writing…), all five by {:.0} ms; \
         the first card's body was seen at {} different lengths while its input streamed",
        seen["text"].as_f64().unwrap_or(f64::NAN),
        seen["first"].as_f64().unwrap_or(f64::NAN),
        seen["all"].as_f64().unwrap_or(f64::NAN),
        seen["growth"]
    );
    until_quiet(app, Duration::from_secs(1), Duration::from_secs(30)).await;
}

/// 200 live agents streaming ~20,000 events a second: frames, and the tree answering.
pub async fn many_agents(bin: &Path, env: &[(&str, String)]) {
    let settings = json!({
        // 64 run at once (the most Settings allow), the rest queued: 200 live in the tree, each
        // running one streaming a chunk every 3 ms, ~20,000 events/s.
        "limits": { "max_parallel": 64, "max_subagents": MANY, "max_depth": 1, "subagent_max_turns": 10, "main_max_turns": 10 },
        "budgets": { "max_spawns_per_minute": 0 }
    });
    let app = App::launch_with(bin, env, Some(&settings)).await;
    app.client.execute("localStorage.setItem('arborPerf', '1'); location.reload();", vec![]).await.ok();
    tokio::time::sleep(Duration::from_millis(800)).await;
    send_prompt(&app, "BENCH-MANY: go").await;
    app.wait("the 200 agents started", || async {
        let n = app.client.execute("return window.__arborLastSeq || 0", vec![]).await.ok()?.as_f64()?;
        (n > (MANY * 6) as f64).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    reset_probe(&app).await;
    let recording = Recording::start("many-agents").await;
    let pid = super::app_pid();
    let cpu_before = pid.map(super::cpu_ticks).unwrap_or_default();
    let t0 = app.client.execute("return window.__arborLastSeq || 0", vec![]).await.unwrap().as_f64().unwrap_or(0.0);
    let started = Instant::now();
    // Tree interactions while it streams: select rows, fold and unfold the main agent, scroll.
    let answers = tree_interactions(&app, 20).await;
    recording.stop();
    let cpu_after = pid.map(super::cpu_ticks).unwrap_or_default();
    // What a person sees meanwhile (target/e2e-screenshots/many-agents.png).
    app.screenshot("many-agents").await;
    let cpu = super::cpu_shares(&cpu_before, &cpu_after, started.elapsed().as_secs_f64());
    until_quiet(&app, Duration::from_secs(1), Duration::from_secs(120)).await;
    let t1 = app.client.execute("return window.__arborLastSeq || 0", vec![]).await.unwrap().as_f64().unwrap_or(0.0);
    let secs = started.elapsed().as_secs_f64() - 1.0;
    println!(
        "{MANY} live agents: {:.0} events applied in {secs:.1} s (mean {:.0} events/s)",
        t1 - t0,
        (t1 - t0) / secs.max(0.001)
    );
    println!("  {}", summary("frame interval (ms)", probe(&app, "frames").await));
    println!("  {}", summary("UI work per applied batch (ms)", probe(&app, "work").await));
    println!("  {}", spent(&app).await);
    println!("  CPU while the tree was used {cpu}");
    for k in ["select", "fold", "scroll"] {
        println!("  tree {k}: {}", summary("input to painted frame (ms)", floats(&answers[k])));
    }
    // What of that is the page's script (the handler and React's render and commit), the rest being
    // the wait for the next frame, style, layout and paint.
    for k in ["selectJs", "foldJs"] {
        println!("  tree {k}: {}", summary("input to rendered DOM (ms)", floats(&answers[k])));
    }
    println!(
        "  the selected agent's output: {}",
        summary("input to painted frame with it (ms)", floats(&answers["selectOutput"]))
    );
    // Where a select's script time goes, to its output shown (regions' render times need ARBOR_UI_PROFILE=1's build).
    println!("  a select's stages, mean of 20 (ms): {}", stages(&answers["selectStages"], 20.0, 1));
    app.close().await;
}

/// `painted()` in a bench's script: a promise of the end of the next frame (its
/// style, layout and paint), as the first task after it, resolved with the time
/// the frame started (`requestAnimationFrame`). Every "to painted" figure ends so.
pub const PAINTED_JS: &str = "const painted = () => new Promise(r => requestAnimationFrame(() => { const t = performance.now(); const c = new MessageChannel(); c.port1.onmessage = () => r(t); c.port2.postMessage(0); })); ";

/// Selects `selects` rows of the tree one after another, folds and unfolds the main
/// agent six times, scrolls the tree 30 times: each input to its painted frame (ms),
/// and a select to its agent's output painted.
pub async fn tree_interactions(app: &App, selects: usize) -> Value {
    let script = [
        PAINTED_JS,
        "const [selects, OUTPUT, ROWS, TWISTY] = arguments; const done = arguments[arguments.length - 1]; const out = { select: [], fold: [], scroll: [], selectJs: [], foldJs: [], selectOutput: [], selectStages: {} }; \
             const shows = (id, t0) => new Promise(r => { const check = () => { \
               if (document.querySelector(OUTPUT)?.textContent.includes(id) || performance.now() - t0 > 3000) r(); else requestAnimationFrame(check); }; check(); }); \
             const spent = () => Object.assign({}, window.__arborPerf.spent || {}); \
             const addStages = (from) => { const to = spent(); for (const k in to) out.selectStages[k] = (out.selectStages[k] || 0) + to[k] - (from[k] || 0); }; \
             const rendered = () => new Promise(r => queueMicrotask(r)); \
             (async () => { \
               for (let i = 0; i < selects; i++) { const rows = document.querySelectorAll(ROWS); \
                 const row = rows[1 + (i * 7) % Math.max(1, rows.length - 1)]; \
                 const s0 = spent(); const t = performance.now(); row.click(); await rendered(); out.selectJs.push(performance.now() - t); \
                 await painted(); out.select.push(performance.now() - t); \
                 await shows(row.dataset.agentId, t); await painted(); out.selectOutput.push(performance.now() - t); addStages(s0); \
                 await new Promise(r => setTimeout(r, 100)); } \
               for (let i = 0; i < 6; i++) { const tw = document.querySelector(TWISTY); \
                 if (!tw) break; const t = performance.now(); tw.click(); await rendered(); out.foldJs.push(performance.now() - t); \
                 await painted(); out.fold.push(performance.now() - t); \
                 await new Promise(r => setTimeout(r, 150)); } \
               const body = document.querySelector('[aria-label=\"Agent tree\"] [data-pane=shown]') ?? document.querySelector('[aria-label=\"Agent tree\"] .panel-body'); \
               for (let i = 0; i < 30; i++) { const t = performance.now(); body.scrollTop += 120; body.dispatchEvent(new Event('scroll')); await painted(); out.scroll.push(performance.now() - t); } \
               done(out); })();",
    ]
    .concat();
    let args = vec![
        json!(selects),
        json!(shown("[data-testid=output]")),
        json!(shown("[data-testid=tree-node]")),
        json!(shown("[data-testid=tree-node] .twisty:not(.leaf)")),
    ];
    app.client.execute_async(&script, args).await.unwrap()
}

/// Proportional set size (kB) of `root` and its descendants: shared pages count once, shared out.
pub fn tree_pss_kb(root: u32, descendants: &[u32]) -> u64 {
    std::iter::once(root)
        .chain(descendants.iter().copied())
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
        })
        .sum()
}

/// The sizes of the release binaries next to `bin`.
pub fn binary_sizes(bin: &Path) {
    let dir = bin.parent().unwrap_or(Path::new("."));
    for name in ["arbor-desktop", "arbor"] {
        if let Ok(m) = std::fs::metadata(dir.join(name)) {
            println!("binary {name}: {:.1} MB ({} bytes)", m.len() as f64 / 1e6, m.len());
        }
    }
}

/// Process start to the first settled screen, with no WebDriver: the app started
/// as a person starts it, on a private Xvfb whose framebuffer (`-fbdir`) is read
/// every 10 ms. The figure is the last change of the screen before it stays
/// still for 1.5 s (the first-run screen, drawn). WebDriver's own session set-up
/// (about 0.6 s before the page may load) is in the other cold-start figure.
pub fn cold_start_direct(bin: &Path) -> Option<(f64, Vec<f64>)> {
    use std::hash::{Hash, Hasher};
    let dir = tempfile::tempdir().ok()?;
    let (mut xvfb, display) = super::harness::private_display(dir.path(), "1440x900x24");
    let framebuffer = dir.path().join("Xvfb_screen0");
    // A sample of the screen's bytes: enough to see any change of what is drawn.
    let screen = || -> u64 {
        let bytes = std::fs::read(&framebuffer).unwrap_or_default();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.iter().step_by(61).for_each(|b| b.hash(&mut h));
        h.finish()
    };
    let before = screen();
    let started = Instant::now();
    let mut cmd = std::process::Command::new(bin);
    super::harness::isolated(&mut cmd, &display, dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut app = cmd.spawn().ok()?;
    let mut last = before;
    let mut changes = Vec::new();
    while started.elapsed() < Duration::from_secs(8) {
        let now = screen();
        let at = started.elapsed().as_secs_f64() * 1000.0;
        if now != last {
            changes.push(at);
            last = now;
        } else if changes.last().is_some_and(|t| at - t > 1500.0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = app.kill();
    let _ = app.wait();
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    changes.last().map(|t| (*t, changes.clone()))
}
