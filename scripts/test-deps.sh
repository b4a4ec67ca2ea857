#!/usr/bin/env bash
# Installs the real MCP peers the end-to-end tests use into .ci/deps (git-ignored):
#   - @modelcontextprotocol/server-everything (npm), the reference MCP server
#   - mcp (PyPI), the official Python SDK: client for the comparisons, and a server
#   - cmarkgfm (PyPI), bindings to GitHub's cmark-gfm, and markdown-it (npm): the markdown
#     sanitizer's output is rendered by the real renderers
#     (crates/bastion-core/tests/core/props_markdown.rs)
#   - @modelcontextprotocol/conformance (npm), the official conformance suite, at the newest
#     version that runs on Node.js 20 (0.1.14 and later import `fs.globSync`, Node.js 22+)
# Idempotent: does nothing when the pinned versions are already there.
set -euo pipefail
cd "$(dirname "$0")/.."
DEPS="${BASTION_TEST_DEPS:-$PWD/.ci/deps}"
EVERYTHING_VERSION=2026.8.31
MCP_VERSION=2.3.0
CONFORMANCE_VERSION=0.1.13
CMARKGFM_VERSION=2025.10.22
MARKDOWN_IT_VERSION=15.0.3
mkdir -p "$DEPS"

stamp="$DEPS/.stamp-$EVERYTHING_VERSION-$MCP_VERSION-$CONFORMANCE_VERSION-$CMARKGFM_VERSION-$MARKDOWN_IT_VERSION"
if [ -f "$stamp" ]; then
  exit 0
fi

echo "installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION, conformance@$CONFORMANCE_VERSION and markdown-it@$MARKDOWN_IT_VERSION into $DEPS/node" >&2
mkdir -p "$DEPS/node"
npm install --prefix "$DEPS/node" --no-audit --no-fund --loglevel=error \
  "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" \
  "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
  "markdown-it@$MARKDOWN_IT_VERSION" >&2

echo "installing mcp==$MCP_VERSION and cmarkgfm==$CMARKGFM_VERSION into $DEPS/venv" >&2
python3 -m venv "$DEPS/venv"
"$DEPS/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_VERSION" \
  "cmarkgfm==$CMARKGFM_VERSION" >&2

touch "$stamp"
