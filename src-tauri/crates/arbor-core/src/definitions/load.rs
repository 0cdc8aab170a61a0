//! Finding agent files: every `*.md` under the search directories (their
//! sub-directories too, following symlinks, each real directory once), read
//! with a size limit, later sources winning a name clash.

use super::{AgentDefinition, Catalog, DefinitionProblem, DefinitionSource, MAX_FILE_BYTES, parse_definition};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The directories searched, in order (later wins): `<workspace>/.claude/agents`,
/// `<workspace>/.arbor/agents`, then `user_dir` if given.
pub fn search_dirs(workspace: &Path, user_dir: Option<&Path>) -> Vec<(PathBuf, DefinitionSource)> {
    let mut dirs = vec![
        (workspace.join(".claude").join("agents"), DefinitionSource::ClaudeProject),
        (workspace.join(".arbor").join("agents"), DefinitionSource::ArborProject),
    ];
    dirs.extend(user_dir.map(|dir| (dir.to_path_buf(), DefinitionSource::User)));
    dirs
}

/// Loads every `*.md` file under each directory (sub-directories too, as Claude Code does).
/// A missing directory is skipped silently; a bad file is reported in [`Catalog::problems`]
/// and the rest still load. Within a directory the later path wins a name clash (with a
/// warning); across directories the later directory wins silently, since overriding a
/// project's type from the user's dir is the point of the order.
pub fn load(dirs: &[(PathBuf, DefinitionSource)]) -> Catalog {
    let mut by_name: BTreeMap<String, AgentDefinition> = BTreeMap::new();
    let mut problems = Vec::new();
    for (dir, source) in dirs {
        let mut files = Vec::new();
        collect_files(dir, &mut files, &mut problems);
        files.sort();
        let mut in_dir: BTreeMap<String, AgentDefinition> = BTreeMap::new();
        for file in files {
            match read_text(&file).and_then(|text| parse_definition(&text, &file, *source)) {
                Ok((definition, warnings)) => {
                    problems.extend(warnings);
                    if let Some(earlier) = in_dir.get(&definition.name).and_then(|d| d.file.as_ref()) {
                        problems.push(DefinitionProblem::warning(
                            &file,
                            Some("name"),
                            format!(
                                "`{}` is also defined by {}; this file replaces it",
                                definition.name,
                                earlier.display()
                            ),
                        ));
                    }
                    in_dir.insert(definition.name.clone(), definition);
                }
                Err(problem) => problems.push(problem),
            }
        }
        by_name.extend(in_dir);
    }
    Catalog { definitions: by_name.into_values().collect(), problems }
}

/// Gathers `*.md` files under `dir` with the `ignore` crate's walker, following
/// symlinks (agent dirs are often linked from dotfiles; a link cycle is detected
/// and skipped) and reading every file, hidden or git-ignored, as Claude Code does.
fn collect_files(dir: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<DefinitionProblem>) {
    if !dir.exists() {
        return;
    }
    let walk = ignore::WalkBuilder::new(dir).standard_filters(false).follow_links(true).build();
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            // A symlink that leads back up the tree: that directory was read already.
            Err(e) if is_loop(&e) => continue,
            Err(e) => {
                problems.push(DefinitionProblem::error(dir, None, format!("could not read the directory: {e}")));
                continue;
            }
        };
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_dir()) || !is_markdown(path) {
            continue;
        }
        files.push(path.to_path_buf());
    }
}

fn is_loop(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("md"))
}

fn read_text(file: &Path) -> Result<String, DefinitionProblem> {
    let unreadable = |e: std::io::Error| DefinitionProblem::error(file, None, format!("could not read the file: {e}"));
    let mut bytes = Vec::new();
    // Read one byte past the limit rather than trusting the size from metadata, which may change.
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(unreadable)?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(DefinitionProblem::error(file, None, "larger than 1 MiB, too large for an agent file"));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        DefinitionProblem::error(file, None, format!("not UTF-8 text (invalid bytes at offset {offset})"))
    })
}
