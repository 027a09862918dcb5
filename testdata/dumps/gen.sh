#!/bin/sh
# Regenerates the golden dump texts used by input_test.go. The tests do not
# run this script; its output is committed. Needs xxd, hexdump, od, base64
# and python3 (and, for the byte arrays at the end, go, java, rustc, node,
# erl, elixir and dlv). Run from this directory: sh gen.sh
#
# frame.bin is an ApiVersions v3 request frame (size 0x25 = 37, api key 18,
# version 3, correlation id 1, client id "kafka-cli", software name
# "kafka-cli", software version "0.1.0").
set -e
printf '0000002500120003000000010009%s' \
  '6b61666b612d636c69000a6b61666b612d636c6906302e312e3000' | xxd -r -p > frame.bin
xxd -p frame.bin | tr -d '\n' > frame.hex          # plain hex stream
xxd frame.bin > frame.xxd                           # xxd
xxd -g1 frame.bin > frame.xxd-g1                    # xxd -g1
xxd -i < frame.bin > frame.xxd-i                    # xxd -i (C array body)
hexdump -C frame.bin > frame.hexdump-C              # hexdump -C
od -A x -t x1z frame.bin > frame.od                 # od -A x -t x1z
base64 frame.bin > frame.base64                     # base64
# A frame with runs of zeros, so hexdump/od/xxd -a print '*' lines.
{ printf '\000\000\000\104'; head -c 64 /dev/zero; printf 'kafka!!!'; } > zeros.bin
hexdump -C zeros.bin > zeros.hexdump-C
od -A x -t x1z zeros.bin > zeros.od
xxd -a zeros.bin > zeros.xxd-a
# Wireshark and tcpdump are not run here: these reproduce, byte for byte,
# Wireshark's "Copy > ...as Hex Dump" (ui/qt/utils/data_printer.cpp,
# DataPrinter::hexTextDump with showASCII) and the payload lines of
# tcpdump -X (print-ascii.c, hex_and_ascii_print_with_offset).
python3 - <<'PY'
data = open('frame.bin', 'rb').read()
def wireshark(b):
    out = []
    lines = (len(b) + 15) // 16
    for i in range(lines):
        chunk = b[i*16:i*16+16]
        s = '%04x  ' % (i*16) + ''.join(' %02x' % c for c in chunk) + '   '
        if i == lines - 1:
            s += ' ' * ((16 - len(chunk)) * 3)
        s += ''.join(chr(c) if 0x20 <= c < 0x7f else '.' for c in chunk)
        out.append(s + '\n')
    return ''.join(out)
def tcpdump(b):
    out = []
    for i in range(0, len(b), 16):
        chunk = b[i:i+16]
        hx = ''
        for j in range(0, len(chunk) - 1, 2):
            hx += ' %02x%02x' % (chunk[j], chunk[j+1])
        if len(chunk) % 2:
            hx += ' %02x' % chunk[-1]
        asc = ''.join(chr(c) if 0x21 <= c < 0x7f else '.' for c in chunk)
        out.append('\t0x%04x: %-40s  %s\n' % (i, hx, asc))
    return ''.join(out)
open('frame.wireshark', 'w').write(wireshark(data))
open('frame.tcpdump', 'w').write(tcpdump(data))
PY
# Byte arrays as programs print them, in decimal (and node's Buffer in
# hex): frame.bin, and every byte value (all.bin), which shows signed
# bytes (Java) and node's cut after 100 items. Needs go, java, rustc and
# node too.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)))' > all.bin
tmp=$(mktemp -d)
cat > "$tmp/p.go" <<'GO'
package main

import (
	"fmt"
	"os"
)

func main() { b, _ := os.ReadFile(os.Args[1]); fmt.Println(b) }
GO
cat > "$tmp/P.java" <<'JAVA'
public class P {
    public static void main(String[] a) throws Exception {
        System.out.println(java.util.Arrays.toString(java.nio.file.Files.readAllBytes(java.nio.file.Path.of(a[0]))));
    }
}
JAVA
cat > "$tmp/p.rs" <<'RS'
fn main() { let b = std::fs::read(std::env::args().nth(1).unwrap()).unwrap(); println!("{:?}", b); }
RS
rustc -o "$tmp/rs" "$tmp/p.rs"
mkdir "$tmp/dlv"
printf 'module p\n\ngo 1.26\n' > "$tmp/dlv/go.mod"
cat > "$tmp/dlv/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
)

func main() {
	b, _ := os.ReadFile(os.Args[1])
	fmt.Println(len(b)) // line 10
}
GO
for f in frame all; do
  go run "$tmp/p.go" $f.bin > $f.go-v                                   # Go: fmt.Println(b)
  python3 -c "import sys; print(list(open(sys.argv[1],'rb').read()))" $f.bin > $f.python-list
  java "$tmp/P.java" $f.bin > $f.java                                   # Java: Arrays.toString(b), signed
  "$tmp/rs" $f.bin > $f.rust                                            # Rust: {:?} of a Vec<u8>
  node -e "console.log(new Uint8Array(require('fs').readFileSync(process.argv[1])))" $f.bin > $f.node-u8
  node -e "console.log(require('fs').readFileSync(process.argv[1]))" $f.bin > $f.node-buffer
  od -A n -t u1 -v $f.bin > $f.od-u1
  python3 -c "import binascii, sys; print(binascii.hexlify(open(sys.argv[1],'rb').read()))" $f.bin > $f.python-hexlify
  python3 -c "import sys; print(bytearray(open(sys.argv[1],'rb').read()))" $f.bin > $f.python-bytearray
  node -e "console.log(JSON.stringify(require('fs').readFileSync(process.argv[1])))" $f.bin > $f.node-json
  erl -noshell -eval '{ok, B} = file:read_file("'$f'.bin"), io:format("~p~n", [B]), halt().' > $f.erlang
  elixir -e 'IO.inspect(File.read!("'$f'.bin"))' > $f.elixir             # cut after 50 values
  printf 'break main.go:10\ncontinue\nprint b\nexit\n' |                 # Delve: print b, cut after 64
    (cd "$tmp/dlv" && dlv debug --allow-non-terminal-interactive=true main.go -- "$OLDPWD/$f.bin") |
    grep '\[\]uint8' | sed 's/^(dlv) //' > $f.delve
done
rm -r "$tmp"
