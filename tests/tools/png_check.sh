#!/bin/sh
# png_check.sh FILE [MIN_WIDTH MIN_HEIGHT]: FILE is a PNG (its signature and
# IHDR chunk), at least MIN_WIDTH x MIN_HEIGHT pixels, and not blank: gnuplot
# itself reads the image back (binary filetype=png, every pixel as a table
# row) and the pixels must have more than one colour, some of them not grey
# (a plot's lines and bars are drawn in colour; a blank image or axes alone
# fail). Prints "PNG OK W x H, N colours" or what is wrong, exit 1.
set -eu
f=$1 minw=${2:-1} minh=${3:-1}
[ -s "$f" ] || { echo "PNG FAIL: $f: missing or empty"; exit 1; }
sig=$(od -An -tx1 -N 8 "$f" | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ] || { echo "PNG FAIL: $f: no PNG signature ($sig)"; exit 1; }
ihdr=$(od -An -c -j 12 -N 4 "$f" | tr -d ' \n')
[ "$ihdr" = IHDR ] || { echo "PNG FAIL: $f: no IHDR chunk first ($ihdr)"; exit 1; }
w=$(od -An -tu1 -j 16 -N 4 "$f" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
h=$(od -An -tu1 -j 20 -N 4 "$f" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
[ "$w" -ge "$minw" ] && [ "$h" -ge "$minh" ] ||
	{ echo "PNG FAIL: $f: $w x $h, smaller than $minw x $minh"; exit 1; }
fn=$(printf '%s' "$f" | sed "s/'/''/g")
gnuplot -e "set table '/dev/stdout'; plot '$fn' binary filetype=png with rgbimage" 2>/dev/null |
	awk -v f="$f" -v w="$w" -v h="$h" '$NF == "i" { n++; c[$3 " " $4 " " $5] = 1; if ($3 != $4 || $4 != $5) col++ }
	END {
		k = 0; for (x in c) k++
		if (n != w * h) { printf "PNG FAIL: %s: gnuplot read %d pixels, the header says %d x %d\n", f, n, w, h; exit 1 }
		if (k < 2) { printf "PNG FAIL: %s: blank (one colour)\n", f; exit 1 }
		if (col < 50) { printf "PNG FAIL: %s: %d colours, all grey: nothing drawn in colour\n", f, k; exit 1 }
		printf "PNG OK %s: %d x %d, %d colours\n", f, w, h, k }'
