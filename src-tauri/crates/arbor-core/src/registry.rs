//! The session's registry of agents: the tree (parent, depth), what each agent
//! is, its status, usage and files, and the handles to stop or steer it.

use arbor_protocol::{AgentId, AgentStarted, AgentStatus, Message, Usage};
use std::collections::{HashMap, HashSet};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the registry knows of one agent.
#[derive(Debug)]
pub struct AgentRecord {
    pub id: AgentId,
    /// What the agent is and where it sits in the tree, exactly as `agent_started` said.
    pub started: AgentStarted,
    pub status: AgentStatus,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    pub turns: u32,
    pub usage: Usage,
    pub files_modified: Vec<String>,
    /// The last response text, once finished.
    pub result: Option<String>,
    pub(crate) cancel: CancellationToken,
    /// Steering messages for the running agent; None when it is not running.
    pub(crate) inbox: Option<mpsc::UnboundedSender<String>>,
    /// The conversation so far, kept between runs so the agent can be continued.
    pub(crate) history: Vec<Message>,
    pub(crate) pending_approvals: u32,
}

#[derive(Debug, Default)]
pub struct Registry {
    agents: HashMap<AgentId, AgentRecord>,
}

impl Registry {
    pub fn insert(&mut self, record: AgentRecord) {
        self.agents.insert(record.id.clone(), record);
    }

    pub fn get(&self, id: &AgentId) -> Option<&AgentRecord> {
        self.agents.get(id)
    }

    pub fn get_mut(&mut self, id: &AgentId) -> Option<&mut AgentRecord> {
        self.agents.get_mut(id)
    }

    pub fn contains(&self, id: &AgentId) -> bool {
        self.agents.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.agents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agent's ancestors, nearest first.
    pub fn ancestors(&self, id: &AgentId) -> Vec<AgentId> {
        let mut out = Vec::new();
        let mut cur = self.agents.get(id).and_then(|r| r.started.parent_id.clone());
        while let Some(p) = cur {
            // A cycle cannot be built through the public API; guard anyway so a bug cannot hang.
            if out.contains(&p) {
                break;
            }
            cur = self.agents.get(&p).and_then(|r| r.started.parent_id.clone());
            out.push(p);
        }
        out
    }

    /// Descriptions from the root agent down to `id`.
    pub fn path(&self, id: &AgentId) -> Vec<String> {
        let mut path: Vec<String> = self
            .ancestors(id)
            .iter()
            .rev()
            .chain(std::iter::once(id))
            .filter_map(|a| self.agents.get(a).map(|r| r.started.description.clone()))
            .collect();
        if path.is_empty() {
            path.push(id.to_string());
        }
        path
    }

    /// `id` and all its descendants.
    pub fn subtree(&self, id: &AgentId) -> HashSet<AgentId> {
        let mut out = HashSet::from([id.clone()]);
        let mut grew = true;
        while grew {
            grew = false;
            for r in self.agents.values() {
                if let Some(p) = &r.started.parent_id
                    && out.contains(p)
                    && out.insert(r.id.clone())
                {
                    grew = true;
                }
            }
        }
        out
    }
}
