//! An agent's plan on the wire: the list of what it means to do and how far it
//! got, as an external ACP agent reports it (`session/update` `plan`). Each
//! `plan` event is the whole list, replacing the one before (ACP says the agent
//! sends every entry each time), so the latest event of an agent is its plan.

use serde::{Deserialize, Serialize};

/// The whole plan, as the agent last stated it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct PlanEntry {
    /// What this step is, in the agent's words.
    pub content: String,
    pub priority: PlanPriority,
    pub status: PlanStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanPriority {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

impl PlanStatus {
    /// The mark a plain-text view (the CLI, an export) puts before the step.
    pub fn mark(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[~]",
            Self::Completed => "[x]",
        }
    }
}

impl Plan {
    /// The plan as plain text: one line per step, its mark first.
    pub fn to_text(&self) -> String {
        self.entries.iter().map(|e| format!("{} {}", e.status.mark(), e.content)).collect::<Vec<_>>().join("\n")
    }

    /// Steps done, of all.
    pub fn progress(&self) -> (usize, usize) {
        (self.entries.iter().filter(|e| e.status == PlanStatus::Completed).count(), self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_reads_as_marked_lines_and_counts_its_done_steps() {
        let step =
            |content: &str, status| PlanEntry { content: content.into(), priority: PlanPriority::Medium, status };
        let plan = Plan {
            entries: vec![
                step("Read the notes", PlanStatus::Completed),
                step("Write the summary", PlanStatus::InProgress),
                step("Check it", PlanStatus::Pending),
            ],
        };
        assert_eq!(plan.to_text(), "[x] Read the notes\n[~] Write the summary\n[ ] Check it");
        assert_eq!(plan.progress(), (1, 3));
        let wire = serde_json::to_value(&plan).unwrap();
        assert_eq!(wire["entries"][1]["status"], "in_progress");
    }
}
