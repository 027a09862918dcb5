package schema

// Kafka keeps records of its own in internal topics (consumer groups and
// their offsets, transactions, share-group state, the KRaft metadata log,
// tiered storage's remote log metadata) and describes them with the same
// JSON schema language as its protocol; kafka/internal holds those files
// and internal_gen.go their tables. What selects a record's schema is the
// topic's framing; the lookups here say which schema, and the bytes are
// read elsewhere (this package knows no bytes).

// Framing says how the records of an internal topic select their schema.
type Framing uint8

const (
	// CoordinatorFraming: the record key is an int16 record type followed by
	// the key message; the value is an int16 version followed by the value
	// message at that version, or null (a tombstone: the key's entity was
	// deleted). __consumer_offsets, __transaction_state, __share_group_state.
	CoordinatorFraming Framing = iota + 1
	// MetadataFraming: the key is null; the value is an unsigned varint
	// frame version (1), an unsigned varint record type (the apiKey of the
	// record's schema), an unsigned varint version, then the record at that
	// version. __cluster_metadata (and KRaft snapshots),
	// __remote_log_metadata.
	MetadataFraming
)

// String names the framing ("coordinator", "metadata").
func (f Framing) String() string {
	switch f {
	case CoordinatorFraming:
		return "coordinator"
	case MetadataFraming:
		return "metadata"
	}
	return "unknown"
}

// InternalTopic is one of Kafka's internal topics and the record types its
// records carry.
type InternalTopic struct {
	Name    string // e.g. "__consumer_offsets"
	Framing Framing
	Records []InternalRecord // ordered by Type
}

// InternalRecord is one record type of an internal topic: the schemas its
// key and value are read with.
type InternalRecord struct {
	// Type is the coordinator record type (the key's int16) or the
	// metadata record's apiKey.
	Type int16
	// Key is the key message (CoordinatorFraming), nil for metadata records.
	Key *Message
	// KeyVersion is the version Key is read at: 0 for Kafka's newer files,
	// which give the type as an apiKey; the type itself for the older ones,
	// which gave it as the key's only version. Both read the same bytes.
	KeyVersion int16
	// Value is the value message; its version comes from the record.
	Value *Message
	// Clash, for a record type that Kafka's files give more than one
	// schema, says in which order kwire tries them (this one's place
	// among them in Records) and why: kafka/internal/CLASHES, by way of
	// the generator.
	Clash string
}

// InternalTopics lists the internal topics whose records the tables
// describe. The slice is shared: do not modify it.
func InternalTopics() []*InternalTopic { return internalTopics }

// InternalTopicByName returns the internal topic named name, or nil.
func InternalTopicByName(name string) *InternalTopic {
	for _, t := range internalTopics {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// RecordType returns the record types numbered typ: usually one, none
// when unknown, and more than one where Kafka's files give two schemas
// one number (apiKey 29 of __cluster_metadata is ClusterIdRecord in one
// file and UnregisterControllerRecord in another); the bytes must tell
// them apart, tried in the order returned (InternalRecord.Clash says
// why).
func (t *InternalTopic) RecordType(typ int16) []InternalRecord {
	for i := range t.Records {
		if t.Records[i].Type == typ {
			j := i + 1
			for j < len(t.Records) && t.Records[j].Type == typ {
				j++
			}
			return t.Records[i:j]
		}
	}
	return nil
}
