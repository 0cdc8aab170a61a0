//! The JSON and Markdown exports.

use super::*;

#[test]
fn the_json_export_round_trips() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 10);
    let export = store.export(&sid("sess-1"), None).unwrap();
    assert_eq!(export.events, log.events);
    assert_eq!(export.agents, store.session(&sid("sess-1")).unwrap().agents);
    let text = serde_json::to_string_pretty(&export).unwrap();
    let back: SessionExport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, export);

    let one = store.export(&sid("sess-1"), Some(&aid(WRITER))).unwrap();
    assert_eq!(one.agents.len(), 1);
    assert_eq!(one.agents[0].id, aid(WRITER));
    assert!(!one.events.is_empty());
    assert!(one.events.iter().all(|e| e.agent_id == aid(WRITER)));
    assert_eq!(one.session, export.session);
    assert!(matches!(
        store.export(&sid("sess-1"), Some(&aid("agent-ffff"))),
        Err(arbor_store::StoreError::UnknownAgent(_))
    ));
}

#[test]
fn the_markdown_export_reads_as_a_transcript() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 10);
    let md = store.export_markdown(&sid("sess-1"), None).unwrap();
    for needle in [
        "# Fix the parser bug in lexer.rs",
        "Workspace: `/work/sess-1`",
        "Started: 1970-01-01 00:00:01 UTC",
        "Status: completed",
        "190 in, 38 out",
        "## Fix the bug\n",
        "### Fix the bug › Read lexer\n",
        "### Fix the bug › Write tests\n",
        "> Fix the parser bug in lexer.rs",
        "> Read lexer.rs and summarise it",
        "> Write tests for the tokenizer",
        "<details><summary>Thinking</summary>\n\nLet me look",
        "I'll delegate.",
        "**Tool call** `Read` (`c2`)",
        "\"file_path\": \"src/lexer.rs\"",
        "```\nfn lex() -> Tokens { todo!() }\n```",
        "**Result** (completed, 2 turns, 2000 ms):\n\nThe lexer tokenises identifiers greedily",
        "**Error:** model refused to continue",
        "Done: the parser is fixed",
        "`tests/lexer.rs`",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in:\n{md}");
    }
    assert!(!md.contains("I'll dele\n"), "superseded chunks are left out");
    let main_at = md.find("## Fix the bug\n").unwrap();
    let reader_at = md.find("### Fix the bug › Read lexer").unwrap();
    assert!(main_at < reader_at, "parents first");

    let one = store.export_markdown(&sid("sess-1"), Some(&aid(READER))).unwrap();
    assert!(one.contains("### Fix the bug › Read lexer"));
    assert!(!one.contains("Write tests for the tokenizer"));
}
