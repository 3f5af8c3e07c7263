# Helpers of the tools' tests (sourced; $work and $here set): start, fail,
# expect_fail, png, finish.
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# need_tools TOOL...: exit 77 (ctest: skipped) naming what is missing.
need_tools() {
	for t; do
		command -v "$t" >/dev/null 2>&1 || {
			echo "SKIP: $t is not installed (bash scripts/deps.sh installs gnuplot-nox, parallel and jq)"
			exit 77
		}
	done
}
# start TOOL...: skip without the tools, then a fresh $work.
start() {
	need_tools "$@"
	rm -rf "$work" && mkdir -p "$work"
}
# expect_fail STATUS REGEX CMD...: CMD exits with STATUS and its stderr matches REGEX.
expect_fail() {
	want=$1 re=$2
	shift 2
	set +e
	"$@" >"$work/out" 2>"$work/err"
	st=$?
	set -e
	if [ "$st" -ne "$want" ]; then
		fail "$* exited $st, not $want: $(cat "$work/err")"
	elif ! grep -Eq -- "$re" "$work/err"; then
		fail "$*: stderr does not match '$re': $(cat "$work/err")"
	else
		echo "ok: exit $st: $(head -n 1 "$work/err")"
	fi
}
# png FILE: the checks of png_check.sh, counted as a failure here.
png() {
	sh "$here/png_check.sh" "$@" || fail "$1 is not a good plot"
}
finish() {
	if [ "$fails" -eq 0 ]; then
		echo "$1: all cases passed"
	else
		echo "$1: $fails failed"
		exit 1
	fi
}
