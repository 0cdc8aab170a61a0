//! A stream's pieces (a model's text, thinking and call input; a command's
//! output) held for a moment and merged before they become events. Each event
//! gets a seq, is stored, then shown: at 15,000 pieces a second the store's
//! writer was a third of the machine's CPU, for pieces no one can see apart.
//! Merging before the seq keeps the contracts as they are (seq gap-free,
//! persisted before shown, a call's input pieces before its `tool_call`) with
//! fewer rows to write.

use arbor_protocol::EventKind;
use std::time::Duration;
use tokio::time::Instant;

/// How long the first piece of a run waits for more: one frame at 60 Hz, the
/// soonest a window paints it anyway. Pieces further apart than this (a model
/// at a person's reading speed) are passed on one by one, as they came.
pub const HOLD: Duration = Duration::from_millis(16);

/// The piece held, and when it is due.
#[derive(Debug, Default)]
pub(crate) struct Pieces {
    held: Option<(EventKind, Instant)>,
}

impl Pieces {
    /// Takes `piece` (a chunk: [`EventKind::is_chunk`]): merged into the held one when
    /// it continues it; otherwise held in its place, and the one held before is handed
    /// back to be emitted now. Before emitting anything else of the agent, call
    /// [`Pieces::take`]: the held piece came first.
    #[must_use]
    pub fn push(&mut self, piece: EventKind) -> Option<EventKind> {
        if let Some((held, _)) = &mut self.held
            && held.absorb(&piece)
        {
            return None;
        }
        self.held.replace((piece, Instant::now() + HOLD)).map(|(kind, _)| kind)
    }

    /// When the held piece is due; None when nothing is held.
    pub fn due(&self) -> Option<Instant> {
        self.held.as_ref().map(|(_, due)| *due)
    }

    /// The held piece, to be emitted now (it is due, or something else comes next).
    pub fn take(&mut self) -> Option<EventKind> {
        self.held.take().map(|(kind, _)| kind)
    }
}

/// Waits until `due`; forever when None (a `select!` branch that never fires).
pub(crate) async fn until(due: Option<Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{Text, ToolInputChunk, ToolOutputChunk};

    fn text(s: &str) -> EventKind {
        EventKind::ResponseChunk(Text { content: s.to_string() })
    }

    fn input(call: &str, name: &str, s: &str) -> EventKind {
        EventKind::ToolInputChunk(ToolInputChunk {
            call_id: call.to_string(),
            tool_name: name.to_string(),
            content: s.to_string(),
        })
    }

    #[test]
    fn a_run_of_one_kind_is_merged_and_another_kind_hands_it_back_whole() {
        let mut p = Pieces::default();
        assert_eq!(p.push(text("Hel")), None);
        assert_eq!(p.push(text("lo")), None);
        let thinking = EventKind::ThoughtsChunk(Text { content: "hm".to_string() });
        assert_eq!(p.push(thinking.clone()), Some(text("Hello")));
        assert_eq!(p.take(), Some(thinking));
        assert_eq!(p.take(), None);
        assert_eq!(p.due(), None);
    }

    #[test]
    fn one_calls_input_is_merged_with_its_latest_name_and_another_call_is_not() {
        let mut p = Pieces::default();
        assert_eq!(p.push(input("c1", "Wr", "{\"pa")), None);
        assert_eq!(p.push(input("c1", "Write", "th\":1}")), None);
        assert_eq!(p.push(input("c2", "Bash", "{")), Some(input("c1", "Write", "{\"path\":1}")));
        let out =
            |s: &str| EventKind::ToolOutputChunk(ToolOutputChunk { call_id: "c2".to_string(), content: s.to_string() });
        assert_eq!(p.push(out("a")), Some(input("c2", "Bash", "{")));
        assert_eq!(p.push(out("b")), None);
        assert_eq!(p.take(), Some(out("ab")));
    }

    #[tokio::test]
    async fn the_first_piece_of_a_run_is_due_one_hold_after_it_came_however_many_follow() {
        let mut p = Pieces::default();
        let before = Instant::now();
        assert_eq!(p.push(text("a")), None);
        let after = Instant::now();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert_eq!(p.push(text("b")), None);
        let due = p.due().expect("a piece is held");
        assert!(before + HOLD <= due && due <= after + HOLD, "later pieces do not push the first one back");
        until(p.due()).await;
        assert!(Instant::now() >= due);
        assert_eq!(p.take(), Some(text("ab")));
    }
}
