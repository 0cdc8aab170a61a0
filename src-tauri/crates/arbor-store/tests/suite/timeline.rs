//! A stored session's timeline is the one its events make, read from only the
//! fields that shape it.

use super::*;

#[test]
fn the_stored_timeline_is_the_one_the_events_make() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-t", 1_000, 3);
    let stored = store.timeline(&sid("sess-t")).unwrap();
    assert_eq!(stored, Timeline::of(&log.events));
    assert_eq!(stored.lanes.len(), 3);
    let main = stored.lane(&aid(MAIN)).unwrap();
    assert!(main.segments.iter().any(|s| s.kind == SegmentKind::Tool && s.label == "Task"), "{main:?}");
    assert!(main.segments.iter().all(|s| s.end.is_some()), "a finished session has nothing open");
    assert!(matches!(store.timeline(&sid("nope")), Err(arbor_store::StoreError::UnknownSession(_))));
}
