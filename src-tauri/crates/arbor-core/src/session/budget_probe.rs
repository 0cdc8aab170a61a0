//! A session with a tree of agents under budgets, built for the budget check's
//! benchmark (`cargo bench -p arbor-core --bench budgets`).

use arbor_protocol::{AgentId, Budget, BudgetOrigin, EventKind};
use tokio_util::sync::CancellationToken;

/// A session with a tree of agents under budgets, for measuring what one
/// check before a model request costs (`cargo bench -p arbor-core --bench budgets`).
pub struct BudgetProbe {
    session: super::Session,
    leaf: AgentId,
}

impl BudgetProbe {
    /// `agents` agents in all: the main agent, children under it, and grandchildren
    /// under each child; the main agent and every child have a budget, every agent
    /// has used tokens. Call inside a Tokio runtime.
    pub fn new(session: super::Session, agents: usize) -> Self {
        let shared = session.shared.clone();
        let main = session.main_agent_id().clone();
        session.ensure_main();
        let Some(spec) = shared.registry().get(&main).map(|r| r.spec.clone()) else {
            return Self { leaf: main, session };
        };
        let generous = Budget { max_tokens: Some(u64::MAX / 4), max_subagents: Some(100_000), ..Budget::default() };
        let mut st = shared.lock();
        crate::budget::set(&mut st, &main, generous.clone(), BudgetOrigin::Session, Vec::new());
        let children = (agents as f64).sqrt().max(1.0) as usize;
        let mut parents = vec![main.clone()];
        let mut leaf = main.clone();
        for n in 1..agents {
            let (parent, depth) =
                if n <= children { (main.clone(), 1) } else { (parents[1 + n % children].clone(), 2) };
            let id = st.new_agent_id();
            let started = arbor_protocol::AgentStarted {
                parent_id: Some(parent),
                parent_call_id: None,
                depth,
                description: format!("agent {n}"),
                subagent_type: None,
                model: "m".into(),
                provider: "p".into(),
                background: false,
                call_seq: None,
                fork: None,
                external: None,
            };
            let record = crate::registry::AgentRecord::queued(
                id.clone(),
                &started,
                spec.clone(),
                0,
                CancellationToken::new(),
                None,
                false,
            );
            st.registry.insert(record);
            st.emit(&id, EventKind::AgentStarted(started));
            if depth == 1 {
                crate::budget::set(&mut st, &id, generous.clone(), BudgetOrigin::TaskCall, Vec::new());
                parents.push(id.clone());
            }
            let usage = arbor_protocol::Usage { input_tokens: 1000, output_tokens: 100, ..Default::default() };
            st.emit(&id, EventKind::Usage(usage));
            leaf = id;
        }
        drop(st);
        Self { session, leaf }
    }

    /// One check, as before a model request of the deepest agent: Ok with no notice.
    pub fn check(&self) -> bool {
        matches!(crate::budget::before_request(&self.session.shared, &self.leaf, 1000), Ok(None))
    }

    pub fn agents(&self) -> usize {
        self.session.agents().len()
    }
}
