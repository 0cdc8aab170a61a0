//! `arbor demo`: the scripted demonstration through the one API. An in-process
//! scripted model plays the model's part (tests/scenarios/demo.json) against a
//! small sample project, so a new user sees the runtime work with no key and no
//! network.

use crate::args::{ApproveMode, DemoArgs};
use crate::run::{execute, tuning};
use crate::setup;
use anyhow::Result;
use arbor_app::{Environment, LaunchSpec, Start};
use std::io::IsTerminal;
use std::process::ExitCode;

pub async fn demo(args: DemoArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.common.data_dir.as_deref(), env)?;
    let workspace = args.common.workspace.as_deref().map(|w| setup::workspace(Some(w))).transpose()?;
    let mut common = args.common.clone();
    // Nobody can answer a prompt without a terminal; the demo then approves for them.
    if common.approve.is_none_or(|a| a == ApproveMode::Ask) && !common.json && !std::io::stdin().is_terminal() {
        common.approve = Some(ApproveMode::All);
    }
    let banner = "Arbor demo: the model here is SCRIPTED (it replays a recorded-style session; \
                  no API key, no network). The agent, tools and approvals are the real runtime.";
    let spec = LaunchSpec { workspace, start: Start::Demo, tuning: tuning(&common), ..LaunchSpec::default() };
    execute(&host, &common, spec, Some(banner)).await
}
