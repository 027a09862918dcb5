// Package topicids keeps the names of Kafka topic ids: newer Fetch and
// Produce versions (Fetch 13+, Produce 13+, ShareFetch...) name a topic
// by its id alone, and kwire needs the name to know a topic's records are
// those of an internal topic (__consumer_offsets...). A capture or proxy
// session learns the ids from the Metadata (and CreateTopics) responses it
// sees; --topic-id ID=NAME gives one by hand.
package topicids

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// MaxNames is the most ids a Names keeps: a long session's map stays
// bounded whatever its Metadata responses declare; ids past it are not
// learned (the ones known are kept: they are the session's own).
const MaxNames = 1 << 16

// Names maps topic ids to names. Its methods are safe for concurrent use;
// the zero value is ready.
type Names struct {
	mu sync.RWMutex
	m  map[[16]byte]string

	refused, told bool // an id was refused for MaxNames; FullNote said so

	decMu sync.Mutex
	dec   codec.Decoder // LearnFrom's
}

// Set names id (the zero id names nothing). It reports false when the map
// is full.
func (n *Names) Set(id [16]byte, name string) bool {
	if id == ([16]byte{}) || name == "" {
		return true
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = make(map[[16]byte]string)
	}
	if old, ok := n.m[id]; ok {
		if old != name {
			n.m[id] = name
		}
		return true
	}
	if len(n.m) >= MaxNames {
		n.refused = true
		return false
	}
	n.m[id] = name
	return true
}

// Name is the name of id, "" when unknown. It is what codec.Options.
// TopicNames takes.
func (n *Names) Name(id [16]byte) string {
	if n == nil {
		return ""
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	return n.m[id]
}

// Len is how many ids are known.
func (n *Names) Len() int {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return len(n.m)
}

// Learns reports whether responses of API key apiKey name topic ids
// beside their names in their topics (Metadata, CreateTopics,
// DescribeTopicPartitions): the ones Learn reads.
func Learns(apiKey int16) bool {
	return apiKey == schema.KeyMetadata || apiKey == schema.KeyCreateTopics || apiKey == schema.KeyDescribeTopicPartitions
}

// Learn keeps the ids a decoded Metadata or CreateTopics response names
// (f's tree: a frame decoded by codec.Decode). Other frames are ignored.
func (n *Names) Learn(f *codec.Frame) {
	if f == nil || f.Body == nil || !f.Response || f.Guess != nil || !Learns(f.APIKey) {
		return // a guessed reading is no one's word for a name
	}
	topics := f.Body.Get("topics")
	if topics == nil {
		return
	}
	for _, t := range topics.Elems() {
		name, id := t.Get("name"), t.Get("topicId")
		if name == nil || id == nil || name.Null || len(id.Raw) != 16 {
			continue
		}
		if !n.Set([16]byte(id.Raw), string(name.Raw)) {
			return
		}
	}
}

// LearnFrom decodes b, a response of apiKey at version (size prefix
// included), when it is one Learn reads at a version whose topics carry
// ids, and keeps the ids it names. Records are not read: only the topics'
// names and ids are wanted. The tree is built with a decoder the Names
// keeps, so a session's Metadata responses cost no fresh memory each.
func (n *Names) LearnFrom(b []byte, apiKey, version int16) {
	if !Learns(apiKey) || !namesIDs(apiKey, version) {
		return
	}
	n.decMu.Lock()
	defer n.decMu.Unlock()
	f, _ := n.dec.Decode(b, codec.Options{Response: true, APIKey: apiKey, Version: version, Records: codec.RecordsSize})
	n.Learn(f)
}

// namesIDs reports whether the response of apiKey at version has topics
// with a topicId (Metadata v10+, CreateTopics v7+, DescribeTopicPartitions
// v0+), as Kafka's schemas say.
func namesIDs(apiKey, version int16) bool {
	a := schema.ByKey(apiKey)
	if a == nil || a.Response == nil {
		return false
	}
	lv := min(version, a.Response.Valid.Hi) // a newer version reads as the newest known
	v := a.Response.At(lv)
	if v == nil {
		return false
	}
	for _, f := range v.Root.Fields {
		if f.JSON != "topics" || f.Struct == nil || !f.Versions.Contains(lv) {
			continue
		}
		for _, t := range f.Struct.Fields {
			if t.JSON == "topicId" && t.Versions.Contains(lv) {
				return true
			}
		}
	}
	return false
}

// ParseFlag reads "ID=NAME", the id as Kafka prints it (22 characters of
// unpadded URL-safe base64, as kwire's JSON shows it too) or as a UUID
// (8-4-4-4-12 hex digits).
func ParseFlag(s string) ([16]byte, string, error) {
	var id [16]byte
	i := strings.IndexByte(s, '=')
	if i < 0 || i == len(s)-1 {
		return id, "", errors.New("want ID=NAME (a topic id, then its name), got " + quote(s))
	}
	idText, name := s[:i], s[i+1:]
	var b []byte
	var err error
	switch {
	case len(idText) == 22:
		b, err = base64.RawURLEncoding.DecodeString(idText)
	case len(idText) == 36 && strings.Count(idText, "-") == 4:
		b, err = hex.DecodeString(strings.ReplaceAll(idText, "-", ""))
	case len(idText) == 32:
		b, err = hex.DecodeString(idText)
	default:
		err = errors.New("bad length")
	}
	if err != nil || len(b) != 16 {
		return id, "", errors.New("topic id " + quote(idText) + ": want 22 characters of URL-safe base64 (as Kafka prints ids) or a UUID's 32 hex digits")
	}
	copy(id[:], b)
	return id, name, nil
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return `"` + s + `"`
}
