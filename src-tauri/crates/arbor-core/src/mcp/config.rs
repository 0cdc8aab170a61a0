//! MCP server configuration in the shape Claude Code's `.mcp.json` and Claude
//! Desktop's config use (`{"mcpServers": {name: {command, args, env} | {type:
//! "http", url, headers}}}`), with `${VAR}` and `${VAR:-default}` expanded.
//!
//! The environment is passed in (no hidden inputs). A bad entry is reported and
//! skipped; the other servers still load.

use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite};

/// Looks up an environment variable (`std::env::var` in the binaries, a map in tests).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

#[derive(Clone, PartialEq)]
pub struct McpServerConfig {
    /// The name in `mcp__<name>__<tool>`.
    pub name: String,
    pub transport: McpTransport,
}

#[derive(Clone, PartialEq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC lines on stdin/stdout. The environment
    /// is inherited, with `env` on top (what Claude Code does, so `npx` finds node).
    Stdio { command: String, args: Vec<String>, env: BTreeMap<String, String>, cwd: Option<PathBuf> },
    /// Streamable HTTP.
    Http { url: String, headers: BTreeMap<String, String> },
    /// A byte stream made by code: tests' in-memory servers over `tokio::io::duplex`.
    Stream(StreamConnector),
}

/// The two halves of a byte stream to a server.
pub type ByteStream = (Box<dyn AsyncRead + Send + Unpin>, Box<dyn AsyncWrite + Send + Unpin>);

/// Opens a new byte stream to a server, once per connection.
#[derive(Clone)]
pub struct StreamConnector(pub Arc<dyn Fn() -> BoxFuture<'static, std::io::Result<ByteStream>> + Send + Sync>);

impl PartialEq for StreamConnector {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

// Env values and headers often carry tokens: Debug shows their names only.
impl fmt::Debug for McpServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerConfig").field("name", &self.name).field("target", &self.target()).finish()
    }
}

impl McpServerConfig {
    /// `stdio`, `http` or `stream`.
    pub fn transport_name(&self) -> &'static str {
        match &self.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
            McpTransport::Stream(_) => "stream",
        }
    }

    /// The command line or URL, for people to recognise the server by.
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, .. } => {
                std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
            }
            McpTransport::Http { url, .. } => url.clone(),
            McpTransport::Stream(_) => "(in memory)".to_string(),
        }
    }
}

/// A configuration file that could not be used at all.
#[derive(Debug, Error)]
pub enum McpConfigError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path} is not valid JSON: {message}")]
    Json { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Shape { path: PathBuf, message: String },
}

/// The servers of a file, and what was wrong with the entries that were skipped.
#[derive(Debug, Default)]
pub struct McpFile {
    pub servers: Vec<McpServerConfig>,
    pub problems: Vec<String>,
}

/// Reads an `.mcp.json`-shaped file. A missing file is an empty one when `optional`.
pub fn load_file(path: &Path, optional: bool, env: EnvLookup<'_>) -> Result<McpFile, McpConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => return Ok(McpFile::default()),
        Err(source) => return Err(McpConfigError::Read { path: path.to_path_buf(), source }),
    };
    parse_file(path, &text, env)
}

/// An `.mcp.json`-shaped file's text, already read (`path` names it in problems).
pub fn parse_file(path: &Path, text: &str, env: EnvLookup<'_>) -> Result<McpFile, McpConfigError> {
    let json: Value = serde_json::from_str(text)
        .map_err(|e| McpConfigError::Json { path: path.to_path_buf(), message: e.to_string() })?;
    let Some(map) = json.get("mcpServers") else {
        return Err(McpConfigError::Shape { path: path.to_path_buf(), message: "no \"mcpServers\" object".into() });
    };
    let mut file =
        parse_servers(map, env).map_err(|message| McpConfigError::Shape { path: path.to_path_buf(), message })?;
    for p in &mut file.problems {
        *p = format!("{}: {p}", path.display());
    }
    Ok(file)
}

/// The servers of an `mcpServers` object; an entry that is wrong becomes a problem.
pub fn parse_servers(map: &Value, env: EnvLookup<'_>) -> Result<McpFile, String> {
    let Value::Object(map) = map else {
        return Err("\"mcpServers\" must be an object of servers by name".into());
    };
    let mut file = McpFile::default();
    for (name, entry) in map {
        match parse_server(name, entry, env) {
            Ok(s) => file.servers.push(s),
            Err(e) => file.problems.push(format!("server \"{name}\": {e}; skipped")),
        }
    }
    Ok(file)
}

/// One server entry.
pub fn parse_server(name: &str, entry: &Value, env: EnvLookup<'_>) -> Result<McpServerConfig, String> {
    if name.trim().is_empty() {
        return Err("a server needs a name".into());
    }
    let Value::Object(obj) = entry else { return Err("expected an object".into()) };
    let kind = match obj.get("type") {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err("\"type\" must be a string".into()),
    };
    let transport = match kind {
        None | Some("stdio") if obj.contains_key("command") => McpTransport::Stdio {
            command: expand(&string(obj.get("command"), "command")?, env)?,
            args: strings(obj.get("args"), "args")?.iter().map(|a| expand(a, env)).collect::<Result<_, _>>()?,
            env: string_map(obj.get("env"), "env", env)?,
            cwd: match obj.get("cwd") {
                None => None,
                Some(v) => Some(PathBuf::from(expand(&string(Some(v), "cwd")?, env)?)),
            },
        },
        None | Some("http") | Some("streamable-http") | Some("streamableHttp") if obj.contains_key("url") => {
            let url = expand(&string(obj.get("url"), "url")?, env)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("\"url\" must start with http:// or https:// (got {url:?})"));
            }
            McpTransport::Http { url, headers: string_map(obj.get("headers"), "headers", env)? }
        }
        Some("sse") => {
            return Err("the SSE transport is deprecated and not supported; use \"type\": \"http\" if the server \
                        speaks streamable HTTP"
                .into());
        }
        Some("stdio") | None => return Err("needs \"command\" (stdio) or \"url\" (http)".into()),
        Some("http") | Some("streamable-http") | Some("streamableHttp") => return Err("needs \"url\"".into()),
        Some(other) => return Err(format!("unknown \"type\" {other:?} (expected \"stdio\" or \"http\")")),
    };
    Ok(McpServerConfig { name: name.to_string(), transport })
}

fn string(v: Option<&Value>, field: &str) -> Result<String, String> {
    match v {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(format!("\"{field}\" is empty")),
        Some(_) => Err(format!("\"{field}\" must be a string")),
        None => Err(format!("\"{field}\" is missing")),
    }
}

fn strings(v: Option<&Value>, field: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(format!("\"{field}\" must be a list of strings")),
            })
            .collect(),
        Some(_) => Err(format!("\"{field}\" must be a list of strings")),
    }
}

fn string_map(v: Option<&Value>, field: &str, env: EnvLookup<'_>) -> Result<BTreeMap<String, String>, String> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), expand(s, env)?)),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(format!("\"{field}\".{k} must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("\"{field}\" must be an object of strings")),
    }
}

/// `${VAR}` and `${VAR:-default}` replaced from `env`; an unset variable
/// without a default is an error (a server started without its token would
/// fail later, less clearly).
pub fn expand(s: &str, env: EnvLookup<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed \"${{\" in {s:?}"));
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (env(var).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(format!("environment variable {var} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_string())
    }

    #[test]
    fn stdio_and_http_entries_parse_with_variables_expanded() {
        let file = parse_servers(
            &json!({
                "fs": {"command": "npx", "args": ["-y", "server", "${HOME_DIR:-/tmp}"], "env": {"KEY": "${TOKEN}"}},
                "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
            }),
            &env,
        )
        .unwrap();
        assert!(file.problems.is_empty(), "{:?}", file.problems);
        let fs = &file.servers[0];
        assert_eq!(fs.target(), "npx -y server /tmp");
        let McpTransport::Stdio { env: vars, .. } = &fs.transport else { panic!() };
        assert_eq!(vars["KEY"], "s3cret");
        let McpTransport::Http { headers, .. } = &file.servers[1].transport else { panic!() };
        assert_eq!(headers["Authorization"], "Bearer s3cret");
        assert!(!format!("{:?}", file.servers).contains("s3cret"), "Debug must not show secrets");
    }

    #[test]
    fn bad_entries_are_reported_and_the_rest_load() {
        let file = parse_servers(
            &json!({
                "ok": {"command": "srv"},
                "legacy": {"type": "sse", "url": "http://x/sse"},
                "nothing": {},
                "unset": {"command": "srv", "env": {"K": "${MISSING}"}},
                "bad_url": {"url": "ftp://x"}
            }),
            &env,
        )
        .unwrap();
        assert_eq!(file.servers.len(), 1);
        let all = file.problems.join("\n");
        assert!(all.contains("\"legacy\": the SSE transport is deprecated"), "{all}");
        assert!(all.contains("\"nothing\": needs \"command\""), "{all}");
        assert!(all.contains("environment variable MISSING is not set"), "{all}");
        assert!(all.contains("\"bad_url\": \"url\" must start with http"), "{all}");
    }

    #[test]
    fn a_file_that_is_not_json_names_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcp.json");
        std::fs::write(&path, "{ not json").unwrap();
        let err = load_file(&path, true, &env).unwrap_err().to_string();
        assert!(err.contains(".mcp.json is not valid JSON"), "{err}");
        assert!(load_file(&dir.path().join("absent.json"), true, &env).unwrap().servers.is_empty());
        assert!(load_file(&dir.path().join("absent.json"), false, &env).is_err());
    }
}
