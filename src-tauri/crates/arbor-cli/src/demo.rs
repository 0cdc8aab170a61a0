//! `arbor demo`: a scripted demonstration. A scripted model server on loopback
//! plays the model's part (tests/scenarios/demo.json) against a small sample
//! project, so a new user sees the runtime work with no key and no network.

use crate::args::{ApproveMode, DemoArgs, ProviderKind};
use crate::providers;
use crate::run::{Start, execute};
use crate::setup;
use anyhow::{Context, Result};
use arbor_app::demo as sample;
use arbor_core::provider::ApiKey;
use std::io::IsTerminal;
use std::process::ExitCode;

pub async fn demo(args: DemoArgs) -> Result<ExitCode> {
    let data_dir = setup::init(args.common.data_dir.as_deref())?;
    let store = setup::store(&data_dir)?;
    let workspace = match &args.common.workspace {
        Some(w) => setup::workspace(Some(w))?,
        None => {
            let dir = std::env::temp_dir().join(format!("arbor-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
            dir
        }
    };
    sample::write_sample(&workspace)?;
    let server = sample::start_server().await?;
    let (kind, base) = if args.openai {
        (ProviderKind::Openai, server.openai_base_url())
    } else {
        (ProviderKind::Anthropic, server.anthropic_base_url())
    };
    let chosen =
        providers::build(kind.into(), Some(sample::MODEL.to_string()), Some(base), Some(ApiKey::new(sample::KEY)))?;
    let mut common = args.common.clone();
    // Nobody can answer a prompt without a terminal; the demo then approves for them.
    if common.approve == ApproveMode::Ask && !common.json && !std::io::stdin().is_terminal() {
        common.approve = ApproveMode::All;
    }
    let banner = "Arbor demo: the model here is SCRIPTED (a built-in server replays a recorded-style session; \
                  no API key, no network). The agent, tools and approvals are the real runtime.";
    let code = execute(&common, workspace, chosen, Start::New(sample::PROMPT), store, Some(banner)).await;
    server.shutdown().await;
    code
}
