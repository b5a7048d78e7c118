#!/bin/sh
# scripts/deps.sh on a pretend apt machine (stub dpkg-query, apt-get, id and sudo first on
# PATH; nothing is installed): who installs what, and the one command printed without root.
set -u
repo=$1
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir "$t/bin"
# dpkg-query: every package is installed but those in STUB_MISSING; each query logged.
cat >"$t/bin/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
echo "$p" >>"$STUB_QUERIES"
case " $STUB_MISSING " in *" $p "*) exit 1 ;; esac
echo "install ok installed"
EOF
# apt-get: logs its arguments; a package in STUB_UNAVAILABLE makes the install fail.
cat >"$t/bin/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >>"$STUB_LOG"
for p; do case " $STUB_UNAVAILABLE " in *" $p "*) exit 100 ;; esac; done
exit 0
EOF
cat >"$t/bin/id" <<'EOF'
#!/bin/sh
case $1 in -un) echo someone ;; *) echo "$STUB_UID" ;; esac
EOF
printf '#!/bin/sh\nexit 1\n' >"$t/bin/sudo"
chmod +x "$t/bin/"*
export STUB_LOG="$t/log" STUB_UNAVAILABLE="" STUB_QUERIES="$t/queries"
opt="liburing-dev libdpdk-dev shellcheck iproute2"
tools="fio iperf3 sockperf qperf hpcc likwid"

# deps MODE UID MISSING [PEAK_DEPS]: run deps.sh; rc, $t/err and the apt-get log are left.
deps() {
	rm -f "$STUB_LOG" "$STUB_QUERIES" && touch "$STUB_LOG" "$STUB_QUERIES"
	env PATH="$t/bin:/usr/bin:/bin" STUB_UID="$2" STUB_MISSING="$3" PEAK_DEPS="${4:-all}" \
		bash "$repo/scripts/deps.sh" "$1" >"$t/out" 2>"$t/err"
	rc=$?
}
installs() { grep "install -y --no-install-recommends $1 -qq" "$STUB_LOG" >/dev/null; }
# The one command in the message: (sudo apt-get update && )sudo apt-get install ... PKGS
one_command() {
	[ "$(wc -l <"$t/err")" -eq 1 ] || fail "$2: not one line: $(cat "$t/err")"
	grep -Eq "(sudo apt-get update && )?sudo apt-get install -y --no-install-recommends $1\$" "$t/err" ||
		fail "$2: no command for '$1': $(cat "$t/err")"
}

# Not root, no sudo: make goes on without the optional packages, with the command to run.
deps --ensure 1000 "$opt $tools"
[ "$rc" -eq 0 ] || fail "--ensure without root, optional missing: exit $rc"
one_command "$opt" "--ensure without root"
[ -s "$STUB_LOG" ] && fail "--ensure without root ran apt-get: $(cat "$STUB_LOG")"
ok "make without root: optional build inputs missing, one command printed, build goes on"

# Not root, a required package missing: make stops with the command.
deps --ensure 1000 "libcjson-dev $opt"
[ "$rc" -eq 1 ] || fail "--ensure without root, libcjson-dev missing: exit $rc"
one_command "libcjson-dev" "--ensure, required missing"
ok "make without root: a required package missing stops with the command"

# Not root: run_all.sh's tools step prints the command and never fails.
deps --tools 1000 "$tools"
[ "$rc" -eq 0 ] || fail "--tools without root: exit $rc"
one_command "$tools" "--tools without root"
ok "run_all.sh without root: the tools' command printed, run goes on"

# Root: make installs the optional build inputs, not the tools; --tools installs the tools.
deps --ensure 0 "$opt $tools"
[ "$rc" -eq 0 ] || fail "--ensure as root: exit $rc: $(cat "$t/err")"
installs "$opt" || fail "--ensure as root did not install '$opt': $(cat "$STUB_LOG")"
grep -q fio "$STUB_LOG" && fail "--ensure installed a reference tool: $(cat "$STUB_LOG")"
deps --tools 0 "$tools"
[ "$rc" -eq 0 ] || fail "--tools as root: exit $rc"
installs "$tools" || fail "--tools as root did not install '$tools': $(cat "$STUB_LOG")"
ok "as root: make installs the optional build inputs, run_all.sh the tools"

# A package this release lacks: the others are installed one by one, the lacking one named.
STUB_UNAVAILABLE=sockperf
deps --tools 0 "$tools"
[ "$rc" -eq 0 ] || fail "--tools with sockperf unavailable: exit $rc"
installs fio || fail "fio not installed one by one: $(cat "$STUB_LOG")"
grep -q "optional sockperf not installed" "$t/err" || fail "sockperf not named: $(cat "$t/err")"
STUB_UNAVAILABLE=""
ok "a package the distribution lacks does not block the others"

# PEAK_DEPS=required: nothing optional installed, nothing offered.
deps --ensure 0 "$opt $tools" required
if [ "$rc" -ne 0 ] || [ -s "$STUB_LOG" ] || [ -s "$t/err" ]; then
	fail "PEAK_DEPS=required --ensure: exit $rc, apt-get '$(cat "$STUB_LOG")', '$(cat "$t/err")'"
fi
deps --tools 0 "$tools" required
if [ "$rc" -ne 0 ] || [ -s "$STUB_LOG" ]; then fail "PEAK_DEPS=required --tools: exit $rc"; fi
deps --ensure 0 "" bogus
[ "$rc" -ne 0 ] || fail "PEAK_DEPS=bogus accepted"
grep -q "PEAK_DEPS='bogus'" "$t/err" || fail "PEAK_DEPS=bogus: $(cat "$t/err")"
ok "PEAK_DEPS=required installs nothing optional"

# --check names each kind and fails only for a required package.
deps --check 1000 "$opt $tools"
[ "$rc" -eq 0 ] || fail "--check with optional packages missing: exit $rc"
grep -q "missing (optional): liburing-dev" "$t/out" || fail "--check: $(cat "$t/out")"
grep -q "missing (reference tool): hpcc" "$t/out" || fail "--check: $(cat "$t/out")"
ok "--check lists optional and reference-tool packages without failing"

# The stamp of the no-op make (issue 42; PEAK_DEPS_STAMP, the package state in
# PEAK_DEPS_STATE here): a second --ensure with nothing changed asks dpkg nothing and prints
# the same note again; the package state, the user or deps.sh itself changed: asked again.
echo 1 >"$t/state"
export PEAK_DEPS_STAMP="$t/build/deps.stamp" PEAK_DEPS_STATE="$t/state"
deps --ensure 1000 "$opt"
if [ "$rc" -ne 0 ] || [ ! -s "$PEAK_DEPS_STAMP" ]; then fail "--ensure wrote no stamp: exit $rc, $(cat "$t/err")"; fi
[ -s "$STUB_QUERIES" ] || fail "--ensure without a stamp asked dpkg nothing"
cp "$t/err" "$t/err.first"
deps --ensure 1000 "$opt"
[ "$rc" -eq 0 ] || fail "--ensure on its stamp: exit $rc"
[ -s "$STUB_QUERIES" ] && fail "--ensure on its stamp asked dpkg: $(tr '\n' ' ' <"$STUB_QUERIES")"
cmp -s "$t/err" "$t/err.first" || fail "--ensure on its stamp did not repeat the note: $(cat "$t/err")"
one_command "$opt" "--ensure on its stamp"
ok "--ensure on its stamp: no package query, the same note"
echo 2 >"$t/state"
deps --ensure 1000 "$opt"
[ -s "$STUB_QUERIES" ] || fail "--ensure after the package state changed did not ask dpkg"
deps --ensure 0 "$opt"
installs "$opt" || fail "--ensure as another user (root) on the stamp did not install '$opt'"
deps --check 1000 "$opt"
[ -s "$STUB_QUERIES" ] || fail "--check skipped its queries on the stamp"
sed '$a # changed' "$repo/scripts/deps.sh" >"$t/deps.sh"
: >"$STUB_QUERIES"
env PATH="$t/bin:/usr/bin:/bin" STUB_UID=0 STUB_MISSING="" bash "$t/deps.sh" --ensure >/dev/null 2>&1 ||
	fail "the changed deps.sh exited $?"
[ -s "$STUB_QUERIES" ] || fail "a changed deps.sh trusted the old one's stamp"
ok "the stamp is not trusted after the package state, the user or deps.sh changed; --check never reads it"
