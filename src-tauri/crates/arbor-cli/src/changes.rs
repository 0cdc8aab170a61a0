//! `arbor changes`, `arbor revert` and `arbor worktrees`: what agents changed,
//! undoing it, and the worktrees subagents left, through the same API the app uses.

use crate::args::{ChangesArgs, ChangesFormat, RevertArgs, WorktreesAction, WorktreesCommand, WorktreesListArgs};
use crate::setup;
use crate::transcripts::out;
use anyhow::{Result, bail};
use arbor_app::Environment;
use arbor_app::changes::AgentChange;
use arbor_app::worktrees::WorktreeInfo;
use arbor_protocol::{AgentId, Kept, SessionId, WorktreeAction, WorktreeState};
use similar::TextDiff;
use std::process::ExitCode;

pub async fn changes(args: ChangesArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.store.data_dir.as_deref(), env)?;
    let session = host.resolve_session(args.session.clone()).await?;
    let agent = args.agent.map(AgentId);
    let list = host.changes(session, agent).await?;
    let mut text = String::new();
    for c in &list {
        match args.format {
            ChangesFormat::Json => {
                let row = serde_json::json!({
                    "seq": c.seq,
                    "ts": c.ts,
                    "agent_id": c.agent_id,
                    "path": c.change.path,
                    "root": c.change.root,
                    "kind": c.change.kind.as_str(),
                    "ambiguous": c.change.is_ambiguous(),
                    "ambiguous_with": c.change.ambiguous_with,
                    "lines_added": c.change.lines_added,
                    "lines_removed": c.change.lines_removed,
                    "before_hash": c.change.before_hash,
                    "after_hash": c.change.after_hash,
                    "change_id": c.change.change_id,
                    "call_id": c.change.call_id,
                    "revert_of": c.change.revert_of,
                });
                text.push_str(&row.to_string());
                text.push('\n');
            }
            ChangesFormat::Diff => text.push_str(&diff(c)),
        }
    }
    if list.is_empty() && args.format == ChangesFormat::Diff {
        text.push_str("no file changes recorded\n");
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// One change as a unified diff, headed by who made it.
fn diff(c: &AgentChange) -> String {
    let ch = &c.change;
    let mut head = format!("# {} {} by {}", ch.kind.as_str(), ch.path, c.agent_id);
    if ch.is_ambiguous() {
        let with: Vec<&str> = ch.ambiguous_with.iter().map(|a| a.as_str()).collect();
        head.push_str(&format!(" (ambiguous: {} also ran commands in this tree then)", with.join(", ")));
    }
    if !ch.revert_of.is_empty() {
        head.push_str(" (a revert)");
    }
    head.push_str(&format!(" · +{} −{}\n", ch.lines_added, ch.lines_removed));
    match (side(&ch.before), side(&ch.after)) {
        (Ok(before), Ok(after)) => {
            let (a, b) = (format!("a/{}", ch.path), format!("b/{}", ch.path));
            let body = TextDiff::from_lines(before, after).unified_diff().header(&a, &b).to_string();
            format!("{head}{body}\n")
        }
        (Err(why), _) | (_, Err(why)) => format!("{head}({why})\n\n"),
    }
}

fn side(k: &Kept) -> Result<&str, String> {
    match k {
        Kept::Absent => Ok(""),
        Kept::Text { text } => Ok(text),
        Kept::Binary { base64 } => Err(format!("binary content, {} bytes as base64", base64.len())),
        Kept::NotKept { reason, .. } => Err(reason.clone()),
    }
}

pub async fn revert(args: RevertArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.store.data_dir.as_deref(), env)?;
    let session = host.resolve_session(args.session.clone()).await?;
    let outcome = host.revert(session, AgentId(args.agent.clone()), args.paths).await?;
    if outcome.conflicts.is_empty() {
        for p in &outcome.reverted {
            out(&format!("reverted {p}\n"))?;
        }
        if outcome.reverted.is_empty() {
            out("nothing to revert\n")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::from("nothing was reverted:\n");
    for c in &outcome.conflicts {
        text.push_str(&format!("  {}: {}\n", if c.path.is_empty() { "-" } else { &c.path }, c.reason));
    }
    crate::setup::warn(text.trim_end());
    Ok(ExitCode::from(1))
}

pub async fn worktrees(cmd: WorktreesCommand, env: Environment) -> Result<ExitCode> {
    match cmd.action {
        None => list(cmd.list, env).await,
        Some(WorktreesAction::Merge(t)) => act(t.list, &t.agent, WorktreeAction::Merge, env).await,
        Some(WorktreesAction::Discard(t)) => act(t.list, &t.agent, WorktreeAction::Discard, env).await,
    }
}

async fn found(args: &WorktreesListArgs, env: Environment) -> Result<(arbor_app::Host, Vec<WorktreeInfo>)> {
    let host = setup::host(args.store.data_dir.as_deref(), env)?;
    let dir = setup::workspace(args.workspace.as_deref())?;
    let list = host.worktrees(dir).await?;
    Ok((host, list))
}

async fn list(args: WorktreesListArgs, env: Environment) -> Result<ExitCode> {
    let (_, list) = found(&args, env).await?;
    let mut text = String::new();
    if args.json {
        for w in &list {
            text.push_str(&serde_json::to_string(w)?);
            text.push('\n');
        }
    } else if list.is_empty() {
        text.push_str("no Arbor worktrees in this repository\n");
    } else {
        for w in &list {
            let (added, removed) = w.files.iter().fold((0, 0), |(a, r), f| (a + f.lines_added, r + f.lines_removed));
            let mut notes = Vec::new();
            if w.uncommitted {
                notes.push("uncommitted work");
            }
            if w.live {
                notes.push("its session is running");
            }
            let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
            text.push_str(&format!(
                "{}  session {}  branch {}  {} file{} +{added} −{removed}{notes}\n    {}\n",
                w.agent_id,
                w.session_id,
                w.branch,
                w.files.len(),
                if w.files.len() == 1 { "" } else { "s" },
                w.path
            ));
            for f in &w.files {
                text.push_str(&format!("    {} {} +{} −{}\n", f.kind.as_str(), f.path, f.lines_added, f.lines_removed));
            }
        }
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

async fn act(args: WorktreesListArgs, agent: &str, action: WorktreeAction, env: Environment) -> Result<ExitCode> {
    let (host, list) = found(&args, env).await?;
    let Some(w) = list.iter().find(|w| w.agent_id == agent) else {
        bail!("no Arbor worktree of agent {agent} in this repository (`arbor worktrees` lists them)");
    };
    let update = host.worktree_action(SessionId(w.session_id.clone()), AgentId(agent.to_string()), action).await?;
    match update.state {
        WorktreeState::Conflicted => {
            let mut text =
                format!("{} was not merged: nothing was applied to {}.\n", update.branch, update.parent_root);
            for c in &update.conflicts {
                text.push_str(&format!("  {}: {}\n", c.path, c.reason));
            }
            crate::setup::warn(text.trim_end());
            Ok(ExitCode::from(1))
        }
        state => {
            let what = match state {
                WorktreeState::Merged => format!("merged into {}", update.parent_root),
                _ => "discarded".to_string(),
            };
            out(&format!("{} {what} ({} files); worktree removed\n", update.branch, update.files.len()))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
