//! The window a local OpenAI-compatible server actually serves, asked of the
//! server itself: llama.cpp's `GET /props` (`default_generation_settings.n_ctx`,
//! the slot's context) and Ollama's `POST /api/show` (`num_ctx` among the
//! model's parameters, when its Modelfile sets one). Asked once per model; a
//! server that answers neither (vLLM, LM Studio, OpenRouter) leaves the table
//! or the guess in place, and a refusal naming the window still teaches it.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// A probe that takes longer than this is not worth holding an agent's first request for.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// The most of a probe's answer read: `/props` carries the chat template, a few kilobytes.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// What each model's server said, by model, so each is asked once.
#[derive(Default)]
pub(crate) struct ServedWindows(Mutex<HashMap<String, Option<u64>>>);

impl ServedWindows {
    pub(crate) async fn get(&self, client: &reqwest::Client, base_url: &str, model: &str) -> Option<u64> {
        if let Some(known) = self.0.lock().ok().and_then(|m| m.get(model).copied()) {
            return known;
        }
        let found = ask(client, base_url, model).await;
        if let Ok(mut m) = self.0.lock() {
            m.insert(model.to_string(), found);
        }
        found
    }
}

/// The server's root: the base URL without its `/v1`.
fn root(base_url: &str) -> &str {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/v1").unwrap_or(base)
}

async fn ask(client: &reqwest::Client, base_url: &str, model: &str) -> Option<u64> {
    let root = root(base_url);
    if let Some(props) = answer(client.get(format!("{root}/props"))).await
        && let Some(n) = llama_window(&props)
    {
        return Some(n);
    }
    let show = answer(client.post(format!("{root}/api/show")).json(&serde_json::json!({ "model": model }))).await?;
    ollama_window(&show)
}

/// A JSON answer of at most [`MAX_ANSWER_BYTES`] within [`PROBE_TIMEOUT`], or None.
async fn answer(request: reqwest::RequestBuilder) -> Option<Value> {
    let response = request.timeout(PROBE_TIMEOUT).send().await.ok()?;
    if !response.status().is_success() || response.content_length().is_some_and(|n| n > MAX_ANSWER_BYTES as u64) {
        return None;
    }
    let bytes = tokio::time::timeout(PROBE_TIMEOUT, response.bytes()).await.ok()?.ok()?;
    if bytes.len() > MAX_ANSWER_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

fn llama_window(props: &Value) -> Option<u64> {
    props.pointer("/default_generation_settings/n_ctx").and_then(Value::as_u64).filter(|&n| n > 0)
}

/// `num_ctx` from the `parameters` text of `/api/show` (lines of `name value`).
fn ollama_window(show: &Value) -> Option<u64> {
    let parameters = show.get("parameters").and_then(Value::as_str)?;
    parameters.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("num_ctx")).then(|| words.next().and_then(|n| n.parse().ok())).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_window_is_read_from_llama_cpps_props_and_ollamas_parameters() {
        let props = json!({ "default_generation_settings": { "n_ctx": 8192, "params": {} }, "total_slots": 1 });
        assert_eq!(llama_window(&props), Some(8192));
        assert_eq!(llama_window(&json!({ "default_generation_settings": { "n_ctx": 0 } })), None);
        let show =
            json!({ "parameters": "stop \"<|im_end|>\"\nnum_ctx                        32768\ntemperature 0.7" });
        assert_eq!(ollama_window(&show), Some(32_768));
        // No num_ctx in the Modelfile: what the server enforces is its own setting, unknown here.
        assert_eq!(ollama_window(&json!({ "parameters": "temperature 0.7", "model_info": {} })), None);
        assert_eq!(root("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
        assert_eq!(root("http://host:11434"), "http://host:11434");
    }
}
