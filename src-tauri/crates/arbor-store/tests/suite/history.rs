//! Agents' model histories.

use super::*;

fn assistant(text: &str) -> Message {
    Message::Assistant { content: vec![AssistantBlock::Text { text: text.into() }] }
}

#[test]
fn saving_from_an_index_rewrites_the_tail() {
    let (_dir, store) = store();
    begin(&store, "s", 1);
    let (s, m) = (sid("s"), aid(MAIN));
    let first = vec![
        Message::user_text("hello"),
        Message::Assistant {
            content: vec![
                AssistantBlock::Thinking { thinking: "hmm".into(), signature: Some("sig".into()) },
                AssistantBlock::ToolUse { id: "t1".into(), name: "Read".into(), input: json!({"file_path": "a"}) },
            ],
        },
        Message::User {
            content: vec![UserBlock::ToolResult { call_id: "t1".into(), content: "body".into(), is_error: false }],
        },
    ];
    store.save_history(&s, &m, 0, &first).unwrap();
    assert_eq!(store.history(&s, &m).unwrap(), first);

    // The last message grew (user text merged into it) and one more followed.
    let mut grown = first[2].clone();
    if let Message::User { content } = &mut grown {
        content.push(UserBlock::Text { text: "and go on".into() });
    }
    let tail = vec![grown.clone(), assistant("done")];
    store.save_history(&s, &m, 2, &tail).unwrap();
    let mut expected = first[..2].to_vec();
    expected.extend(tail);
    assert_eq!(store.history(&s, &m).unwrap(), expected);

    // Shorter rewrites drop what followed; other agents keep their own.
    store.save_history(&s, &aid(READER), 0, &[assistant("reader")]).unwrap();
    store.save_history(&s, &m, 1, &[assistant("instead")]).unwrap();
    assert_eq!(store.history(&s, &m).unwrap(), [first[0].clone(), assistant("instead")]);
    assert_eq!(store.history(&s, &aid(READER)).unwrap(), [assistant("reader")]);
    assert!(store.history(&s, &aid(WRITER)).unwrap().is_empty());
    assert!(matches!(store.save_history(&sid("nope"), &m, 0, &first), Err(arbor_store::StoreError::UnknownSession(_))));
}
