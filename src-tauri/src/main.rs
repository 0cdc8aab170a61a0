//! The `arbor-desktop` binary: opens the Arbor window.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    arbor_desktop::run();
}
