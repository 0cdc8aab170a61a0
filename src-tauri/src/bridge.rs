//! Session events to the UI: through a `tauri::ipc::Channel` (Tauri's event
//! system is not built for this rate), in order, one frame per message; every
//! display frame for the session the window shows, a few times a second for
//! the others (set by the `show_session` command).
//!
//! A session's frames outlive the page that asked for them. Each document the
//! window commits is a new page generation ([`Routes::page_loaded`]): every
//! session is detached from the page that went (its frames are dropped, not
//! evaluated into the new page nor queued for a fetch that never comes) until
//! the new page attaches a channel of its own ([`Routes::attach`]) and reads
//! from the store what it missed, up to the last frame forwarded before it
//! attached. A page names its generation in every command that hands over a
//! channel (it asks `this_page` first), so a command from a page that has gone
//! is known however late it runs: a start or a continue it asked for runs
//! detached, and the new page is told to join it; an attach is refused.

use arbor_app::batch::{self, EventFrame, Pace};
use arbor_core::EventStream;
use arbor_protocol::{ApprovalRule, SessionId};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;
use tauri::ipc::Channel;

/// Every live session's route to the window (its pace and its channel), and
/// the generation of the page loaded now.
#[derive(Default, Clone)]
pub struct Routes(Arc<Mutex<Table>>);

#[derive(Default)]
struct Table {
    routes: HashMap<SessionId, Route>,
    /// Counts the documents the window committed: a channel belongs to the page of one generation.
    page: u64,
}

#[derive(Clone)]
struct Route {
    pace: Pace,
    sink: Arc<Mutex<Sink>>,
}

/// Where a session's frames go, and what a page attaching now would need.
struct Sink {
    /// The channel and the page generation it belongs to; None while no page
    /// takes the frames (its page went, and none has attached yet).
    channel: Option<(Channel<EventFrame>, u64)>,
    /// The last event handed to a channel (or dropped for want of one).
    through: u64,
    /// The rules in force as the last frame that changed them listed them: the
    /// forwarder derives them from this process's answers, which no store holds.
    rules: Vec<ApprovalRule>,
}

/// What a page attaching to a running session starts from.
pub struct Attachment {
    /// Every event up to here is stored; every later one comes on the new channel.
    pub through: u64,
    pub rules: Vec<ApprovalRule>,
}

/// Why a page could not attach to a session.
pub enum Refusal {
    /// This process forwards no such session.
    NotRunning,
    /// The page that asked has gone: the page loaded now attaches for itself.
    PageGone,
    /// The page loaded now has it already (it started or joined it): taking its
    /// channel would leave that page's own slot without frames.
    Attached,
}

impl Routes {
    /// The generation of the page loaded now. A page asks it (`this_page`) before
    /// each command that hands over a channel: read on the main thread, in order
    /// with [`Routes::page_loaded`], and only by a page that runs, so no page
    /// learns a later page's generation.
    pub fn page(&self) -> u64 {
        self.0.lock().page
    }

    /// The window commits a new document: the page before it is gone with its
    /// channels, and every session waits, detached, for the new page to attach.
    pub fn page_loaded(&self) {
        let mut table = self.0.lock();
        table.page += 1;
        for route in table.routes.values() {
            route.sink.lock().channel = None;
        }
    }

    /// `shown` (none: a page with no live session, a review, history) at display
    /// rate; every other session in the background.
    pub fn show(&self, shown: Option<&SessionId>) {
        for (id, route) in &self.0.lock().routes {
            route.pace.set(if Some(id) == shown { batch::FRAME } else { batch::BACKGROUND });
        }
    }

    /// From now on `session`'s frames go to `channel`, of the page of generation
    /// `page`, unless that page has gone or has the session already.
    pub fn attach(
        &self,
        session: &SessionId,
        (channel, page): (Channel<EventFrame>, u64),
    ) -> Result<Attachment, Refusal> {
        let table = self.0.lock();
        if page != table.page {
            return Err(Refusal::PageGone);
        }
        let route = table.routes.get(session).ok_or(Refusal::NotRunning)?;
        // Under the sink's lock, between two frames: the frames after `through` all reach `channel`.
        let mut sink = route.sink.lock();
        if sink.channel.as_ref().is_some_and(|(_, page)| *page == table.page) {
            return Err(Refusal::Attached);
        }
        sink.channel = Some((channel, table.page));
        Ok(Attachment { through: sink.through, rules: sink.rules.clone() })
    }
}

/// A session's frames on their way: the last event stored before the first
/// one, and whether the page that asked for them is still there.
pub struct Forwarding {
    pub through: u64,
    /// False when the page that started the session went meanwhile: the
    /// session runs detached until the page loaded now joins it.
    pub attached: bool,
}

/// Forwards `events` until the session's stream ends, to `channel` (the
/// channel of the page of generation `page`) or to whichever channel attaches
/// after it; `seed` is the agents and timeline before the first event. A
/// session starts shown (the window shows what it starts) until told otherwise.
pub fn forward(
    session: SessionId,
    events: EventStream,
    seed: arbor_app::Seed,
    (channel, page): (Channel<EventFrame>, u64),
    routes: Routes,
) -> Forwarding {
    let through = seed.through;
    let pace = Pace::every(batch::FRAME);
    let sink;
    let attached;
    {
        let mut table = routes.0.lock();
        attached = table.page == page;
        let channel = attached.then_some((channel, page));
        sink = Arc::new(Mutex::new(Sink { channel, through, rules: Vec::new() }));
        table.routes.insert(session.clone(), Route { pace: pace.clone(), sink: sink.clone() });
    }
    if !attached {
        tracing::info!(%session, "the page that started the session has gone: it waits for the page loaded now");
    }
    let mine = sink.clone();
    tauri::async_runtime::spawn(async move {
        batch::forward(events, pace, seed, move |f| {
            let mut sink = mine.lock();
            sink.through = f.through;
            if let Some(rules) = &f.rules {
                sink.rules.clone_from(rules);
            }
            if let Some((channel, _)) = &sink.channel
                && let Err(e) = channel.send(f)
            {
                // The webview is gone: the session goes on, and a page that attaches is sent the rest.
                tracing::warn!("the window stopped taking events: {e}");
                sink.channel = None;
            }
            true
        })
        .await;
        // Unless the session was continued meanwhile, on a route of its own.
        let mut table = routes.0.lock();
        if table.routes.get(&session).is_some_and(|r| Arc::ptr_eq(&r.sink, &sink)) {
            table.routes.remove(&session);
        }
    });
    Forwarding { through, attached }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{AgentEvent, AgentId, EventKind, Text};
    use std::time::Duration;

    /// A channel that keeps the `through` of every frame it is sent.
    fn channel() -> (Channel<EventFrame>, Arc<Mutex<Vec<u64>>>) {
        let got = Arc::new(Mutex::new(Vec::new()));
        let mine = got.clone();
        let channel = Channel::new(move |body| {
            if let tauri::ipc::InvokeResponseBody::Json(json) = body {
                let frame: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
                mine.lock().push(frame["through"].as_u64().unwrap_or(0));
            }
            Ok(())
        });
        (channel, got)
    }

    fn chunk(seq: u64) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId("main".into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            kind: EventKind::ResponseChunk(Text { content: "go".into() }),
        }
    }

    async fn settled(got: &Arc<Mutex<Vec<u64>>>, through: u64) {
        for _ in 0..200 {
            if got.lock().last() == Some(&through) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no frame through {through}: {:?}", got.lock());
    }

    #[tokio::test]
    async fn a_page_that_loads_takes_the_frames_after_the_last_one_forwarded_and_no_page_takes_them_twice() {
        let routes = Routes::default();
        routes.page_loaded();
        let session = SessionId("s".into());
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (first, first_got) = channel();
        let on = forward(session.clone(), rx, arbor_app::Seed::default(), (first, routes.page()), routes.clone());
        assert!(on.attached);
        tx.send(chunk(1)).unwrap();
        settled(&first_got, 1).await;

        // The page that has it cannot attach again: its own slot would lose its frames.
        let (again, _) = channel();
        assert!(matches!(routes.attach(&session, (again, routes.page())), Err(Refusal::Attached)));

        // A reload: the old page gets nothing more; the new one attaches after event 1.
        let went = routes.page();
        routes.page_loaded();
        tx.send(chunk(2)).unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(*first_got.lock(), vec![1], "nothing evaluated into the page that went");
        // The page that went attaches late (its command ran after the reload): refused, and it
        // takes nothing from the new page.
        let (late, _) = channel();
        assert!(matches!(routes.attach(&session, (late, went)), Err(Refusal::PageGone)));
        let (second, second_got) = channel();
        let at = routes.attach(&session, (second, routes.page())).unwrap_or_else(|_| panic!("a new page attaches"));
        assert_eq!(at.through, 2, "event 2 went to no page: the store has it");
        tx.send(chunk(3)).unwrap();
        settled(&second_got, 3).await;
        assert_eq!(*second_got.lock(), vec![3]);
        let (unknown, _) = channel();
        assert!(matches!(routes.attach(&SessionId("nope".into()), (unknown, routes.page())), Err(Refusal::NotRunning)));
    }

    #[tokio::test]
    async fn a_session_whose_page_went_while_it_started_starts_detached() {
        let routes = Routes::default();
        routes.page_loaded();
        let asked = routes.page();
        routes.page_loaded();
        let (_tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (old, _) = channel();
        let on = forward(SessionId("s".into()), rx, arbor_app::Seed::default(), (old, asked), routes.clone());
        assert!(!on.attached);
        let (new, _) = channel();
        assert!(routes.attach(&SessionId("s".into()), (new, routes.page())).is_ok(), "the page loaded now joins it");
    }
}
