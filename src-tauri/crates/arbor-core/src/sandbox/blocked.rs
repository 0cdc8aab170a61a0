//! Telling the model (and the person reading along) what the sandbox blocked,
//! read from the command's own error messages: a write to a read-only place
//! fails with EROFS ("Read-only file system"), which nothing else inside the
//! sandbox produces; a connection with network off fails to reach anything;
//! a hidden secret reads as missing. Never silent: each names the path or the
//! connection, and how a person can allow it.

use arbor_protocol::CommandSandbox;

/// Connection failures as common tools word them.
const NETWORK_FAILURES: [&str; 9] = [
    "Network is unreachable",
    "Connection refused",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Couldn't connect to server",
    "Failed to connect",
    "getaddrinfo",
    "unable to access",
];

/// The most blocked paths named (a build that fails on every file names a few).
const MAX_NAMED: usize = 3;

/// Messages that say a path could not be reached.
const UNREACHABLE: [&str; 3] = ["No such file or directory", "Permission denied", "Not a directory"];

/// A note to append to a sandboxed command's output, when it shows the sandbox
/// blocked something. A write to a read-only place is named whatever the exit
/// status (`EROFS` says it plainly); a connection or a hidden place only when
/// the command failed, since a successful one may just print such words.
pub fn blocked_note(output: &str, sandbox: &CommandSandbox, failed: bool) -> Option<String> {
    let CommandSandbox::Sandboxed { writable, network, hidden, .. } = sandbox else {
        return None;
    };
    let mut items = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    for line in output.lines().filter(|l| l.contains("Read-only file system")) {
        let path = path_in(line).unwrap_or_else(|| "a path".to_string());
        if !paths.contains(&path) && paths.len() < MAX_NAMED {
            paths.push(path);
        }
    }
    for p in &paths {
        items.push(format!("- writing {p}: outside the places it may write ({})", writable.join(", ")));
    }
    if !network
        && failed
        && let Some(line) = output.lines().find(|l| NETWORK_FAILURES.iter().any(|f| l.contains(f)))
    {
        items.push(format!("- a network connection ({}): network is off in this sandbox", clip(line.trim())));
    }
    // A hidden place named in a line that says it could not be reached, and not
    // through a writable place inside it (a workspace under a hidden home).
    let unreachable = |l: &&str| UNREACHABLE.iter().any(|u| l.contains(u));
    let through_writable = |l: &str, h: &str| writable.iter().any(|w| w.starts_with(h) && l.contains(w.as_str()));
    let blocked_reads = hidden.iter().filter(|h| {
        failed && output.lines().filter(unreachable).any(|l| l.contains(h.as_str()) && !through_writable(l, h))
    });
    for h in blocked_reads.take(MAX_NAMED) {
        items.push(format!("- reading {h}: hidden from sandboxed commands (a place secrets are kept)"));
    }
    if let Some(line) =
        output.lines().find(|l| failed && l.contains("/tmp/") && l.contains("No such file or directory"))
    {
        items.push(format!(
            "- the host's /tmp ({}): /tmp inside the sandbox is the agent's own, so files in the host's /tmp are not there",
            clip(line.trim())
        ));
    }
    if items.is_empty() {
        return None;
    }
    Some(format!(
        "[sandbox] This command ran in Arbor's sandbox, which blocked:\n{}\nA person can allow it: add the \
         directory to the sandbox's write list or turn network on (Settings › Sandbox, an agent file's `sandbox:` \
         field, or `arbor run --sandbox-write DIR --allow-network`), or turn the sandbox off (`--sandbox off`). \
         Do not try to get around the sandbox: if the task needs this, say so to the user.",
        items.join("\n")
    ))
}

/// The path an EROFS message names: a quoted one (`touch: cannot touch '/x'`,
/// Python's `: '/x'`), else the word before `: Read-only file system` (`sh: 1: cannot create /x: …`).
fn path_in(line: &str) -> Option<String> {
    for q in ['\'', '"', '‘', '`'] {
        let close = if q == '‘' { '’' } else { q };
        let mut rest = line;
        while let Some(start) = rest.find(q) {
            let after = &rest[start + q.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            let inner = &after[..end];
            if inner.contains('/') {
                return Some(clip(inner));
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    let before = line.split(": Read-only file system").next()?;
    let word = before.rsplit([' ', ':']).find(|w| !w.is_empty())?;
    word.contains('/').then(|| clip(word))
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(200).collect();
    if s.chars().count() > 200 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::SandboxMode;

    fn sandbox(network: bool) -> CommandSandbox {
        CommandSandbox::Sandboxed {
            mode: SandboxMode::Workspace,
            mechanism: "bubblewrap 0.8.0".into(),
            writable: vec!["/ws".into(), "/tmp".into()],
            network,
            hidden: vec!["/home/u/.ssh".into()],
        }
    }

    #[test]
    fn blocked_writes_name_their_path_in_each_tools_wording() {
        for (line, path) in [
            ("touch: cannot touch '/etc/x': Read-only file system", "/etc/x"),
            ("sh: 1: cannot create /etc/y: Read-only file system", "/etc/y"),
            ("bash: line 1: /etc/z: Read-only file system", "/etc/z"),
            ("OSError: [Errno 30] Read-only file system: '/usr/w'", "/usr/w"),
        ] {
            let note = blocked_note(line, &sandbox(false), true).unwrap();
            assert!(note.contains(&format!("writing {path}: outside")), "{line} → {note}");
            assert!(note.contains("--sandbox-write"), "{note}");
        }
    }

    #[test]
    fn connections_and_secrets_are_named_and_plain_failures_are_not() {
        let curl = "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server";
        assert!(blocked_note(curl, &sandbox(false), true).unwrap().contains("network is off"));
        assert_eq!(blocked_note(curl, &sandbox(true), true), None);
        let cat = "cat: /home/u/.ssh/id_ed25519: No such file or directory";
        assert!(blocked_note(cat, &sandbox(true), true).unwrap().contains("reading /home/u/.ssh: hidden"));
        assert_eq!(blocked_note("error: tests failed", &sandbox(false), true), None);
        let tmp = "cat: /tmp/build/log: No such file or directory";
        assert!(
            blocked_note(tmp, &sandbox(true), true).unwrap().contains("/tmp inside the sandbox is the agent's own")
        );
        assert_eq!(blocked_note(curl, &CommandSandbox::Off, true), None);
        // A command that succeeded only printed such words; a path inside the tree is not a hidden one.
        assert_eq!(blocked_note(curl, &sandbox(false), false), None);
        let strict = CommandSandbox::Sandboxed {
            mode: SandboxMode::Strict,
            mechanism: "bubblewrap 0.8.0".into(),
            writable: vec!["/home/u/proj".into(), "/tmp".into()],
            network: false,
            hidden: vec!["/home/u".into()],
        };
        assert_eq!(blocked_note("cat: /home/u/proj/x: No such file or directory", &strict, true), None);
        assert!(blocked_note("cat: /home/u/.bashrc: No such file or directory", &strict, true).is_some());
    }
}
