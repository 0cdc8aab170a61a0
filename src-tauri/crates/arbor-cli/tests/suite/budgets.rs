//! Budgets from the terminal: `--max-tokens` budgets the whole session and
//! stops it, named, before a request that would pass it (exit 1); a stdin line
//! `{"type":"budget",…}` raises a running agent's budget so it goes on.

use super::*;
use serde_json::json;

/// A main agent whose every turn uses `tokens` input tokens; the 7th turn streams slowly.
async fn spending_cli(tokens: u64) -> Cli {
    let step = |i: u32| {
        let mut t = json!({"text": format!("step {i} "), "usage": {"input_tokens": tokens},
                           "tool_calls": [{"name": "Glob", "input": {"pattern": "*.none"}}]});
        if i == 7 {
            t["delay_ms"] = json!(2500);
        }
        t
    };
    let mut turns: Vec<Value> = (1..=8).map(step).collect();
    turns.push(json!({"text": "all done", "usage": {"input_tokens": tokens}}));
    let scenario = json!({"rules": [{"match": {}, "turns": turns}]});
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() }
}

#[tokio::test]
async fn max_tokens_stops_the_session_before_a_request_would_pass_it() {
    let cli = spending_cli(10_000).await;
    let out = cli.run(&["run", "--approve", "all", "--max-tokens", "25000", "spend"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("budget 25,000 tokens · from session"), "{stdout}");
    assert!(stdout.contains("■ budget_exhausted"), "{stdout}");
    assert!(
        stderr.contains("budget_exhausted: the tokens budget of")
            && stderr.contains("ran out: 20,000 of 25,000 tokens used, and the next model request"),
        "{stderr}"
    );
    assert_eq!(cli.server.requests().len(), 2, "the third request was never sent");

    // Resumed with more room, it carries on where the budget stopped it.
    let id = stdout.lines().find_map(|l| l.strip_prefix("session ")).and_then(|l| l.split_whitespace().next()).unwrap();
    let resumed = cli.run(&["resume", "--approve", "all", "--max-tokens", "100000", id]).await;
    let out = text(&resumed.stdout);
    assert!(resumed.status.success(), "{out}\n{}", text(&resumed.stderr));
    assert!(out.contains("budget 100,000 tokens · from person") && out.contains("all done"), "{out}");

    let bad = cli.run(&["run", "--max-budget-usd", "0", "spend"]).await;
    assert_eq!(bad.status.code(), Some(2), "clap refuses it");
    assert!(text(&bad.stderr).contains("expected an amount of dollars above 0"), "{}", text(&bad.stderr));
}

#[tokio::test]
async fn a_budget_line_on_stdin_raises_a_running_agents_budget() {
    let cli = spending_cli(5_000).await;
    // 37,000 tokens: the 7th request (30,000 used, ~5,000 more) fits and warns; the 8th would not.
    let mut child = cli
        .cmd(&["run", "--json", "--approve", "all", "--max-tokens", "37000", "spend"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen: Vec<Value> = Vec::new();
    let read_all = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let e: Value = serde_json::from_str(&line).unwrap();
            if e["type"] == "budget_warning" {
                let raise = json!({"type": "budget", "agent_id": e["agent_id"], "max_tokens": 100_000});
                stdin.write_all(format!("{raise}\n").as_bytes()).await.unwrap();
            }
            seen.push(e);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), read_all).await.expect("run ends");
    assert!(child.wait().await.unwrap().success());
    let sets: Vec<(&str, u64)> = seen
        .iter()
        .filter(|e| e["type"] == "budget_set")
        .map(|e| (e["origin"].as_str().unwrap(), e["budget"]["max_tokens"].as_u64().unwrap()))
        .collect();
    assert_eq!(sets, vec![("session", 37_000), ("person", 100_000)]);
    let warning = seen.iter().find(|e| e["type"] == "budget_warning").unwrap();
    assert_eq!(warning["kind"], "tokens");
    assert_eq!(warning["standing"]["used"]["tokens"], 30_000);
    let last = seen.last().unwrap();
    assert_eq!((last["type"].as_str(), last["status"].as_str()), (Some("agent_finished"), Some("completed")));
    assert_eq!(cli.server.requests().len(), 9);
}

#[tokio::test]
async fn dollar_and_wall_time_budgets_stop_the_session_naming_the_limit() {
    // $3 per million input tokens (the default Anthropic model): 10,000 tokens cost $0.03 a turn.
    let cli = spending_cli(10_000).await;
    let out = cli.run(&["run", "--approve", "all", "--max-budget-usd", "0.05", "spend"]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the cost budget of") && stderr.contains("of $0.05"), "{stderr}");
    assert_eq!(cli.server.requests().len(), 2, "the third request was never sent");

    // The 7th turn streams for 2.5 s: a 1 s limit stops it mid-request.
    let cli = spending_cli(10).await;
    let started = std::time::Instant::now();
    let out = cli.run(&["run", "--approve", "all", "--max-duration", "1", "spend"]).await;
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the duration budget of") && stderr.contains("of 1.0 s wall time"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_millis(2_400), "stopped at the limit, not after the turn");
}
