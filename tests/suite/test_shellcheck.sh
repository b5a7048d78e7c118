#!/bin/sh
# run_all.sh and every script under scripts/ are shellcheck clean (skipped without shellcheck).
set -u
repo=$1
command -v shellcheck >/dev/null 2>&1 || { echo "shellcheck not installed: skipped"; exit 77; }
cd "$repo" || exit 1
# shellcheck disable=SC2046  # word splitting of the file list is wanted
shellcheck -x run_all.sh $(find scripts tests/suite -name '*.sh' | sort) || { echo "FAIL: shellcheck" >&2; exit 1; }
echo "ok: shellcheck clean"
