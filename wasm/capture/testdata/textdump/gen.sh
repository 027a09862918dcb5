#!/bin/sh
# Writes the text dumps in this folder from testdata/captures: tshark -x
# of each capture (no times), and tshark -t ad -P -x of kafka.pcap (dated
# times on each packet's summary line). Run from this folder:
#
#	sh gen.sh
#
# (tshark 4.0.17, Debian 12's, wrote the committed files.)
set -e
caps=../../../../testdata/captures
for c in kafka.pcap kafka-ipv6-null.pcapng kafkajs-clients.pcapng; do
	TZ=UTC tshark -r "$caps/$c" -x > "$c.tshark-x.txt"
done
TZ=UTC tshark -r "$caps/kafka.pcap" -t ad -P -x > kafka.pcap.tshark-P-x.txt
