package codec

import (
	"bytes"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

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

func fillRandom(rv reflect.Value, rnd *rand.Rand, depth int) {
	switch rv.Kind() {
	case reflect.Struct:
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

func bodyJSON(t *testing.T, f *Frame) map[string]any {
	t.Helper()
	v, err := ParseJSON(f.JSON())
	require.NoError(t, err)
	body, _ := v.(map[string]any)["body"].(map[string]any)
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
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Message(schema.Request)
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
				// kmsg -> us -> bytes.
				for round := 0; round < 3; round++ {
					msg := kmsgFor(api.Key, response)
					fillRandom(reflect.ValueOf(msg).Elem(), rnd, 0)
					msg.SetVersion(v)
					want := msg.AppendTo(nil)
					f, err := DecodeBody(want, api.Key, v, response, Options{RawRecords: true}) // records hold random bytes
					require.NoError(t, err, "%s: %x", name, want)
					require.Equal(t, len(want), f.Body.End, name)
					tree.Walk(f.Root, func(n *tree.Node) bool {
						for _, w := range n.Warnings {
							if n.Role == tree.RoleUnknownTag && kmsgTagLeaks(api.Key, v) {
								continue
							}
							t.Errorf("%s: %s: %s", name, n.Name, w)
						}
						return true
					})
					got, err := EncodeBody(nil, api.Key, v, response, bodyJSON(t, f), EncodeOptions{})
					require.NoError(t, err, name)
					if !bytes.Equal(want, got) {
						t.Fatalf("%s: re-encoded bytes differ\nkmsg %x\nours %x\n%s", name, want, got, f.JSON())
					}
				}
				// us -> kmsg -> bytes.
				ex := Example(api, v, response)
				ours, err := EncodeBody(nil, api.Key, v, response, ex["body"].(map[string]any), EncodeOptions{})
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
			m := schema.Lookup(key, schema.Request)
			if response {
				m = schema.Lookup(key, schema.Response)
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
