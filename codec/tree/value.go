package tree

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/schema"
)

// Value returns n's value as Go values, the ones codec.Encode takes back:
// int64 for every integer kind, bool, float64, string, []byte for bytes
// and for a records field (its raw bytes, even when decoded),
// [16]byte for a UUID, []any for an array, map[string]any keyed by JSON
// name for a struct (its tagged fields included, and its unknown tags as
// "_unknownTaggedFields", a list of {"tag", "data"}, as value JSON has
// them), and nil for a null.
//
// What a payload reader made of a key or value (codec/payload: the node
// Get finds as the key's or value's "decoded") gives the value value
// JSON's "decoded" shows, as these Go values, not in the JSON encoding
// value JSON writes it in: an object's members by their names, whatever
// they are ("inflated", "raw", "headers" are members like any other), an
// Avro map as map[string]any of its values by key, an Avro union as its
// branch's value ("k", or nil for its null branch, where value JSON has
// Avro's JSON encoding {"string":"k"} or null), Avro bytes and fixed as
// []byte (value JSON: strings of code points U+0000-U+00FF), Protobuf's
// 64-bit integers as int64 and its enums as their numbers (protojson:
// strings of digits, the values' names).
//
// What the records reader made is given as value JSON shows it (the
// form Encode reads in a records field, or as {"data":"records",
// "value":[...]}): a batch, a legacy message, a record and a header are
// objects of their value-JSON members, without the framing Encode
// computes (batchLength, recordCount, a record's length, a message's
// messageSize); attributes are the object of names ("compression":
// "gzip", ...); keys, values and header values are []byte (nil for
// null), header keys strings (or []byte when not UTF-8); a compressed
// batch or wrapper carries "_compressed" (its bytes, reused while its
// records are unchanged) and one that decoded with warnings "_raw", so
// Encode gives its bytes back exactly. A record's "offset" is its Int;
// its "timestamp", which depends on its batch's base timestamp and type,
// is in its batch's Value only. Neither has a node of its own (no bytes
// hold them). What a payload reader made of a key or value, and a
// control record's "control", are left out: they are read from the
// bytes, and Encode does not take them.
//
// The root of a frame gives the envelope Encode takes: "direction",
// "apiKey", "apiName", "apiVersion", "header" and "body" (a body read
// alone, with codec.Options.Body, gives the body's value, which Encode
// takes with EncodeOptions.Body); of a data message or records field
// read alone, "data", "version" (when the bytes start with it) and
// "value". Its []byte values are Raw, sharing the decoded bytes' memory:
// copy what is kept after that memory is reused.
func (n *Node) Value() any {
	if n == nil || n.Null {
		return nil
	}
	switch n.Role {
	case RoleFrame:
		return n.frameValue()
	case RoleRecord:
		if v, ok := n.recordsValue(); ok {
			return v
		}
	}
	switch n.Kind {
	case schema.Bool:
		return n.Int != 0
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return n.Int
	case schema.Float64:
		return n.Float
	case schema.String:
		return string(n.Raw)
	case schema.Bytes, schema.Records:
		return n.Raw
	case schema.UUID:
		var u [16]byte
		copy(u[:], n.Raw)
		return u
	case schema.Array:
		if n.avroMap() {
			return n.avroMapValue()
		}
		out := make([]any, 0, len(n.Children))
		for _, c := range n.Elems() {
			out = append(out, c.Value())
		}
		return out
	}
	out := map[string]any{}
	n.fields(out)
	return out
}

// fields puts the values of n's field children (and its tagged fields')
// into out.
func (n *Node) fields(out map[string]any) {
	for _, c := range n.Children {
		switch {
		case c.Role == RoleTags:
			c.fields(out)
		case c.Field != nil && c.Role == RoleField && c.Flags&Broken == 0:
			out[c.Field.JSON] = c.Value()
		case c.Role == RoleRecord: // a payload's member, whatever its name ("raw" too); bytes left raw are RoleRaw
			out[c.Name] = c.Value()
		case c.Role == RoleUnknownTag:
			u, _ := out["_unknownTaggedFields"].([]any)
			out["_unknownTaggedFields"] = append(u, map[string]any{"tag": c.Int, "data": c.Raw})
		}
	}
}

// frameValue is the envelope of the frame whose root is n, as Encode
// takes it.
func (n *Node) frameValue() any {
	var hdr, body, version *Node
	for _, c := range n.Children {
		switch {
		case c.Role == RoleHeader:
			hdr = c
		case c.Role == RoleBody:
			body = c
		case c.Role == RoleField && c.Name == "version":
			version = c
		}
	}
	switch {
	case body == nil:
		return nil
	case body.Name == "value": // a data message or records field (codec.Options.Data)
		name, _, _ := strings.Cut(body.Type, " v")
		env := map[string]any{"data": name}
		if version != nil {
			env["version"] = version.Int
		}
		if body.Kind == schema.Records && (len(body.Children) > 0 || len(body.Raw) == 0) && !body.Null {
			env["value"] = entriesValue(body.Children)
		} else {
			env["value"] = body.Value()
		}
		return env
	case hdr == nil: // a body read alone (codec.Options.Body)
		return body.Value()
	}
	env := map[string]any{"header": hdr.Value(), "body": body.Value()}
	response := strings.HasPrefix(hdr.Type, "ResponseHeader")
	env["direction"] = "request"
	if response {
		env["direction"] = "response"
	}
	// The body's type names its message and the version read:
	// "ProduceRequest v9".
	name, v, _ := strings.Cut(body.Type, " v")
	for _, api := range schema.APIs() {
		m := api.Request
		if response {
			m = api.Response
		}
		if m != nil && m.Name == name {
			env["apiKey"], env["apiName"] = int64(api.Key), api.Name
			break
		}
	}
	if ver, err := strconv.ParseInt(v, 10, 16); err == nil {
		env["apiVersion"] = ver
	}
	return env
}

// recordsValue is the value of a node the records reader made, when it
// is one value JSON shows otherwise than by its kind. The reader's nodes
// are told from a payload reader's (a JSON member named "record") by
// their types.
func (n *Node) recordsValue() (any, bool) {
	switch {
	case n.Type == "RecordBatch" || n.Type == "Message":
		if n.Flags&Truncated != 0 {
			return map[string]any{"_truncated": n.Raw}, true
		}
		if n.Type == "RecordBatch" {
			return n.batchValue(), true
		}
		return n.messageValue(), true
	case n.Type == "Record":
		return n.recordValue(nil), true
	case n.Type == "Header":
		return headerValue(n), true
	case n.Kind == schema.Records: // a batch's records, without their batch's timestamps
		out := []any{}
		for _, r := range n.Elems() {
			out = append(out, r.recordValue(nil))
		}
		return out, true
	case n.inflated(): // a wrapper's messages (or, reached by its children, a batch's records)
		if len(n.Children) > 0 && n.Children[0].Type == "Record" {
			out := []any{}
			for _, r := range n.Children {
				if r.Type == "Record" {
					out = append(out, r.recordValue(nil))
				}
			}
			return out, true
		}
		return entriesValue(n.Children), true
	}
	return nil, false
}

// entriesValue is the value of a records field's or message set's
// entries: batches, messages, bytes left undecoded ({"_raw"}) and an
// entry cut short ({"_truncated"}).
func entriesValue(nodes []*Node) []any {
	out := make([]any, 0, len(nodes))
	for _, c := range nodes {
		switch {
		case c.Role == RoleRaw:
			out = append(out, map[string]any{"_raw": c.Raw})
		case c.Role == RoleRecord:
			v, _ := c.recordsValue()
			out = append(out, v)
		}
	}
	return out
}

// batchTimes is what a record's timestamp depends on: its batch's base
// and max timestamps and timestamp type.
type batchTimes struct {
	base, max int64
	logAppend bool
}

// batchValue is a record batch's value.
func (n *Node) batchValue() map[string]any {
	out := make(map[string]any, 16)
	var attrs int64
	var recs *Node
	var times batchTimes
	for _, c := range n.Children {
		switch c.Name {
		case "batchLength", "recordCount": // framing: Encode computes them
		case "attributes":
			attrs = c.Int
			out["attributes"] = attrsValue(attrs, 2)
		case "records":
			recs = c
		case "raw":
		default:
			if c.Role == RoleRecord {
				out[c.Name] = c.Int
			}
			switch c.Name {
			case "baseTimestamp":
				times.base = c.Int
			case "maxTimestamp":
				times.max = c.Int
			}
		}
	}
	times.logAppend = attrs&8 != 0
	compressed := attrs&7 != 0
	if recs == nil {
		out["records"] = nil
	} else {
		list := recs.Children
		decoded := true
		if compressed {
			decoded = len(list) == 1 && list[0].inflated()
			if decoded {
				list = list[0].Children
			}
		}
		if decoded {
			rs := make([]any, 0, len(list))
			for _, r := range list {
				if r.Type == "Record" {
					rs = append(rs, r.recordValue(&times))
				}
			}
			out["records"] = rs
		} else {
			out["records"] = nil
		}
		if compressed {
			out["_compressed"] = recs.Raw
		}
	}
	out["_sizeInBytes"] = int64(n.End - n.Start)
	if recs != nil && compressed && len(recs.Children) == 1 && recs.Children[0].inflated() {
		inflated := recs.Children[0].End - recs.Children[0].Start
		out["_uncompressedBytes"] = int64(inflated)
		// As value JSON writes it: two decimals.
		r := strconv.FormatFloat(float64(inflated)/float64(max(len(recs.Raw), 1)), 'f', 2, 64)
		out["_compressionRatio"], _ = strconv.ParseFloat(r, 64)
	}
	if hasWarnings(n) && n.Raw != nil {
		out["_raw"] = n.Raw
	}
	return out
}

// recordValue is a record's value; times, when its batch is known, gives
// its timestamp.
func (n *Node) recordValue(times *batchTimes) map[string]any {
	out := map[string]any{"attributes": int64(0), "timestampDelta": int64(0), "offsetDelta": int64(0),
		"offset": n.Int, "key": nil, "value": nil, "headers": []any{}}
	failed := false
	for _, c := range n.Children {
		switch c.Name {
		case "attributes", "timestampDelta", "offsetDelta":
			out[c.Name] = c.Int
		case "key", "value":
			if !c.Null {
				out[c.Name] = c.Raw
			}
		case "headers":
			hs := make([]any, 0, len(c.Children))
			for _, h := range c.Children {
				hs = append(hs, headerValue(h))
			}
			out["headers"] = hs
		}
		failed = failed || c.Role == RoleRaw
	}
	if times != nil {
		// As the records reader computes it: the batch's base timestamp
		// plus the record's delta, the batch's max timestamp under
		// log-append time, the base for a record that failed to read.
		switch {
		case failed:
			out["timestamp"] = times.base
		case times.logAppend:
			out["timestamp"] = times.max
		default:
			out["timestamp"] = times.base + out["timestampDelta"].(int64)
		}
	}
	return out
}

// headerValue is a record header's value: its key as a string (bytes when
// it is not UTF-8), its value as bytes.
func headerValue(h *Node) map[string]any {
	out := map[string]any{"key": nil, "value": nil}
	for _, c := range h.Children {
		switch {
		case c.Null:
		case c.Name == "key" && utf8.Valid(c.Raw):
			out["key"] = string(c.Raw)
		case c.Name == "key", c.Name == "value":
			out[c.Name] = c.Raw
		}
	}
	return out
}

// messageValue is a legacy message's (magic 0 or 1) value.
func (n *Node) messageValue() map[string]any {
	out := make(map[string]any, 10)
	var attrs, magic int64
	var val *Node
	for _, c := range n.Children {
		switch c.Name {
		case "offset", "crc", "magic", "timestamp":
			out[c.Name] = c.Int
		case "attributes":
			attrs = c.Int & 0xff
		case "key":
			out["key"] = nil
			if !c.Null {
				out["key"] = c.Raw
			}
		case "value":
			val = c
		}
	}
	if m, ok := out["magic"].(int64); ok {
		magic = m
	}
	if o, ok := out["offset"].(int64); ok && o != n.Int {
		out["absoluteOffset"] = n.Int
	}
	out["attributes"] = attrsValue(attrs, int(magic))
	if magic != 1 {
		delete(out, "timestamp")
	}
	switch {
	case val == nil:
	case attrs&7 != 0 && !val.Null:
		out["messages"] = nil
		if len(val.Children) == 1 && val.Children[0].inflated() {
			out["messages"] = entriesValue(val.Children[0].Children)
		}
		out["_compressed"] = val.Raw
	case val.Null:
		out["value"] = nil
	default:
		out["value"] = val.Raw
	}
	if hasWarnings(n) && n.Raw != nil {
		out["_raw"] = n.Raw
	}
	return out
}

// knownAttrs are the attribute bits an entry of magic 0, 1 and 2 gives a
// meaning (the records reader's).
var knownAttrs = [...]int64{0x07, 0x0f, 0x7f}

// attrsValue is the attributes object of an entry of magic: the
// compression by its name in Kafka's CompressionType (its number when
// unassigned), the timestamp type (magic 1 and 2), a batch's three flags,
// and "otherBits" when bits without a meaning are set.
func attrsValue(attrs int64, magic int) map[string]any {
	out := map[string]any{"compression": attrs & 7}
	for _, e := range schema.Enums() {
		if e.Name == "CompressionType" {
			if name := e.ValueName(attrs & 7); name != "" {
				out["compression"] = name
			}
		}
	}
	if magic >= 1 {
		out["timestampType"] = "CreateTime"
		if attrs&8 != 0 {
			out["timestampType"] = "LogAppendTime"
		}
	}
	if magic == 2 {
		out["transactional"] = attrs&0x10 != 0
		out["control"] = attrs&0x20 != 0
		out["deleteHorizon"] = attrs&0x40 != 0
	}
	if magic >= 0 && magic < len(knownAttrs) {
		if o := attrs &^ knownAttrs[magic]; o != 0 {
			out["otherBits"] = o
		}
	}
	return out
}

// hasWarnings reports whether the records reader said a warning inside
// entry n (or left bytes raw): what a payload reader made under a key or
// value, and said there, is not the entry's. It is when value JSON gives
// an entry its "_raw".
func hasWarnings(n *Node) bool {
	if len(n.Warnings) > 0 || n.Role == RoleRaw {
		return true
	}
	hooked := n.Role == RoleRecord && (n.Name == "key" || n.Name == "value")
	for _, c := range n.Children {
		if hooked && !c.inflated() {
			continue
		}
		if hasWarnings(c) {
			return true
		}
	}
	return false
}

// avroMap reports whether n is an Avro map a payload reader decoded
// (codec/payload): an array of entries in the tree, each named by its key
// and holding the key and the value, an object in value JSON.
func (n *Node) avroMap() bool {
	if n.Role != RoleRecord || n.Kind != schema.Array {
		return false
	}
	return n.Type == "avro map" || strings.HasPrefix(n.Type, "avro union[") && strings.HasSuffix(n.Type, "] map")
}

// avroMapValue is an Avro map's value: its entries' values by their keys,
// as value JSON has them.
func (n *Node) avroMapValue() map[string]any {
	out := make(map[string]any, len(n.Children))
	for _, e := range n.Children {
		if e.Role != RoleRecord || e.Type != "avro map entry" {
			continue // framing: block counts
		}
		var v any
		for _, c := range e.Children {
			if c.Name == "value" {
				v = c.Value()
			}
		}
		out[e.Name] = v
	}
	return out
}
