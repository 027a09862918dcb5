package storage

import (
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// ExampleTopicRecord lays out a record of rec, a record type of the
// internal topic t, with its value at version, from Kafka's schemas:
// every field the version has, tagged ones included, holding a small
// value of its kind (arrays one element long), framed as the topic frames
// its records. The bytes are deterministic: the docs draw them and the
// tests read them back.
func ExampleTopicRecord(t *schema.InternalTopic, rec *schema.InternalRecord, version int16) (key, value []byte, err error) {
	vd := rec.Value.At(version)
	if vd == nil {
		return nil, nil, errorf("", rec.Value.Name+" has no version "+strconv.Itoa(int(version)))
	}
	if t.Framing == schema.CoordinatorFraming {
		kd := rec.Key.At(rec.KeyVersion)
		key = wire.AppendInt16(nil, rec.Type)
		if key, err = encodeMessage(key, rec.Key, rec.KeyVersion, exampleStruct(kd.Root, rec.KeyVersion, false, 1), "key"); err != nil {
			return nil, nil, err
		}
		value = wire.AppendInt16(nil, version)
	} else {
		value = wire.AppendUvarint(nil, 1)
		value = wire.AppendUvarint(value, uint32(rec.Type))
		value = wire.AppendUvarint(value, uint32(version))
	}
	value, err = encodeMessage(value, rec.Value, version, exampleStruct(vd.Root, version, vd.Flexible.Contains(version), int(rec.Type)), "value")
	return key, value, err
}

// exampleStruct is a value for every field of l at version v.
func exampleStruct(l *schema.Layout, v int16, flex bool, seed int) map[string]any {
	out := map[string]any{}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || (f.IsTagged(v) && !flex) {
			continue
		}
		out[f.JSON] = exampleValue(f, f.Kind, v, flex, seed+i)
	}
	return out
}

func exampleValue(f *schema.Field, k schema.Kind, v int16, flex bool, seed int) any {
	switch k {
	case schema.Bool:
		return seed%2 == 0
	case schema.Int8:
		return seed % 100
	case schema.Int16, schema.Uint16:
		return seed % 1000
	case schema.Int32, schema.Uint32, schema.Int64:
		return 1000 + seed
	case schema.Float64:
		return 0.5
	case schema.String:
		return "s" + strconv.Itoa(seed)
	case schema.Bytes, schema.Records:
		return "AQID"
	case schema.UUID:
		return "AQEBAQEBAQEBAQEBAQEBAQ"
	case schema.Struct:
		return exampleStruct(f.Struct, v, flex, seed*7)
	case schema.Array:
		return []any{exampleValue(f, f.Elem, v, flex, seed+1)}
	}
	return nil
}
