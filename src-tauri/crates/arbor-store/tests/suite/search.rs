//! Full-text search across sessions.

use super::*;

fn marked(parts: &[SnippetPart]) -> String {
    SnippetPart::marked(parts, "[", "]")
}

/// Brackets, code and JSON in the text stay text: only the words searched for are hits.
#[test]
fn hits_are_told_apart_from_brackets_in_the_text() {
    let (_dir, store) = store();
    begin(&store, "s", 0);
    let m = aid(MAIN);
    let mut log = Log::new("s", 0);
    log.push(&m, started(None, None, 0, "main"));
    log.push(&m, text(EventKind::Response, "stock[item] = remove_stock(stock, [item]) # see [docs](x)"));
    log.push(&m, call("c1", "Grep", serde_json::json!({"pattern": "[remove]|TODO"})));
    store.append(&log.events).unwrap();
    let hits = store.search("remove", 10).unwrap();
    assert_eq!(hits.len(), 2);
    for h in &hits {
        let hit_words: Vec<&str> = h.snippet.iter().filter(|p| p.hit).map(|p| p.text.as_str()).collect();
        assert_eq!(hit_words, ["remove"], "{h:?}");
        let whole: String = h.snippet.iter().map(|p| p.text.as_str()).collect();
        assert!(!whole.contains('\u{1}') && !whole.contains('\u{2}'), "{whole:?}");
    }
    let response = hits.iter().find(|h| h.event_type == "response").unwrap();
    assert_eq!(marked(&response.snippet), "stock[item] = [remove]_stock(stock, [item]) # see [docs](x)");
}

#[test]
fn hits_name_their_session_agent_path_and_mark_the_match() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    let hits = store.search("greedily", 50).unwrap();
    // The reader's response, its agent_finished result, and the main agent's tool output.
    let got: Vec<(&str, &str, Vec<String>)> =
        hits.iter().map(|h| (h.agent_id.as_str(), h.event_type.as_str(), h.agent_path.clone())).collect();
    let main = vec!["Fix the bug".to_string()];
    let reader = vec!["Fix the bug".to_string(), "Read lexer".to_string()];
    assert_eq!(
        got,
        [(MAIN, "tool_output", main), (READER, "agent_finished", reader.clone()), (READER, "response", reader)]
    );
    let h = &hits[2];
    assert_eq!(h.session_id, sid("sess-1"));
    assert_eq!(h.session_prompt, "Fix the parser bug in lexer.rs");
    assert_eq!(h.seq, 22);
    assert_eq!(h.ts, 1_000 + 22 * 10);
    assert_eq!(marked(&h.snippet), "The lexer tokenises identifiers [greedily]");
}

#[test]
fn chunks_are_not_indexed_but_every_text_kind_is() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    let types = |q: &str| -> Vec<String> { store.search(q, 50).unwrap().into_iter().map(|h| h.event_type).collect() };
    assert_eq!(types("delegate"), ["response"], "the response, not its chunks");
    assert_eq!(types("look"), ["thoughts"]);
    assert_eq!(types("tokenizer"), ["user_message"]);
    assert_eq!(types("refused"), ["task_notification", "agent_finished"], "summary, then the error");
    assert_eq!(types("Write"), ["task_notification", "tool_call", "user_message"]);
    assert_eq!(types("file_path lexer"), ["tool_call", "tool_call"], "tool calls: name and arguments");
}

#[test]
fn the_last_word_is_a_prefix_and_words_all_count() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    assert_eq!(store.search("tokeni", 50).unwrap().len(), 4, "tokenises ×3 and tokenizer");
    assert_eq!(store.search("lexer tokeni", 50).unwrap().len(), 3);
    let both = store.search("tokenises lex", 50).unwrap();
    assert_eq!(both.len(), 3);
    assert!(both.iter().all(|h| marked(&h.snippet).contains("[lexer] [tokenises]")), "{both:?}");
    assert!(store.search("tokeni lexer", 50).unwrap().is_empty(), "only the last word is a prefix");
    assert!(store.search("okenises", 50).unwrap().is_empty(), "prefixes, not substrings");
    assert!(store.search("", 50).unwrap().is_empty());
    assert!(store.search("   ", 50).unwrap().is_empty());
    assert_eq!(store.search("tokeni", 2).unwrap().len(), 2, "limit");
}

#[test]
fn query_syntax_in_the_text_is_harmless() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    for q in ["\"greedily", "greedily\"", "greedily*", "(greedily", "greedily)", "-greedily", "+greedily"] {
        let hits = store.search(q, 50).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(hits.len(), 3, "{q} searches the word");
    }
    for q in [
        "\"",
        "*",
        "(",
        ")",
        "OR",
        "AND",
        "NOT",
        "a OR b",
        "x AND",
        "\"\"",
        "^",
        ":",
        "col:greedily",
        "NEAR(greedily",
        "greed*ily",
        "{a b}",
    ] {
        store.search(q, 50).unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    assert!(store.search("greedily OR nothingatall", 50).unwrap().is_empty(), "OR is a word to find, not an operator");
}

#[test]
fn newest_hits_come_first_across_sessions() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-a", 1_000, 10);
    store_synthetic(&store, "sess-b", 5_000, 10);
    let hits = store.search("parser", 50).unwrap();
    let got: Vec<(&str, u64)> = hits.iter().map(|h| (h.session_id.as_str(), h.seq)).collect();
    // Each session: the main agent's final response (30), its result (32) and its prompt (3).
    assert_eq!(got, [("sess-b", 32), ("sess-b", 30), ("sess-b", 3), ("sess-a", 32), ("sess-a", 30), ("sess-a", 3)]);
    assert!(hits.iter().all(|h| marked(&h.snippet).contains("[parser]")));
}
