#!/bin/sh
# Writes the followed streams of this folder: tshark -z follow of the
# repository's sample captures, as hex and as YAML. Run from the
# repository's root with tshark 4 on the PATH.
set -e
d=internal/input/testdata/follow
c=testdata/captures
tshark -r $c/kafka-ipv6-null.pcapng -q -z follow,tcp,hex,0 > $d/ipv6-null.hex
tshark -r $c/kafka-ipv6-null.pcapng -q -z follow,tcp,yaml,0 > $d/ipv6-null.yaml
tshark -r $c/kafkajs-clients.pcapng -q -z follow,tcp,hex,1 -z follow,tcp,hex,2 > $d/kafkajs-1-2.hex
tshark -r $c/kafkajs-clients.pcapng -q -z follow,tcp,yaml,1 > $d/kafkajs-1.yaml
