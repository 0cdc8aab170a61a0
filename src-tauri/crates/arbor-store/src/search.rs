//! Full-text search over every session's indexed events (FTS5). The person's
//! text is never handed to FTS5's query language as is: each word becomes a
//! quoted phrase, the last one matching as a prefix, so quotes, `*`, `AND`,
//! `OR`, `-` or parentheses in it are searched for, not obeyed. Hits come newest
//! first by rowid, which FTS5 serves without ranking every match.

use crate::Store;
use crate::error::{At, StoreError};
use arbor_protocol::{AgentId, SearchHit, SessionId, SessionSource, SnippetPart};
use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::path::Path;

/// The FTS5 query for what a person typed; None when nothing in it is searchable.
pub(crate) fn fts_query(text: &str) -> Option<String> {
    // A word with no letter or digit has no token for the unicode61 tokenizer;
    // as a phrase it would be empty, which FTS5 rejects with a prefix `*`.
    let words: Vec<&str> = text.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).collect();
    let last = words.len().checked_sub(1)?;
    let phrases: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let quoted = format!("\"{}\"", w.replace('"', "\"\""));
            if i == last { format!("{quoted} *") } else { quoted }
        })
        .collect();
    Some(phrases.join(" "))
}

/// FTS5's snippet, its hits between \u{1} and \u{2} (characters no indexed text
/// is expected to hold), as parts; a mark left open or stray counts as text.
fn parts(snippet: &str) -> Vec<SnippetPart> {
    let mut out: Vec<SnippetPart> = Vec::new();
    let mut push = |text: &str, hit: bool| {
        if text.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(last) if last.hit == hit => last.text.push_str(text),
            _ => out.push(SnippetPart { text: text.to_string(), hit }),
        }
    };
    let mut rest = snippet;
    while let Some(open) = rest.find('\u{1}') {
        push(&rest[..open].replace('\u{2}', ""), false);
        let after = &rest[open + 1..];
        match after.find('\u{2}') {
            Some(close) => {
                push(&after[..close].replace('\u{1}', ""), true);
                rest = &after[close + 1..];
            }
            None => {
                rest = after;
                break;
            }
        }
    }
    push(&rest.replace(['\u{1}', '\u{2}'], ""), false);
    trim_lead(&mut out);
    out
}

/// Most characters of text before a snippet's first hit: a one-line list shows
/// the hit, not a long run-up (a dozen long code tokens pushed it past the edge).
const LEAD_CHARS: usize = 40;

/// Cuts the text before the first hit to its last [`LEAD_CHARS`], at a word
/// boundary where there is one, behind an ellipsis.
fn trim_lead(parts: &mut [SnippetPart]) {
    let Some(first) = parts.first_mut().filter(|p| !p.hit) else { return };
    let chars = first.text.chars().count();
    if chars <= LEAD_CHARS {
        return;
    }
    let tail: String = first.text.chars().skip(chars - LEAD_CHARS).collect();
    // Start at a word when the cut fell inside one (and a word starts within the tail).
    let tail = match tail.find(char::is_whitespace) {
        Some(at) if at + 1 < tail.len() => tail[at..].trim_start().to_string(),
        _ => tail,
    };
    first.text = format!("…{tail}");
}

/// A hit as SQLite returns it: session, agent, seq, ts, type, session prompt, snippet, source.
type HitRow = (String, String, u64, i64, String, String, String, String);

impl Store {
    /// Events of any session whose indexed text matches every word of `text`
    /// (the last as a prefix), newest first, at most `limit`. Empty text finds nothing.
    pub fn search(&self, text: &str, limit: u32) -> Result<Vec<SearchHit>, StoreError> {
        let Some(query) = fts_query(text) else { return Ok(Vec::new()) };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let conn = self.reader();
        let tx = conn.unchecked_transaction().at(&self.path)?;
        // The inner query is FTS5's alone, so ORDER BY rowid DESC LIMIT is served
        // by walking the index backwards and snippets are built for the kept rows only.
        let rows: Vec<HitRow> = tx
            .prepare_cached(
                "SELECT e.session_id, e.agent_id, e.seq, e.ts, e.type, s.first_prompt, f.snip, s.source
                 FROM (SELECT rowid AS id, snippet(events_fts, 0, char(1), char(2), '…', 16) AS snip
                       FROM events_fts WHERE events_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?2) AS f
                 JOIN events AS e ON e.id = f.id
                 JOIN sessions AS s ON s.id = e.session_id
                 ORDER BY f.id DESC",
            )
            .and_then(|mut st| {
                st.query_map(params![query, limit], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
                })?
                .collect()
            })
            .at(&self.path)?;

        let mut trees: HashMap<String, HashMap<String, (Option<String>, String)>> = HashMap::new();
        let mut hits = Vec::with_capacity(rows.len());
        for (session_id, agent_id, seq, ts, event_type, session_prompt, snippet, source) in rows {
            if !trees.contains_key(&session_id) {
                let tree = agent_tree(&tx, &self.path, &session_id)?;
                trees.insert(session_id.clone(), tree);
            }
            let agent_path = trees.get(&session_id).map(|t| path_to(t, &agent_id)).unwrap_or_default();
            hits.push(SearchHit {
                session_id: SessionId(session_id),
                session_prompt,
                agent_id: AgentId(agent_id),
                agent_path,
                seq,
                ts,
                event_type,
                source: arbor_protocol::wire::parse(&SessionSource::ALL, &source).unwrap_or_default(),
                snippet: parts(&snippet),
            });
        }
        tx.finish().at(&self.path)?;
        Ok(hits)
    }
}

/// Each agent's parent and description, by id.
fn agent_tree(
    conn: &Connection,
    path: &Path,
    session: &str,
) -> Result<HashMap<String, (Option<String>, String)>, StoreError> {
    conn.prepare_cached("SELECT id, parent_id, description FROM agents WHERE session_id = ?1")
        .and_then(|mut st| st.query_map([session], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?.collect())
        .at(path)
}

/// Descriptions from the main agent down to `agent`.
pub(crate) fn path_to(tree: &HashMap<String, (Option<String>, String)>, agent: &str) -> Vec<String> {
    let mut path = Vec::new();
    let mut at = Some(agent.to_owned());
    // Bounded by the tree's size, in case a damaged file holds a cycle.
    while let Some(id) = at.take() {
        if path.len() > tree.len() {
            break;
        }
        let Some((parent, description)) = tree.get(&id) else { break };
        path.push(description.clone());
        at = parent.clone();
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn person_text_becomes_quoted_phrases_with_a_prefix_last() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("( * -"), None);
        assert_eq!(fts_query("parse"), Some("\"parse\" *".into()));
        assert_eq!(fts_query("say \"hi\" OR"), Some("\"say\" \"\"\"hi\"\"\" \"OR\" *".into()));
    }

    #[test]
    fn a_long_run_up_to_the_first_hit_is_cut_so_the_hit_shows() {
        let long = format!("{}\u{1}ZEBRA\u{2} after", "alpha_beta_gamma(delta, epsilon) ".repeat(4));
        let p = parts(&long);
        assert!(p[0].text.starts_with('…') && p[0].text.chars().count() <= LEAD_CHARS + 1, "{:?}", p[0].text);
        assert!(p[0].text.ends_with("epsilon) "), "the text right before the hit stays: {:?}", p[0].text);
        assert!(!p[0].text.starts_with("…_") && !p[0].text.starts_with("…a_"), "starts at a word: {:?}", p[0].text);
        assert_eq!((p[1].text.as_str(), p[1].hit), ("ZEBRA", true));
        // A short one is left whole.
        let short = parts("see the \u{1}zebra\u{2}");
        assert_eq!(short[0].text, "see the ");
    }
}
