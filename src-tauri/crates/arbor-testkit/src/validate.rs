//! Request checks modelled on what the real APIs reject, so scenario tests
//! catch client bugs (lost tool results, broken role order, unsigned thinking)
//! instead of passing against a lenient fake. Messages mimic the real ones.

use serde_json::Value;
use std::collections::HashSet;

/// Why a request was refused: the HTTP status and the error message.
#[derive(Debug)]
pub(crate) struct Violation {
    pub status: u16,
    pub message: String,
}

fn bad(message: impl Into<String>) -> Violation {
    Violation { status: 400, message: message.into() }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

fn bearer(headers: &[(String, String)]) -> bool {
    header(headers, "authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|token| !token.trim().is_empty())
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The common top of both APIs: `model` and `stream: true`.
fn common(body: &Value) -> Result<&[Value], Violation> {
    if !body.is_object() {
        return Err(bad("the request body must be a JSON object"));
    }
    if str_field(body, "model").is_none_or(str::is_empty) {
        return Err(bad("model: Field required (a non-empty string)"));
    }
    if body.get("stream") != Some(&Value::Bool(true)) {
        return Err(bad("stream: the arbor-testkit server only answers streaming requests (\"stream\": true)"));
    }
    match body.get("messages").and_then(Value::as_array) {
        Some(m) if !m.is_empty() => Ok(m),
        _ => Err(bad("messages: a non-empty array of messages is required")),
    }
}

/// Anthropic Messages API rules.
pub(crate) fn anthropic(headers: &[(String, String)], body: &Value, keyless: bool) -> Result<(), Violation> {
    // Proxies (ANTHROPIC_AUTH_TOKEN) send a bearer token instead of x-api-key.
    if !keyless && header(headers, "x-api-key").is_none() && !bearer(headers) {
        return Err(Violation { status: 401, message: "x-api-key header is required".into() });
    }
    if header(headers, "anthropic-version").is_none() {
        return Err(bad("anthropic-version: header is required"));
    }
    let messages = common(body)?;
    if body.get("max_tokens").and_then(Value::as_u64).is_none_or(|n| n == 0) {
        return Err(bad("max_tokens: Field required (a positive integer)"));
    }
    match body.get("system") {
        None | Some(Value::String(_)) => {}
        Some(Value::Array(blocks))
            if blocks.iter().all(|b| str_field(b, "type") == Some("text") && str_field(b, "text").is_some()) => {}
        Some(_) => return Err(bad("system: must be a string or an array of text blocks")),
    }
    anthropic_tools(body)?;
    let last = messages.len() - 1;
    let mut prev_tool_uses: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = str_field(m, "role").unwrap_or_default();
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        if role != "user" && role != "assistant" {
            return Err(bad(format!("messages.{i}.role: Input should be 'user' or 'assistant'")));
        }
        if i == 0 && role != "user" {
            return Err(bad("messages.0.role: the first message must use the \"user\" role"));
        }
        if role != expected {
            return Err(bad(format!("messages.{i}: roles must alternate between \"user\" and \"assistant\"")));
        }
        let blocks: &[Value] = match m.get("content") {
            Some(Value::String(s)) if s.trim().is_empty() && !(role == "assistant" && i == last) => {
                return Err(bad(format!(
                    "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
                )));
            }
            Some(Value::String(_)) => &[],
            Some(Value::Array(b)) if b.is_empty() && !(role == "assistant" && i == last) => {
                return Err(bad(format!(
                    "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
                )));
            }
            Some(Value::Array(b)) => b,
            _ => {
                return Err(bad(format!("messages.{i}.content: must be a string or an array of content blocks")));
            }
        };
        let mut tool_uses = Vec::new();
        let mut results = Vec::new();
        for (j, b) in blocks.iter().enumerate() {
            let at = format!("messages.{i}.content.{j}");
            match (role, str_field(b, "type").unwrap_or_default()) {
                (_, "text") => {
                    if str_field(b, "text").is_none_or(|t| t.trim().is_empty()) {
                        return Err(bad(format!("{at}: text content blocks must contain non-whitespace text")));
                    }
                }
                ("assistant", "tool_use") => {
                    let (Some(id), Some(_), true) =
                        (str_field(b, "id"), str_field(b, "name"), b.get("input").is_some_and(Value::is_object))
                    else {
                        return Err(bad(format!("{at}: tool_use blocks need an id, a name and an object input")));
                    };
                    tool_uses.push(id.to_string());
                }
                ("assistant", "thinking") => {
                    if str_field(b, "signature").is_none() || str_field(b, "thinking").is_none() {
                        return Err(bad(format!("{at}.thinking.signature: Field required")));
                    }
                }
                ("assistant", "redacted_thinking") => {}
                ("user", "tool_result") => {
                    let Some(id) = str_field(b, "tool_use_id") else {
                        return Err(bad(format!("{at}.tool_use_id: Field required")));
                    };
                    if !prev_tool_uses.iter().any(|u| u == id) {
                        return Err(bad(format!(
                            "{at}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                        )));
                    }
                    results.push(id.to_string());
                }
                ("user", "image" | "document") => {}
                (_, kind) => {
                    return Err(bad(format!("{at}.type: a {role} message cannot contain a '{kind}' block")));
                }
            }
        }
        if role == "user" {
            let missing: Vec<&str> =
                prev_tool_uses.iter().filter(|u| !results.contains(u)).map(String::as_str).collect();
            if !missing.is_empty() {
                return Err(bad(format!(
                    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                    missing.join(", ")
                )));
            }
        } else if i == last && !tool_uses.is_empty() {
            return Err(bad(format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                tool_uses.join(", ")
            )));
        }
        prev_tool_uses = tool_uses;
    }
    Ok(())
}

fn anthropic_tools(body: &Value) -> Result<(), Violation> {
    let Some(tools) = body.get("tools") else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(bad("tools: must be an array"));
    };
    let mut names = HashSet::new();
    for (i, t) in tools.iter().enumerate() {
        // Server tools (web search and the like) carry a versioned type and no schema.
        if str_field(t, "type").is_some_and(|ty| ty != "custom") {
            continue;
        }
        let name = str_field(t, "name").unwrap_or_default();
        let valid = !name.is_empty()
            && name.len() <= 128
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(bad(format!("tools.{i}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")));
        }
        if !t.get("input_schema").is_some_and(Value::is_object) {
            return Err(bad(format!("tools.{i}.input_schema: Field required")));
        }
        if !names.insert(name) {
            return Err(bad(format!("tools: Tool names must be unique ({name})")));
        }
    }
    Ok(())
}

/// OpenAI Chat Completions rules.
pub(crate) fn openai(headers: &[(String, String)], body: &Value, keyless: bool) -> Result<(), Violation> {
    if !keyless && !bearer(headers) {
        return Err(Violation { status: 401, message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).".into() });
    }
    let messages = common(body)?;
    openai_tools(body)?;
    let mut pending: Vec<String> = Vec::new();
    let mut answerable: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = str_field(m, "role").unwrap_or_default();
        if role != "tool" && !pending.is_empty() {
            return Err(bad(format!(
                "messages.[{i}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                pending.join(", ")
            )));
        }
        match role {
            "system" | "developer" | "user" => {
                if !matches!(m.get("content"), Some(Value::String(_) | Value::Array(_))) {
                    return Err(bad(format!("messages.[{i}].content: expected a string or an array of parts")));
                }
                answerable.clear();
            }
            "assistant" => {
                let calls = m.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty());
                if calls.is_none() && !matches!(m.get("content"), Some(Value::String(_) | Value::Array(_))) {
                    return Err(bad(format!(
                        "messages.[{i}].content: expected a string, got null (an assistant message without tool_calls needs content)"
                    )));
                }
                answerable.clear();
                for (j, c) in calls.into_iter().flatten().enumerate() {
                    let f = c.get("function");
                    let ok = str_field(c, "type") == Some("function")
                        && f.and_then(|f| str_field(f, "name")).is_some()
                        && f.and_then(|f| str_field(f, "arguments")).is_some();
                    let Some(id) = str_field(c, "id").filter(|_| ok) else {
                        return Err(bad(format!(
                            "messages.[{i}].tool_calls.[{j}]: expected {{\"id\", \"type\": \"function\", \"function\": {{\"name\", \"arguments\": <string>}}}}"
                        )));
                    };
                    pending.push(id.to_string());
                    answerable.push(id.to_string());
                }
            }
            "tool" => {
                let id = str_field(m, "tool_call_id").unwrap_or_default();
                if !answerable.iter().any(|a| a == id) {
                    return Err(bad(format!(
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages.[{i}], tool_call_id '{id}')."
                    )));
                }
                pending.retain(|p| p != id);
            }
            other => {
                return Err(bad(format!(
                    "messages.[{i}].role: Invalid value: '{other}'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'."
                )));
            }
        }
    }
    if !pending.is_empty() {
        return Err(bad(format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            pending.join(", ")
        )));
    }
    Ok(())
}

fn openai_tools(body: &Value) -> Result<(), Violation> {
    let Some(tools) = body.get("tools") else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(bad("tools: expected an array"));
    };
    for (i, t) in tools.iter().enumerate() {
        let f = t.get("function");
        let ok = str_field(t, "type") == Some("function")
            && f.and_then(|f| str_field(f, "name")).is_some_and(|n| !n.is_empty())
            && f.is_some_and(|f| f.get("parameters").is_some_and(Value::is_object));
        if !ok {
            return Err(bad(format!(
                "tools.[{i}]: expected {{\"type\": \"function\", \"function\": {{\"name\", \"parameters\": <object>}}}}"
            )));
        }
    }
    Ok(())
}
