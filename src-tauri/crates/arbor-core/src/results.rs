//! How a child's end reads to those who wait for it: the text its parent's model
//! gets (its result, or why it has none), the notice a background child's end
//! sends, the line a `task_notification` shows, and a tree label made from a
//! prompt. A leaf: plain text from plain data.

use arbor_protocol::{AgentFinished, AgentId, AgentStatus};

/// A tree label from the prompt's first words, when the caller gave none.
pub fn describe(prompt: &str) -> String {
    let words: Vec<&str> = prompt.split_whitespace().take(5).collect();
    let mut label = words.join(" ");
    if label.chars().count() > 48 {
        label = label.chars().take(47).collect::<String>() + "…";
    }
    label
}

/// Cuts a result for the parent's model; the full text stays in the registry and the store.
fn cap_result(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars).collect();
    format!(
        "{kept}\n\n[Result truncated: the first {max_chars} of {total} characters are shown; the full text is kept in the transcript.]"
    )
}

/// How a child's end reads to the model that waits for it: its last text
/// verbatim, or `Subagent error: …` with the error flag.
pub(crate) fn result_for_model(id: &AgentId, finished: &AgentFinished, max_chars: usize) -> (String, bool) {
    let text = || {
        if finished.result.trim().is_empty() {
            "(no result text)".to_string()
        } else {
            cap_result(&finished.result, max_chars)
        }
    };
    match finished.status {
        AgentStatus::Completed => (text(), false),
        AgentStatus::MaxTurns => (
            format!(
                "{}\n\n[Subagent {id} stopped at its turn limit ({} turns); its work may be unfinished.]",
                text(),
                finished.turns
            ),
            false,
        ),
        AgentStatus::Truncated => (
            format!(
                "{}\n\n[Subagent {id}'s answer was cut off at the model's output limit: it is incomplete.]",
                text()
            ),
            false,
        ),
        AgentStatus::Cancelled => {
            let by = match finished.stopped_by {
                Some(arbor_protocol::StoppedBy::Person) => "stopped by the user",
                Some(arbor_protocol::StoppedBy::Parent) => "stopped with TaskStop",
                Some(arbor_protocol::StoppedBy::ParentEnded) => "stopped because your run ended",
                Some(arbor_protocol::StoppedBy::Hook) => "stopped by a hook (\"continue\": false)",
                None => "stopped",
            };
            (format!("Subagent error: {by}"), true)
        }
        AgentStatus::BudgetExhausted => {
            let why = finished.error.as_deref().unwrap_or("its budget ran out");
            let mut text = format!("Subagent error: stopped because {why} (status budget_exhausted).");
            if !finished.result.trim().is_empty() {
                text.push_str(&format!(
                    " Its last text before it stopped:\n\n{}",
                    cap_result(&finished.result, max_chars)
                ));
            }
            (text, true)
        }
        status => {
            let why = finished.error.as_deref().unwrap_or("it ended without a result");
            (format!("Subagent error: {why} (status {})", status.as_str()), true)
        }
    }
}

/// The notice a parent's next model request carries when a background child ends.
pub(crate) fn notification_text(
    id: &AgentId,
    description: &str,
    finished: &AgentFinished,
    max_chars: usize,
    note: Option<&str>,
) -> String {
    let (mut result, _) = result_for_model(id, finished, max_chars);
    if let Some(note) = note {
        result = format!("{result}\n\n{note}");
    }
    format!(
        "<task-notification>\n<task-id>{id}</task-id>\n<description>{description}</description>\n<status>{}</status>\n<result>\n{result}\n</result>\n</task-notification>\nA subagent you started has finished; its result is above.",
        finished.status.as_str()
    )
}

/// One line for the task_notification event.
pub(crate) fn summary(description: &str, finished: &AgentFinished) -> String {
    let detail = match finished.status {
        AgentStatus::Completed | AgentStatus::MaxTurns | AgentStatus::Truncated => {
            finished.result.lines().find(|l| !l.trim().is_empty())
        }
        _ => finished.error.as_deref(),
    };
    let mut s = format!("\"{description}\" {}", finished.status.as_str());
    if let Some(d) = detail {
        let d: String = d.trim().chars().take(200).collect();
        s.push_str(": ");
        s.push_str(&d);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(status: AgentStatus, result: &str) -> AgentFinished {
        AgentFinished {
            status,
            result: result.to_string(),
            error: Some("provider anthropic: HTTP 500".to_string()),
            turns: 3,
            duration_ms: 1,
            files_modified: Vec::new(),
            stopped_by: None,
        }
    }

    #[test]
    fn results_read_as_the_design_says() {
        let id = AgentId("agent-0000beef".into());
        assert_eq!(result_for_model(&id, &finished(AgentStatus::Completed, "done"), 10), ("done".into(), false));
        assert_eq!(
            result_for_model(&id, &finished(AgentStatus::Completed, "  "), 10),
            ("(no result text)".into(), false)
        );
        let (text, err) = result_for_model(&id, &finished(AgentStatus::MaxTurns, "partial"), 10);
        assert!(!err && text.starts_with("partial\n\n") && text.contains("turn limit (3 turns)"), "{text}");
        let (text, err) = result_for_model(&id, &finished(AgentStatus::Failed, ""), 10);
        assert!(err && text.starts_with("Subagent error: provider anthropic: HTTP 500"), "{text}");
        // Who stopped it is said as it was: only a person's Stop reads as the user's.
        let stopped = |by| AgentFinished { stopped_by: by, ..finished(AgentStatus::Cancelled, "") };
        let by_person = Some(arbor_protocol::StoppedBy::Person);
        assert_eq!(
            result_for_model(&id, &stopped(by_person), 10),
            ("Subagent error: stopped by the user".into(), true)
        );
        let by_parent = Some(arbor_protocol::StoppedBy::Parent);
        assert_eq!(
            result_for_model(&id, &stopped(by_parent), 10),
            ("Subagent error: stopped with TaskStop".into(), true)
        );
        assert_eq!(result_for_model(&id, &stopped(None), 10), ("Subagent error: stopped".into(), true));
    }

    #[test]
    fn long_results_are_cut_on_a_char_boundary_with_a_marker() {
        let text = "é".repeat(60_000);
        let cut = cap_result(&text, 50_000);
        assert!(cut.starts_with(&"é".repeat(50_000)));
        assert!(cut.contains("the first 50000 of 60000 characters"));
        assert_eq!(cap_result("short", 50_000), "short");
    }

    #[test]
    fn labels_come_from_the_prompt_when_missing() {
        assert_eq!(describe("Find every TODO in the src folder and list them"), "Find every TODO in the");
        assert!(describe(&"x".repeat(100)).ends_with('…'));
    }
}
