//! The desktop shell: a thin Tauri layer over `arbor-core` (filled in by the desktop issue).

/// Opens the main window and runs the event loop until it closes.
pub fn run() {
    let result = tauri::Builder::default().run(tauri::generate_context!());
    if let Err(e) = result {
        tracing_fallback(&format!("Arbor could not start its window: {e}"));
        std::process::exit(1);
    }
}

#[allow(clippy::print_stderr)]
fn tracing_fallback(msg: &str) {
    eprintln!("{msg}");
}
