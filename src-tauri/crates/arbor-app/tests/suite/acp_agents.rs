//! External ACP agents added from Settings: written as the user's own agent
//! file, read back as any agent file is, listed by the catalog, removed again;
//! bad names and duplicates refused without touching what is there.

use super::host::host;
use arbor_app::AppErrorKind;
use arbor_app::acp_agents::{NewAcpAgent, presets};

fn claude() -> NewAcpAgent {
    let p = presets().into_iter().find(|p| p.name == "claude").expect("a Claude Code preset");
    NewAcpAgent { name: p.name, description: p.description, command: p.command, args: p.args }
}

#[test]
fn an_acp_agent_added_from_settings_is_a_user_agent_file_the_catalog_lists_and_remove_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let added = host.add_acp_agent(claude()).unwrap();
    assert_eq!(added.name, "claude");
    assert_eq!(added.acp.as_deref(), Some("npx -y @zed-industries/claude-agent-acp"));
    assert_eq!(added.source, "user config");
    assert!(added.user, "Settings may remove it");
    let file = dir.path().join("config/agents/claude.md");
    assert!(file.is_file());
    let listed = host.catalog(Some(dir.path().display().to_string()));
    assert!(listed.problems.is_empty(), "{:?}", listed.problems);
    let found = listed.definitions.iter().find(|d| d.name == "claude").expect("listed");
    assert_eq!(found.acp, added.acp);

    // Again, under the same name: refused, the file as it was.
    let before = std::fs::read_to_string(&file).unwrap();
    let again = host.add_acp_agent(claude()).unwrap_err();
    assert_eq!(again.kind, AppErrorKind::Settings);
    assert!(again.message.contains("already"), "{}", again.message);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    host.remove_acp_agent("claude").unwrap();
    assert!(!file.exists());
    let listed = host.catalog(Some(dir.path().display().to_string()));
    assert!(listed.definitions.iter().all(|d| d.name != "claude"));
}

#[test]
fn whatever_the_fields_hold_reads_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let odd = NewAcpAgent {
        name: "odd.agent_1".into(),
        description: "Quotes \" and colons: # and [brackets]".into(),
        command: "/opt/my agent/bin/run".into(),
        args: vec!["--flag: \"x\"".into(), "{not: yaml}".into(), "#hash".into()],
    };
    let added = host.add_acp_agent(odd).unwrap();
    assert_eq!(added.description, "Quotes \" and colons: # and [brackets]");
    let shown = added.acp.unwrap();
    for part in ["/opt/my agent/bin/run", "--flag: \"x\"", "{not: yaml}", "#hash"] {
        assert!(shown.contains(part), "{part} in {shown}");
    }
}

#[test]
fn bad_names_and_fields_are_refused_and_only_an_added_acp_agent_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    for name in ["", "two words", "../escape", ".hidden", "a/b", &"x".repeat(65)] {
        let e = host.add_acp_agent(NewAcpAgent { name: name.into(), ..claude() }).unwrap_err();
        assert_eq!(e.kind, AppErrorKind::Settings, "{name:?}");
        assert!(e.message.len() < 300, "the error quotes a short prefix: {}", e.message);
    }
    let no_command = host.add_acp_agent(NewAcpAgent { command: "  ".into(), ..claude() }).unwrap_err();
    assert!(no_command.message.contains("command"), "{}", no_command.message);
    let two_lines = host.add_acp_agent(NewAcpAgent { description: "a\nb".into(), ..claude() }).unwrap_err();
    assert!(two_lines.message.contains("one line"), "{}", two_lines.message);
    assert!(
        !dir.path().join("config/agents").exists()
            || std::fs::read_dir(dir.path().join("config/agents")).unwrap().next().is_none()
    );

    // A type the user wrote by hand, with no `acp:`: not Settings' to remove.
    let agents = dir.path().join("config/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("reviewer.md"), "---\nname: reviewer\ndescription: Reviews\n---\nReview.\n").unwrap();
    let e = host.remove_acp_agent("reviewer").unwrap_err();
    assert_eq!(e.kind, AppErrorKind::NotFound);
    assert!(agents.join("reviewer.md").exists());
}
