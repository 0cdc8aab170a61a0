//! The OS sandbox that `Bash` commands run in, as the wire knows it: the modes
//! a person chooses from, what an agent file or a delegation asks of it, what
//! the machine can enforce, and what one command will run with (shown on its
//! approval card and in the session's header). The runtime enforces it
//! (`arbor_core::sandbox`); this only describes it.

use serde::{Deserialize, Serialize};

/// How tightly commands are held, from loosest to strictest (the order is the
/// rule that a child is never looser than its parent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// No sandbox: commands run as the user, with everything the user can reach.
    Off,
    /// Writes only in the agent's working tree, a private /tmp and the paths
    /// allowed; the usual secret places hidden; network as allowed.
    #[default]
    Workspace,
    /// As `Workspace`, and the whole home directory hidden except the working tree.
    Strict,
}

impl SandboxMode {
    /// Every mode, loosest first.
    pub const ALL: [SandboxMode; 3] = [SandboxMode::Off, SandboxMode::Workspace, SandboxMode::Strict];

    /// The wire name (`off`, `workspace`, `strict`).
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Off => "off",
            SandboxMode::Workspace => "workspace",
            SandboxMode::Strict => "strict",
        }
    }

    /// The mode a wire name stands for.
    pub fn parse(name: &str) -> Option<SandboxMode> {
        SandboxMode::ALL.into_iter().find(|m| m.as_str() == name.trim())
    }
}

/// What a person, an agent file or a delegation asks of the sandbox. Absent
/// fields keep what the agent would otherwise have had.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct SandboxRequest {
    pub mode: Option<SandboxMode>,
    /// Whether commands may open network connections.
    pub network: Option<bool>,
    /// Directories (absolute, `~/…`, or relative to the working tree) commands may
    /// also write to; replaces the list it would have had.
    pub write: Option<Vec<String>>,
}

impl SandboxRequest {
    pub fn is_empty(&self) -> bool {
        self.mode.is_none() && self.network.is_none() && self.write.is_none()
    }
}

/// What one command runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CommandSandbox {
    /// Enforced by the OS for the command and everything it starts.
    Sandboxed {
        mode: SandboxMode,
        /// What enforces it, e.g. `bubblewrap 0.8.0`.
        mechanism: String,
        /// Where the command may write, absolute (`/tmp` is private to the agent).
        writable: Vec<String>,
        /// Whether it may open network connections.
        network: bool,
        /// Places it cannot read (they look empty or absent inside).
        hidden: Vec<String>,
    },
    /// A person turned the sandbox off: the command runs as the user.
    Off,
    /// The machine cannot sandbox commands; they run as the user. Says why.
    Unavailable { reason: String },
}

impl CommandSandbox {
    pub fn is_enforced(&self) -> bool {
        matches!(self, CommandSandbox::Sandboxed { .. })
    }

    /// One line for a terminal or a log: what holds the command, or that nothing does.
    pub fn summary(&self) -> String {
        match self {
            CommandSandbox::Sandboxed { mode, mechanism, writable, network, hidden } => {
                let hidden = if *mode == SandboxMode::Strict {
                    "the home directory hidden".to_string()
                } else if hidden.is_empty() {
                    "nothing hidden".to_string()
                } else {
                    format!("{} hidden", hidden.join(", "))
                };
                format!(
                    "sandboxed ({}, {mechanism}): writes only in {}; network {}; {hidden}",
                    mode.as_str(),
                    writable.join(", "),
                    if *network { "allowed" } else { "off" },
                )
            }
            CommandSandbox::Off => "NOT sandboxed: the sandbox is turned off for this agent".to_string(),
            CommandSandbox::Unavailable { reason } => format!("NOT sandboxed: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_order_loosest_first_and_round_trip_their_names() {
        assert!(SandboxMode::Off < SandboxMode::Workspace && SandboxMode::Workspace < SandboxMode::Strict);
        for m in SandboxMode::ALL {
            assert_eq!(SandboxMode::parse(m.as_str()), Some(m));
            assert_eq!(serde_json::to_value(m).unwrap(), serde_json::json!(m.as_str()));
        }
        assert_eq!(SandboxMode::parse("loose"), None);
    }

    #[test]
    fn an_unsandboxed_command_never_reads_as_protected() {
        let off = CommandSandbox::Unavailable { reason: "bwrap is not installed".into() };
        assert!(!off.is_enforced() && off.summary().starts_with("NOT sandboxed"));
        assert!(CommandSandbox::Off.summary().starts_with("NOT sandboxed"));
    }
}
