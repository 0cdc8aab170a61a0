//! `arbor demo`: a scripted demonstration. A scripted model server on loopback
//! plays the model's part (tests/scenarios/demo.json) against a small sample
//! project, so a new user sees the runtime work with no key and no network.

use crate::args::{ApproveMode, DemoArgs, ProviderKind};
use crate::providers;
use crate::run::execute;
use crate::setup;
use anyhow::{Context, Result};
use arbor_core::provider::ApiKey;
use arbor_testkit::{Scenario, ScriptedServer};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

const SCENARIO: &str = include_str!("../../../../tests/scenarios/demo.json");
pub const DEMO_PROMPT: &str = "Give me a quick tour of this project and fix the TODO you find.";

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

pub async fn demo(args: DemoArgs) -> Result<ExitCode> {
    let data_dir = setup::data_dir(args.common.data_dir.as_deref())?;
    setup::init_logging(&data_dir)?;
    let workspace = match &args.common.workspace {
        Some(w) => setup::workspace(Some(w))?,
        None => {
            let dir = std::env::temp_dir().join(format!("arbor-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            dir
        }
    };
    write_sample(&workspace)?;
    let scenario = Scenario::from_json(SCENARIO).context("the built-in demo scenario is malformed")?;
    let server = ScriptedServer::start(scenario).await.context("cannot start the scripted model server")?;
    let kind = if args.openai { ProviderKind::Openai } else { ProviderKind::Anthropic };
    let chosen = providers::build(
        kind,
        Some("arbor-demo-scripted".to_string()),
        Some(server.anthropic_base_url()),
        Some(server.openai_base_url()),
        |_| Some(ApiKey::new("demo-not-a-real-key")),
    )?;
    let mut common = args.common.clone();
    // Nobody can answer a prompt without a terminal; the demo then approves for them.
    if common.approve == ApproveMode::Ask && !common.json && !std::io::stdin().is_terminal() {
        common.approve = ApproveMode::All;
    }
    let banner = "Arbor demo: the model here is SCRIPTED (a built-in server replays a recorded-style session; \
                  no API key, no network). The agent, tools and approvals are the real runtime.";
    let code = execute(&common, workspace, chosen, DEMO_PROMPT, Some(banner)).await;
    server.shutdown().await;
    code
}

/// Writes the sample project, leaving files that already exist alone.
fn write_sample(root: &Path) -> Result<()> {
    for (rel, content) in SAMPLE {
        let path = root.join(rel);
        if path.exists() {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, content).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}
