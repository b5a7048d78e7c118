#!/bin/bash
# The metadata client against a real HTTP server (metadata_server.py) bound to
# 169.254.169.254 inside a network namespace this test creates; every client runs inside
# it, so no request leaves it. Each provider's question with the headers its service
# requires (the server refuses without them), AWS's token flow, a 404, a hang past the
# budget, garbage, nothing listening; and no request at all when DMI names no cloud, with
# --no-metadata, when DMI gives the type, or when PEAKBENCH_CLOUD hands it down.
# Usage: cloud_metadata.sh CLOUD_IDENTIFY PEAKINFO FIXTURES_DIR
set -u
IDENT=$1 PEAKINFO=$2 FIX=$3/cloud
HERE=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
ns=peakcloud$(($$ % 100000))
server_pid=""
cleanup() {
	stop_server
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
stop_server() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
		server_pid=""
	fi
}
trap cleanup EXIT
fail() {
	echo "FAIL: $*" >&2
	for f in "$tmp"/out "$tmp"/requests.log "$tmp"/server.err; do
		[ -s "$f" ] && { echo "--- $f" >&2; head -c 3000 "$f" >&2; }
	done
	exit 1
}

if ! ip netns add "$ns" 2>"$tmp/netns.err"; then
	echo "SKIP: ip netns add not permitted here: $(head -n 1 "$tmp/netns.err")"
	exit 77
fi
ip -n "$ns" link set lo up || fail "lo up in $ns"
ip -n "$ns" addr add 169.254.169.254/32 dev lo || fail "169.254.169.254 on lo in $ns"

# serve MODE: the server answers as MODE from now on, with an empty request log. One server
# serves the cases one after the other (--mode-file: read at each request; issue 42, a
# python start a case was a third of this test); it is started when none runs.
serve() {
	printf '%s\n' "$1" >"$tmp/mode"
	: >"$tmp/requests.log"
	[ -z "$server_pid" ] || return 0
	rm -f "$tmp/ready"
	ip netns exec "$ns" python3 "$HERE/metadata_server.py" --mode-file "$tmp/mode" \
		--log "$tmp/requests.log" --ready "$tmp/ready" 2>"$tmp/server.err" &
	server_pid=$!
	for _ in $(seq 50); do
		[ -s "$tmp/ready" ] && return 0
		kill -0 "$server_pid" 2>/dev/null || fail "metadata_server.py --mode $1 did not start"
		sleep 0.1
	done
	fail "metadata_server.py --mode $1 not listening after 5 s"
}
# client ARGS: cloud_identify inside the namespace, its key=value lines in $tmp/out.
client() {
	ip netns exec "$ns" "$IDENT" "$@" >"$tmp/out" 2>&1 || fail "cloud_identify $* failed"
}
value() { sed -n "s/^$1=//p" "$tmp/out"; }
expect() { # KEY VALUE
	[ "$(value "$1")" = "$2" ] || fail "$CASE: $1 is '$(value "$1")', expected '$2'"
}
expect_warning() { # TEXT
	value warning | grep -qF -- "$1" || fail "$CASE: no warning saying '$1'"
	[ "$(value cloud.instance_type)" = unknown ] || fail "$CASE: a type despite the failure"
}
requests() { if [ -f "$tmp/requests.log" ]; then grep -c . "$tmp/requests.log" || true; else echo 0; fi; }
expect_requests() { # N
	[ "$(requests)" = "$1" ] || fail "$CASE: $(requests) request(s) logged, expected $1"
}
# A header of request N (1-based) in the log: python reads the JSON line.
header_of() { # N NAME
	sed -n "$1p" "$tmp/requests.log" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["headers"].get(sys.argv[1], ""))' "$2"
}
field_of() { # N method|path
	sed -n "$1p" "$tmp/requests.log" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$2"
}
ok() { echo "ok: $CASE"; }

# This machine's own DMI must name no cloud for the "nothing sent" cases to mean it.
"$IDENT" --no-metadata >"$tmp/out" 2>&1 || fail "cloud_identify --no-metadata failed here"
live_provider=$(value cloud.provider)

# 1. Each provider: DMI names it, the type comes from its service, with its headers.
CASE="aws token flow"
serve aws
client --dmi-of "$FIX/aws-xen"
expect cloud.provider aws
expect cloud.instance_type m5.large
expect cloud.source metadata
expect_requests 2
[ "$(field_of 1 method) $(field_of 1 path)" = "PUT /latest/api/token" ] || fail "$CASE: first request not the token PUT"
[ -n "$(header_of 1 X-aws-ec2-metadata-token-ttl-seconds)" ] || fail "$CASE: token PUT without its TTL header"
[ "$(field_of 2 method) $(field_of 2 path)" = "GET /latest/meta-data/instance-type" ] || fail "$CASE: second request"
[ "$(header_of 2 X-aws-ec2-metadata-token)" = "AQAEAFakeTokenForTests0123456789abcdef==" ] || fail "$CASE: GET without the token"
ok

for spec in "gce gce n2-standard-4 Metadata-Flavor Google" \
	"azure azure Standard_D2s_v5 Metadata true" \
	"openstack openstack-nova m1.small - -" \
	"oracle oracle VM.Standard.E4.Flex Authorization Bearer Oracle"; do
	# shellcheck disable=SC2086 # the words of one case
	set -- $spec
	mode=$1 fixture=$2 type=$3 hname=$4
	shift 4
	hvalue="$*"
	CASE="$mode machine type with its headers"
	serve "$mode"
	client --dmi-of "$FIX/$fixture"
	expect cloud.provider "$mode"
	expect cloud.instance_type "$type"
	expect cloud.source metadata
	expect_requests 1
	[ "$hname" = - ] || [ "$(header_of 1 "$hname")" = "$hvalue" ] || fail "$CASE: no $hname: $hvalue"
	ok
done

# A service that keeps the connection open after a whole answer (its Content-Length read):
# the answer is taken, not lost to the budget.
CASE="keep-open after a whole answer"
serve keep-open
client --dmi-of "$FIX/azure"
expect cloud.instance_type Standard_D2s_v5
expect cloud.source metadata
ok

# 2. The server refuses a request without its provider's headers: the client asking as
# another provider gets the refusal (so the header checks above can fail), one warning.
CASE="gce service refuses azure's request"
serve gce
client --set cloud.provider=azure
expect cloud.provider azure
expect cloud.source --set
expect_warning "HTTP 403"
ok
CASE="aws service refuses a GET without a token"
serve aws
client --set cloud.provider=openstack
expect_warning "HTTP 401"
ok

# 3. 404, a hang past the budget, garbage, nothing listening: one warning each, the type
# unknown, the source DMI's.
for spec in "404 azure HTTP 404" "hang gce timed out" "garbage-raw azure garbage: GET" \
	"garbage-body gce garbage: the answer is not an instance type"; do
	# shellcheck disable=SC2086 # the words of one case
	set -- $spec
	mode=$1 fixture=$2
	shift 2
	CASE="$mode"
	serve "$mode"
	client --dmi-of "$FIX/$fixture"
	expect cloud.source dmi
	expect_warning "$*"
	expect_requests 1
	ok
done
CASE="nothing listening"
stop_server
client --dmi-of "$FIX/azure"
expect_warning "Connection refused"
ok

# 4. Nothing sent: --no-metadata, a type DMI gives, a cloud without a client, PEAKBENCH_CLOUD.
serve aws
CASE="--no-metadata"
client --dmi-of "$FIX/azure" --no-metadata
expect cloud.instance_type unknown
expect_requests 0
ok
CASE="--no-metadata through --set"
client --set cloud.provider=aws --no-metadata
expect_requests 0
ok
CASE="type in DMI (AWS Nitro)"
client --dmi-of "$FIX/aws-nitro"
expect cloud.instance_type m5.large
expect cloud.source dmi
expect_requests 0
ok
CASE="no client for hetzner"
client --dmi-of "$FIX/hetzner"
expect cloud.provider hetzner
expect_requests 0
ok
CASE="PEAKBENCH_CLOUD handed down"
PEAKBENCH_CLOUD=aws,,dmi client --set cloud.provider=aws
expect cloud.provider aws
expect_requests 0
ok

# 5. This machine, as it is, through peakinfo: its DMI names no cloud, so nothing is sent;
# named by --set, peakinfo asks once and says so in its context.
if [ "$live_provider" != unknown ]; then
	echo "SKIP (part): this machine's DMI names $live_provider: the no-cloud case needs one that names none"
else
	CASE="DMI names no cloud: nothing sent"
	client
	expect cloud.provider unknown
	expect_requests 0
	ip netns exec "$ns" "$PEAKINFO" --caches --format json --output "$tmp/pi.json" --quiet \
		2>"$tmp/out" || fail "peakinfo --caches failed"
	grep -q '"cloud.provider":[[:space:]]*"unknown"' "$tmp/pi.json" || fail "$CASE: peakinfo's cloud.provider"
	expect_requests 0
	ok
	CASE="peakinfo --set cloud.provider=aws asks once"
	ip netns exec "$ns" "$PEAKINFO" --caches --set cloud.provider=aws --format json \
		--output "$tmp/pi.json" --quiet 2>"$tmp/out" || fail "peakinfo --set failed"
	grep -q '"cloud.instance_type":[[:space:]]*"m5.large"' "$tmp/pi.json" || fail "$CASE: no m5.large in $(grep cloud "$tmp/pi.json")"
	grep -q '"cloud.source":[[:space:]]*"metadata"' "$tmp/pi.json" || fail "$CASE: source"
	expect_requests 2
	ok
	CASE="peakinfo: a 404 is one item of the context's warnings"
	serve 404
	ip netns exec "$ns" "$PEAKINFO" --caches --set cloud.provider=azure --format json \
		--output "$tmp/pi.json" --quiet 2>"$tmp/out" || fail "peakinfo --set failed"
	python3 - "$tmp/pi.json" <<'PY' || fail "$CASE"
import json, sys
c = json.load(open(sys.argv[1]))["context"]
items = [w for w in c.get("warnings", "").split(";") if "metadata" in w or "instance type" in w]
assert len(items) == 1 and "HTTP 404" in items[0], items
assert c["cloud.provider"] == "azure" and c["cloud.instance_type"] == "unknown", c
assert c["cloud.source"] == "--set", c["cloud.source"]
PY
	expect_requests 1
	ok
fi
echo "all metadata client cases passed"
