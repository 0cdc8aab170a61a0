//! A tool's input, once for every tool: its struct is its schema (derived with
//! schemars, so what the model is offered is the very type its arguments are
//! parsed into), and the opening steps every file tool takes (parse the input,
//! resolve the path, keep it inside the workspace) fail with short, clear
//! results that quote at most a prefix of what the model sent.

use super::ToolResult;
use crate::workspace::Workspace;
use arbor_protocol::text::quote;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::PathBuf;

pub use crate::workspace::QUOTE_CHARS;

/// The JSON schema the model is offered for `T`: an object schema with the
/// fields' doc comments as descriptions, optional fields not required and not
/// nullable, no unknown fields.
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    tidy(&mut schema);
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        root.remove("description");
        root.insert("additionalProperties".into(), Value::Bool(false));
    }
    schema
}

/// What schemars adds that a model gains nothing from: `null` beside optional
/// fields' types (they are simply not required) and Rust's integer formats.
fn tidy(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    map.insert("type".into(), kept[0].clone());
                }
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int") || f == "double")
            {
                map.remove("format");
            }
            if let Some(Value::Array(any)) = map.get("anyOf")
                && any.iter().any(|s| s.get("type") == Some(&Value::from("null")))
            {
                let kept: Vec<Value> =
                    any.iter().filter(|s| s.get("type") != Some(&Value::from("null"))).cloned().collect();
                if let [only] = kept.as_slice() {
                    let only = only.clone();
                    map.remove("anyOf");
                    if let Value::Object(inner) = only {
                        for (k, val) in inner {
                            map.entry(k).or_insert(val);
                        }
                    }
                }
            }
            map.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Parses a tool's input, or says briefly what is wrong with it.
pub fn parse_input<T: DeserializeOwned>(tool: &str, input: Value) -> Result<T, ToolResult> {
    serde_json::from_value(input)
        .map_err(|e| ToolResult::error(format!("Invalid input for {tool}: {}", quote(&e.to_string(), QUOTE_CHARS))))
}

/// A path the model gave, resolved inside the workspace: the absolute path, and
/// how to show it (relative to the workspace when inside it).
pub struct ResolvedPath {
    pub path: PathBuf,
    pub shown: String,
}

/// Resolves `raw` inside the workspace (or an allowed folder), or says why not.
pub fn resolve(workspace: &Workspace, raw: &str) -> Result<ResolvedPath, ToolResult> {
    let path = workspace.resolve(raw).map_err(|e| ToolResult::error(e.to_string()))?;
    let shown = quote(&workspace.display(&path), QUOTE_CHARS);
    Ok(ResolvedPath { path, shown })
}
