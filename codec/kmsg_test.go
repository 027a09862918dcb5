package codec

import (
	"bytes"
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kmsgTagLeaks are the pairs where kmsg writes a tagged field at flexible
// versions before the field's taggedVersions (the schemas README lists
// them): our decoder sees those tags as unknown and keeps them.
func kmsgTagLeaks(key, v int16) bool {
	switch key {
	case 0:
		return v == 9
	case 1:
		return v >= 12 && v <= 17
	case 52, 59:
		return v == 0
	case 63:
		return v <= 1
	}
	return false
}

// kmsgWrong are pairs where kmsg disagrees with Kafka's own schema files.
func kmsgWrong(key, v int16, response bool) bool {
	return key == 5 && v == 4 && !response // kmsg writes ControllerEpoch before IsKRaftController
}

func fillRandom(rv reflect.Value, rnd *rand.Rand, depth int) { fillValue(rv, rnd, depth, 0) }

// fillMixed is fillRandom leaving about one struct in two (at any depth,
// the message itself included) at kmsg's defaults, so that some tagged
// fields hold their defaults, which kmsg then leaves out (or, for a few,
// writes all the same), and others do not.
func fillMixed(rv reflect.Value, rnd *rand.Rand) { fillValue(rv, rnd, 0, 2) }

func fillValue(rv reflect.Value, rnd *rand.Rand, depth, oneInDefault int) {
	fillRandom := func(rv reflect.Value, rnd *rand.Rand, depth int) { fillValue(rv, rnd, depth, oneInDefault) }
	switch rv.Kind() {
	case reflect.Struct:
		if oneInDefault > 0 && rv.CanAddr() && rnd.Intn(oneInDefault) == 0 {
			if m := rv.Addr().MethodByName("Default"); m.IsValid() {
				m.Call(nil)
				return
			}
		}
		t := rv.Type()
		for i := 0; i < rv.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Name == "Version" || sf.Name == "UnknownTags" {
				continue
			}
			fillRandom(rv.Field(i), rnd, depth+1)
		}
	case reflect.Bool:
		rv.SetBool(rnd.Intn(2) == 1)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		rv.SetInt(rnd.Int63() - rnd.Int63())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		rv.SetUint(rnd.Uint64())
	case reflect.Float64:
		rv.SetFloat(rnd.Float64() * 1e6)
	case reflect.String:
		rv.SetString(randString(rnd))
	case reflect.Ptr:
		p := reflect.New(rv.Type().Elem())
		fillRandom(p.Elem(), rnd, depth+1)
		rv.Set(p)
	case reflect.Slice:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, 1+rnd.Intn(6))
			rnd.Read(b)
			rv.SetBytes(b)
			return
		}
		n := 1 + rnd.Intn(2)
		if depth > 6 {
			n = 1
		}
		s := reflect.MakeSlice(rv.Type(), n, n)
		for i := 0; i < n; i++ {
			fillRandom(s.Index(i), rnd, depth+1)
		}
		rv.Set(s)
	case reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			fillRandom(rv.Index(i), rnd, depth+1)
		}
	}
}

func randString(rnd *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz-._0123456789"
	b := make([]byte, 1+rnd.Intn(8))
	for i := range b {
		b[i] = letters[rnd.Intn(len(letters))]
	}
	return string(b)
}

type kmsgMsg interface {
	SetVersion(int16)
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

func kmsgFor(key int16, response bool) kmsgMsg {
	req := kmsg.RequestForKey(key)
	if req == nil {
		return nil
	}
	if response {
		return req.ResponseKind()
	}
	return req
}

// bodyJSON is the body of f's value JSON, which shows the tagged fields
// its bytes carry, no more (checked).
func bodyJSON(t *testing.T, f *Frame) map[string]any {
	t.Helper()
	requireTagsAsCarried(t, f)
	body, _ := valueOf(t, f)["body"].(map[string]any)
	require.NotNil(t, body)
	return body
}

// TestAgainstKmsg checks the codec byte for byte against franz-go's kmsg, an
// independent implementation, in both directions, for every API, version
// and direction both know.
func TestAgainstKmsg(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	checked := 0
	var onlyOurs []string
	atDefault := map[string]bool{}
	tagCount := map[bool]int{} // tagged fields of flexible layouts: present, absent
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			req := kmsg.RequestForKey(api.Key)
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				name := api.Name + " v" + itoa(int(v)) + map[bool]string{false: " request", true: " response"}[response]
				if req == nil || v > req.MaxVersion() {
					onlyOurs = append(onlyOurs, name)
					continue
				}
				if kmsgWrong(api.Key, v, response) {
					continue
				}
				// kmsg -> us -> bytes: random values, then (rounds 3-5)
				// random values with some structs at their defaults, so
				// that tagged fields are present in some places and
				// absent in others. The JSON shows exactly the tagged
				// fields the bytes carry (bodyJSON checks), and the
				// encoder writes them back byte for byte: absent ones
				// stay absent, and the few kmsg writes at their default
				// are kept.
				for round := 0; round < 6; round++ {
					msg := kmsgFor(api.Key, response)
					if round < 3 {
						fillRandom(reflect.ValueOf(msg).Elem(), rnd, 0)
					} else {
						fillMixed(reflect.ValueOf(msg).Elem(), rnd)
					}
					msg.SetVersion(v)
					want := msg.AppendTo(nil)
					f, err := Decode(want, Options{Body: true, APIKey: api.Key, Version: v, Response: response, raw: true}) // records hold random bytes: nothing nested decoded
					require.NoError(t, err, "%s: %x", name, want)
					require.Equal(t, len(want), f.Body.End, name)
					tree.Walk(f.Root, func(n *tree.Node) bool {
						for _, w := range n.Warnings {
							if n.Role == tree.RoleUnknownTag && kmsgTagLeaks(api.Key, v) {
								continue
							}
							if n.Flags&tree.Tagged != 0 && strings.HasPrefix(w, "tagged field present with its default") {
								atDefault[name+" "+n.Name] = true // kmsg writes this one at its default
								continue
							}
							t.Errorf("%s: %s: %s", name, n.Name, w)
						}
						return true
					})
					present, absent := requireTagsAsCarried(t, f)
					tagCount[true] += present
					tagCount[false] += absent
					got, err := Encode(nil, bodyJSON(t, f), EncodeOptions{Body: true, APIKey: api.Key, Version: v, Response: response})
					require.NoError(t, err, name)
					if !bytes.Equal(want, got) {
						t.Fatalf("%s: re-encoded bytes differ\nkmsg %x\nours %x\n%s", name, want, got, f.AppendJSON(nil))
					}
				}
				// us -> kmsg -> bytes.
				ex := Example(api, v, response)
				ours, err := Encode(nil, ex["body"].(map[string]any), EncodeOptions{Body: true, APIKey: api.Key, Version: v, Response: response})
				require.NoError(t, err, name)
				msg := kmsgFor(api.Key, response)
				msg.SetVersion(v)
				require.NoError(t, msg.ReadFrom(ours), "%s: kmsg cannot read our example %x", name, ours)
				if back := msg.AppendTo(nil); !bytes.Equal(back, ours) {
					t.Errorf("%s: kmsg re-encodes our example differently\nours %x\nkmsg %x", name, ours, back)
				}
				checked++
			}
		}
	}
	var onlyKmsg []string
	for key := int16(0); key < 200; key++ {
		req := kmsg.RequestForKey(key)
		if req == nil {
			continue
		}
		for _, response := range []bool{false, true} {
			var m *schema.Message
			if a := schema.ByKey(key); a != nil {
				m = a.Request
				if response {
					m = a.Response
				}
			}
			for v := int16(0); v <= req.MaxVersion(); v++ {
				if m == nil || m.At(v) == nil {
					onlyKmsg = append(onlyKmsg, itoa(int(key))+" v"+itoa(int(v)))
				}
			}
		}
	}
	sort.Strings(onlyKmsg)
	t.Logf("checked %d API/version/direction pairs against kmsg", checked)
	var written []string
	for k := range atDefault {
		written = append(written, k)
	}
	sort.Strings(written)
	t.Logf("tagged fields present %d times, absent %d; kmsg writes at their default (%d): %s", tagCount[true], tagCount[false], len(written), strings.Join(written, ", "))
	require.Greater(t, tagCount[true], 300)
	require.Greater(t, tagCount[false], 100)
	t.Logf("only kwire knows (%d): %s", len(onlyOurs), strings.Join(onlyOurs, ", "))
	t.Logf("only kmsg knows (%d): %s", len(onlyKmsg), strings.Join(onlyKmsg, ", "))
	require.Greater(t, checked, 700)
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i < 0 {
		b = append(b, '-')
		i = -i
	}
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// withTags rewrites an example body in place: every tagged field, at every
// depth, holds its default (present) or is left out (absent). It reports
// whether there was any.
func withTags(t *testing.T, l *schema.Layout, obj map[string]any, v int16, present bool) bool {
	found := false
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		if f.IsTagged(v) {
			found = true
			if !present {
				delete(obj, f.JSON)
				continue
			}
			d, err := parseJSON(appendDefault(nil, f, f.Kind, v))
			require.NoError(t, err)
			obj[f.JSON] = d
			continue
		}
		switch x := obj[f.JSON].(type) {
		case map[string]any:
			if f.Kind == schema.Struct && withTags(t, f.Struct, x, v, present) {
				found = true
			}
		case []any:
			for _, el := range x {
				if o, ok := el.(map[string]any); ok && f.Elem == schema.Struct && withTags(t, f.Struct, o, v, present) {
					found = true
				}
			}
		}
	}
	return found
}

// kmsgUnknownTags reports whether kmsg kept tags it has no field for
// (UnknownTags at any depth): it writes those back as they came.
func kmsgUnknownTags(rv reflect.Value) bool {
	switch rv.Kind() {
	case reflect.Ptr, reflect.Interface:
		return !rv.IsNil() && kmsgUnknownTags(rv.Elem())
	case reflect.Struct:
		if u := rv.FieldByName("UnknownTags"); u.IsValid() {
			if l := u.Addr().MethodByName("Len"); l.IsValid() && l.Call(nil)[0].Int() > 0 {
				return true
			}
		}
		for i := 0; i < rv.NumField(); i++ {
			if rv.Type().Field(i).IsExported() && kmsgUnknownTags(rv.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			if kmsgUnknownTags(rv.Index(i)) {
				return true
			}
		}
	}
	return false
}

// TestKmsgTaggedPresence: a tagged field given holding its default is
// written (and decodes as present, with the warning Kafka's encoders would
// earn); one left out is not written. kmsg, which has no notion of
// presence, reads our bytes and writes the fields back only when they
// differ from the default, which must be our bytes for the same body with
// those fields left out, byte for byte.
func TestKmsgTaggedPresence(t *testing.T) {
	checked, unknown := 0, 0
	eachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		m := api.Request
		if response {
			m = api.Response
		}
		req := kmsg.RequestForKey(api.Key)
		if !m.Flexible(v) || req == nil || v > req.MaxVersion() || kmsgWrong(api.Key, v, response) {
			return
		}
		name := api.Name + " v" + itoa(int(v)) + map[bool]string{false: " request", true: " response"}[response]
		root := m.At(v).Root
		withDefaults := Example(api, v, response)["body"].(map[string]any)
		if !withTags(t, root, withDefaults, v, true) {
			return
		}
		without := Example(api, v, response)["body"].(map[string]any)
		withTags(t, root, without, v, false)
		present, err := Encode(nil, withDefaults, EncodeOptions{Body: true, APIKey: api.Key, Version: v, Response: response})
		require.NoError(t, err, name)
		absent, err := Encode(nil, without, EncodeOptions{Body: true, APIKey: api.Key, Version: v, Response: response})
		require.NoError(t, err, name)
		require.NotEqual(t, present, absent, "%s: tagged fields at their defaults were not written", name)

		msg := kmsgFor(api.Key, response)
		msg.SetVersion(v)
		require.NoError(t, msg.ReadFrom(present), "%s: kmsg cannot read %x", name, present)
		want, what := absent, "we write without the default tags"
		if kmsgUnknownTags(reflect.ValueOf(msg)) {
			want, what, unknown = present, "kmsg keeps tags it does not know; we write", unknown+1
		}
		if back := msg.AppendTo(nil); !bytes.Equal(back, want) {
			t.Errorf("%s: kmsg writes back\n%x\n%s\n%x", name, back, what, want)
		}

		// Our decoder sees them present (and says they hold defaults), and
		// the encoder writes them back.
		f, err := Decode(present, Options{Body: true, APIKey: api.Key, Version: v, Response: response})
		require.NoError(t, err, name)
		warned := 0
		tree.Walk(f.Root, func(n *tree.Node) bool {
			for _, w := range n.Warnings {
				if strings.Contains(w, "present with its default") {
					warned++
				}
			}
			return true
		})
		require.Positive(t, warned, name)
		again, err := Encode(nil, bodyJSON(t, f), EncodeOptions{Body: true, APIKey: api.Key, Version: v, Response: response})
		require.NoError(t, err, name)
		require.Equal(t, present, again, name)
		checked++
	})
	t.Logf("%d flexible API/version/direction triples with tagged fields checked (%d with tags kmsg does not know)", checked, unknown)
	require.GreaterOrEqual(t, checked, 36) // every flexible triple with a tagged field, as of Kafka 4.3
}

// appendDefault writes the value JSON of f's default at version v.
func appendDefault(dst []byte, f *schema.Field, k schema.Kind, v int16) []byte {
	switch k {
	case schema.Bool:
		return strconv.AppendBool(dst, defaultInt(f) != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return jsontext.AppendInt(dst, defaultInt(f))
	case schema.Float64:
		return jsontext.AppendFloat(dst, defaultFloat(f))
	case schema.String:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return jsontext.AppendString(dst, []byte(defaultString(f)))
	case schema.Bytes, schema.Records:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return append(dst, `""`...)
	case schema.UUID:
		return append(dst, `"AAAAAAAAAAAAAAAAAAAAAA"`...)
	case schema.Array:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return append(dst, "[]"...)
	case schema.Struct:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		dst = append(dst, '{')
		first := true
		for i := range f.Struct.Fields {
			sf := &f.Struct.Fields[i]
			if !sf.Versions.Contains(v) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(append(append(dst, '"'), sf.JSON...), '"', ':')
			dst = appendDefault(dst, sf, sf.Kind, v)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}
