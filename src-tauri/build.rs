//! Generates Tauri's context; capabilities live in src-tauri/capabilities.
fn main() {
    tauri_build::try_build(tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/**/*"))
        .unwrap_or_else(|e| panic!("tauri-build failed: {e:#}"));
}
