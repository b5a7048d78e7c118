#!/bin/sh
# Each cloud's DMI fixture (tests/fixtures/cloud) through peakinfo --caches --root (the
# context without the CPU probe): the context's
# cloud.provider, cloud.instance_type and cloud.source; a --root tree is never asked about
# over the network, and --set cloud.instance_type wins with source --set.
# Usage: cloud_fixtures.sh PEAKINFO FIXTURES_DIR
set -u
PI=$1 FIX=$2/cloud
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
check() { # FIXTURE PROVIDER TYPE SOURCE [peakinfo args...]
	fx=$1 p=$2 t=$3 s=$4
	shift 4
	if ! "$PI" --caches --root "$FIX/$fx" --format json --output "$tmp/out.json" --quiet "$@" \
		2>"$tmp/err"; then
		echo "FAIL: peakinfo --root $fx $* failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	got=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["context"]
print(c["cloud.provider"], c["cloud.instance_type"], c["cloud.source"])' "$tmp/out.json")
	if [ "$got" != "$p $t $s" ]; then
		echo "FAIL: $fx $*: got '$got', expected '$p $t $s'" >&2
		exit 1
	fi
	echo "ok: $fx $*: $got"
}
check aws-nitro aws m5.large dmi --no-metadata
check aws-xen aws unknown dmi
check azure azure unknown dmi
check gce gce unknown dmi --no-metadata
check openstack-nova openstack unknown dmi
check openstack-compute openstack unknown dmi
check openstack-asset-tag openstack unknown dmi
check oracle oracle unknown dmi
check alibaba alibaba unknown dmi
check hetzner hetzner unknown dmi
check digitalocean digitalocean unknown dmi
check bare-metal unknown unknown unknown
check plain-kvm unknown unknown unknown
check no-dmi unknown unknown unknown
check azure azure Standard_D2s_v5 --set --set cloud.instance_type=Standard_D2s_v5
check no-dmi aws m5.large --set --set cloud.provider=aws --set cloud.instance_type=m5.large
