//! `arbor`: Arbor's headless command line. Drives the same runtime as the desktop
//! app, through the same API (`arbor_app::Host`), from a terminal or a script.

mod acp;
mod agents;
mod approvals;
mod args;
mod changes;
mod demo;
mod import;
mod mcp;
mod preview;
mod printer;
mod run;
mod setup;
mod timeline;
mod transcripts;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let env = setup::environment();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return setup::fail(&format!("cannot start the async runtime: {e}")),
    };
    let result = runtime.block_on(async {
        match cli.command {
            args::Command::Run(a) => run::run(a, env).await,
            args::Command::Demo(a) => demo::demo(a, env).await,
            args::Command::Agents(a) => agents::list(a, env),
            args::Command::Mcp(a) => mcp::run(a, env).await,
            args::Command::Sessions(a) => transcripts::sessions(a, env).await,
            args::Command::Show(a) => transcripts::show(a, env).await,
            args::Command::Search(a) => transcripts::search(a, env).await,
            args::Command::Resume(a) => transcripts::resume(a, env).await,
            args::Command::Changes(a) => changes::changes(a, env).await,
            args::Command::Revert(a) => changes::revert(a, env).await,
            args::Command::Worktrees(a) => changes::worktrees(a, env).await,
            args::Command::Acp(a) => acp::serve(a, env).await,
            args::Command::Import(a) => match a.source {
                args::ImportSource::ClaudeCode(a) => import::claude_code(a, env).await,
            },
        }
    });
    // Every session settled before its command returned; nothing is left to wait for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match result {
        Ok(code) => code,
        Err(e) => setup::fail(&format!("{e:#}")),
    }
}
