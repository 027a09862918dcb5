package storage

import (
	"encoding/base64"
	"math"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// EncodeTopicRecord writes the key and value of a record of the internal
// topic named topic from its value JSON (as TopicRecord.AppendJSON writes
// it, parsed with numbers kept exact: codec.ParseJSON): the record type
// selects the schemas, "keyBytes" and "valueBytes" (base64) are written
// as they are, a null value is a null value. nil means null.
func EncodeTopicRecord(topic string, v map[string]any) (key, value []byte, err error) {
	t := schema.InternalTopicByName(topic)
	if t == nil {
		return nil, nil, &codec.EncodeError{Msg: topic + " is not an internal topic kwire knows"}
	}
	typ, err := intField(v, "type", "", -1, math.MaxInt16)
	if err != nil {
		return nil, nil, err
	}
	var rec *schema.InternalRecord
	if rs := t.RecordType(int16(typ)); len(rs) > 0 {
		rec = &rs[0]
		if name, ok := v["schema"].(string); ok {
			for i := range rs {
				if rs[i].Value.Name == name {
					rec = &rs[i]
				}
			}
		}
	}
	if key, err = rawPart(v, "keyBytes"); err != nil {
		return nil, nil, err
	}
	if value, err = rawPart(v, "valueBytes"); err != nil {
		return nil, nil, err
	}
	if t.Framing == schema.CoordinatorFraming {
		if key == nil {
			if rec == nil {
				return nil, nil, &codec.EncodeError{Path: "type", Msg: "no record type " + itoa(typ) + " in " + topic}
			}
			obj, ok := v["key"].(map[string]any)
			if !ok {
				return nil, nil, &codec.EncodeError{Path: "key", Msg: "expected the key's fields or keyBytes"}
			}
			key = wire.AppendInt16(nil, int16(typ))
			if key, err = encodeMessage(key, rec.Key, rec.KeyVersion, obj, "key"); err != nil {
				return nil, nil, err
			}
		}
		if value == nil && v["value"] != nil {
			if rec == nil {
				return nil, nil, &codec.EncodeError{Path: "type", Msg: "no record type " + itoa(typ) + " in " + topic}
			}
			ver, err := intField(v, "valueVersion", "", 0, math.MaxInt16)
			if err != nil {
				return nil, nil, err
			}
			value = wire.AppendInt16(nil, int16(ver))
			if value, err = encodeValue(value, rec.Value, int16(ver), v["value"]); err != nil {
				return nil, nil, err
			}
		}
		return key, value, nil
	}
	if value == nil && v["value"] != nil {
		if rec == nil {
			return nil, nil, &codec.EncodeError{Path: "type", Msg: "no record type (apiKey) " + itoa(typ) + " in " + topic}
		}
		fv, err := intField(v, "frameVersion", "", 0, math.MaxInt16)
		if err != nil {
			return nil, nil, err
		}
		ver, err := intField(v, "version", "", 0, math.MaxInt16)
		if err != nil {
			return nil, nil, err
		}
		value = wire.AppendUvarint(nil, uint32(fv))
		value = wire.AppendUvarint(value, uint32(typ))
		value = wire.AppendUvarint(value, uint32(ver))
		if value, err = encodeValue(value, rec.Value, int16(ver), v["value"]); err != nil {
			return nil, nil, err
		}
	}
	return key, value, nil
}

// consumerFields are the bytes fields of coordinator values that hold
// consumer-protocol messages, which value JSON shows decoded: a classic
// group's members' subscriptions and assignments.
var consumerFields = map[string]map[string]string{
	"GroupMetadataValue": {"subscription": "ConsumerProtocolSubscription", "assignment": "ConsumerProtocolAssignment"},
}

// encodeValue appends a value message, first turning the decoded
// consumer-protocol objects of a classic group's members back into bytes.
func encodeValue(dst []byte, m *schema.Message, version int16, v any) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return dst, &codec.EncodeError{Path: "value", Msg: "expected the value's fields or valueBytes"}
	}
	if fields := consumerFields[m.Name]; fields != nil {
		members, _ := obj["members"].([]any)
		copied := make([]any, len(members))
		for i, x := range members {
			copied[i] = x
			mo, ok := x.(map[string]any)
			if !ok {
				continue
			}
			var c map[string]any
			for f, name := range fields {
				sub, ok := mo[f].(map[string]any)
				if !ok {
					continue
				}
				if c == nil {
					c = make(map[string]any, len(mo))
					for k, x := range mo {
						c[k] = x
					}
				}
				path := "value.members[" + itoa(int64(i)) + "]." + f
				ver, err := intField(sub, "version", path, 0, math.MaxInt16)
				if err != nil {
					return dst, err
				}
				rest := make(map[string]any, len(sub))
				for k, x := range sub {
					if k != "version" {
						rest[k] = x
					}
				}
				b := wire.AppendInt16(nil, int16(ver))
				if b, err = encodeMessage(b, schema.DataMessage(name), int16(ver), rest, path); err != nil {
					return dst, err
				}
				c[f] = b
			}
			if c != nil {
				copied[i] = c
			}
		}
		if members != nil {
			o := make(map[string]any, len(obj))
			for k, x := range obj {
				o[k] = x
			}
			o["members"] = copied
			obj = o
		}
	}
	return encodeMessage(dst, m, version, obj, "value")
}

// rawPart reads a part given whole as base64, or nil.
func rawPart(v map[string]any, name string) ([]byte, error) {
	x, ok := v[name]
	if !ok {
		return nil, nil
	}
	s, ok := x.(string)
	if !ok {
		return nil, &codec.EncodeError{Path: name, Msg: "expected base64 text"}
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, &codec.EncodeError{Path: name, Msg: "bad base64: " + err.Error()}
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// intField reads an integer member of v within [lo, hi].
func intField(v map[string]any, name, path string, lo, hi int64) (int64, error) {
	p := name
	if path != "" {
		p = path + "." + name
	}
	x, ok := v[name]
	if !ok {
		return 0, &codec.EncodeError{Path: p, Msg: "missing"}
	}
	var n int64
	switch t := x.(type) {
	case interface{ Int64() (int64, error) }:
		var err error
		if n, err = t.Int64(); err != nil {
			return 0, &codec.EncodeError{Path: p, Msg: "expected an integer"}
		}
	case int:
		n = int64(t)
	case int64:
		n = t
	case float64:
		if t != math.Trunc(t) {
			return 0, &codec.EncodeError{Path: p, Msg: "expected an integer"}
		}
		n = int64(t)
	default:
		return 0, &codec.EncodeError{Path: p, Msg: "expected an integer"}
	}
	if n < lo || n > hi {
		return 0, &codec.EncodeError{Path: p, Msg: "out of range " + itoa(lo) + ".." + itoa(hi)}
	}
	return n, nil
}
