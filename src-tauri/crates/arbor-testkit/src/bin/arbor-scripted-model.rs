//! `arbor-scripted-model SCENARIO`: serves a scenario (a file path, or a name in
//! tests/scenarios) on loopback until Ctrl-C, and prints the base URLs to point
//! `arbor` or the desktop app at: for trying things by hand and end-to-end tests.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use arbor_testkit::{Scenario, ScriptedServer};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(arg) = std::env::args().nth(1) else {
        eprintln!("usage: arbor-scripted-model SCENARIO   (a .json file, or a name in tests/scenarios)");
        return ExitCode::from(2);
    };
    let scenario = if Path::new(&arg).is_file() { Scenario::from_file(Path::new(&arg)) } else { Scenario::load(&arg) };
    let scenario = match scenario {
        Ok(s) => s,
        Err(e) => {
            eprintln!("arbor-scripted-model: {e}");
            return ExitCode::from(2);
        }
    };
    let server = match ScriptedServer::start(scenario).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("arbor-scripted-model: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("ANTHROPIC_BASE_URL={}", server.anthropic_base_url());
    println!("OPENAI_BASE_URL={}", server.openai_base_url());
    let _ = std::io::stdout().flush();
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    ExitCode::SUCCESS
}
