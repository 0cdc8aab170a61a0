//! A tiny scripted ACP agent (the official SDK's agent side) for what a real one
//! rarely does on cue: `arbor-scripted-acp MODE`, where MODE is
//!
//! - `ok`: streams a message, asks to write `out.md`, writes it through the client's
//!   `fs/write_text_file` when allowed, says "scripted done", reports usage;
//! - `crash`: streams a message, then exits 3 mid-turn with a line on stderr;
//! - `garbage`: prints a line that is not JSON on stdout, then goes on as `ok` does;
//! - `late`: waits for `session/cancel`, then asks a permission anyway (the answer it got goes to
//!   `late-answer.txt` in its folder), and ends the turn cancelled;
//! - `hang`: never answers the prompt, and ignores `session/cancel`;
//! - `kids`: announces a subagent session (`subagent_update`) that asks to write `kid.md` and
//!   writes it through the client when allowed, ends it, then answers itself; a cancel of the
//!   kid's session is noted in `kid-cancelled.txt`;
//! - `abandon`: asks to write, and without waiting for the answer ends that call as failed
//!   and its turn (the question must go away before the call's result);
//! - `escape`: writes `../escaped.txt` itself (not through the client), then ends;
//! - `terminal`: runs a command in a client terminal (it writes `made.txt`, tries to write
//!   outside its folder, and prints whether it sees an API key), and reports its output.
//! - `echo`: says back the prompt it was given ("got: …"), then ends its turn after 1.5 s.

// A test binary speaking to its client: stderr is where its last words go.
#![allow(clippy::print_stderr)]

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Agent, Client, v1::ConnectionTo, v1::Responder};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, mpsc};

#[derive(Clone)]
struct Script {
    mode: String,
    cwd: Arc<Mutex<PathBuf>>,
    cancelled: Arc<Notify>,
    out: mpsc::UnboundedSender<String>,
    /// The text of the prompt being answered (`echo` says it back).
    prompt: Arc<Mutex<String>>,
}

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "ok".into());
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        eprintln!("arbor-scripted-acp: no runtime");
        return ExitCode::from(2);
    };
    rt.block_on(serve(mode))
}

async fn serve(mode: String) -> ExitCode {
    // Lines go out through one writer, so a garbage line can be slipped in between.
    let (out, mut lines) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = lines.recv().await {
            if stdout.write_all(format!("{line}\n").as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let script = Script {
        mode,
        cwd: Arc::default(),
        cancelled: Arc::new(Notify::new()),
        out: out.clone(),
        prompt: Arc::default(),
    };
    let sink = futures::sink::unfold(out, async |out: mpsc::UnboundedSender<String>, line: String| {
        out.send(line).map_err(|_| std::io::Error::other("stdout is gone"))?;
        Ok::<_, std::io::Error>(out)
    });
    let stdin = BufReader::new(tokio::io::stdin()).lines();
    let incoming = futures::stream::unfold(stdin, async |mut l| match l.next_line().await {
        Ok(Some(line)) => Some((Ok(line), l)),
        Ok(None) => None,
        Err(e) => Some((Err(e), l)),
    });
    let (s1, s2, s3) = (script.clone(), script.clone(), script.clone());
    let served = Agent
        .v1()
        .name("arbor-scripted-acp")
        .on_receive_request(
            async move |r: acp::InitializeRequest, responder: Responder<acp::InitializeResponse>, _cx| {
                responder.respond(
                    acp::InitializeResponse::new(r.protocol_version)
                        .agent_info(acp::Implementation::new("arbor-scripted-acp", "1.0.0")),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: acp::NewSessionRequest, responder: Responder<acp::NewSessionResponse>, _cx| {
                *s1.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = r.cwd;
                responder.respond(acp::NewSessionResponse::new("scripted-1"))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: acp::CancelNotification, _cx| {
                if n.session_id.0.as_ref() == KID {
                    let cwd = s2.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                    let _ = std::fs::write(cwd.join("kid-cancelled.txt"), "cancelled");
                }
                s2.cancelled.notify_one();
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |r: acp::PromptRequest, responder: Responder<acp::PromptResponse>, cx: ConnectionTo<Client>| {
                let text: Vec<String> = r
                    .prompt
                    .iter()
                    .filter_map(|b| match b {
                        acp::ContentBlock::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect();
                *s3.prompt.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = text.join("\n");
                tokio::spawn(s3.clone().turn(r.session_id, responder, cx));
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(agent_client_protocol::Lines::new(sink, incoming))
        .await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arbor-scripted-acp: {e}");
            ExitCode::from(1)
        }
    }
}

/// The subagent session `kids` announces.
const KID: &str = "scripted-1/kid";

fn say(cx: &ConnectionTo<Client>, session: &acp::SessionId, text: &str) {
    let chunk = acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text)));
    let _ = cx.send_notification(acp::SessionNotification::new(
        session.clone(),
        acp::SessionUpdate::AgentMessageChunk(chunk),
    ));
}

/// Its plan: writing out.md, then checking it; `done` steps so far.
fn plan(cx: &ConnectionTo<Client>, session: &acp::SessionId, done: usize) {
    let steps = ["Write out.md", "Check out.md"];
    let entries = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let status = match i.cmp(&done) {
                std::cmp::Ordering::Less => acp::PlanEntryStatus::Completed,
                std::cmp::Ordering::Equal => acp::PlanEntryStatus::InProgress,
                std::cmp::Ordering::Greater => acp::PlanEntryStatus::Pending,
            };
            acp::PlanEntry::new(*step, acp::PlanEntryPriority::High, status)
        })
        .collect();
    let _ = cx.send_notification(acp::SessionNotification::new(
        session.clone(),
        acp::SessionUpdate::Plan(acp::Plan::new(entries)),
    ));
}

fn options() -> Vec<acp::PermissionOption> {
    vec![
        acp::PermissionOption::new("allow", "Allow", acp::PermissionOptionKind::AllowOnce),
        acp::PermissionOption::new("reject", "Reject", acp::PermissionOptionKind::RejectOnce),
    ]
}

impl Script {
    async fn turn(self, session: acp::SessionId, responder: Responder<acp::PromptResponse>, cx: ConnectionTo<Client>) {
        match self.mode.as_str() {
            "crash" => {
                say(&cx, &session, "about to crash");
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                eprintln!("boom: a simulated crash");
                std::process::exit(3);
            }
            "terminal" => self.terminal(session, responder, cx).await,
            "echo" => {
                // Says back what it was prompted with, then takes a moment (a message may come meanwhile).
                let prompt = self.prompt.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                say(&cx, &session, &format!("got: {prompt}"));
                tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
                let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
            }
            "kids" => self.kids(session, responder, cx).await,
            "abandon" => {
                let fields = acp::ToolCallUpdateFields::new()
                    .title("Write gone.md")
                    .kind(acp::ToolKind::Edit)
                    .raw_input(serde_json::json!({"file_path": "gone.md", "content": "x"}));
                let ask = acp::RequestPermissionRequest::new(
                    session.clone(),
                    acp::ToolCallUpdate::new("a1", fields),
                    options(),
                );
                // Asked, and not waited for.
                let pending = cx.send_request(ask);
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                let failed = acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::Failed);
                let update = acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new("a1", failed));
                let _ = cx.send_notification(acp::SessionNotification::new(session.clone(), update));
                say(&cx, &session, "gave up");
                let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
                drop(pending);
            }
            "escape" => {
                let cwd = self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                let wrote = std::fs::write(cwd.join("../escaped.txt"), "out");
                say(&cx, &session, if wrote.is_ok() { "wrote it" } else { "could not write" });
                let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
            }
            "hang" => {
                say(&cx, &session, "hanging");
                std::future::pending::<()>().await;
            }
            "late" => {
                say(&cx, &session, "waiting for a cancel");
                self.cancelled.notified().await;
                let call = acp::ToolCallUpdate::new(
                    "late-1",
                    acp::ToolCallUpdateFields::new().title("Write late.md").kind(acp::ToolKind::Edit),
                );
                let asked = cx
                    .send_request(acp::RequestPermissionRequest::new(session.clone(), call, options()))
                    .block_task()
                    .await;
                let outcome = match asked {
                    Ok(r) if matches!(r.outcome, acp::RequestPermissionOutcome::Cancelled) => "cancelled",
                    Ok(_) => "selected",
                    Err(_) => "error",
                };
                // Where the test can read it: the answer the late request got.
                let cwd = self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
                let _ = std::fs::write(cwd.join("late-answer.txt"), outcome);
                let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::Cancelled));
            }
            _ => {
                if self.mode == "garbage" {
                    let _ = self.out.send("this line is not JSON".into());
                }
                self.write_out(session, responder, cx).await;
            }
        }
    }

    async fn kids(self, session: acp::SessionId, responder: Responder<acp::PromptResponse>, cx: ConnectionTo<Client>) {
        let kid = acp::SessionId::new(KID);
        let running = acp::StateUpdate::Running(acp::RunningStateUpdate::new());
        let announce = acp::SubagentUpdate::new(kid.clone()).title("Kid helper".to_string()).state(running);
        let _ = cx.send_notification(acp::SessionNotification::new(
            session.clone(),
            acp::SessionUpdate::SubagentUpdate(announce),
        ));
        say(&cx, &kid, "kid working");
        let path = self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).join("kid.md");
        let fields = acp::ToolCallUpdateFields::new()
            .title("Write kid.md")
            .kind(acp::ToolKind::Edit)
            .raw_input(serde_json::json!({"file_path": path, "content": "from the kid"}));
        let asked = cx
            .send_request(acp::RequestPermissionRequest::new(
                kid.clone(),
                acp::ToolCallUpdate::new("k1", fields),
                options(),
            ))
            .block_task()
            .await;
        let allowed = matches!(asked, Ok(r) if matches!(&r.outcome, acp::RequestPermissionOutcome::Selected(s) if s.option_id.0.as_ref() == "allow"));
        let reason = if allowed {
            let _ =
                cx.send_request(acp::WriteTextFileRequest::new(kid.clone(), path, "from the kid")).block_task().await;
            let done = acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::Completed);
            let update = acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new("k1", done));
            let _ = cx.send_notification(acp::SessionNotification::new(kid.clone(), update));
            say(&cx, &kid, "kid done");
            acp::IdleStopReason::EndTurn
        } else {
            let failed = acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::Failed);
            let update = acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new("k1", failed));
            let _ = cx.send_notification(acp::SessionNotification::new(kid.clone(), update));
            acp::IdleStopReason::Cancelled
        };
        let idle = acp::StateUpdate::Idle(acp::IdleStateUpdate::new().stop_reason(reason));
        let end = acp::SubagentUpdate::new(kid).state(idle);
        let _ = cx
            .send_notification(acp::SessionNotification::new(session.clone(), acp::SessionUpdate::SubagentUpdate(end)));
        say(&cx, &session, "parent done");
        let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
    }

    async fn terminal(
        self,
        session: acp::SessionId,
        responder: Responder<acp::PromptResponse>,
        cx: ConnectionTo<Client>,
    ) {
        let line = "echo made > made.txt; touch ../outside.txt 2>/dev/null || echo outside-refused; \
                    echo \"key: ${ANTHROPIC_API_KEY:-none}\"; sleep 30 & echo from-terminal";
        let call = acp::ToolCall::new("t1", "Run a command")
            .kind(acp::ToolKind::Execute)
            .raw_input(serde_json::json!({"command": line}));
        let _ =
            cx.send_notification(acp::SessionNotification::new(session.clone(), acp::SessionUpdate::ToolCall(call)));
        let created = cx.send_request(acp::CreateTerminalRequest::new(session.clone(), line)).block_task().await;
        let Ok(created) = created else {
            let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::Refusal));
            return;
        };
        let id = created.terminal_id;
        let _ = cx.send_request(acp::WaitForTerminalExitRequest::new(session.clone(), id.clone())).block_task().await;
        let output = cx.send_request(acp::TerminalOutputRequest::new(session.clone(), id.clone())).block_task().await;
        let ok = output.as_ref().is_ok_and(|o| o.exit_status.as_ref().is_some_and(|s| s.exit_code == Some(0)));
        let done = acp::ToolCallUpdateFields::new()
            .status(if ok { acp::ToolCallStatus::Completed } else { acp::ToolCallStatus::Failed })
            .content(vec![acp::ToolCallContent::Terminal(acp::Terminal::new(id.clone()))]);
        let _ = cx.send_notification(acp::SessionNotification::new(
            session.clone(),
            acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new("t1", done)),
        ));
        let _ = cx.send_request(acp::ReleaseTerminalRequest::new(session.clone(), id)).block_task().await;
        say(&cx, &session, "ran it");
        let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn));
    }

    async fn write_out(
        self,
        session: acp::SessionId,
        responder: Responder<acp::PromptResponse>,
        cx: ConnectionTo<Client>,
    ) {
        plan(&cx, &session, 0);
        say(&cx, &session, "writing out.md");
        let path = self.cwd.lock().unwrap_or_else(std::sync::PoisonError::into_inner).join("out.md");
        let fields = acp::ToolCallUpdateFields::new()
            .title("Write out.md")
            .kind(acp::ToolKind::Edit)
            .raw_input(serde_json::json!({"file_path": path, "content": "scripted"}))
            .content(vec![acp::ToolCallContent::Diff(acp::Diff::new(path.clone(), "scripted"))])
            .locations(vec![acp::ToolCallLocation::new(path.clone())]);
        let call =
            acp::ToolCall::new("w1", "Write out.md").kind(acp::ToolKind::Edit).raw_input(fields.raw_input.clone());
        let _ =
            cx.send_notification(acp::SessionNotification::new(session.clone(), acp::SessionUpdate::ToolCall(call)));
        let asked = cx
            .send_request(acp::RequestPermissionRequest::new(
                session.clone(),
                acp::ToolCallUpdate::new("w1", fields),
                options(),
            ))
            .block_task()
            .await;
        let allowed = matches!(asked, Ok(r) if matches!(&r.outcome, acp::RequestPermissionOutcome::Selected(s) if s.option_id.0.as_ref() == "allow"));
        let result = if allowed {
            match cx.send_request(acp::WriteTextFileRequest::new(session.clone(), path, "scripted")).block_task().await
            {
                Ok(_) => (acp::ToolCallStatus::Completed, "wrote out.md".to_string()),
                Err(e) => (acp::ToolCallStatus::Failed, format!("the client refused: {e}")),
            }
        } else {
            (acp::ToolCallStatus::Failed, "not allowed".to_string())
        };
        let done = acp::ToolCallUpdateFields::new()
            .status(result.0)
            .content(vec![acp::ToolCallContent::from(acp::ContentBlock::Text(acp::TextContent::new(result.1)))]);
        let _ = cx.send_notification(acp::SessionNotification::new(
            session.clone(),
            acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new("w1", done)),
        ));
        plan(&cx, &session, 2);
        say(&cx, &session, "scripted done");
        let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn).usage(acp::Usage::new(15, 10, 5)));
    }
}
