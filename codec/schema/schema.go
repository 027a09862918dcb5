// Package schema is kwire's model of Kafka's message definitions: every API,
// every version, request and response, headers and data messages, with the
// structure (names, types, version ranges, nullability, tags, defaults,
// entity types, map keys) of Kafka's JSON schema files and none of their prose.
//
// The tables are generated from those files by the generator in
// internal/gen (make generate), as are a constant for every API key
// (KeyMetadata) and error code (CodeNotLeaderOrFollower). The package's
// types (API, Message, Layout, Field, Range) describe them, and lookups
// find an API or a message in them: ByKey, ByName, DataMessage, APIName,
// ErrorName, ErrorCodeByName.
package schema

import "strings"

//go:generate go run -tags schema_bootstrap ./internal/gen -out tables_gen.go -consts constants_gen.go -internal internal_gen.go

// Range is an inclusive range of versions. An empty range has Lo > Hi.
type Range struct{ Lo, Hi int16 }

// Open is the upper bound of an open-ended range ("3+").
const Open int16 = 0x7fff

// none is the empty range (the generated tables use it).
var none = Range{1, 0}

// Contains reports whether v lies in r.
func (r Range) Contains(v int16) bool { return v >= r.Lo && v <= r.Hi }

// Empty reports whether r holds no version.
func (r Range) Empty() bool { return r.Lo > r.Hi }

// String formats r the way Kafka's schema files do: "none", "3", "1-4", "3+".
func (r Range) String() string {
	switch {
	case r.Empty():
		return "none"
	case r.Hi == Open:
		return itoa(int(r.Lo)) + "+"
	case r.Lo == r.Hi:
		return itoa(int(r.Lo))
	}
	return itoa(int(r.Lo)) + "-" + itoa(int(r.Hi))
}

// Kind is the wire type of a field.
type Kind uint8

// The wire types, as Kafka's schemas name them.
const (
	Invalid Kind = iota // no type: a field the tables do not describe
	Bool                // one byte, 0 or 1
	Int8                // a signed byte
	Int16               // big-endian, 2 bytes
	Uint16              // big-endian, 2 bytes, unsigned
	Int32               // big-endian, 4 bytes
	Uint32              // big-endian, 4 bytes, unsigned
	Int64               // big-endian, 8 bytes
	Float64             // an IEEE 754 double, 8 bytes
	String              // UTF-8 after an int16 length (or a compact uvarint length+1)
	Bytes               // raw bytes after an int32 length (or a compact uvarint length+1)
	UUID                // 16 bytes
	Records             // record batches or a message set after a bytes length
	Struct              // fields in order, then tagged fields in flexible versions
	Array               // elements after an int32 count (or a compact uvarint count+1)
)

var kindNames = [...]string{"invalid", "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes", "uuid", "records", "struct", "array"}

// String is the kind's name in Kafka's schemas ("int32", "uuid", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + itoa(int(k)) + ")"
}

// FixedSize is the encoded size of a fixed-width kind, or 0.
func (k Kind) FixedSize() int {
	switch k {
	case Bool, Int8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32:
		return 4
	case Int64, Float64:
		return 8
	case UUID:
		return 16
	}
	return 0
}

// Field is one field of a struct.
type Field struct {
	Name       string // Kafka's name, e.g. "ThrottleTimeMs"
	JSON       string // the value-JSON name, e.g. "throttleTimeMs"
	Type       string // the schema's type text, e.g. "[]TopicData"
	Kind       Kind
	Elem       Kind    // element kind when Kind is Array
	Struct     *Layout // the struct when Kind is Struct, or Array of structs
	Versions   Range
	Nullable   Range
	Tagged     Range
	Tag        int32  // -1 when never tagged
	Flexible   Range  // the field's own flexibleVersions override, when FlexSet
	FlexSet    bool   // whether the schema gives the field its own flexibleVersions
	Default    string // the schema's default, "" when none is given
	EntityType string
	MapKey     bool
	Ignorable  bool
}

// Layout is a struct: an ordered list of fields.
type Layout struct {
	Name   string
	Fields []Field
}

// CompactAt reports whether f's length or count prefix is written in the
// compact form (an unsigned varint of length+1) at version v of a message
// that is flexible there (flexible, the message's flexibleVersions holding
// v). A field may narrow its message's flexible versions with its own
// flexibleVersions (the request header's ClientId never is compact); this
// is the one place that rule is written.
func (f *Field) CompactAt(v int16, flexible bool) bool {
	return flexible && (!f.FlexSet || f.Flexible.Contains(v))
}

// IsTagged reports whether f travels in the tagged-field section at version v.
func (f *Field) IsTagged(v int16) bool { return f.Tag >= 0 && f.Tagged.Contains(v) }

// Version is one layout of a message, used for a range of versions.
type Version struct {
	Versions Range   // the versions this definition is used for
	Flexible Range   // the message's flexibleVersions
	Root     *Layout // top-level fields
	Source   string  // the schema folder that defines these versions
}

// Message is a request, response, header or data message across all the
// versions any schema folder defines.
type Message struct {
	Name     string // e.g. "ProduceRequest"
	Kind     string // "request", "response", "header" or "data"
	APIKey   int16  // -1 for headers and data messages
	Valid    Range
	Versions []Version // ordered by version, disjoint, covering Valid
	Unstable Range     // versions marked unstable upstream that no release serves (kafka/released.tsv)
	// HeaderVersions gives the request or response header version used at
	// each version (indexed by version), for requests and responses.
	HeaderVersions []int8
}

// At returns the definition that lays out version v, or nil.
func (m *Message) At(v int16) *Version {
	for i := range m.Versions {
		if m.Versions[i].Versions.Contains(v) {
			return &m.Versions[i]
		}
	}
	return nil
}

// Flexible reports whether version v uses the flexible (compact, tagged) encoding.
func (m *Message) Flexible(v int16) bool {
	if d := m.At(v); d != nil {
		return d.Flexible.Contains(v)
	}
	return false
}

// HeaderVersion is the header version used with version v of m.
func (m *Message) HeaderVersion(v int16) int16 {
	if v >= 0 && int(v) < len(m.HeaderVersions) {
		return int16(m.HeaderVersions[v])
	}
	if m.Kind == "response" {
		if m.APIKey == KeyApiVersions || !m.Flexible(m.Valid.Hi) {
			return 0
		}
		return 1
	}
	if m.Flexible(m.Valid.Hi) {
		return 2
	}
	return 1
}

// API is one API key with its request and response messages.
type API struct {
	Key   int16
	Name  string   // e.g. "Produce"
	Names []string // every name the API has had, e.g. ListClientMetricsResources and ListConfigResources
	// Category is the group people look for the API under: "records",
	// "consumer groups", "share groups", "transactions", "topics and
	// partitions", "security and ACLs", "configuration and quotas" or
	// "cluster and KRaft".
	Category string
	Request  *Message
	Response *Message
	// Removed40 holds the versions Kafka 4.0 no longer serves (all of them
	// for the APIs 4.0 dropped); empty when 4.0 kept every version.
	Removed40 Range
	// BrokerSent holds the versions of the request that brokers send and
	// clients do not (AddPartitionsToTxn v4 and later, KIP-890); empty
	// for the other APIs.
	BrokerSent Range
}

// Valid is the version range of the API's request, the versions marked
// unstable upstream included (Request.Unstable: a broker advertising
// versions in ApiVersions leaves those out).
func (a *API) Valid() Range { return a.Request.Valid }

// APIs returns every API the tables know, ordered by key. The slice is shared:
// do not modify it.
func APIs() []*API { return apis }

// ByKey returns the API with key k, or nil.
func ByKey(k int16) *API {
	if k >= 0 && int(k) < len(apiByKey) {
		return apiByKey[k]
	}
	return nil
}

// ByName finds an API by name, case-insensitively, with or without a
// "Request" or "Response" suffix, under any name it has had. A decimal key
// is accepted too.
func ByName(name string) *API {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimSuffix(strings.TrimSuffix(n, "request"), "response")
	if k, ok := atoi(n); ok {
		if k > 0x7fff {
			return nil
		}
		return ByKey(int16(k))
	}
	for _, a := range apis {
		for _, an := range a.Names {
			if strings.ToLower(an) == n {
				return a
			}
		}
	}
	return nil
}

// RequestHeader returns the request header message (api key, version,
// correlation id, client id; tagged fields from header version 2).
func RequestHeader() *Message { return requestHeader }

// ResponseHeader returns the response header message (correlation id;
// tagged fields from header version 1).
func ResponseHeader() *Message { return responseHeader }

// DataMessage returns a data message (e.g. "ConsumerProtocolSubscription")
// by name, or nil. The messages of Kafka's internal topics and files
// ("OffsetCommitValue", "TopicRecord",
// "ProducerSnapshot", ...) are data messages too.
func DataMessage(name string) *Message {
	for _, m := range dataMessages {
		if strings.EqualFold(m.Name, name) {
			return m
		}
	}
	for _, m := range internalMessages {
		if strings.EqualFold(m.Name, name) {
			return m
		}
	}
	return nil
}

// DataMessages lists the data messages (consumer protocol, KRaft control records, ...).
func DataMessages() []*Message { return dataMessages }

// APIName returns the name of an API key ("Metadata" for KeyMetadata), or
// "" when unknown.
func APIName(key int16) string {
	if a := ByKey(key); a != nil {
		return a.Name
	}
	return ""
}

// ErrorName returns Kafka's name for an error code ("NOT_LEADER_OR_FOLLOWER"
// for CodeNotLeaderOrFollower), or "" when unknown.
func ErrorName(code int16) string {
	i := int(code) - errorBase
	if i >= 0 && i < len(errorNames) {
		return errorNames[i]
	}
	return ""
}

// ErrorCodeByName returns the code of a Kafka error name, case-insensitive.
// Names Kafka has since changed are accepted too: NOT_LEADER_FOR_PARTITION
// is 6 (NOT_LEADER_OR_FOLLOWER since Kafka 2.6).
func ErrorCodeByName(name string) (int16, bool) {
	for i, n := range errorNames {
		if n != "" && strings.EqualFold(n, name) {
			return int16(i + errorBase), true
		}
	}
	for _, r := range renamedErrors {
		if strings.EqualFold(r.name, name) {
			return r.code, true
		}
	}
	return 0, false
}

// Enum is a small enumeration that travels as a plain integer.
type Enum struct {
	Name   string
	Values []EnumValue
}

// EnumValue is one named value.
type EnumValue struct {
	Value int64
	Name  string
}

// Enums lists the enumerations.
func Enums() []*Enum { return enums }

// enumByName returns an enumeration by name, or nil.
func enumByName(name string) *Enum {
	for _, e := range enums {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// ValueName returns the name of v in e, or "".
func (e *Enum) ValueName(v int64) string {
	for _, x := range e.Values {
		if x.Value == v {
			return x.Name
		}
	}
	return ""
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
