# Sourced by the other scripts: puts the tools install-deps.sh may have
# installed (cargo's bin dir, a private Node) on PATH.
export PATH="$HOME/.cargo/bin:$HOME/.local/share/arbor-node/bin:$PATH"
