//! `arbor show SESSION --format timeline`: one line per agent, in tree order,
//! with a bar across the session's span that shows when the agent waited for
//! a slot, ran model turns, ran tools and waited for a person, and its end.

use arbor_protocol::{AgentId, Lane, SegmentKind, SessionDetail, StoredAgent, Timeline};
use std::collections::HashMap;

/// The terminal's columns, or 100 when stdout is not a terminal.
pub fn terminal_width() -> usize {
    terminal_size::terminal_size().map_or(100, |(w, _)| usize::from(w.0))
}

/// What a bar cell shows, most telling first: a wait for a person, a
/// compaction, a model turn, a tool call, a wait for a slot.
const MARKS: [(SegmentKind, char); 5] = [
    (SegmentKind::Approval, '!'),
    (SegmentKind::Compaction, '~'),
    (SegmentKind::Model, '█'),
    (SegmentKind::Tool, '▒'),
    (SegmentKind::Queued, '·'),
];

pub fn render(detail: &SessionDetail, timeline: &Timeline, width: usize) -> String {
    let agents = tree_order(&detail.agents, timeline);
    let start = agents.iter().map(|(a, _)| a.started_at).min().unwrap_or(0);
    let end = timeline
        .lanes
        .iter()
        .flat_map(|l| l.segments.iter().map(|s| s.end.unwrap_or(s.start)))
        .chain(agents.iter().map(|(a, _)| a.ended_at.unwrap_or(a.started_at)))
        .max()
        .unwrap_or(start)
        .max(start + 1);
    let label_w =
        agents.iter().map(|(a, depth)| depth * 2 + a.description.chars().count()).max().unwrap_or(4).clamp(8, 28);
    let lanes: HashMap<&AgentId, &Lane> = timeline.lanes.iter().map(|l| (&l.agent_id, l)).collect();
    // Each row's end: its status, its time, and how long it waited for you.
    let tails: Vec<String> = agents
        .iter()
        .map(|(a, _)| {
            let ran = a.elapsed_ms + a.run_started_at.map_or(0, |s| u64::try_from(end - s).unwrap_or(0));
            let mut tail = format!("{} {}", a.status.as_str(), arbor_protocol::time::duration_words(ran));
            let waited = lanes.get(&a.id).map_or(0, |l| l.waiting_ms);
            if waited > 0 {
                tail.push_str(&format!(", waited {} for you", arbor_protocol::time::duration_words(waited)));
            }
            tail
        })
        .collect();
    let tail_w = tails.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let bar_w = width.saturating_sub(label_w + tail_w + 4).max(10);
    let span = (end - start) as f64;
    let mut out = format!(
        "{:label_w$}  0 s{:>pad$}\n",
        "",
        arbor_protocol::time::duration_words((end - start) as u64),
        pad = bar_w.saturating_sub(3)
    );
    for ((a, depth), tail) in agents.iter().zip(&tails) {
        let label: String = format!("{}{}", "  ".repeat(*depth), a.description).chars().take(label_w).collect();
        let mut cells = vec![' '; bar_w];
        if let Some(lane) = lanes.get(&a.id) {
            for (i, cell) in cells.iter_mut().enumerate() {
                let from = start + (span * i as f64 / bar_w as f64) as i64;
                let to = start + (span * (i + 1) as f64 / bar_w as f64).ceil() as i64;
                let here = |kind: SegmentKind| {
                    lane.segments
                        .iter()
                        .any(|s| s.kind == kind && s.start < to.max(from + 1) && s.end.unwrap_or(end) >= from)
                };
                if let Some((_, mark)) = MARKS.iter().find(|(k, _)| here(*k)) {
                    *cell = *mark;
                }
            }
        }
        let bar: String = cells.into_iter().collect();
        out.push_str(&format!("{label:label_w$}  {bar}  {tail}\n"));
    }
    out.push_str(&format!(
        "{:label_w$}  █ model  ▒ tool  ~ compacting  ! waiting for you  · queued      waited for you in all: {}\n",
        "",
        arbor_protocol::time::duration_words(timeline.waiting_ms)
    ));
    out
}

/// Parents before their children; siblings in the order their parent made the
/// calls that started them (parallel children start in any order), else as they started.
fn tree_order<'a>(agents: &'a [StoredAgent], timeline: &Timeline) -> Vec<(&'a StoredAgent, usize)> {
    // Call ids are the model's, unique only within one agent's conversation.
    let call_seq: HashMap<(&AgentId, &str), u64> = timeline
        .lanes
        .iter()
        .flat_map(|l| l.segments.iter().map(move |s| (&l.agent_id, s)))
        .filter_map(|(a, s)| s.call_id.as_deref().filter(|_| s.kind == SegmentKind::Tool).map(|c| ((a, c), s.seq)))
        .collect();
    let mut children: HashMap<Option<&AgentId>, Vec<&StoredAgent>> = HashMap::new();
    for a in agents {
        let parent = a.parent_id.as_ref().filter(|p| agents.iter().any(|x| x.id == **p));
        children.entry(parent).or_default().push(a);
    }
    for list in children.values_mut() {
        list.sort_by_key(|a| {
            let called = a.parent_id.as_ref().zip(a.parent_call_id.as_deref()).and_then(|k| call_seq.get(&k)).copied();
            (called.unwrap_or(u64::MAX), a.started_at, a.id.0.clone())
        });
    }
    let mut out = Vec::with_capacity(agents.len());
    let mut stack: Vec<(&StoredAgent, usize)> =
        children.get(&None).map(|r| r.iter().rev().map(|a| (*a, 0)).collect()).unwrap_or_default();
    while let Some((a, depth)) = stack.pop() {
        out.push((a, depth));
        if out.len() > agents.len() {
            break;
        }
        if let Some(kids) = children.get(&Some(&a.id)) {
            stack.extend(kids.iter().rev().map(|k| (*k, depth + 1)));
        }
    }
    out
}
