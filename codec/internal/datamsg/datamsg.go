// Package datamsg is how packages inside codec (codec/storage) reach the
// codec's walk (data messages, the records of Kafka's internal topics) and
// its data-message encoder without the codec's public API growing for
// them: package codec sets the functions when it loads, so a package that
// imports codec finds them set.
package datamsg

import (
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Decode decodes buf[start:end] (buffer bufIdx) as the data message name
// at version, into nodes from s, with the codec's default limits for that
// many bytes. The node spans [start, end) when it succeeds; the error, a
// *codec.DecodeError, has the offset and field path.
var Decode func(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error)

// AppendJSON appends the value JSON of buf[start:end], the data message
// name at version, as the codec writes it: for bytes that decode (the
// caller has read them into a tree first).
var AppendJSON func(dst []byte, name string, version int16, buf []byte, start, end int) []byte

// Encode appends the data message name at version (the newest layout for
// a version newer than known) from its value, path naming it for errors.
var Encode func(dst []byte, name string, version int16, v map[string]any, path string) ([]byte, error)

// TopicPart is a record key or value of one of Kafka's internal topics,
// for ReadTopicPart: B[Start:End] of buffer Buf (node offsets absolute in
// B), and what reading it found.
type TopicPart struct {
	Topic           *schema.InternalTopic
	B               []byte
	Buf, Start, End int
	Key             bool // a key, else a value
	// RecordKey is a value's record key (nil when null): a coordinator
	// value's type is named by its key.
	RecordKey []byte
	// Slab, when set, gives the nodes; nil asks for JSON members.
	Slab *slab.Slab

	// What the reading found: the framing's integers (-1 when not read),
	// the record type's schemas, the message's node (tree only), and the
	// first failure, where reading stopped: its offset, path and message,
	// and the codec's error when it was one.
	Type, Version, FrameVersion int16
	Record                      *schema.InternalRecord
	Msg                         *tree.Node
	Failed                      bool
	FailOffset                  int
	FailPath, FailMsg           string
	FailErr                     error
}

// ReadTopicPart reads p through the codec's walk, the reader of internal
// topics' records in frames, with the codec's default limits for its
// size: its nodes (framing, message, the bytes left undecoded) when
// p.Slab is set, else its members appended to dst, each after a comma, in
// kwire log's names: a coordinator key's "type", "keySchema" and "key", a
// coordinator value's "valueVersion", "valueSchema" and "value", a
// metadata value's "frameVersion", "type", "version", "schema" and
// "value". A message that does not read leaves no member.
var ReadTopicPart func(dst []byte, p *TopicPart) ([]byte, []*tree.Node)
