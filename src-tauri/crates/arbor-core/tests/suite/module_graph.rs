//! arbor-core's modules depend on one another without a circle: every `crate::…`
//! path in a module's code (its submodules' included, its tests not) is an edge from
//! it to the top-level module named, and the graph of those edges has no cycle. So
//! the agent loop knows nothing of how children start (it reaches the one door
//! through the session), and the leaves (the tool names, errors, results) stay leaves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crate's source files, less those compiled for its tests only (`#[cfg(test)] mod x;`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut test_only = BTreeSet::new();
    let entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    for file in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, _) in text.match_indices("#[cfg(test)]") {
            let after = text[i + "#[cfg(test)]".len()..].trim_start();
            if let Some(name) =
                after.strip_prefix("mod ").and_then(|r| r.split(';').next()).filter(|n| !n.contains('{'))
            {
                // A file's own submodules live beside it (mod.rs) or in its folder.
                let base = if file.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
                    dir.to_path_buf()
                } else {
                    dir.join(file.file_stem().unwrap())
                };
                test_only.insert(base.join(format!("{}.rs", name.trim())));
                test_only.insert(base.join(name.trim()));
            }
        }
    }
    for path in entries {
        if test_only.contains(&path) {
            continue;
        }
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a source file belongs to (`agent/calls.rs` → `agent`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file without its comments and its unit tests (`#[cfg(test)] mod tests`).
fn code(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    before_tests.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// What the crate root re-exports (`pub use config::{ContextConfig, …}`), by name: a
/// `crate::ContextConfig` is an edge to `config` as much as `crate::config::…` is.
fn root_exports(src: &Path) -> BTreeMap<String, String> {
    let lib = code(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut out = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(path) = stmt.trim().strip_prefix("pub use ") else { continue };
        let Some((module, items)) = path.split_once("::") else { continue };
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.split(" as ").last().unwrap_or_default().trim();
            if !name.is_empty() {
                out.insert(name.to_string(), module.trim().to_string());
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).filter(|m| m != "lib").collect();
    let exports = root_exports(&src);
    assert!(exports.get("ContextConfig").is_some_and(|m| m == "config"), "{exports:?}");
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        if from == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(file).unwrap());
        let mut named = Vec::new();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a, b::c}`: each item's first segment.
                let inner = group.split('}').next().unwrap_or_default();
                named.extend(inner.split(',').map(|p| p.trim().split("::").next().unwrap_or_default().to_string()));
            } else {
                named.push(rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect());
            }
        }
        let named = named.into_iter().map(|n| exports.get(&n).cloned().unwrap_or(n));
        for to in named.filter(|m| modules.contains(m) && *m != from) {
            let rel = file.strip_prefix(&src).unwrap().display().to_string();
            edges.entry(from.clone()).or_default().entry(to).or_default().insert(rel);
        }
    }
    edges
}

/// A cycle through `start`, if there is one (depth-first).
fn cycle_from(
    edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    start: &str,
    at: &str,
    path: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    for next in edges.get(at).map(|e| e.keys().cloned().collect::<Vec<_>>()).unwrap_or_default() {
        if next == start {
            let mut found = path.clone();
            found.push(next);
            return Some(found);
        }
        if seen.insert(next.clone()) {
            path.push(next.clone());
            if let Some(c) = cycle_from(edges, start, &next, path, seen) {
                return Some(c);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn arbor_cores_modules_have_no_circle() {
    let edges = graph();
    assert!(edges.contains_key("children") && edges.contains_key("agent"), "the graph was read: {edges:?}");
    for start in edges.keys() {
        let mut path = vec![start.clone()];
        if let Some(cycle) = cycle_from(&edges, start, start, &mut path, &mut BTreeSet::new()) {
            let why: Vec<String> =
                cycle.windows(2).map(|w| format!("{} -> {} (in {:?})", w[0], w[1], edges[&w[0]][&w[1]])).collect();
            panic!("a circle in arbor-core's modules:\n{}", why.join("\n"));
        }
    }
}

#[test]
fn the_agent_loop_reaches_children_only_through_the_door() {
    let edges = graph();
    let agent = edges.get("agent").cloned().unwrap_or_default();
    assert!(!agent.contains_key("children"), "agent -> children: {:?}", agent.get("children"));
    assert!(!agent.contains_key("external"), "agent -> external: {:?}", agent.get("external"));
    // Both kinds of child start through the one door.
    let children = edges.get("children").cloned().unwrap_or_default();
    assert!(children.contains_key("agent") && children.contains_key("external"), "{children:?}");
}

/// The subagent tools and a person's Delegate… hold one narrow handle on an agent's
/// children (plan, spawn, wait, stop, list): none of them reads the registry, starts a
/// child or plans one but through it.
#[test]
fn children_are_managed_only_through_their_handle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let read = |rel: &str| code(&std::fs::read_to_string(src.join(rel)).unwrap());
    let tools = read("children/tools.rs");
    for reach in ["registry(", "shared.", "super::start", "super::plan", "cancel_subtree"] {
        assert!(!tools.contains(reach), "children/tools.rs reaches past the handle: `{reach}`");
    }
    let session = read("session.rs");
    for reach in ["children::start", "children::plan(", "plan.apply("] {
        assert!(!session.contains(reach), "Session::delegate reaches past the handle: `{reach}`");
    }
    assert!(session.contains("Children::of") && tools.contains("Children::of"), "both hold the handle");
}
