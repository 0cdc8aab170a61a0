//! The session list and resolving typed ids.

use super::*;
use arbor_store::{SessionQuery, StoreError};

#[test]
fn sessions_list_newest_first_with_filters() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-old", 1_000, 50);
    begin(&store, "sess-mid", 2_000);
    store_synthetic(&store, "sess-new", 3_000, 50);

    let ids = |q: &SessionQuery| -> Vec<String> { store.sessions(q).unwrap().into_iter().map(|s| s.id.0).collect() };
    assert_eq!(ids(&SessionQuery::default()), ["sess-new", "sess-mid", "sess-old"]);
    let running = SessionQuery { status: Some(SessionStatus::Running), ..SessionQuery::default() };
    assert_eq!(ids(&running), ["sess-mid"]);
    let text = SessionQuery { text: Some("PARSER BUG".into()), ..SessionQuery::default() };
    assert_eq!(ids(&text), ["sess-new", "sess-old"], "case-insensitive, in the first prompt");
    let ws = SessionQuery { text: Some("work/sess-m".into()), ..SessionQuery::default() };
    assert_eq!(ids(&ws), ["sess-mid"], "or in the workspace");
    let wild = SessionQuery { text: Some("%".into()), ..SessionQuery::default() };
    assert!(ids(&wild).is_empty(), "the person's % is a character, not a wildcard");
    let page = SessionQuery { limit: 1, offset: 1, ..SessionQuery::default() };
    assert_eq!(ids(&page), ["sess-mid"]);
    let all = SessionQuery { limit: 0, ..SessionQuery::default() };
    assert_eq!(ids(&all).len(), 3);
}

#[test]
fn ids_resolve_from_unique_prefixes() {
    let (_dir, store) = store();
    begin(&store, "sess-1a2b", 1);
    begin(&store, "sess-1a3c", 2);
    begin(&store, "sess-1a", 3);
    assert_eq!(store.resolve_session("sess-1a2").unwrap(), sid("sess-1a2b"));
    assert_eq!(store.resolve_session("sess-1a").unwrap(), sid("sess-1a"), "an exact id wins over prefixes");
    assert!(matches!(store.resolve_session("sess-1"), Err(StoreError::Ambiguous(p)) if p == "sess-1"));
    assert!(matches!(store.resolve_session("sess-9"), Err(StoreError::UnknownSession(_))));
    assert!(matches!(store.resolve_session(""), Err(StoreError::UnknownSession(_))));
}
