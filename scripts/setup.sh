#!/usr/bin/env bash
# README command 1: install everything, then start Arbor's main job. Until the
# desktop app lands this is the headless CLI's built-in scripted demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH="$HOME/.cargo/bin:$PATH"
echo "==> building and installing the arbor CLI (cargo install)"
cargo install --locked --quiet --path src-tauri/crates/arbor-cli
echo "==> arbor is installed in $(dirname "$(command -v arbor)"); running the demo"
exec arbor demo
