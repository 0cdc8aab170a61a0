//! Recovery of sessions whose process died.

use super::*;

/// A pid that certainly belonged to a process and no longer does.
fn dead_pid() -> i64 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    i64::from(pid)
}

/// A session whose main agent and reader are at work and whose writer finished,
/// with its owner's claim (dropped: its process died).
fn in_flight(store: &Store, id: &str) -> (Log, arbor_store::Claim) {
    let claim = begin(store, id, 1_000);
    let full = synthetic(id, 1_000);
    // Up to the writer's finish (seq 27): main running, reader done... then restart the reader.
    let mut log = Log::new(id, 1_000);
    for ev in &full.events[..27] {
        log.push(&ev.agent_id, ev.kind.clone());
    }
    log.push(&aid(READER), status(AgentStatus::WaitingApproval));
    store.append(&log.events).unwrap();
    (log, claim)
}

fn set_owner(store: &Store, id: &str, pid: i64) {
    raw(store).execute("UPDATE sessions SET owner_pid = ?1 WHERE id = ?2", rusqlite::params![pid, id]).unwrap();
}

#[test]
fn a_dead_owners_agents_are_interrupted_in_the_log_itself() {
    let (_dir, store) = store();
    let (dead, claim) = in_flight(&store, "dead");
    drop(claim);
    set_owner(&store, "dead", dead_pid());
    // Its owner is alive (this process, as it happens): its claim is held.
    let (alive, _claim) = in_flight(&store, "alive");
    let alive_before = store.session(&sid("alive")).unwrap();

    let touched = store.recover(77_777).unwrap();
    assert_eq!(touched, [sid("dead")]);

    let detail = store.session(&sid("dead")).unwrap();
    assert_eq!(detail.session.status, SessionStatus::Interrupted);
    let statuses: Vec<(&str, AgentStatus)> = detail.agents.iter().map(|a| (a.id.as_str(), a.status)).collect();
    assert_eq!(
        statuses,
        [(MAIN, AgentStatus::Interrupted), (READER, AgentStatus::Interrupted), (WRITER, AgentStatus::Failed)]
    );
    let events = store.events(&sid("dead"), None).unwrap();
    assert_eq!(&events[..dead.events.len()], &dead.events[..], "nothing stored is changed");
    let added = &events[dead.events.len()..];
    assert_eq!(added.len(), 2);
    for (i, (ev, agent)) in added.iter().zip([MAIN, READER]).enumerate() {
        assert_eq!(ev.seq, dead.seq + 1 + i as u64, "the next seqs, gap-free");
        assert_eq!(ev.agent_id, aid(agent));
        assert_eq!(ev.ts, dead.events.last().unwrap().ts, "stamped when the last stored event happened, not now");
        assert_eq!(ev.kind, status(AgentStatus::Interrupted));
    }
    let owner: Option<i64> =
        raw(&store).query_row("SELECT owner_pid FROM sessions WHERE id = 'dead'", [], |r| r.get(0)).unwrap();
    assert_eq!(owner, None);
    // Its interrupted run's wall time ends there too: the hours until recovery are not the agent's.
    let main = detail.agents.iter().find(|a| a.id == aid(MAIN)).unwrap();
    assert_eq!(main.run_started_at, None);
    assert!(main.elapsed_ms < 10_000, "{}", main.elapsed_ms);

    assert_eq!(store.session(&sid("alive")).unwrap(), alive_before, "our own session is untouched");
    assert_eq!(store.last_seq(&sid("alive")).unwrap(), alive.seq);
    assert!(store.recover(88_888).unwrap().is_empty(), "recovering twice changes nothing");
}

#[test]
fn finished_sessions_of_dead_owners_are_left_alone() {
    let (_dir, store) = store();
    store_synthetic(&store, "done", 1_000, 100);
    set_owner(&store, "done", dead_pid());
    let before = store.session(&sid("done")).unwrap();
    assert!(store.recover(5).unwrap().is_empty());
    assert_eq!(store.session(&sid("done")).unwrap(), before);
}
