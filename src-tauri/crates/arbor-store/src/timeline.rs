//! A stored session's timeline, rebuilt with the protocol's one derivation
//! ([`TimelineBuilder`]) from the few fields of the events that shape it: no
//! event's text or arguments are read, so a 100,000-event session rebuilds fast.

use crate::Store;
use crate::error::{At, StoreError};
use crate::read::summary;
use arbor_protocol::{AgentId, AgentStatus, EventType, SessionId, Step, Timeline, TimelineBuilder, wire};

impl Store {
    pub fn timeline(&self, session: &SessionId) -> Result<Timeline, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        let sql = format!(
            "SELECT agent_id, seq, ts, type, json_extract(json, '$.status'), json_extract(json, '$.call_id'),
                    json_extract(json, '$.tool_name'), json_extract(json, '$.request_id')
             FROM events WHERE session_id = ?1 AND {} ORDER BY seq",
            crate::schema::types_sql(&Step::EVENT_TYPES)
        );
        let mut st = conn.prepare_cached(&sql).at(&self.path)?;
        let mut rows = st.query([session.as_str()]).at(&self.path)?;
        let mut b = TimelineBuilder::default();
        let mut agent = AgentId(String::new());
        while let Some(r) = rows.next().at(&self.path)? {
            let text = |i: usize| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
            agent.0.clear();
            agent.0.push_str(r.get_ref(0).ok().and_then(|v| v.as_str().ok()).unwrap_or_default());
            let (seq, ts, kind): (u64, i64, String) =
                (r.get(1).at(&self.path)?, r.get(2).at(&self.path)?, text(3).at(&self.path)?);
            let (status, call_id, tool, request_id) =
                (text(4).at(&self.path)?, text(5).at(&self.path)?, text(6).at(&self.path)?, text(7).at(&self.path)?);
            let Some(kind) = wire::parse(&Step::EVENT_TYPES, &kind) else { continue };
            let step = match kind {
                EventType::AgentStarted => Step::Started,
                EventType::AgentStatus => match wire::parse(&AgentStatus::ALL, &status) {
                    Some(s) => Step::Status(s),
                    None => continue,
                },
                EventType::Usage => Step::Usage,
                EventType::ToolCall => Step::Call { call_id: &call_id, tool: &tool },
                EventType::ToolOutput => Step::Output { call_id: &call_id },
                EventType::ApprovalRequest => Step::Ask { request_id: &request_id, call_id: &call_id, tool: &tool },
                EventType::ApprovalResolved => Step::Answered { request_id: &request_id },
                EventType::UserMessage | EventType::TaskNotification => Step::Wake,
                EventType::ContextCompacted => Step::Compacted,
                EventType::AgentFinished => Step::Finished,
                _ => continue,
            };
            b.step(&agent, seq, ts, step);
        }
        Ok(b.into_timeline())
    }
}
