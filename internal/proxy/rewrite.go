package proxy

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Endpoint is a broker address as a response gives it.
type Endpoint struct {
	Host string
	Port int
}

func (e Endpoint) String() string { return joinHostPort(e.Host, e.Port) }

// mapFunc gives the address the client must use in place of a broker's.
type mapFunc func(Endpoint) (Endpoint, error)

// rewriteResponse rewrites every broker endpoint of a response frame (size
// prefix included) through m: decode (records left as bytes), rewrite the
// value, encode. It returns nil when the response names no endpoint or
// every endpoint maps to itself, so the original bytes go through
// unchanged. dec is reused from one call to the next.
//
// ApiVersions responses are read here too: the APIs whose responses carry
// endpoints are capped at the newest version the codec knows, so that a
// client never picks a version the proxy could not rewrite (capVersions).
// One that does not read cleanly at its request's version is read at v0,
// the layout of a broker's UNSUPPORTED_VERSION answer (KIP-511); an error
// for ApiVersions says only that its ranges could not be capped: it names
// no broker, so it can go to the client as it is.
func rewriteResponse(dec *codec.Decoder, frame []byte, key, ver int16, m mapFunc) ([]byte, int, error) {
	var o codec.Options
	o.Response, o.APIKey, o.Version, o.Kafka = true, key, ver, true
	f, err := dec.Decode(frame, o)
	if err != nil {
		return nil, 0, err
	}
	if f.Assumed {
		newer := "version " + strconv.Itoa(int(ver)) + " is newer than kwire knows"
		if key == schema.KeyApiVersions {
			return nil, 0, errors.New(newer)
		}
		return nil, 0, errors.New(newer + "; its endpoints cannot be rewritten")
	}
	if key == schema.KeyApiVersions {
		return capVersions(f)
	}
	d := f.Message.At(f.LayoutVersion)
	if d == nil || f.Body == nil {
		return nil, 0, errors.New("no layout for this version")
	}
	// Find the endpoints first: most Produce and Fetch responses carry none.
	var found []Endpoint
	visitEndpoints(f.Body, d.Root, nil, func(n *tree.Node) {
		h, p := n.Get("host"), n.Get("port")
		if h != nil && p != nil && !h.Null && !placeholder(string(h.Raw), int(p.Int), nodeIDOf(n)) {
			found = append(found, Endpoint{string(h.Raw), int(p.Int)})
		}
	})
	if len(found) == 0 {
		return nil, 0, nil
	}
	changed := false
	for _, e := range found {
		to, err := m(e)
		if err != nil {
			return nil, 0, err
		}
		changed = changed || to != e
	}
	if !changed {
		return nil, 0, nil
	}
	env, body, err := genericOf(f)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	var rerr error
	rewriteValue(body, d.Root, nil, func(v map[string]any, l *schema.Layout) {
		hf, pf := fieldOf(l, "Host", schema.String), portField(l)
		host, ok := v[hf.JSON].(string)
		if !ok {
			return // a null host (never sent by a broker) stays null
		}
		port, err := intOf(v[pf.JSON])
		if err != nil {
			rerr = err
			return
		}
		id := 0
		if f := nodeIDField(l); f != nil && v[f.JSON] != nil {
			if id, err = intOf(v[f.JSON]); err != nil {
				rerr = err
				return
			}
		}
		if placeholder(host, port, id) {
			return
		}
		to, err := m(Endpoint{host, port})
		if err != nil {
			rerr = err
			return
		}
		if to == (Endpoint{host, port}) {
			return // left as it is: not relayed (AllowBrokers, MaxListeners)
		}
		v[hf.JSON] = to.Host
		v[pf.JSON] = to.Port
		n++
	})
	if rerr != nil {
		return nil, 0, rerr
	}
	out, err := codec.Encode(nil, env, codec.EncodeOptions{})
	if err != nil {
		return nil, 0, err
	}
	return out, n, nil
}

// placeholder reports whether an endpoint (its host, port and node id, 0
// when its struct has none) stands for no node at all: Kafka writes
// nodeId -1, host "" and port -1 where there is none to name (a
// FindCoordinator answered COORDINATOR_NOT_AVAILABLE, a leader not yet
// elected). It is left as the broker sent it: no listener stands for it,
// and the client must still see that there is no node.
func placeholder(host string, port, id int) bool {
	return host == "" || port < 0 || id < 0
}

// nodeIDNames are the names an endpoint struct's node id goes by (an
// int32), in the order one is taken when a struct has two.
var nodeIDNames = [...]string{"nodeId", "brokerId", "leaderId"}

// nodeIDOf is the node id of an endpoint struct n (0 when it has none of
// its own).
func nodeIDOf(n *tree.Node) int {
	for _, name := range nodeIDNames {
		if c := n.Get(name); c != nil && c.Field != nil && c.Field.Kind == schema.Int32 {
			return int(c.Int)
		}
	}
	return 0
}

// nodeIDField is the node id field of an endpoint struct laid out by l
// (nil when it has none of its own).
func nodeIDField(l *schema.Layout) *schema.Field {
	for _, name := range nodeIDNames {
		for i := range l.Fields {
			if f := &l.Fields[i]; f.JSON == name && f.Kind == schema.Int32 {
				return f
			}
		}
	}
	return nil
}

func portField(l *schema.Layout) *schema.Field {
	if f := fieldOf(l, "Port", schema.Int32); f != nil {
		return f
	}
	return fieldOf(l, "Port", schema.Uint16)
}

func intOf(v any) (int, error) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.Atoi(string(x))
		return n, err
	case float64:
		return int(x), nil
	case int:
		return x, nil
	case int64:
		return int(x), nil
	}
	return 0, errors.New("port is not a number")
}

// visitEndpoints calls fn for every struct node under n (laid out by l,
// inside parent) that is a broker endpoint.
func visitEndpoints(n *tree.Node, l, parent *schema.Layout, fn func(*tree.Node)) {
	if isEndpoint(l, parent) {
		fn(n)
	}
	var kids func(c *tree.Node)
	kids = func(c *tree.Node) {
		if c.Role == tree.RoleTags {
			for _, t := range c.Children {
				kids(t)
			}
			return
		}
		if c.Field == nil || c.Field.Struct == nil || c.Null {
			return
		}
		switch c.Field.Kind {
		case schema.Struct:
			visitEndpoints(c, c.Field.Struct, l, fn)
		case schema.Array:
			for _, e := range c.Children {
				if e.Role == tree.RoleElement {
					visitEndpoints(e, c.Field.Struct, l, fn)
				}
			}
		}
	}
	for _, c := range n.Children {
		kids(c)
	}
}

// rewriteValue calls fn for every endpoint object in a generic value laid
// out by l.
func rewriteValue(v map[string]any, l, parent *schema.Layout, fn func(map[string]any, *schema.Layout)) {
	if v == nil {
		return
	}
	if isEndpoint(l, parent) {
		fn(v, l)
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if f.Struct == nil {
			continue
		}
		switch x := v[f.JSON].(type) {
		case map[string]any:
			rewriteValue(x, f.Struct, l, fn)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					rewriteValue(m, f.Struct, l, fn)
				}
			}
		}
	}
}

// capVersions lowers the highest version an ApiVersions response offers for
// APIs whose responses carry endpoints to the newest kwire knows. An API
// whose lowest version offered is already newer is left as the broker
// offers it: capped, its range would hold no version (min above max), and
// a client without, say, Metadata cannot work at all; its responses, which
// the proxy cannot rewrite, close their connection as any such does.
func capVersions(f *codec.Frame) ([]byte, int, error) {
	keys := f.Body.Get("apiKeys")
	if keys == nil {
		return nil, 0, nil
	}
	need := false
	for _, e := range keys.Elems() {
		k, mn, mx := e.Get("apiKey"), e.Get("minVersion"), e.Get("maxVersion")
		if k == nil || mn == nil || mx == nil {
			continue
		}
		if a := schema.ByKey(int16(k.Int)); a != nil && builtTables.endpoints[a.Key] != nil && mx.Int > int64(a.Response.Valid.Hi) && mn.Int <= int64(a.Response.Valid.Hi) {
			need = true
		}
	}
	if !need {
		return nil, 0, nil
	}
	env, body, err := genericOf(f)
	if err != nil {
		return nil, 0, err
	}
	list, _ := body["apiKeys"].([]any)
	n := 0
	for _, e := range list {
		m, _ := e.(map[string]any)
		k, err1 := intOf(m["apiKey"])
		mn, err2 := intOf(m["minVersion"])
		mx, err3 := intOf(m["maxVersion"])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		if a := schema.ByKey(int16(k)); a != nil && builtTables.endpoints[a.Key] != nil && mx > int(a.Response.Valid.Hi) && mn <= int(a.Response.Valid.Hi) {
			m["maxVersion"] = int(a.Response.Valid.Hi)
			n++
		}
	}
	out, err := codec.Encode(nil, env, codec.EncodeOptions{})
	return out, n, err
}

// genericOf turns a decoded frame into the Go values the encoder takes:
// its header's and body's values hold the tagged fields (and unknown
// tags) the broker sent, no more, so the re-encoded frame carries the
// same ones.
func genericOf(f *codec.Frame) (map[string]any, map[string]any, error) {
	body, _ := f.Body.Value().(map[string]any)
	if body == nil {
		return nil, nil, errors.New("the response has no body")
	}
	env := map[string]any{"direction": "response", "apiKey": f.APIKey, "apiVersion": f.Version, "header": f.Header.Value(), "body": body}
	return env, body, nil
}

func joinHostPort(host string, port int) string {
	for i := 0; i < len(host); i++ {
		if host[i] == ':' {
			return "[" + host + "]:" + strconv.Itoa(port)
		}
	}
	return host + ":" + strconv.Itoa(port)
}
