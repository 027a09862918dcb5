#!/bin/sh
# Writes the tshark -x dumps of this folder and, for every dump, the TCP
# payload tshark finds in its packet (payloads.txt: file, then hex). Run
# from the repository's root with tshark 4 on the PATH; any.pcapng is a
# capture on Linux's "any" device (Linux cooked v1), not kept here.
set -e
d=internal/input/testdata/packets
c=testdata/captures
one() { # capture frame-number file
	tshark -r "$1" -x -Y "frame.number==$2" > "$d/$3"
	printf '%s %s\n' "$3" "$(tshark -r "$1" -Y "frame.number==$2" -T fields -e tcp.payload)" >> "$d/payloads.txt"
}
: > "$d/payloads.txt"
one $c/kfake-clients.pcapng 4 kfake-4.tshark-x
one $c/kfake-clients.pcapng 6 kfake-6.tshark-x
one $c/kafka-ipv6-null.pcapng 4 ipv6-null-4.tshark-x
one $c/kafka.pcap 5 kafka-5.tshark-x
one "${ANY:-any.pcapng}" 4 sll-4.tshark-x
# p8.*: one Produce v4 request (rdkafka, acks 1, no topics) to port
# 19092, printed by tcpdump -X (from its IP header), tshark -x (a loopback
# capture: Ethernet with zero addresses) and Wireshark's Copy as Hex Dump
# (Ethernet); their payload is the same.
printf 'p8.tcpdump-X %s\n' 000000190003000400000002000772646b61666b610000000100017401 >> "$d/payloads.txt"
