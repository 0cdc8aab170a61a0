//! Importing Claude Code's transcripts (`arbor import claude-code [DIR]`, the
//! History's Import): every session file under the folder, with its subagents,
//! becomes a read-only stored session. Files are only read, never written. A
//! session whose files are as they were at its last import is not read again;
//! one that grew is stored anew.

pub mod claude_code;

use crate::error::{AppError, AppErrorKind};
use crate::host::Host;
use arbor_protocol::{SessionId, SessionSource};
use arbor_store::{Imported, NewSession, Store};
use claude_code::{File, ImportProblem, SubagentFiles};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What became of one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ImportOutcome {
    Added,
    /// Its files grew since the last import: stored anew.
    Updated,
    /// Its files are as they were at the last import: nothing read.
    Unchanged,
    /// It could not be stored (the reason is among the problems).
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ImportedSession {
    pub session_id: SessionId,
    pub first_prompt: String,
    pub outcome: ImportOutcome,
    /// Its subagents' files found beside it.
    pub subagents: u32,
    /// Events stored (0 when unchanged).
    pub events: u64,
}

/// What an import read and stored.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ImportReport {
    /// The folder read.
    pub dir: String,
    pub sessions: Vec<ImportedSession>,
    /// Lines that were not JSON, and sessions that could not be stored; the rest imported.
    pub problems: Vec<ImportProblem>,
    /// Rows Claude Code writes beside the conversation (its request log, queue and costs,
    /// copies of the system prompt), counted by kind and not kept.
    pub skipped: BTreeMap<String, u32>,
    /// Bytes of the files read.
    pub bytes: u64,
    pub elapsed_ms: u64,
}

/// One session's files as found.
struct Found {
    uuid: String,
    file: PathBuf,
    subagents: Vec<(String, PathBuf, Option<PathBuf>)>,
}

impl Host {
    /// Claude Code's projects folder: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
    pub fn claude_code_dir(&self) -> Option<PathBuf> {
        let env = self.env();
        env.dir("CLAUDE_CONFIG_DIR").or_else(|| env.dir("HOME").map(|h| h.join(".claude"))).map(|d| d.join("projects"))
    }

    /// Imports every Claude Code session under `dir` (default: [`Host::claude_code_dir`]).
    pub async fn import_claude_code(&self, dir: Option<PathBuf>) -> Result<ImportReport, AppError> {
        let dir = dir.or_else(|| self.claude_code_dir()).ok_or_else(|| {
            AppError::new(AppErrorKind::Import, "no folder given, and HOME is not set to find ~/.claude/projects")
        })?;
        if !dir.is_dir() {
            return Err(AppError::new(
                AppErrorKind::Import,
                format!("{} is not a folder of Claude Code transcripts (it does not exist)", dir.display()),
            ));
        }
        let store = self.store()?;
        tokio::task::spawn_blocking(move || import_dir(&store, &dir))
            .await
            .map_err(|e| AppError::new(AppErrorKind::Import, e.to_string()))?
    }
}

fn import_dir(store: &Store, dir: &Path) -> Result<ImportReport, AppError> {
    let started = Instant::now();
    let found =
        find(dir).map_err(|e| AppError::new(AppErrorKind::Import, format!("cannot read {}: {e}", dir.display())))?;
    let mut report = ImportReport {
        dir: dir.display().to_string(),
        sessions: Vec::new(),
        problems: Vec::new(),
        skipped: BTreeMap::new(),
        bytes: 0,
        elapsed_ms: 0,
    };
    for f in found {
        let id = SessionId(format!("cc-{}", f.uuid));
        let key = key_of(&f);
        let subagents = u32::try_from(f.subagents.len()).unwrap_or(u32::MAX);
        if store.import_key(&id).ok().flatten().as_deref() == Some(key.as_str()) {
            let first_prompt = store.session(&id).map(|d| d.session.first_prompt).unwrap_or_default();
            let outcome = ImportOutcome::Unchanged;
            report.sessions.push(ImportedSession { session_id: id, first_prompt, outcome, subagents, events: 0 });
            continue;
        }
        let (converted, bytes) = match read_and_convert(&f) {
            Ok(c) => c,
            Err(problem) => {
                report.problems.push(problem);
                continue;
            }
        };
        report.bytes += bytes;
        report.problems.extend(converted.problems.iter().cloned());
        for (k, n) in &converted.skipped {
            *report.skipped.entry(k.clone()).or_default() += n;
        }
        let new = NewSession {
            id: converted.id.clone(),
            workspace: converted.workspace.clone(),
            first_prompt: converted.first_prompt.clone(),
            provider: "anthropic".to_string(),
            model: converted.model.clone(),
            started_at: converted.started_at,
            client: None,
        };
        let events = converted.events.len() as u64;
        let outcome = match store.import_session(&new, SessionSource::ClaudeCode, &key, &converted.events) {
            Ok(Imported::Added) => ImportOutcome::Added,
            Ok(Imported::Updated) => ImportOutcome::Updated,
            Ok(Imported::Unchanged) => ImportOutcome::Unchanged,
            Err(e) => {
                report.problems.push(ImportProblem {
                    file: f.file.display().to_string(),
                    line: None,
                    message: format!("not stored: {e}"),
                });
                ImportOutcome::Failed
            }
        };
        let events = if matches!(outcome, ImportOutcome::Added | ImportOutcome::Updated) { events } else { 0 };
        let first_prompt = converted.first_prompt;
        report.sessions.push(ImportedSession { session_id: converted.id, first_prompt, outcome, subagents, events });
    }
    report.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    tracing::info!(
        dir = %report.dir,
        sessions = report.sessions.len(),
        problems = report.problems.len(),
        ms = report.elapsed_ms,
        "imported Claude Code transcripts"
    );
    Ok(report)
}

/// The sessions under `dir`: a projects folder (`<project>/<session>.jsonl`), or one project's folder.
fn find(dir: &Path) -> std::io::Result<Vec<Found>> {
    let mut projects = vec![dir.to_path_buf()];
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            projects.push(path);
        }
    }
    let mut out = Vec::new();
    for project in projects {
        let Ok(entries) = std::fs::read_dir(&project) else { continue };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for file in files {
            let Some(uuid) = file.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
            let subagents = subagent_files(&project.join(&uuid).join("subagents"));
            out.push(Found { uuid, file, subagents });
        }
    }
    Ok(out)
}

/// `agent-<id>.jsonl` and its `agent-<id>.meta.json`, sorted by name.
fn subagent_files(dir: &Path) -> Vec<(String, PathBuf, Option<PathBuf>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(String, PathBuf, Option<PathBuf>)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            let id = name.strip_prefix("agent-")?.strip_suffix(".jsonl")?.to_string();
            let meta = p.with_file_name(format!("agent-{id}.meta.json"));
            Some((id, p.clone(), meta.is_file().then_some(meta)))
        })
        .collect();
    out.sort();
    out
}

/// What the session's files are now: each one's name, size and modification time.
fn key_of(f: &Found) -> String {
    let mut parts = Vec::new();
    let paths = std::iter::once(&f.file).chain(f.subagents.iter().flat_map(|(_, p, m)| std::iter::once(p).chain(m)));
    for p in paths {
        let meta = std::fs::metadata(p).ok();
        let size = meta.as_ref().map_or(0, std::fs::Metadata::len);
        let modified = meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        parts.push(format!("{name}:{size}:{modified}"));
    }
    format!("claude-code/1 {}", parts.join(" "))
}

fn read_and_convert(f: &Found) -> Result<(claude_code::Converted, u64), ImportProblem> {
    let read = |p: &Path| -> Result<File, ImportProblem> {
        let bytes = std::fs::read(p).map_err(|e| ImportProblem {
            file: p.display().to_string(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        Ok(File { name: p.display().to_string(), text: String::from_utf8_lossy(&bytes).into_owned() })
    };
    let main = read(&f.file)?;
    let mut bytes = main.text.len() as u64;
    let mut subs = Vec::new();
    let mut unread = Vec::new();
    for (id, path, meta) in &f.subagents {
        // A subagent that cannot be read is reported; the session and its other subagents import.
        let rows = match read(path) {
            Ok(rows) => rows,
            Err(problem) => {
                unread.push(problem);
                continue;
            }
        };
        let meta = meta.as_deref().map(read).transpose().unwrap_or_else(|problem| {
            unread.push(problem);
            None
        });
        bytes += rows.text.len() as u64 + meta.as_ref().map_or(0, |m| m.text.len() as u64);
        subs.push(SubagentFiles { id: id.clone(), rows, meta });
    }
    let mut converted = claude_code::convert(&f.uuid, &main, &subs);
    converted.problems.extend(unread);
    Ok((converted, bytes))
}
