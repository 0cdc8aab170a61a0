#!/usr/bin/env bash
# README command 1: install everything, build Arbor, then start it: the desktop
# app when there is a display, else the headless CLI's built-in scripted demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
. scripts/env.sh

echo "==> building the web UI"
npm --prefix ui install --no-audit --no-fund --loglevel=error
npm --prefix ui run --silent build

echo "==> building arbor (CLI) and arbor-desktop (app), release"
cargo build --release --locked --quiet -p arbor-cli -p arbor-desktop --features arbor-desktop/custom-protocol
mkdir -p "$HOME/.cargo/bin"
target="${CARGO_TARGET_DIR:-target}/release"
install -m 755 "$target/arbor" "$target/arbor-desktop" "$HOME/.cargo/bin/"
echo "==> installed arbor and arbor-desktop in $HOME/.cargo/bin"

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  echo "==> opening Arbor (no API key yet? press \"Try the demo\")"
  exec arbor-desktop "$PWD"
fi
echo "==> no display: running the headless CLI's scripted demo instead (arbor demo)"
exec arbor demo
