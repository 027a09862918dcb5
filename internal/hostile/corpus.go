package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

func errAt(path string, off int) Expect { return Expect{ErrPath: path, ErrOffset: off} }

const (
	mib = 1 << 20
	// Offsets in a request frame: the size (4), then header v1 with client
	// id "hostile" (17 bytes); header v2 adds its tag count.
	body1 = 4 + 17
	body2 = body1 + 1
)

// tinyMessages is n magic-0 messages of 26 bytes, key and value null.
func tinyMessages(n int) []byte { return repeat(message(0, 0, 0, nil, nil), n) }

// emptyBatch is a record batch of no records: 61 bytes.
var emptyBatch = batch(0, 0, 0, nil)

// controlKey is a control record's key: version 0 and the type.
func controlKey(typ int16) []byte { return be16(be16(nil, 0), typ) }

// leaderChange is a control record value: a LeaderChangeMessage v0
// (flexible), which Kafka writes with no version before it, with voters
// voters and the given tagged-field section.
func leaderChange(voters int, tags []byte) []byte {
	v := be16(nil, 0) // LeaderChangeMessage.Version (the value is the message alone)
	v = be32(v, 1)    // LeaderId
	v = uvar(v, uint64(voters)+1)
	v = append(v, repeat([]byte{0, 0, 0, 1, 0}, voters)...) // VoterId 1, no tags
	v = uvar(v, 1)                                          // GrantingVoters: empty
	if tags == nil {
		tags = []byte{0}
	}
	return append(v, tags...)
}

// zeroTags is a tagged-field section of n fields, each tag 0 of size 0:
// unknown, and out of order from the second on.
func zeroTags(n int) []byte { return append(uvar(nil, uint64(n)), make([]byte, 2*n)...) }

// ascendingTags is a tagged-field section of n unknown fields, tags 0..n-1,
// each of size 0.
func ascendingTags(n int) []byte {
	b := uvar(nil, uint64(n))
	for i := 0; i < n; i++ {
		b = uvar(b, uint64(i))
		b = append(b, 0)
	}
	return b
}

// apiVersions3 is an ApiVersions v3 request whose body ends with tags
// (software name "kwire", version "1").
func apiVersions3(tags []byte) []byte {
	b := cstr(nil, "kwire")
	b = cstr(b, "1")
	return request(18, 3, true, append(b, tags...))
}

// nestedWrappers is a magic-0 message nested depth wrappers deep, each a
// snappy-compressed message set of one message.
func nestedWrappers(depth int) []byte {
	m := message(0, 0, 0, nil, []byte("x"))
	for i := 0; i < depth; i++ {
		m = message(0, 0, codecSnappy, nil, snappyRaw(m))
	}
	return m
}

// metadataV0NoSize is a Metadata v0 request of no topics without its size
// prefix: 14 bytes (the client id is empty).
func metadataV0NoSize() []byte {
	b := be16(nil, 3)
	b = be16(b, 0)
	b = be32(b, 7)
	b = str16(b, "")
	return be32(b, 0) // topics: none
}

func corpus() []Entry { return append(protocolCorpus(), storageCorpus()...) }

// protocolCorpus is the frames and captures of the corpus.
func protocolCorpus() []Entry {
	sevenMiBRecords := func() []byte { return repeat(tinyRecord, 7*mib/7) }
	const tinyRecords = 7 * mib / 7
	return append([]Entry{
		// Decompression bombs, one per codec and framing.
		{Name: "bomb-gzip-batch.bin", Mode: Request, Attacks: "Produce v3, a gzip record batch inflating to 80 MiB of zeros (one deflate stream)",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecGzip, 0, 1, gzLevel(make([]byte, 80*mib), 1))) }},
		{Name: "bomb-gzip-nested.bin", Mode: Request, Attacks: "Produce v2, a magic-1 gzip wrapper holding a gzip wrapper that inflates to 1 GiB of zeros",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen: func() []byte {
				inner := message(1, 0, codecGzip, nil, gzZeros(1024))
				return produce(2, message(1, 0, codecGzip, nil, gz(inner)))
			}},
		{Name: "bomb-snappy-raw-declared.bin", Mode: Request, Attacks: "Produce v3, a snappy batch whose raw block declares 1 GiB (snappy cannot make that from 3 bytes)",
			Expect: Expect{Warning: "snappy|MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecSnappy, 0, 1, snappyDeclared(1<<30))) }},
		{Name: "bomb-snappy-xerial-declared.bin", Mode: Request, Attacks: "Produce v3, a xerial-framed snappy batch whose chunk declares 1 GiB (snappy cannot make that from 3 bytes)",
			Expect: Expect{Warning: "snappy|MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecSnappy, 0, 1, xerial(snappyDeclared(1<<30)))) }},
		{Name: "flood-snappy-declared.bin", Mode: Request, Attacks: "Produce v3, 64 partitions, each a snappy batch declaring 60 MiB and holding 2 bytes (allocation by declared size)",
			Expect: Expect{Warning: "snappy|MaxDecompressed"},
			gen: func() []byte {
				return produce(3, repeatSlices(batch(codecSnappy, 0, 1, snappyDeclared(60*mib)), 64)...)
			}},
		{Name: "flood-snappy-xerial-declared.bin", Mode: Request, Attacks: "Produce v3, 64 partitions, each a xerial snappy batch whose chunk declares 60 MiB and holds 2 bytes",
			Expect: Expect{Warning: "snappy|MaxDecompressed"},
			gen: func() []byte {
				return produce(3, repeatSlices(batch(codecSnappy, 0, 1, xerial(snappyDeclared(60*mib))), 64)...)
			}},
		{Name: "bomb-lz4-in-gzip.bin", Mode: Request, Attacks: "Produce v2, a magic-1 gzip wrapper holding an lz4 wrapper that inflates to 1 GiB of zeros",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen: func() []byte {
				inner := message(1, 0, codecLZ4, nil, lz4Zeros(256, false, -1))
				return produce(2, message(1, 0, codecGzip, nil, gz(inner)))
			}},
		{Name: "bomb-lz4-oldhc-in-gzip.bin", Mode: Request, Attacks: "Produce v0, a magic-0 gzip wrapper holding an lz4 wrapper with the pre-KIP-57 header checksum, inflating to 1 GiB",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen: func() []byte {
				inner := message(0, 0, codecLZ4, nil, lz4Zeros(256, true, -1))
				return produce(0, message(0, 0, codecGzip, nil, gz(inner)))
			}},
		{Name: "bomb-lz4-declared.bin", Mode: Request, Attacks: "Produce v3, an lz4 batch whose frame declares a content size of 1 GiB and holds one 20-byte record",
			Expect: Expect{Count: 2},
			gen: func() []byte {
				r := record(0, 0, []byte("k"), []byte("hostile"))
				return produce(3, batch(codecLZ4, 0, 1, lz4Literal(r, 1<<30)))
			}},
		{Name: "bomb-zstd-declared.bin", Mode: Request, Attacks: "Produce v3, a zstd batch whose frame declares 1 GiB and holds it (8192 RLE blocks)",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecZstd, 0, 1, zstdRLE(0, 8192, 1<<30))) }},
		{Name: "zstd-declared-impossible.bin", Mode: Request, Attacks: "Produce v3, a zstd batch whose frame declares 1 GiB and holds one 128 KiB RLE block",
			Expect: Expect{Warning: "zstd|MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecZstd, 0, 1, zstdRLE(0, 1, 1<<30))) }},
		{Name: "bomb-zstd-undeclared.bin", Mode: Request, Attacks: "Produce v3, a zstd batch of 8192 RLE blocks (1 GiB of zeros) with no declared size",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen:    func() []byte { return produce(3, batch(codecZstd, 0, 1, zstdRLE(0, 8192, -1))) }},
		{Name: "bomb-zstd-partitions.bin", Mode: Request, Attacks: "Produce v3, 16 partitions each a zstd batch of 60 MiB of zeros: under a per-field budget, 960 MiB in all",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen: func() []byte {
				return produce(3, repeatSlices(batch(codecZstd, 0, 1, zstdRLE(0, 480, -1)), 16)...)
			}},

		// Floods of tiny records and messages under the decompression limit.
		{Name: "flood-zstd-messages-v0.bin", Mode: Request, Attacks: "Produce v0, a zstd message set of 500,000 tiny magic-0 messages (13 MB inflated)",
			Expect: Expect{Count: 500_001},
			gen: func() []byte {
				return produce(0, message(0, 0, codecZstd, nil, zstBest(tinyMessages(500_000))))
			}},
		{Name: "flood-gzip-messages.bin", Mode: Request, Attacks: "Produce v2, a gzip message set of 1,850,400 small magic-1 messages (60 MiB inflated, 60 gzip members)",
			Expect: Expect{Count: 1 + 60*30840},
			gen: func() []byte {
				// 30840 messages of 34 bytes make a member of just under 1 MiB.
				set := gzRepeat(repeat(message(1, 0, 0, nil, nil), 30840), 60)
				return produce(2, message(1, 60*30840-1, codecGzip, nil, set))
			}},
		{Name: "flood-empty-batches-in-gzip.bin", Mode: Request, Attacks: "Produce v0, a magic-0 gzip wrapper holding 60 MiB of empty record batches (1,031,400 of them, 60 gzip members)",
			Expect: Expect{Count: 1 + 60*17190},
			gen: func() []byte {
				// 17190 batches of 61 bytes make a member of just over 1 MiB.
				return produce(0, message(0, 0, codecGzip, nil, gzRepeat(repeat(emptyBatch, 17190), 60)))
			}},
		{Name: "flood-gzip-tiny-records.bin", Mode: Request, Attacks: "Produce v3, a gzip batch of 7 MiB of 7-byte records (1,048,576 records)",
			Expect: Expect{Count: 1 + tinyRecords},
			gen: func() []byte {
				return produce(3, batch(codecGzip, tinyRecords-1, tinyRecords, gz(sevenMiBRecords())))
			}},
		{Name: "flood-zstd-records-partitions.bin", Mode: Request, Attacks: "Produce v3, 32 partitions each a zstd batch of 1,048,576 7-byte records: under a per-field budget, 33 million records",
			Expect: Expect{Count: 32 * (1 + tinyRecords)},
			gen: func() []byte {
				return produce(3, repeatSlices(batch(codecZstd, tinyRecords-1, tinyRecords, zst(sevenMiBRecords())), 32)...)
			}},
		{Name: "flood-zstd-messages-1mib.bin", Mode: Request, Attacks: "Produce v0, a zstd message set of 38,000 tiny magic-0 messages (988,000 bytes inflated: under a 1 MiB budget)",
			Expect: Expect{Count: 38_001},
			gen: func() []byte {
				return produce(0, message(0, 0, codecZstd, nil, zst(tinyMessages(38_000))))
			}},
		{Name: "flood-zstd-records-1mib.bin", Mode: Request, Attacks: "Produce v3, a zstd batch of 140,000 7-byte records (980,000 bytes inflated: under a 1 MiB budget)",
			Expect: Expect{Count: 140_001},
			gen: func() []byte {
				return produce(3, batch(codecZstd, 140_000-1, 140_000, zst(repeat(tinyRecord, 140_000))))
			}},
		{Name: "guess-fetch-flood.bin", Mode: Auto, Attacks: "a Fetch v7 response (no hints: guessed) of 8 partitions, each a zstd batch of 1,048,576 7-byte records; every candidate reading decompresses it",
			Expect: Expect{Guessed: true, Count: 8 * (1 + tinyRecords)},
			gen: func() []byte {
				return fetchResponse7(repeatSlices(batch(codecZstd, tinyRecords-1, tinyRecords, zst(sevenMiBRecords())), 8)...)
			}},
		{Name: "nested-wrappers-1000.bin", Mode: Request, Attacks: "Produce v0, magic-0 snappy wrappers nested 1,000 deep",
			Expect: Expect{Limit: "MaxRecordNesting"},
			gen:    func() []byte { return produce(0, nestedWrappers(1000)) }},

		// KRaft control records.
		{Name: "kraft-voters-count-max.bin", Mode: Request, Attacks: "Produce v3, a control batch whose KRAFT_VOTERS record declares 4,294,967,294 voters",
			Expect: Expect{Warning: "VotersRecord"},
			gen: func() []byte {
				v := be16(be16(nil, 0), 0)
				v = append(v, 0xff, 0xff, 0xff, 0xff, 0x0f)
				return produce(3, batch(attrControl, 0, 1, record(0, 0, controlKey(6), v)))
			}},
		{Name: "kraft-leaderchange-flood.bin", Mode: Request, Attacks: "Produce v3, a zstd control batch of 9 LEADER_CHANGE records of 1,300,000 voters each (58 MB inflated)",
			Expect: Expect{Count: 9 * 1_300_000, CountKey: "voterId"},
			gen:    func() []byte { return zstdControlBatch(9, record(0, 0, controlKey(2), leaderChange(1_300_000, nil))) }},
		{Name: "kraft-tag-flood.bin", Mode: Request, Attacks: "Produce v3, a zstd control batch of 30 LEADER_CHANGE records, each with 1,000,000 unknown, out-of-order tagged fields (60 MB inflated: past the 32 MiB default)",
			Expect: Expect{Limit: "MaxDecompressed"},
			gen: func() []byte {
				return zstdControlBatch(30, record(0, 0, controlKey(2), leaderChange(0, zeroTags(1_000_000))))
			}},
		{Name: "kraft-tag-flood-in-budget.bin", Mode: Request, Attacks: "Produce v3, a zstd control batch of 900 LEADER_CHANGE records, each with 1,000 unknown, out-of-order tagged fields (1.8 MB inflated: within every build's decompression budget, the Worker's 2 MiB too, so the tags are read until MaxNodes, which counts warnings, stops them)",
			Expect: Expect{Warning: "unknown tag|out of order", Limit: "MaxNodes"},
			gen: func() []byte {
				return zstdControlBatch(900, record(0, 0, controlKey(2), leaderChange(0, zeroTags(1_000))))
			}},

		// Consumer-protocol metadata.
		// Kafka's internal topics: records the walk reads through their schemas.
		{Name: "internal-group-members-count-max.bin", Mode: Request, Attacks: "Produce v3 to __consumer_offsets, a GroupMetadataValue declaring 2,147,483,647 members",
			Expect: Expect{Warning: "GroupMetadataValue"},
			gen: func() []byte {
				k := str16(be16(nil, 2), "g") // GroupMetadataKey: type 2, then the group
				v := be16(nil, 3)             // GroupMetadataValue v3
				v = str16(v, "consumer")
				v = be32(v, 1)
				v = str16(v, "range")
				v = str16(v, "l")
				v = be64(v, 0)
				v = be32(v, math.MaxInt32)
				return produceTo(3, "__consumer_offsets", batch(0, 0, 1, record(0, 0, k, v)))
			}},
		{Name: "internal-metadata-flood.bin", Mode: Request, Attacks: "Produce v3 to __cluster_metadata, a zstd batch of 600,000 TopicRecords (19 MB inflated), each decoded through its schema",
			Expect: Expect{Count: 600_000, CountKey: "decoded"},
			gen: func() []byte {
				v := []byte{1, 2, 0} // frame version 1, apiKey 2 (TopicRecord), version 0
				v = cstr(v, "t")
				v = append(v, repeat([]byte{7}, 16)...) // topicId
				v = append(v, 0)                        // tags
				rec := record(0, 0, nil, v)
				return produceTo(3, "__cluster_metadata", batch(codecZstd, 599_999, 600_000, zst(repeat(rec, 600_000))))
			}},
		{Name: "consumer-subscription-count-max.bin", Mode: Request, Attacks: "JoinGroup v5, consumer protocol metadata declaring 2,147,483,647 topics",
			Expect: Expect{Warning: "ConsumerProtocolSubscription"},
			gen: func() []byte {
				b := str16(nil, "g")
				b = be32(b, 30000)
				b = be32(b, 60000)
				b = str16(b, "")
				b = be16(b, -1) // groupInstanceId
				b = str16(b, "consumer")
				b = be32(b, 1)
				b = str16(b, "range")
				b = bytes32(b, be32(be16(nil, 0), math.MaxInt32))
				return request(11, 5, false, b)
			}},
		{Name: "consumer-assignment-count-max.bin", Mode: Request, Attacks: "SyncGroup v5, a consumer protocol assignment declaring 2,147,483,647 partitions",
			Expect: Expect{Warning: "ConsumerProtocolAssignment"},
			gen: func() []byte {
				b := cstr(nil, "g")
				b = be32(b, 1)
				b = cstr(b, "m")
				b = append(b, 0) // groupInstanceId: null
				b = cstr(b, "consumer")
				b = cstr(b, "range")
				b = uvar(b, 2)
				b = cstr(b, "m")
				a := be32(be16(nil, 0), math.MaxInt32)
				b = append(uvar(b, uint64(len(a))+1), a...)
				b = append(b, 0, 0) // element tags, body tags
				return request(14, 5, true, b)
			}},

		// Counts and lengths at their maximum, at every level.
		{Name: "array-count-max.bin", Mode: Request, Attacks: "Metadata v0, a topics array declaring 2,147,483,647 elements",
			Expect: errAt("body.topics", body1),
			gen:    func() []byte { return request(3, 0, false, be32(nil, math.MaxInt32)) }},
		{Name: "array-count-negative.bin", Mode: Request, Attacks: "Metadata v0, a topics array declaring -2 elements",
			Expect: errAt("body.topics", body1),
			gen:    func() []byte { return request(3, 0, false, be32(nil, -2)) }},
		{Name: "compact-array-count-max.bin", Mode: Request, Attacks: "Metadata v9, a compact topics array declaring 4,294,967,294 elements (the widest uvarint)",
			Expect: errAt("body.topics", body2),
			gen:    func() []byte { return request(3, 9, true, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}) }},
		{Name: "varint-overlong.bin", Mode: Request, Attacks: "Metadata v9, a compact array count written in 6 bytes (longer than any uvarint)",
			Expect: errAt("body.topics", body2),
			gen:    func() []byte { return request(3, 9, true, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}) }},
		{Name: "string-length-max.bin", Mode: Request, Attacks: "Metadata v1, a topic name declaring 32,767 bytes",
			Expect: errAt("body.topics[0].name", body1+4),
			gen:    func() []byte { return request(3, 1, false, be16(be32(nil, 1), math.MaxInt16)) }},
		{Name: "compact-string-length-max.bin", Mode: Request, Attacks: "Metadata v9, a compact topic name declaring 4,294,967,293 bytes",
			Expect: errAt("body.topics[0].name", body2+1),
			gen:    func() []byte { return request(3, 9, true, []byte{0x02, 0xff, 0xff, 0xff, 0xff, 0x0f}) }},
		{Name: "bytes-length-max.bin", Mode: Request, Attacks: "SaslAuthenticate v0, authBytes declaring 2,147,483,647 bytes",
			Expect: errAt("body.authBytes", body1),
			gen:    func() []byte { return request(36, 0, false, be32(nil, math.MaxInt32)) }},
		{Name: "sasl-scram-extensions.bin", Mode: Request, Attacks: "SaslAuthenticate v0, a 60 KB SCRAM client-first message of 15,000 extensions",
			Expect: Expect{Clean: true, Count: 1, CountKey: "mechanism"},
			gen: func() []byte {
				m := append([]byte("n,,n=u,r=abc"), bytes.Repeat([]byte(",x=y"), 15000)...)
				return request(36, 0, false, append(be32(nil, int32(len(m))), m...))
			}},
		{Name: "sasl-commas.bin", Mode: Request, Attacks: "SaslAuthenticate v0, authBytes of a GS2 header then 60,000 commas (no SASL message)",
			Expect: Expect{Clean: true},
			gen: func() []byte {
				m := append([]byte("n,,"), bytes.Repeat([]byte(","), 60000)...)
				return request(36, 0, false, append(be32(nil, int32(len(m))), m...))
			}},
		{Name: "records-length-max.bin", Mode: Request, Attacks: "Produce v3, a records field declaring 2,147,483,647 bytes",
			Expect: errAt("body.topicData[0].partitionData[0].records", body1+2+2+4+4+3+4+4),
			gen: func() []byte {
				b := produce(3, nil)
				// produce wrote a null records field (-1): make it the maximum.
				copy(b[len(b)-4:], be32(nil, math.MaxInt32))
				return b
			}},
		{Name: "client-id-length-max.bin", Mode: Request, Attacks: "ApiVersions v0, a header client id declaring 32,767 bytes",
			Expect: errAt("header.clientId", 12),
			gen:    func() []byte { return clientIDDeclaring(math.MaxInt16) }},
		{Name: "client-id-length-negative.bin", Mode: Request, Attacks: "ApiVersions v0, a header client id declaring -2 bytes",
			Expect: errAt("header.clientId", 12),
			gen:    func() []byte { return clientIDDeclaring(-2) }},
		{Name: "tagged-count-max.bin", Mode: Request, Attacks: "ApiVersions v3, a body tag section declaring 4,294,967,295 fields",
			Expect: errAt("body*", body2+6+2),
			gen:    func() []byte { return apiVersions3([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}) }},
		{Name: "tagged-size-max.bin", Mode: Request, Attacks: "ApiVersions v3, one tagged field declaring 2,147,483,647 bytes",
			Expect: errAt("body*", -1),
			gen:    func() []byte { return apiVersions3([]byte{0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07}) }},
		{Name: "header-tagged-count-max.bin", Mode: Request, Attacks: "ApiVersions v3, a header tag section declaring 4,294,967,295 fields",
			Expect: errAt("header*", body2-1),
			gen: func() []byte {
				h := header1(18, 3, clientID)
				h = append(h, 0xff, 0xff, 0xff, 0xff, 0x0f)
				h = cstr(h, "kwire")
				h = cstr(h, "1")
				return sized(append(h, 0))
			}},
		{Name: "tag-flood.bin", Mode: Request, Attacks: "ApiVersions v3, 20,000 unknown tagged fields (a warning each)",
			Expect: Expect{Warning: "unknown tag"},
			gen:    func() []byte { return apiVersions3(ascendingTags(20_000)) }},

		// Record batches and records at their limits.
		{Name: "batch-length-max.bin", Mode: Request, Attacks: "Produce v3, a record batch declaring 2,147,483,647 bytes and holding its header only",
			Expect: Expect{Warning: "ends inside"},
			gen: func() []byte {
				b := batch(0, 0, 0, nil)
				copy(b[8:], be32(nil, math.MaxInt32))
				return produce(3, b)
			}},
		{Name: "record-count-max.bin", Mode: Request, Attacks: "Produce v3, a batch declaring 2,147,483,647 records and holding one",
			Expect: Expect{Warning: "recordCount"},
			gen:    func() []byte { return produce(3, batch(0, 0, math.MaxInt32, tinyRecord)) }},
		{Name: "record-length-max.bin", Mode: Request, Attacks: "Produce v3, a record declaring 2,147,483,647 bytes",
			Expect: Expect{Warning: "record length"},
			gen: func() []byte {
				r := zz(nil, math.MaxInt32)
				r = append(r, tinyRecord[1:]...)
				return produce(3, batch(0, 0, 1, r))
			}},
		{Name: "record-key-length-max.bin", Mode: Request, Attacks: "Produce v3, a record key declaring 2,147,483,647 bytes",
			Expect: Expect{Warning: "key length"},
			gen: func() []byte {
				in := []byte{0, 0, 0}
				in = zz(in, math.MaxInt32)
				in = append(in, 1, 0)
				return produce(3, batch(0, 0, 1, append(zz(nil, int64(len(in))), in...)))
			}},
		{Name: "record-header-count-max.bin", Mode: Request, Attacks: "Produce v3, a record declaring 2,147,483,647 headers",
			Expect: Expect{Warning: "header count"},
			gen: func() []byte {
				in := []byte{0, 0, 0, 1, 1}
				in = zz(in, math.MaxInt32)
				return produce(3, batch(0, 0, 1, append(zz(nil, int64(len(in))), in...)))
			}},
		{Name: "varint-widest-record.bin", Mode: Request, Attacks: "Produce v3, a record whose varints are at their widest canonical form (10-byte timestampDelta, 5-byte offsetDelta)",
			Expect: Expect{Clean: true, Count: 2},
			gen: func() []byte {
				return produce(3, batch(0, math.MaxInt32, 1, record(math.MinInt64, math.MaxInt32, []byte{}, []byte{})))
			}},
		{Name: "varint-nonminimal-record.bin", Mode: Request, Attacks: "Produce v3, a record whose length varint is written in 5 bytes",
			Expect: Expect{Warning: "non-minimal"},
			gen: func() []byte {
				r := append([]byte{0x8c, 0x80, 0x80, 0x80, 0x00}, tinyRecord[1:]...)
				return produce(3, batch(0, 0, 1, r))
			}},
		{Name: "varint-nonminimal-protocol.bin", Mode: Request, Attacks: "ApiVersions v3, a compact string length written non-minimally (87 00 for 7)",
			Expect: Expect{Warning: "non-minimal"},
			gen: func() []byte {
				b := append([]byte{0x87, 0x00}, "kwire!"...)
				b = cstr(b, "1")
				return request(18, 3, true, append(b, 0))
			}},
		{Name: "varint-nonminimal-tags.bin", Mode: Request, Attacks: "ApiVersions v3, a tag count written non-minimally (80 00 for 0)",
			Expect: Expect{Warning: "non-minimal"},
			gen:    func() []byte { return apiVersions3([]byte{0x80, 0x00}) }},

		// Size prefixes and headers.
		{Name: "size-negative.bin", Mode: Auto, SizeYes: true, Attacks: "a size prefix of -1 before a 14-byte Metadata v0 request",
			Expect: errAt("size", 0),
			gen:    func() []byte { return append(be32(nil, -1), metadataV0NoSize()...) }},
		{Name: "size-min-int.bin", Mode: Auto, SizeYes: true, Attacks: "a size prefix of -2,147,483,648 before a Metadata v0 request",
			Expect: errAt("size", 0),
			gen:    func() []byte { return append(be32(nil, math.MinInt32), metadataV0NoSize()...) }},
		{Name: "size-huge.bin", Mode: Auto, SizeYes: true, Attacks: "a size prefix of 2,147,483,647 before a 14-byte Metadata v0 request",
			Expect: errAt("size", 0),
			gen:    func() []byte { return append(be32(nil, math.MaxInt32), metadataV0NoSize()...) }},
		{Name: "size-stalled.bin", Mode: Auto, SizeYes: true, Attacks: "a size prefix of 67,108,864 (64 MiB, under Kafka's 100 MiB socket.request.max.bytes) before a 14-byte Metadata v0 request: a peer that declares a large frame and stalls (allocation by declared size)",
			Expect: errAt("size", 0),
			gen:    func() []byte { return append(be32(nil, 64<<20), metadataV0NoSize()...) }},
		{Name: "size-exceeds.bin", Mode: Auto, Attacks: "a size prefix of 100 before a 14-byte Metadata v0 request",
			Expect: errAt("size", 0),
			gen:    func() []byte { return append(be32(nil, 100), metadataV0NoSize()...) }},
		{Name: "size-short.bin", Mode: Auto, SizeYes: true, Attacks: "three bytes: too short for a size prefix",
			Expect: errAt("size", 0),
			gen:    func() []byte { return []byte{0, 0, 0} }},
		{Name: "size-zero.bin", Mode: Request, Attacks: "a size prefix of 0: no header",
			Expect: errAt("header.requestApiKey", 4),
			gen:    func() []byte { return be32(nil, 0) }},
		{Name: "header-key-only.bin", Mode: Request, Attacks: "a 2-byte request: an API key and nothing else",
			Expect: errAt("header.requestApiVersion", 6),
			gen:    func() []byte { return sized(be16(nil, 18)) }},
		{Name: "header-no-correlation.bin", Mode: Request, Attacks: "a 4-byte request: API key and version, no correlation id",
			Expect: errAt("header.correlationId", 8),
			gen:    func() []byte { return sized(be16(be16(nil, 18), 0)) }},
		{Name: "api-key-unknown.bin", Mode: Request, Attacks: "a request with API key 32,767",
			Expect: errAt("header.requestApiKey", 4),
			gen:    func() []byte { return sized(header1(math.MaxInt16, 0, clientID)) }},
		{Name: "api-version-negative.bin", Mode: Request, Attacks: "a Produce request with version -1",
			Expect: errAt("header.requestApiVersion", 6),
			gen:    func() []byte { return sized(header1(0, -1, clientID)) }},

		// Captures.
		{Name: "pcap-panic-106.pcap", Mode: Pcap, Attacks: "106-byte pcap: one TCP segment to port 9092 holding 000000080012000300000001 (an ApiVersions v3 request cut after its correlation id)",
			Expect: errAt("header.clientId", 12),
			gen: func() []byte {
				payload := []byte{0, 0, 0, 8, 0, 0x12, 0, 3, 0, 0, 0, 1}
				return pcapFile(65535, tcp(false, 1, tcpPSHACK, payload))
			}},
		{Name: "pcap-incl-len-huge.pcap", Mode: Pcap, Attacks: "a pcap record declaring 4,294,967,295 captured bytes",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				b := pcapFile(65535)
				b = pcapRecord(b, 0, 0xffffffff, 0xffffffff)
				return append(b, make([]byte, 64)...)
			}},
		{Name: "pcap-declares-1mib.pcap", Mode: Pcap, Attacks: "a 48-byte pcap whose one record declares 1 MiB captured (the most a record may hold) and ends 8 bytes later: the reader made its buffer at the size declared, 1.1 MB for 48 bytes",
			Expect: Expect{Survive: true, Says: "truncated"},
			gen: func() []byte {
				b := pcapFile(65535)
				b = pcapRecord(b, 0, 1<<20, 1<<20)
				return append(b, make([]byte, 8)...)
			}},
		{Name: "pcap-orig-len-huge.pcap", Mode: Pcap, Attacks: "a pcap record declaring 4,294,967,295 original bytes beside a real Kafka exchange",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, resp := kafkaExchange()
				b := pcapFile(65535)
				b = pcapRecord(b, 0, uint32(len(req)), 0xffffffff)
				b = append(b, req...)
				b = pcapRecord(b, 1, uint32(len(resp)), uint32(len(resp)))
				return append(b, resp...)
			}},
		{Name: "pcap-snaplen-huge.pcap", Mode: Pcap, Attacks: "a pcap header with snap length 4,294,967,295 before a real Kafka exchange",
			Expect: Expect{Clean: true},
			gen: func() []byte {
				req, resp := kafkaExchange()
				return pcapFile(0xffffffff, req, resp)
			}},
		{Name: "pcap-gzip-empty-packets.pcap.gz", Mode: Pcap, Attacks: "a gzipped pcap (65 KB) of 4,194,304 empty packet records (64 MiB inflated)",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				// A record of all zeros is an empty packet at time 0.
				return append(gz(pcapFile(65535)), gzZeros(64)...)
			}},
		{Name: "pcap-kafka-size-huge.pcap", Mode: Pcap, Attacks: "a TCP stream to port 9092 whose first frame declares 2,147,483,632 bytes, then 12 KB",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				var pkts [][]byte
				seq := uint32(1)
				first := append(be32(nil, 0x7ffffff0), header1(0, 3, clientID)...)
				pkts = append(pkts, tcp(false, seq, tcpPSHACK, first))
				seq += uint32(len(first))
				for i := 0; i < 8; i++ {
					p := make([]byte, 1460)
					pkts = append(pkts, tcp(false, seq, tcpPSHACK, p))
					seq += 1460
				}
				return pcapFile(65535, pkts...)
			}},
		{Name: "pcap-seq-gap.pcap", Mode: Pcap, Attacks: "two TCP segments to port 9092 whose sequence numbers are 2 GiB apart, each half of a frame",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, _ := kafkaExchange()
				payload := req[54:]
				a := tcp(false, 1, tcpPSHACK, payload[:10])
				c := tcp(false, 1+0x7fff0000, tcpPSHACK, payload[10:])
				return pcapFile(65535, a, c)
			}},
		{Name: "pcap-sasl-tokens.pcap", Mode: Pcap, Attacks: "a SaslHandshake v0, then 25,000 raw SASL tokens of 4 bytes each (empty tokens) from the client and as many from the broker in 1,400-byte segments: 50,000 token exchanges from 200 KB",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				mech := "SCRAM-SHA-256"
				hs := be16(nil, int16(len(mech)))
				hs = append(hs, mech...)
				req := sized(append(header1(17, 0, clientID), hs...))
				r := be32(nil, 7) // the handshake's correlation id
				r = be16(r, 0)    // errorCode
				r = be32(r, 1)    // one mechanism
				r = append(r, hs...)
				binary.BigEndian.PutUint32(req[8:], 7)
				pkts := [][]byte{tcp(false, 1, tcpPSHACK, req), tcp(true, 1, tcpPSHACK, sized(r))}
				cseq, bseq := uint32(1+len(req)), uint32(1+len(sized(r)))
				tokens := make([]byte, 4*25000) // empty tokens: four zero bytes each
				for len(tokens) > 0 {
					n := min(len(tokens), 1400)
					pkts = append(pkts, tcp(false, cseq, tcpPSHACK, tokens[:n]), tcp(true, bseq, tcpPSHACK, tokens[:n]))
					cseq, bseq = cseq+uint32(n), bseq+uint32(n)
					tokens = tokens[n:]
				}
				return pcapFile(65535, pkts...)
			}},
		{Name: "pcap-hold-reentry.pcap", Mode: Pcap, Attacks: "a connection to port 9092 whose peers each acknowledge bytes of the other never captured, then 1,100 tiny responses held for the client's lost bytes: the 1,025th ends that wait, whose loss frames the client's next request, which ends the broker's wait inside the reading of the broker's stream (kwire pcap and check panicked: slice bounds out of range)",
			Expect: Expect{Survive: true, Says: "lost frame sync in the broker stream"},
			gen:    holdReentry},
		{Name: "pcap-frames-held.pcap.gz", Mode: Pcap, Attacks: "a gzipped pcap (197 KB) of 2 connections to port 9092, each a Produce request declaring 99,000,000 bytes, then 56 MiB of zeros in 60,000-byte segments and no end: frames gathered to the end of the capture, each held at up to 4 times its bytes (307 MB peak RSS; 133 MB since they are held at their size)",
			Expect: Expect{Survive: true, Says: "incomplete frame at stream offset 0: 58720277 of 99000004 bytes captured"},
			gen:    func() []byte { return heldFrames(2, 56) }},
		{Name: "pcap-ip-lengths.pcap", Mode: Pcap, Attacks: "IPv4 packets with header length 60 and total length 65,535 in 80-byte frames, and a TCP data offset of 60",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, _ := kafkaExchange()
				a := append([]byte(nil), req...)
				a[14] = 0x4f              // IHL 15
				a[16], a[17] = 0xff, 0xff // total length
				b := append([]byte(nil), req...)
				b[14+20+12] = 0xf0 // TCP data offset 15
				return pcapFile(65535, a, b)
			}},
		{Name: "pcapng-block-len-huge.pcapng", Mode: Pcap, Attacks: "pcapng: an enhanced packet block whose total length is 4,294,967,280",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, _ := kafkaExchange()
				p := ngPacket(0, req)
				copy(p[4:], []byte{0xf0, 0xff, 0xff, 0xff})
				return concat(ngSection(-1), ngInterface(65535), p)
			}},
		{Name: "pcapng-caplen-huge.pcapng", Mode: Pcap, Attacks: "pcapng: an enhanced packet block whose captured length is 4,294,967,280, past its block",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, resp := kafkaExchange()
				return concat(ngSection(-1), ngInterface(65535), ngPacketLen(0, 0xfffffff0, req), ngPacket(1, resp))
			}},
		{Name: "pcapng-declares-1mib.pcapng", Mode: Pcap, Attacks: "pcapng: a 64-byte file whose enhanced packet block declares a total length of 1 MiB and ends 8 bytes later: the reader made its buffer at the length declared",
			Expect: Expect{Survive: true, Says: "truncated"},
			gen: func() []byte {
				b := concat(ngSection(-1), ngInterface(65535))
				b = binary.LittleEndian.AppendUint32(b, 6)
				b = binary.LittleEndian.AppendUint32(b, 1<<20+16)
				return append(b, make([]byte, 8)...)
			}},
		{Name: "pcapng-section-len-huge.pcapng", Mode: Pcap, Attacks: "pcapng: a section header declaring a section of 2^63-1 bytes and an interface snap length of 4,294,967,295, before a real exchange",
			Expect: Expect{Clean: true},
			gen: func() []byte {
				req, resp := kafkaExchange()
				return concat(ngSection(math.MaxInt64), ngInterface(0xffffffff), ngPacket(0, req), ngPacket(1, resp))
			}},
		{Name: "pcapng-tls-hunt.pcapng", Mode: Pcap, Attacks: "a TLS 1.3 connection decrypted from the secrets the file carries: an exchange, 6,000 bytes lost, then 3,000 record headers (66 KB) that open with no sequence number the loss could have held, each tried with 256",
			Expect: Expect{Survive: true, Says: "no record found in the"},
			gen:    func() []byte { return tlsHunt(3000) }},
		{Name: "pcapng-block-len-short.pcapng", Mode: Pcap, Attacks: "pcapng: an interface block whose total length is 4 (less than its own header)",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				req, _ := kafkaExchange()
				idb := ngInterface(65535)
				copy(idb[4:], []byte{4, 0, 0, 0})
				return concat(ngSection(-1), idb, ngPacket(0, req))
			}},
		// Text that kwire pcap reads as a capture: followed TCP streams
		// (tshark -z follow), each made a connection of packets.
		{Name: "follow-empty-streams.txt", Mode: Pcap, Attacks: "a followed-stream text (tshark -z follow,tcp,hex) of 2,500 streams with nodes and no data: each made a connection of three handshake packets",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				var b []byte
				for i := range 2500 {
					b = fmt.Appendf(b, "===\nFollow: tcp,hex\nNode 0: 10.0.%d.%d:%d\nNode 1: 10.0.0.1:9092\n", i/250, i%250, 1024+i)
				}
				return b
			}},
		{Name: "follow-yaml-byte-packets.txt", Mode: Pcap, Attacks: "a followed-stream text (tshark -z follow,tcp,yaml) of 2,500 one-byte packets, the peers taking turns: 2,500 segments of a byte, no frame in either direction",
			Expect: Expect{Survive: true},
			gen: func() []byte {
				b := []byte("peers:\n  - peer: 0\n    host: 10.0.0.2\n    port: 50000\n  - peer: 1\n    host: 10.0.0.1\n    port: 9092\npackets:\n")
				for i := range 2500 {
					b = fmt.Appendf(b, "  - packet: %d\n    peer: %d\n    timestamp: 1.%09d\n    data: !!binary |\n      AA==\n", i, i%2, i)
				}
				return b
			}},
	}, payloadEntries()...)
}

func repeatSlices(b []byte, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}
