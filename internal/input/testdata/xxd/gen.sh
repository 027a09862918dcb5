#!/bin/sh
# Writes xxd's dumps of testdata/dumps/frame.bin (41 bytes: its last line
# has a short group), all.bin (every byte value: its first lines' ASCII
# columns all dots) and zeros.bin, little-endian (-e) and big-endian
# grouped, and od's and hexdump's character dumps (-c), for
# xxd_test.go; and tail.bin, whose last line's ASCII column starts with
# what reads as hex. Run from this folder with xxd 2022-01-14, GNU
# coreutils od and util-linux hexdump.
set -e
d=../../../../testdata/dumps
printf '\000\000\000\024\000\022\000\003\000\000\000\001\000\002\000\000ab  cdef' > tail.bin
for f in "$d/frame.bin" "$d/all.bin" "$d/zeros.bin" tail.bin; do
	n=$(basename "$f" .bin)
	xxd "$f" > "$n.xxd"
	xxd -g1 "$f" > "$n.xxd-g1"
	xxd -g4 "$f" > "$n.xxd-g4"
	xxd -g8 "$f" > "$n.xxd-g8"
	xxd -c32 -g4 "$f" > "$n.xxd-c32-g4"
	xxd -e "$f" > "$n.xxd-e"
	xxd -e -g8 "$f" > "$n.xxd-e-g8"
	xxd -e -g2 "$f" > "$n.xxd-e-g2"
	xxd -e -c8 "$f" > "$n.xxd-e-c8"
	od -c "$f" > "$n.od-c"
	od -A n -c "$f" > "$n.od-An-c"
	od -A x -t cz "$f" > "$n.od-Ax-t-cz"
	hexdump -c "$f" > "$n.hexdump-c"
done
