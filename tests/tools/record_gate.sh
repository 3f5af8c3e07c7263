#!/bin/sh
# record.sh's gate: the recording test changes the machine, so it runs only
# with SWS_TEST_RECORD=1. record.sh runs here against a stand-in for
# swapsim-record that records nothing and leaves a mark when called: without
# the variable (unset, empty, 0 or yes) record.sh must skip (exit 77) before
# calling it; with SWS_TEST_RECORD=1 it calls the stand-in's --preflight, which
# says this machine cannot record, and skips after that.
# Usage: record_gate.sh RECORD-SH WORKDIR
set -eu
record_sh=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
rm -rf "$work" && mkdir -p "$work/bin"
cat >"$work/bin/swapsim-record" <<STUB
#!/bin/sh
echo "\$*" >>"$work/called"
echo "swapsim-record (stand-in): cannot record: a test's stand-in" >&2
exit 1
STUB
chmod +x "$work/bin/swapsim-record"
# gate CASE VALUE|-: record.sh's exit status and whether it called swapsim-record.
gate() {
	rm -f "$work/called"
	set +e
	if [ "$2" = - ]; then
		env -u SWS_TEST_RECORD sh "$record_sh" "$work/bin" /bin/true "$work/rec" >"$work/out" 2>&1
	else
		SWS_TEST_RECORD=$2 sh "$record_sh" "$work/bin" /bin/true "$work/rec" >"$work/out" 2>&1
	fi
	st=$?
	set -e
	called=no
	[ ! -e "$work/called" ] || called=$(cat "$work/called")
}
for v in - '' 0 yes; do
	gate "SWS_TEST_RECORD=$v" "$v"
	if [ $st = 77 ] && [ "$called" = no ] && grep -q "SWS_TEST_RECORD=1 runs them" "$work/out"; then
		echo "ok: SWS_TEST_RECORD ${v:-(empty)}: skipped, nothing called"
	else
		fail "SWS_TEST_RECORD ${v:-(empty)}: exit $st, swapsim-record called: $called: $(head -n 2 "$work/out")"
	fi
done
gate "SWS_TEST_RECORD=1" 1
if [ $st = 77 ] && [ "$called" = --preflight ] && grep -q "this machine cannot record" "$work/out"; then
	echo "ok: SWS_TEST_RECORD=1: asked swapsim-record --preflight, skipped on its answer"
else
	fail "SWS_TEST_RECORD=1: exit $st, swapsim-record called: $called: $(head -n 3 "$work/out")"
fi
finish "record gate"
