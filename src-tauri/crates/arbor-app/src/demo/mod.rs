//! The built-in demonstration: a scripted model ([`model::ScriptedModel`], in
//! process) plays the model's part (tests/scenarios/demo.json) against a small
//! sample project, so a new user sees the real runtime (agents, subagents,
//! tools, approvals) work with no key and no network.

pub mod model;

use arbor_core::provider::Provider;
use std::path::Path;
use std::sync::Arc;

const SCENARIO: &str = include_str!("../../../../../tests/scenarios/demo.json");
pub const PROMPT: &str = "Give me a quick tour of this project and fix the TODO you find.";
/// The model name the demo's sessions report.
pub const MODEL: &str = "arbor-demo-scripted";

/// The sample project the scripted agent works on; the scenario's Edit matches it.
const SAMPLE: &[(&str, &str)] = &[
    ("README.md", "# Inventory\n\nA tiny library that tracks a shop's stock levels.\n"),
    (
        "src/inventory.py",
        "\"\"\"Stock levels for a small shop.\"\"\"\n\n\ndef add_stock(stock, item, qty):\n    stock[item] = stock.get(item, 0) + qty\n    return stock\n\n\ndef remove_stock(stock, item, qty):\n    # TODO: refuse to remove more than is in stock\n    stock[item] = stock.get(item, 0) - qty\n    return stock\n",
    ),
    (
        "tests/test_inventory.py",
        "from inventory import add_stock, remove_stock\n\n\ndef test_add_then_remove():\n    assert remove_stock(add_stock({}, \"apple\", 3), \"apple\", 2) == {\"apple\": 1}\n",
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("cannot write the demo project at {path}: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("the built-in demo scenario is malformed: {0}")]
    Scenario(String),
}

/// Writes the sample project into `root`, leaving files that already exist alone.
pub fn write_sample(root: &Path) -> Result<(), DemoError> {
    for (rel, content) in SAMPLE {
        let path = root.join(rel);
        if path.exists() {
            continue;
        }
        let write = || -> std::io::Result<()> {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, content)
        };
        write().map_err(|source| DemoError::Write { path: path.display().to_string(), source })?;
    }
    Ok(())
}

/// The scripted model that plays the demo.
pub fn model() -> Result<Arc<dyn Provider>, DemoError> {
    let script = model::Script::parse(SCENARIO).map_err(|e| DemoError::Scenario(e.to_string()))?;
    Ok(Arc::new(model::ScriptedModel::new(script)))
}
