//! The Markdown export: a transcript a person can read or paste. A header with
//! the session's facts and every approval rule, then each agent (parents first)
//! with its heading, its runs, turns, time and budget, and, in order, its user
//! messages, responses, thinking (folded), tool calls with their arguments and
//! output, approval decisions with what made them, budget warnings, file changes
//! and the result of each run. Headings in the agents' own text are nested below
//! the agent's, so the document's outline stays right. Statuses and usage events
//! are left out; the JSON export has everything.

use crate::Store;
use crate::error::{At, StoreError};
use crate::read::{agent, agents, summary};
use crate::search::path_to;
use arbor_protocol::time::duration_words;
use arbor_protocol::{
    AgentEvent, AgentId, AgentStates, ApprovalOutcome, ApprovalRule, BudgetKind, BudgetStanding, DecidedBy, EventKind,
    McpState, SessionId, SessionSummary, StoredAgent, Timeline, Usage,
};
use std::collections::HashMap;
use std::fmt::Write as _;

impl Store {
    /// The session (or one agent of it) as a Markdown transcript.
    pub fn export_markdown(&self, session: &SessionId, only: Option<&AgentId>) -> Result<String, StoreError> {
        let conn = self.reader();
        let tx = conn.unchecked_transaction().at(&self.path)?;
        let summary = summary(&tx, &self.path, session)?;
        let all = agents(&tx, &self.path, session)?;
        let shown = match only {
            None => all.clone(),
            Some(a) => vec![agent(&tx, &self.path, session, a)?],
        };
        // Superseded chunks are left out: their aggregate event carries the same text.
        let rows: Vec<String> = match only {
            None => tx
                .prepare_cached("SELECT json FROM events WHERE session_id = ?1 AND superseded = 0 ORDER BY seq")
                .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect()),
            Some(a) => tx
                .prepare_cached(
                    "SELECT json FROM events WHERE session_id = ?1 AND agent_id = ?2 AND superseded = 0 ORDER BY seq",
                )
                .and_then(|mut st| st.query_map([session.as_str(), a.as_str()], |r| r.get(0))?.collect()),
        }
        .at(&self.path)?;
        tx.finish().at(&self.path)?;
        let events = rows.iter().map(|j| serde_json::from_str(j)).collect::<Result<Vec<AgentEvent>, _>>()?;

        let tree: HashMap<String, (Option<String>, String)> = all
            .iter()
            .map(|a| (a.id.0.clone(), (a.parent_id.as_ref().map(|p| p.0.clone()), a.description.clone())))
            .collect();
        let mut by_agent: HashMap<&str, Vec<&AgentEvent>> = HashMap::new();
        for ev in &events {
            by_agent.entry(ev.agent_id.as_str()).or_default().push(ev);
        }

        let figures = AgentStates::from_agents(all.iter().cloned()).usage_update(shown.iter().map(|a| &a.id));
        let timeline = Timeline::of(&events);
        let mut out = String::new();
        header(&mut out, &summary, &timeline);
        rules(&mut out, &events, &tree);
        for a in &shown {
            let section = Section { agent: a, path: &path_to(&tree, a.id.as_str()), tree: &tree };
            let budget = figures.agents.iter().find(|u| u.agent_id == a.id).and_then(|u| u.budget.as_ref());
            agent_section(&mut out, &section, by_agent.get(a.id.as_str()), budget);
        }
        Ok(out)
    }
}

fn tokens(u: &Usage) -> String {
    let mut s = format!(
        "{} in, {} out, {} cache read, {} cache write",
        u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
    );
    if let Some(cost) = u.cost_usd {
        let _ = write!(s, " (${cost:.4})");
    }
    s
}

fn header(out: &mut String, s: &SessionSummary, timeline: &Timeline) {
    let title = if s.first_prompt.is_empty() { s.id.as_str() } else { first_line(&s.first_prompt) };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(out, "- Session: `{}`", s.id);
    let _ = writeln!(out, "- Workspace: `{}`", s.workspace);
    let _ = writeln!(out, "- Started: {}", utc(s.started_at));
    if let Some(end) = s.ended_at {
        let _ = writeln!(out, "- Ended: {}", utc(end));
    }
    let _ = writeln!(out, "- Status: {}", s.status.as_str());
    let _ = writeln!(out, "- Model: {} / {}", s.provider, s.model);
    let _ = writeln!(out, "- Agents: {}, events: {}", s.agent_count, s.event_count);
    let _ = writeln!(out, "- Tokens: {}", tokens(&s.usage.usage));
    let _ = writeln!(out, "- Time its agents waited for a person: {}\n", duration_words(timeline.waiting_ms));
}

/// Every rule a person's answer set, whose answer, and whether it was revoked.
fn rules(out: &mut String, events: &[AgentEvent], tree: &HashMap<String, (Option<String>, String)>) {
    let set: Vec<&ApprovalRule> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ApprovalResolved(r) => r.rule.as_ref(),
            _ => None,
        })
        .collect();
    if set.is_empty() {
        return;
    }
    let _ = writeln!(out, "## Approval rules\n");
    for rule in set {
        let who = tree.get(rule.agent_id.as_str()).map_or(rule.agent_id.as_str(), |(_, d)| d.as_str());
        let verb = if rule.approved { "Allow" } else { "Deny" };
        let revoked = events.iter().find_map(|e| match &e.kind {
            EventKind::RuleRevoked(r) if r.rule_id == rule.rule_id => Some(e.ts),
            _ => None,
        });
        let until =
            revoked.map_or_else(|| " · in force to the end".to_string(), |ts| format!(" · revoked {}", utc(ts)));
        let _ = writeln!(
            out,
            "- {verb} {} (rule `{}`, scope {}, set {} by the person's answer to request `{}`{until})",
            rule.reach(who),
            rule.rule_id,
            rule.scope.as_str(),
            utc(rule.created_at),
            rule.request_id
        );
    }
    out.push('\n');
}

/// One agent's part of the export, and the session's agents (parent, description) by id.
struct Section<'a> {
    agent: &'a StoredAgent,
    path: &'a [String],
    tree: &'a HashMap<String, (Option<String>, String)>,
}

impl Section<'_> {
    /// What a rule covers, naming the agent whose answer set it.
    fn reach(&self, rule: &ApprovalRule) -> String {
        let who = self.tree.get(rule.agent_id.as_str()).map_or(rule.agent_id.as_str(), |(_, d)| d.as_str());
        let verb = if rule.approved { "allow" } else { "deny" };
        format!("{verb} {} (rule `{}`, set {})", rule.reach(who), rule.rule_id, utc(rule.created_at))
    }

    /// "by you", "by rule …", "by the approval policy".
    fn decided(&self, by: &DecidedBy) -> String {
        match by {
            DecidedBy::Person => "by the person".to_string(),
            DecidedBy::Rule { rule } => format!("by a rule: {}", self.reach(rule)),
            DecidedBy::Policy => "by the approval policy".to_string(),
            DecidedBy::Hook { hook_event, source } => format!("by a {} hook ({source})", hook_event.as_str()),
            DecidedBy::Setting { rule, source } => format!("by the rule `{rule}` ({source})"),
        }
    }
}

fn agent_section(
    out: &mut String,
    section: &Section<'_>,
    events: Option<&Vec<&AgentEvent>>,
    budget: Option<&BudgetStanding>,
) {
    let (a, path) = (section.agent, section.path);
    let heading = (a.depth as usize + 2).min(6);
    let level = "#".repeat(heading);
    let title = if path.is_empty() { a.description.clone() } else { path.join(" › ") };
    let _ = writeln!(out, "{level} {title}\n");
    let kind = a.subagent_type.as_deref().unwrap_or(if a.depth == 0 { "main" } else { "general-purpose" });
    let runs = events.into_iter().flatten().filter(|e| matches!(e.kind, EventKind::AgentFinished(_))).count();
    let _ = writeln!(
        out,
        "`{}` · {kind} · {} / {} · {}{} · {} in {} · {} · {}\n",
        a.id,
        a.provider,
        a.model,
        a.status.as_str(),
        if a.background { " · background" } else { "" },
        count(a.turns as usize, "turn"),
        count(runs.max(1), "run"),
        duration_words(a.elapsed_ms),
        tokens(&a.usage)
    );
    if let Some(fork) = a.fork {
        let _ = writeln!(
            out,
            "A fork of its parent: it started from its parent's {}.\n",
            count(fork.messages as usize, "message")
        );
    }
    if let Some(context) = a.context_figure() {
        let _ = writeln!(out, "Its last request: {context}\n");
    }
    if let Some(b) = budget {
        let used: Vec<String> =
            BudgetKind::ALL.iter().filter(|k| b.budget.limit(**k).is_some()).map(|k| b.figures(*k)).collect();
        let _ = writeln!(
            out,
            "Budget of its subtree: {} · used {:.0}%: {}\n",
            b.budget.describe(),
            b.fraction * 100.0,
            used.join("; ")
        );
    }
    let nest = heading + 1;
    let mut run = 0;

    // Chunks no aggregate superseded are what an unfinished stream left: joined into one block.
    let mut pending: Option<(&'static str, String)> = None;
    for ev in events.into_iter().flatten() {
        let chunk = match &ev.kind {
            EventKind::ThoughtsChunk(t) => Some(("thinking", t.content.as_str())),
            EventKind::ResponseChunk(t) => Some(("response", t.content.as_str())),
            EventKind::ToolInputChunk(c) => Some(("input", c.content.as_str())),
            EventKind::ToolOutputChunk(c) => Some(("output", c.content.as_str())),
            _ => None,
        };
        if let Some((kind, text)) = chunk {
            match &mut pending {
                Some((k, buf)) if *k == kind => buf.push_str(text),
                _ => {
                    flush_chunks(out, pending.take());
                    pending = Some((kind, text.to_owned()));
                }
            }
            continue;
        }
        flush_chunks(out, pending.take());
        if matches!(ev.kind, EventKind::AgentFinished(_)) {
            run += 1;
        }
        event(out, ev, section, Nesting { level: nest, run, runs });
    }
    flush_chunks(out, pending);
}

/// Where an event sits: the heading level the agent's own headings start at,
/// and which of the agent's runs a result ends.
#[derive(Clone, Copy)]
struct Nesting {
    level: usize,
    run: usize,
    runs: usize,
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn flush_chunks(out: &mut String, pending: Option<(&'static str, String)>) {
    match pending {
        Some(("thinking", text)) => thinking(out, &format!("{text}\n\n*(unfinished)*")),
        Some(("output", text)) => {
            let _ = writeln!(out, "Output (unfinished):\n\n{}", fenced(&text, ""));
        }
        Some(("input", text)) => {
            let _ =
                writeln!(out, "A tool call the model was still writing (it did not run):\n\n{}", fenced(&text, "json"));
        }
        Some((_, text)) => {
            let _ = writeln!(out, "{text}\n\n*(unfinished)*\n");
        }
        None => {}
    }
}

fn thinking(out: &mut String, text: &str) {
    let _ = writeln!(out, "<details><summary>Thinking</summary>\n\n{text}\n\n</details>\n");
}

fn event(out: &mut String, ev: &AgentEvent, section: &Section<'_>, at: Nesting) {
    match &ev.kind {
        EventKind::ApprovalRequest(r) => {
            let _ = writeln!(
                out,
                "**Approval asked** for `{}` (`{}`, request `{}`)\n",
                r.tool_name, r.call_id, r.request_id
            );
        }
        EventKind::ApprovalStale(s) => {
            let _ = writeln!(out, "*{}*\n", s.message);
        }
        EventKind::ApprovalResolved(r) => {
            let verdict = match r.outcome {
                ApprovalOutcome::Approved => "Approved",
                ApprovalOutcome::Denied => "Denied",
                ApprovalOutcome::Withdrawn => "Withdrawn (the agent stopped before an answer)",
            };
            let by = r.decided_by.as_ref().map(|d| format!(" {}", section.decided(d))).unwrap_or_default();
            let _ = write!(out, "**{verdict}**{by} (request `{}`", r.request_id);
            if let Some(rule) = &r.rule {
                let _ = write!(out, "; it set a rule: {}", section.reach(rule));
            }
            let _ = writeln!(out, ")\n");
            if let Some(reason) = &r.reason {
                let _ = writeln!(out, "Reason given: {reason}\n");
            }
            if let Some(edit) = &r.edit {
                let json = serde_json::to_string_pretty(edit).unwrap_or_default();
                let _ = writeln!(out, "Edited before it started:\n\n{}", fenced(&json, "json"));
            }
        }
        EventKind::RuleRevoked(r) => {
            let _ = writeln!(out, "*Rule `{}` revoked: the calls it covered ask again.*\n", r.rule_id);
        }
        EventKind::UserMessage(t) => {
            let nested = nest_headings(&t.content, at.level);
            let quoted: Vec<String> = nested.lines().map(|l| format!("> {l}")).collect();
            let who = match t.from {
                arbor_protocol::MessageFrom::Person => "User",
                arbor_protocol::MessageFrom::Parent => "Task from its parent",
                arbor_protocol::MessageFrom::Arbor => "Arbor",
            };
            let _ = writeln!(out, "**{who}:**\n\n{}\n", quoted.join("\n"));
        }
        EventKind::Thoughts(t) => thinking(out, &nest_headings(&t.content, at.level)),
        EventKind::Response(t) => {
            let _ = writeln!(out, "{}\n", nest_headings(&t.content, at.level));
        }
        EventKind::BudgetSet(b) => {
            let carved = if b.carved.is_empty() { "" } else { ", cut to what the budgets above it had left" };
            let from = b.origin.as_str().replace('_', " ");
            let _ = writeln!(out, "*Budget: {} (from {from}{carved}).*\n", b.budget.describe());
        }
        EventKind::BudgetWarning(w) if w.standing.exhausted.is_some() => {
            let _ = writeln!(out, "**Budget ran out:** {}; its subtree was stopped.\n", w.standing.figures(w.kind));
        }
        EventKind::BudgetWarning(w) => {
            let _ = writeln!(
                out,
                "**Budget warning:** {:.0}% used ({}); its agents were told to wrap up.\n",
                w.standing.fraction * 100.0,
                w.standing.figures(w.kind)
            );
        }
        EventKind::FileChanged(c) => {
            let what = if c.revert_of.is_empty() { "" } else { " (a revert)" };
            let _ = writeln!(
                out,
                "*File {}{what}:* `{}` (+{} −{})\n",
                c.kind.as_str(),
                c.path,
                c.lines_added,
                c.lines_removed
            );
        }
        EventKind::ContextCompacted(c) => {
            let _ = writeln!(
                out,
                "---\n\n*Context compacted:* {}; the model was sent the shorter conversation from here.\n",
                c.describe()
            );
            if let Some(summary) = &c.summary {
                let _ = writeln!(
                    out,
                    "<details><summary>Summary sent in place of the earlier conversation</summary>\n\n{}\n</details>\n",
                    fenced(summary, "")
                );
            }
        }
        EventKind::HookRan(h) => {
            let _ = writeln!(out, "*Hook:* {}\n", h.describe());
        }
        EventKind::Plan(p) => {
            let (done, all) = p.progress();
            let _ = writeln!(out, "*Plan* ({done} of {all} done):\n");
            for e in &p.entries {
                let mark = if e.status == arbor_protocol::PlanStatus::Completed { "x" } else { " " };
                let now = if e.status == arbor_protocol::PlanStatus::InProgress { " *(in progress)*" } else { "" };
                let step = e.content.split_whitespace().collect::<Vec<_>>().join(" ");
                let _ = writeln!(out, "- [{mark}] {step}{now}");
            }
            let _ = writeln!(out);
        }
        EventKind::ImportedEntry(e) => {
            let _ = writeln!(
                out,
                "<details><summary>Imported: {}</summary>\n\n{}\n</details>\n",
                e.kind,
                fenced(&e.content, "")
            );
        }
        EventKind::Worktree(w) => {
            let _ = writeln!(
                out,
                "*Worktree {}:* branch `{}` ({} files)\n",
                arbor_protocol::wire::name(&w.state),
                w.branch,
                w.files.len()
            );
        }
        EventKind::ToolCall(c) => {
            let args = serde_json::to_string_pretty(&c.tool_args).unwrap_or_else(|_| c.tool_args.to_string());
            let _ = writeln!(out, "**Tool call** `{}` (`{}`):\n\n{}", c.tool_name, c.call_id, fenced(&args, "json"));
        }
        EventKind::ToolOutput(o) => {
            let label = if o.is_error { "Error output" } else { "Output" };
            // A person's answer is recorded with the request; a rule's or the policy's is said here.
            let by = match &o.decided_by {
                Some(
                    d @ (DecidedBy::Rule { .. }
                    | DecidedBy::Policy
                    | DecidedBy::Hook { .. }
                    | DecidedBy::Setting { .. }),
                ) => {
                    format!(", {}", section.decided(d))
                }
                _ => String::new(),
            };
            let _ = writeln!(out, "{label} (`{}`{by}):\n\n{}", o.call_id, fenced(&o.content, ""));
        }
        EventKind::McpStatus(s) => match (s.state, &s.error) {
            (McpState::Failed, e) => {
                let _ = writeln!(out, "*MCP server `{}` failed:* {}\n", s.server, e.as_deref().unwrap_or("no detail"));
            }
            (McpState::Connected, _) => {
                let _ = writeln!(out, "*MCP server `{}` started.*\n", s.server);
            }
            (McpState::Closed, _) => {}
        },
        EventKind::TaskNotification(n) => {
            let _ = writeln!(out, "*Background task `{}` {}:* {}\n", n.task_id, n.status.as_str(), n.summary);
        }
        EventKind::AgentFinished(f) => {
            let which = if at.runs > 1 { format!(" of run {} of {}", at.run, at.runs) } else { String::new() };
            let text =
                if f.result.is_empty() { "(no result text)".to_string() } else { nest_headings(&f.result, at.level) };
            let _ = writeln!(
                out,
                "**Result{which}** ({}, {}, {} ms):\n\n{text}\n",
                f.status.as_str(),
                count(f.turns as usize, "turn"),
                f.duration_ms,
            );
            if let Some(e) = &f.error {
                let _ = writeln!(out, "**Error:** {e}\n");
            }
            if !f.files_modified.is_empty() {
                let files: Vec<String> = f.files_modified.iter().map(|p| format!("`{p}`")).collect();
                let _ = writeln!(out, "Files modified: {}\n", files.join(", "));
            }
        }
        _ => {}
    }
}

/// `text` with its ATX headings (`# …`) moved down so the highest is at `level`
/// (at most 6), outside fenced code blocks: an agent's "# Plan" must not sit
/// above the export's own headings.
fn nest_headings(text: &str, level: usize) -> String {
    let shift = level.saturating_sub(1);
    if shift == 0 || !text.contains('#') {
        return text.to_string();
    }
    let mut fence: Option<(char, usize)> = None;
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let run = |c: char| trimmed.chars().take_while(|x| *x == c).count();
        let opens = ['`', '~'].into_iter().map(|c| (c, run(c))).find(|(_, n)| *n >= 3);
        match (fence, opens) {
            (None, Some(f)) if indent < 4 => fence = Some(f),
            (Some((c, n)), Some((c2, n2))) if c == c2 && n2 >= n && indent < 4 => fence = None,
            _ => {}
        }
        let hashes = run('#');
        let is_heading = fence.is_none()
            && opens.is_none()
            && indent < 4
            && (1..=6).contains(&hashes)
            && trimmed[hashes..].starts_with([' ', '\t', '\n', '\r']) | trimmed[hashes..].is_empty();
        if is_heading {
            out.push_str(&line[..indent]);
            out.push_str(&"#".repeat((hashes + shift).min(6)));
            out.push_str(&trimmed[hashes..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A fenced block whose fence is longer than any backtick run inside, so the
/// content cannot close it early.
fn fenced(text: &str, lang: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{lang}\n{body}\n{fence}\n")
}

/// Milliseconds since the epoch as a UTC date and time.
fn utc(ms: i64) -> String {
    format!("{} UTC", arbor_protocol::time::second(ms))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(1_700_000_000_000), "2023-11-14 22:13:20 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(-1_000), "1969-12-31 23:59:59 UTC");
    }

    #[test]
    fn an_agents_headings_sit_below_the_exports() {
        let text = "# Plan\nSome text\n## Steps\n```md\n# not a heading\n```\n#hashtag\n    # code\n###### deep\n";
        let nested = nest_headings(text, 3);
        assert_eq!(
            nested,
            "### Plan\nSome text\n#### Steps\n```md\n# not a heading\n```\n#hashtag\n    # code\n###### deep\n"
        );
        assert_eq!(nest_headings("# a", 1), "# a");
        assert_eq!(nest_headings("~~~\n# x\n~~~\n# y", 2), "~~~\n# x\n~~~\n## y");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert_eq!(fenced("a", ""), "```\na\n```\n");
        assert_eq!(fenced("x ```` y\n", "json"), "`````json\nx ```` y\n`````\n");
    }
}
