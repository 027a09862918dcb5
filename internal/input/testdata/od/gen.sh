#!/bin/sh
# Writes od's and hexdump's dumps of testdata/dumps/frame.bin (41 bytes:
# an odd length, so the word dumps pad their last word) and zeros.bin
# (72 bytes, with a '*' line), in every address radix, for od_test.go.
# Run from this folder with GNU coreutils od and util-linux hexdump on a
# little-endian machine (the word dumps print words in the host's order).
set -e
d=../../../../testdata/dumps
for f in frame zeros; do
	od -t x1 "$d/$f.bin" > "$f.od-t-x1"
	od -A d -t x1 "$d/$f.bin" > "$f.od-Ad-t-x1"
	od -A x -t x1 "$d/$f.bin" > "$f.od-Ax-t-x1"
	od -A n -t x1 "$d/$f.bin" > "$f.od-An-t-x1"
	od -t x1z "$d/$f.bin" > "$f.od-t-x1z"
	od -x "$d/$f.bin" > "$f.od-x"
	od -A d -x "$d/$f.bin" > "$f.od-Ad-x"
	od -A x -x "$d/$f.bin" > "$f.od-Ax-x"
	hexdump "$d/$f.bin" > "$f.hexdump"
	hexdump -x "$d/$f.bin" > "$f.hexdump-x"
	# 8 bytes a line: a step of 8 reads the same in hex and decimal
	od -A d -t x1 -w8 "$d/$f.bin" > "$f.od-Ad-t-x1-w8"
	od -t x1 -w8 "$d/$f.bin" > "$f.od-t-x1-w8"
done
