//! `arbor`: Arbor's headless command line. Drives the same runtime as the desktop
//! app from a terminal or a script.

mod agents;
mod approvals;
mod args;
mod demo;
mod mcp;
mod printer;
mod providers;
mod run;
mod setup;
mod transcripts;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return setup::fail(&format!("cannot start the async runtime: {e}")),
    };
    let result = runtime.block_on(async {
        match cli.command {
            args::Command::Run(a) => run::run(a).await,
            args::Command::Demo(a) => demo::demo(a).await,
            args::Command::Agents(a) => agents::list(a),
            args::Command::Mcp(a) => mcp::list(a).await,
            args::Command::Sessions(a) => transcripts::sessions(a),
            args::Command::Show(a) => transcripts::show(a),
            args::Command::Search(a) => transcripts::search(a),
            args::Command::Resume(a) => transcripts::resume(a).await,
        }
    });
    // Agents' tasks must not keep the process alive once the answer is printed.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    match result {
        Ok(code) => code,
        Err(e) => setup::fail(&format!("{e:#}")),
    }
}
