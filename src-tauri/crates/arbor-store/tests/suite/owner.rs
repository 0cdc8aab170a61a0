//! One owner per session: a claim is the kernel's lock, held by one process
//! (or one claim in it) at a time, and let go when that process dies.

use super::*;
use arbor_store::StoreError;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Another process holding `lock` exclusively, once it has it (one process: its
/// death is what lets go, as an owner's would).
fn holder(lock: &std::path::Path) -> Child {
    let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\nfcntl.flock(f, fcntl.LOCK_EX)\ntime.sleep(30)";
    let child = Command::new("python3").args(["-c", script]).arg(lock).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    // `flock -n` fails while the other holds it: that is when it has it.
    while Command::new("flock").arg("-n").arg(lock).arg("true").status().unwrap().success() {
        assert!(Instant::now() < deadline, "the other process never took the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn a_session_has_one_owner_at_a_time_and_a_dead_owners_claim_is_free() {
    let (dir, store) = store();
    let id = sid("sess-owned");
    let claim = begin(&store, "sess-owned", 1);
    assert!(store.is_claimed(&id).unwrap());
    match store.claim(&id) {
        Err(StoreError::Owned { session, pid }) => {
            assert_eq!(session, "sess-owned");
            assert_eq!(pid, Some(std::process::id()), "the row says where it runs");
        }
        other => panic!("a second claim in the same process is refused too: {other:?}"),
    }
    drop(claim);
    assert!(!store.is_claimed(&id).unwrap());
    let again = store.claim(&id).unwrap();
    drop(again);

    // Another process owns it: refused, with a message that says so.
    let lock = dir.path().join("arbor.db.owners").join("sess-owned.lock");
    assert!(lock.is_file(), "the lock file sits beside the store");
    let mut other = holder(&lock);
    let refused = store.claim(&id).unwrap_err();
    assert_eq!(refused.kind(), "owned");
    assert!(refused.to_string().contains("running in another Arbor process"), "{refused}");
    // SIGKILL: the kernel lets go of its lock with it; the session can be taken over.
    other.kill().unwrap();
    other.wait().unwrap();
    let taken = store.claim(&id).unwrap();
    assert_eq!(taken.session(), &id);
}

#[test]
fn beginning_a_session_needs_its_own_claim() {
    let (_dir, store) = store();
    let other = store.claim(&sid("sess-other")).unwrap();
    let new = NewSession {
        id: sid("sess-mine"),
        workspace: "/w".into(),
        first_prompt: String::new(),
        provider: "anthropic".into(),
        model: "m".into(),
        started_at: 1,
        client: None,
    };
    assert_eq!(store.begin_session(&new, &other).unwrap_err().kind(), "owned");
    let mine = store.claim(&sid("sess-mine")).unwrap();
    store.begin_session(&new, &mine).unwrap();
}

#[test]
fn recovery_withdraws_the_requests_a_dead_owner_left_waiting() {
    let (_dir, store) = store();
    let claim = begin(&store, "sess-asking", 1);
    let m = aid(MAIN);
    let mut log = Log::new("sess-asking", 1);
    log.push(&m, started(None, None, 0, "Write it"));
    log.push(&m, status(AgentStatus::Running));
    log.push(&m, call("c1", "Write", json!({"file_path": "a.txt", "content": "x"})));
    log.push(
        &m,
        EventKind::ApprovalRequest(ApprovalRequest {
            request_id: "approval-1".into(),
            call_id: "c1".into(),
            tool_name: "Write".into(),
            tool_args: json!({"file_path": "a.txt", "content": "x"}),
            agent_path: Vec::new(),
            preview: None,
            options: Vec::new(),
        }),
    );
    log.push(&m, status(AgentStatus::WaitingApproval));
    store.append(&log.events).unwrap();
    // Alive: recovery leaves it be.
    assert!(store.recover(9).unwrap().is_empty());
    drop(claim);
    assert_eq!(store.recover(9).unwrap(), [sid("sess-asking")]);
    let events = store.events(&sid("sess-asking"), None).unwrap();
    let added: Vec<&EventKind> = events[log.events.len()..].iter().map(|e| &e.kind).collect();
    assert!(
        matches!(added[0], EventKind::ApprovalResolved(r) if r.request_id == "approval-1" && r.outcome == ApprovalOutcome::Withdrawn),
        "{added:?}"
    );
    assert_eq!(added[1], &status(AgentStatus::Interrupted));
    // The call stays open (its agent is interrupted): asked again when the session is continued.
    let broken = arbor_testkit::violations(&events, true);
    assert!(broken.is_empty(), "{broken:?}");
    let detail = store.session(&sid("sess-asking")).unwrap();
    assert_eq!(detail.agents[0].status, AgentStatus::Interrupted);
}

#[test]
fn a_session_claimed_after_its_owner_died_is_recovered_under_the_claim_before_it_is_read() {
    let (_dir, store) = store();
    let claim = begin(&store, "sess-later", 1);
    let m = aid(MAIN);
    let mut log = Log::new("sess-later", 1);
    log.push(&m, started(None, None, 0, "Write it"));
    log.push(&m, status(AgentStatus::Running));
    store.append(&log.events).unwrap();
    // This process's start-up recovery ran long ago; the owner dies now.
    drop(claim);
    let mine = store.claim(&sid("sess-later")).unwrap();
    // A recovery meanwhile (another process starting) leaves it alone: it is claimed.
    assert!(store.recover(5).unwrap().is_empty());
    assert!(store.recover_claimed(&mine, 5).unwrap());
    let detail = store.session(&sid("sess-later")).unwrap();
    assert_eq!(detail.agents[0].status, AgentStatus::Interrupted);
    assert_eq!(detail.session.status, SessionStatus::Interrupted);
    // Nothing at work any more: a second recovery changes nothing.
    let before = store.last_seq(&sid("sess-later")).unwrap();
    assert!(!store.recover_claimed(&mine, 6).unwrap());
    assert_eq!(store.last_seq(&sid("sess-later")).unwrap(), before);
}
