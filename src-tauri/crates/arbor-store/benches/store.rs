//! The store's figures, on real files in a temporary directory:
//!
//! 1. Append throughput: a realistic event mix (mostly ~8-char response chunks,
//!    with responses, tool calls, tool output and usage) appended in batches of
//!    256 events per transaction; events/s, median of 5 runs of 100,000 events,
//!    each into a new file. Goal: at least 50,000/s.
//!    Then as a live session writes: 45 agents streaming at once, their events
//!    interleaved, appended 8 at a time (the store writer's bursts while three
//!    sessions stream); events/s, CPU µs per event, and how long an append took
//!    (p50, p99, max: what a burst of events waits before it is shown), 5 runs.
//! 2. Opening a 100,000-event session (20 agents) to its first screen: a fresh
//!    `Store::open`, `skeleton()` and `transcript(main, None, 200)`; median of 10.
//!    Goal: under 200 ms.
//! 3. Full-text search over 1,000,000 indexed text events (words drawn from a
//!    generated vocabulary with a Zipf-like spread): `search(term, 50)` for 10
//!    terms from very common to absent; median and max. Goal: under 50 ms.
//!
//! Run: `cargo bench -p arbor-store --bench store` (prints figures; asserts nothing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_protocol::*;
use arbor_store::{NewSession, Store};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// A small deterministic generator (xorshift64*): the same data every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Made-up words; word `i` is spelled from the base-20 digits of `i + 20`, so all differ.
fn vocabulary(n: usize) -> Vec<String> {
    const SYL: [&str; 20] = [
        "ka", "lo", "mi", "ne", "ru", "ta", "shi", "ven", "dor", "pel", "qui", "zan", "bri", "gon", "fer", "lu", "mo",
        "sta", "tre", "wix",
    ];
    (0..n)
        .map(|i| {
            let mut x = i + 20;
            let mut w = String::new();
            while x > 0 {
                w.push_str(SYL[x % 20]);
                x /= 20;
            }
            w
        })
        .collect()
}

struct Words {
    vocab: Vec<String>,
    rng: Rng,
}

impl Words {
    /// Word ranks spread log-uniformly, so the frequency of rank r falls as 1/r (Zipf).
    fn word(&mut self) -> &str {
        let n = self.vocab.len() as f64;
        let r = (self.rng.unit() * n.ln()).exp() as usize - 1;
        &self.vocab[r.min(self.vocab.len() - 1)]
    }

    fn sentence(&mut self, min: usize, max: usize) -> String {
        let n = min + self.rng.below(max - min + 1);
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            let w = self.word().to_owned();
            s.push_str(&w);
        }
        s
    }
}

fn ev(session: &SessionId, agent: &AgentId, seq: u64, kind: EventKind) -> AgentEvent {
    AgentEvent { agent_id: agent.clone(), session_id: session.clone(), seq, ts: 1_700_000_000_000 + seq as i64, kind }
}

/// Numbers events for one session and hands them out in batches.
struct Session {
    id: SessionId,
    seq: u64,
    out: Vec<AgentEvent>,
}

impl Session {
    fn push(&mut self, agent: &AgentId, kind: EventKind) {
        self.seq += 1;
        self.out.push(ev(&self.id, agent, self.seq, kind));
    }

    /// One model turn as the runtime streams it: response chunks of ~8
    /// characters and their aggregate, a tool call, streamed output and its
    /// aggregate, usage. 36 events, 30 of them chunks.
    fn turn(&mut self, agent: &AgentId, words: &mut Words, n: u64) {
        let mut full = String::new();
        for _ in 0..30 {
            let chunk: String = format!("{} ", words.word()).chars().take(8).collect();
            full.push_str(&chunk);
            self.push(agent, EventKind::ResponseChunk(Text { content: chunk }));
        }
        self.push(agent, EventKind::Response(Text { content: full }));
        let call_id = format!("toolu_{n}");
        let args = json!({"command": words.sentence(2, 6), "timeout": 120});
        self.push(
            agent,
            EventKind::ToolCall(ToolCall {
                call_id: call_id.clone(),
                tool_name: "Bash".into(),
                tool_args: args,
                mcp: None,
            }),
        );
        let output = words.sentence(20, 60);
        let half = output.len() / 2;
        let cut = (half..output.len()).find(|&i| output.is_char_boundary(i)).unwrap_or(output.len());
        for part in [&output[..cut], &output[cut..]] {
            self.push(
                agent,
                EventKind::ToolOutputChunk(ToolOutputChunk { call_id: call_id.clone(), content: part.into() }),
            );
        }
        self.push(
            agent,
            EventKind::ToolOutput(ToolOutput { call_id, content: output, is_error: false, decided_by: None }),
        );
        self.push(
            agent,
            EventKind::Usage(Usage {
                input_tokens: 1200 + n,
                output_tokens: 300,
                cache_read_tokens: 900,
                cache_write_tokens: 0,
                cost_usd: Some(0.004),
            }),
        );
    }
}

fn agent_id(i: usize) -> AgentId {
    AgentId::from_suffix(0x1000 + i as u32)
}

fn start(store: &Store, id: &SessionId) {
    let new = NewSession {
        id: id.clone(),
        workspace: "/home/dev/project".into(),
        first_prompt: String::new(),
        provider: "anthropic".into(),
        model: "claude-sonnet".into(),
        started_at: 1_700_000_000_000,
        client: None,
    };
    store.begin_session(&new, &store.claim(id).unwrap()).unwrap();
}

/// A session of about `target` events: `agents` agents (the first the main one,
/// the rest its children) taking turns round-robin, each started, prompted and
/// finished. Returned in order; the caller appends.
fn session_events(id: &SessionId, agents: usize, target: usize, words: &mut Words) -> Vec<AgentEvent> {
    let mut s = Session { id: id.clone(), seq: 0, out: Vec::with_capacity(target + 64) };
    let main = agent_id(0);
    for i in 0..agents {
        let a = agent_id(i);
        let (parent, depth) = if i == 0 { (None, 0) } else { (Some(main.clone()), 1) };
        s.push(
            &a,
            EventKind::AgentStarted(AgentStarted {
                parent_id: parent,
                parent_call_id: (i > 0).then(|| format!("task_{i}")),
                depth,
                description: format!("agent {i}: {}", words.sentence(2, 4)),
                subagent_type: None,
                model: "claude-sonnet".into(),
                provider: "anthropic".into(),
                background: false,
                call_seq: None,
                fork: None,
                external: None,
            }),
        );
        s.push(&a, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Running }));
        s.push(
            &a,
            EventKind::UserMessage(arbor_protocol::UserMessage::new(
                words.sentence(10, 30),
                arbor_protocol::MessageFrom::Person,
            )),
        );
    }
    let mut n = 0;
    while s.out.len() + 36 + 2 * agents <= target {
        s.turn(&agent_id(n as usize % agents), words, n);
        n += 1;
    }
    for i in (0..agents).rev() {
        s.push(
            &agent_id(i),
            EventKind::AgentFinished(AgentFinished {
                status: AgentStatus::Completed,
                result: words.sentence(10, 30),
                error: None,
                turns: 10,
                duration_ms: 60_000,
                files_modified: vec!["src/lib.rs".into()],
                stopped_by: None,
            }),
        );
    }
    s.out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn append_throughput(dir: &Path, words: &mut Words) {
    let mut rates = Vec::new();
    for run in 0..5 {
        let store = Store::open(&dir.join(format!("append-{run}.db"))).unwrap();
        let id = SessionId(format!("sess-append-{run}"));
        start(&store, &id);
        let events = session_events(&id, 4, 100_000, words);
        let t = Instant::now();
        for batch in events.chunks(256) {
            store.append(batch).unwrap();
        }
        let secs = t.elapsed().as_secs_f64();
        rates.push(events.len() as f64 / secs);
        println!("  run {run}: {} events in {:.3} s = {:.0} events/s", events.len(), secs, events.len() as f64 / secs);
    }
    println!("1. append throughput (batches of 256): median {:.0} events/s (goal >= 50,000)", median(rates));
}

/// As a live session stores them: `agents` agents started, then their turns
/// interleaved, one event of each agent in turn.
fn live_events(id: &SessionId, agents: usize, target: usize, words: &mut Words) -> Vec<AgentEvent> {
    let mut starts = session_events(id, agents, 4 * agents, words);
    starts.retain(|e| !matches!(e.kind, EventKind::AgentFinished(_)));
    let mut s = Session { id: id.clone(), seq: starts.len() as u64, out: starts };
    let mut queues: Vec<std::collections::VecDeque<EventKind>> = vec![Default::default(); agents];
    let mut n = 0;
    while s.out.len() < target {
        for (i, queue) in queues.iter_mut().enumerate() {
            if queue.is_empty() {
                let mut turn = Session { id: id.clone(), seq: 0, out: Vec::new() };
                turn.turn(&agent_id(i), words, n);
                n += 1;
                queue.extend(turn.out.into_iter().map(|e| e.kind));
            }
            if let Some(kind) = queue.pop_front() {
                s.push(&agent_id(i), kind);
            }
        }
    }
    s.out
}

fn live_append(dir: &Path, words: &mut Words) {
    let (mut rates, mut costs, mut slowest) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..5 {
        let store = Store::open(&dir.join(format!("live-{run}.db"))).unwrap();
        let id = SessionId(format!("sess-live-{run}"));
        start(&store, &id);
        let events = live_events(&id, 45, 20_000, words);
        let cpu = thread_cpu();
        let t = Instant::now();
        let mut waits = Vec::new();
        for batch in events.chunks(8) {
            let b = Instant::now();
            store.append(batch).unwrap();
            waits.push(b.elapsed().as_secs_f64() * 1e3);
        }
        let secs = t.elapsed().as_secs_f64();
        let micros = cpu.zip(thread_cpu()).map(|(a, b)| (b - a) * 1e6 / events.len() as f64);
        rates.push(events.len() as f64 / secs);
        costs.extend(micros);
        waits.sort_by(f64::total_cmp);
        let at = |q: f64| waits[((waits.len() - 1) as f64 * q).round() as usize];
        slowest.push(at(0.99));
        println!(
            "  run {run}: {} events in {secs:.3} s = {:.0} events/s, {} of CPU each; an append took p50 {:.2}, p99 {:.2}, max {:.2} ms",
            events.len(),
            events.len() as f64 / secs,
            micros.map_or("unknown".into(), |m| format!("{m:.0} µs")),
            at(0.5),
            at(0.99),
            at(1.0)
        );
    }
    let cost = if costs.is_empty() { "unknown".into() } else { format!("{:.0} µs", median(costs)) };
    println!(
        "1b. append as a live session (45 agents, batches of 8): median {:.0} events/s, {cost} of CPU per event, p99 of an append {:.1} ms (what a burst waits before it is shown)",
        median(rates),
        median(slowest)
    );
}

/// This thread's CPU time so far, user and system (s), from `/proc/thread-self/stat`
/// (Linux; None elsewhere).
fn thread_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    // After the name: state is field 3, utime 14 and stime 15 (1-based), in clock ticks of 1/100 s.
    let ticks = |i: usize| fields.get(i - 3).and_then(|f| f.parse::<f64>().ok());
    Some((ticks(14)? + ticks(15)?) / 100.0)
}

fn first_screen(dir: &Path, words: &mut Words) {
    let path = dir.join("open.db");
    let id = SessionId("sess-open".into());
    {
        let store = Store::open(&path).unwrap();
        start(&store, &id);
        let events = session_events(&id, 20, 100_000, words);
        for batch in events.chunks(256) {
            store.append(batch).unwrap();
        }
        println!("  stored a session of {} events, 20 agents", events.len());
    }
    let main = agent_id(0);
    let mut times = Vec::new();
    let (mut skeleton_len, mut page_len) = (0, 0);
    for _ in 0..10 {
        let t = Instant::now();
        let store = Store::open(&path).unwrap();
        let skeleton = store.skeleton(&id).unwrap();
        let page = store.transcript(&id, &main, None, 200).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        (skeleton_len, page_len) = (skeleton.len(), page.events.len());
    }
    let max = times.iter().copied().fold(0.0, f64::max);
    println!(
        "2. open + skeleton ({skeleton_len} events) + transcript page ({page_len} events): median {:.1} ms, max {:.1} ms (goal < 200 ms)",
        median(times),
        max
    );
}

fn search(dir: &Path, words: &mut Words) {
    let path = dir.join("search.db");
    let store = Store::open(&path).unwrap();
    let t = Instant::now();
    let (sessions, per_session) = (100, 10_000);
    for s in 0..sessions {
        let id = SessionId(format!("sess-search-{s:03}"));
        start(&store, &id);
        let mut log = Session { id: id.clone(), seq: 0, out: Vec::with_capacity(256) };
        let main = agent_id(0);
        for i in 0..per_session {
            // Only indexed kinds, with lengths roughly as the runtime's.
            let kind = match i % 5 {
                0 => EventKind::UserMessage(arbor_protocol::UserMessage::new(
                    words.sentence(5, 20),
                    arbor_protocol::MessageFrom::Person,
                )),
                1 => EventKind::Thoughts(Text { content: words.sentence(8, 30) }),
                2 => EventKind::Response(Text { content: words.sentence(8, 30) }),
                3 => EventKind::ToolCall(ToolCall {
                    call_id: format!("toolu_{i}"),
                    tool_name: "Grep".into(),
                    tool_args: json!({"pattern": words.sentence(1, 3), "path": "src"}),
                    mcp: None,
                }),
                _ => EventKind::ToolOutput(ToolOutput {
                    call_id: format!("toolu_{}", i - 1),
                    content: words.sentence(5, 30),
                    is_error: false,
                    decided_by: None,
                }),
            };
            log.push(&main, kind);
            if log.out.len() == 256 {
                store.append(&log.out).unwrap();
                log.out.clear();
            }
        }
        store.append(&log.out).unwrap();
    }
    let build = t.elapsed().as_secs_f64();
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "  stored {} indexed events in {sessions} sessions in {build:.1} s ({:.0} events/s), file {:.0} MB",
        sessions * per_session,
        (sessions * per_session) as f64 / build,
        size as f64 / 1e6
    );
    drop(store);

    let store = Store::open(&path).unwrap();
    let v = &words.vocab;
    let terms = [
        v[0].clone(),                     // the most common word
        v[1].clone(),                     // very common
        v[10].clone(),                    // common
        v[300].clone(),                   // middling
        v[5_000].clone(),                 // rare
        v[19_000].clone(),                // rarest
        v[2][..3].to_string(),            // a prefix of a common word
        format!("{} {}", v[0], v[4_000]), // a common word and a rare one
        format!("{} {}", v[3], v[7]),     // two common words
        "nosuchwordanywhere".to_string(), // absent
    ];
    // The connection's first query also reads the schema and the index's structure record.
    let t = Instant::now();
    store.search(&v[42], 50).unwrap();
    println!(
        "  (first query on the new connection, {}: {:.2} ms, not counted)",
        v[42],
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut times = Vec::new();
    for term in &terms {
        let t = Instant::now();
        let hits = store.search(term, 50).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        println!("  {term:>28}: {:>2} hits in {ms:.2} ms", hits.len());
        times.push(ms);
    }
    let max = times.iter().copied().fold(0.0, f64::max);
    println!(
        "3. search over 1,000,000 events, 10 terms: median {:.2} ms, max {:.2} ms (goal < 50 ms)",
        median(times),
        max
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let mut words = Words { vocab: vocabulary(20_000), rng: Rng(0x9E37_79B9_7F4A_7C15) };
    let which = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| which.as_deref().is_none_or(|w| w == name);
    if run("append") {
        append_throughput(dir.path(), &mut words);
        live_append(dir.path(), &mut words);
    }
    if run("open") {
        first_screen(dir.path(), &mut words);
    }
    if run("search") {
        search(dir.path(), &mut words);
    }
}
