//! llama.cpp's server as a real peer: it says the window it serves (`/props`),
//! and a session longer than that window (`-c 8192`), through the OpenAI
//! route, runs to completion. The session is set to a window four times too
//! large, as a person might, so llama.cpp refuses an over-long request with its
//! own error; the agent compacts (its model writes the summary) and goes on.
//!
//! Needs the server built: `scripts/test-llama.sh` builds it once (9–15
//! minutes, cached) and runs this with `--ignored`; it is not part of the
//! main suite, which must stay within CI's time.

use super::*;
use arbor_core::provider::{OpenAiConfig, OpenAiProvider};
use arbor_protocol::{AgentStatus, CompactTrigger};
use std::process::{Child, Command as Process, Stdio};

const WINDOW: u64 = 8_192;
const PARTS: usize = 8;

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run scripts/test-llama.sh"))
}

async fn start_server() -> (Server, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port();
    let child = Process::new(env("LLAMA_SERVER"))
        .args(["-m", &env("LLAMA_MODEL"), "--host", "127.0.0.1", "--port", &port.to_string()])
        .args(["-t", "2", "-tb", "2", "-c", &WINDOW.to_string(), "-np", "1", "--alias", "smollm2", "--jinja"])
        .args(["--chat-template-file", &env("LLAMA_TEMPLATE"), "--temp", "0"])
        .stdout(Stdio::null())
        .stderr(server_log())
        .spawn()
        .expect("llama-server starts");
    let server = Server(child);
    let base = format!("http://127.0.0.1:{port}");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        if healthy(port).await {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "llama-server was not healthy within 120 s");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    (server, format!("{base}/v1"))
}

/// The server's own log: to the file `LLAMA_LOG` names, when it names one, for a failure to be read.
fn server_log() -> Stdio {
    std::env::var_os("LLAMA_LOG")
        .and_then(|path| std::fs::File::create(path).ok())
        .map_or_else(Stdio::null, Stdio::from)
}

/// One line per part on what was sent and done, printed so a failure here can be read.
fn describe(part: usize, run: &[AgentEvent]) -> String {
    let mut line = format!("part {part}:");
    for e in run {
        match &e.kind {
            EventKind::Usage(u) => line.push_str(&format!(" request {} in, {} out;", u.input_tokens, u.output_tokens)),
            EventKind::ToolCall(c) => line.push_str(&format!(" call {} {};", c.tool_name, c.tool_args)),
            EventKind::ContextCompacted(c) => line.push_str(&format!(" {};", c.describe())),
            EventKind::AgentFinished(f) => line.push_str(&format!(" {:?} {:?}", f.status, f.error)),
            EventKind::Response(t) => line.push_str(&format!(" said {} bytes;", t.content.len())),
            _ => {}
        }
    }
    line
}

/// Whether `GET /health` answers 200 (plain HTTP on loopback: no client library needed).
async fn healthy(port: u16) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else { return false };
    if stream.write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").await.is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.is_ok() && head.ends_with(b"200")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
// Each part's line is printed: a failure against a real server is read from this run's output.
#[allow(clippy::print_stderr)]
#[ignore = "needs llama.cpp's server: scripts/test-llama.sh builds it and runs this"]
async fn a_session_longer_than_llama_servers_window_completes_by_compacting() {
    let (_server, base_url) = start_server().await;
    let dir = tempfile::tempdir().expect("workspace");
    let provider: Arc<dyn arbor_core::provider::Provider> = Arc::new(
        OpenAiProvider::new(OpenAiConfig {
            base_url,
            api_key: None,
            timeouts: arbor_core::provider::Timeouts {
                connect: Duration::from_secs(5),
                response: Duration::from_secs(300),
                idle: Duration::from_secs(300),
            },
        })
        .expect("provider"),
    );
    // The server says the window it serves, before any request.
    assert_eq!(provider.served_window("smollm2").await, Some(WINDOW));
    let mut config = SessionConfig::new(dir.path(), "openai", provider, "smollm2");
    // A person's figure wins over the server's: set too large, the server's refusal is what stops a request.
    config.context.window = Some(WINDOW * 4);
    config.approval = ApprovalPolicy::allow_all();
    // A harmless tool, so tools are rendered and offered as in any session.
    config.main_agent.tools.allow = Some(vec!["Glob".into()]);
    // A 135M model may ramble or call its tool again: a short answer and few turns keep each run
    // bounded; an answer cut at the output limit still ends the run, and the session goes on.
    config.main_agent.max_turns = 2;
    config.max_tokens = 96;
    let (session, mut events) = Session::start(config).expect("session");
    let main = session.main_agent_id().clone();
    let part = "The measurement log lists sensor readings, each within its tolerance band. ".repeat(90);
    let mut all = Vec::new();
    // Each message adds about 1,600 tokens: the conversation outgrows 8,192 tokens by the fifth.
    for i in 1..=PARTS {
        let text = format!("Part {i} of the notes follows. Reply with one short sentence.\n\n{part}");
        session.submit(arbor_protocol::Command::SendMessage { agent_id: None, text }).expect("message");
        let run = collect_until(&mut events, Duration::from_secs(600), |e| {
            matches!(e.kind, EventKind::AgentFinished(_)) && e.agent_id == main
        })
        .await
        .expect("the main agent answers");
        let finished = run.iter().rev().find_map(|e| match &e.kind {
            EventKind::AgentFinished(f) => Some(f.clone()),
            _ => None,
        });
        let finished = finished.expect("finished");
        eprintln!("{}", describe(i, &run));
        assert!(
            matches!(finished.status, AgentStatus::Completed | AgentStatus::MaxTurns | AgentStatus::Truncated),
            "part {i}: {:?} {:?}",
            finished.status,
            finished.error
        );
        all.extend(run);
    }
    let compactions: Vec<_> = all
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ContextCompacted(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    assert!(!compactions.is_empty(), "the session outgrew the window and was compacted");
    // The first came on llama.cpp's own refusal, which named its window.
    assert_eq!(compactions[0].trigger, CompactTrigger::Overflow, "{:?}", compactions[0]);
    assert_eq!(compactions[0].window_tokens, Some(WINDOW), "{:?}", compactions[0]);
    assert!(compactions.iter().any(|c| c.summary.as_deref().is_some_and(|s| !s.trim().is_empty())));
}
