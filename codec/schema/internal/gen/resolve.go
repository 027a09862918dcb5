package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// The resolve stage: from the files as read to the schema package's own
// values. It applies the precedence rule of kafka/README.md (version N of
// a message is laid out by the first folder, in ORDER, whose file lists
// N), merges consecutive versions that share a layout, shares identical
// layouts between messages, and works out what the files leave implicit
// (header versions, the versions Kafka 4.0 removed).

// tables is everything the generated files hold, as schema values.
type tables struct {
	messages                      []*schema.Message // every message, ordered by key
	apis                          []*schema.API     // ordered by key; Category is the package's to fill
	requestHeader, responseHeader *schema.Message
	data                          []*schema.Message // the data messages, in the order of messages
	errorBase                     int               // the lowest error code (or 0)
	errorNames                    []string          // from errorBase up, "" where no code is defined
	renamed                       []renamedError
	enums                         []*schema.Enum
	// emptyDefault holds the fields whose file says "default": "", which a
	// schema.Field cannot tell from no default; the tables keep writing it.
	emptyDefault map[*schema.Field]bool
}

// renamedError is an old name of an error code.
type renamedError struct {
	code       int16
	old, until string
}

// resolver holds the state of one resolution.
type resolver struct {
	src    *source
	shared map[string]*schema.Layout // identical layouts, by their structure
	t      *tables
	// released are the versions released.tsv says a released Kafka
	// serves, though the folder defining them marks them unstable; how
	// many messages (its request, and its response where that says so too)
	// met each.
	released map[[2]int16]int
}

// readReleased reads released.tsv's rows into r.released.
func (r *resolver) readReleased() error {
	r.released = map[[2]int16]int{}
	for _, row := range r.src.released {
		k, err1 := strconv.Atoi(row[0])
		v, err2 := strconv.Atoi(row[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("released.tsv: bad row %q", row)
		}
		r.released[[2]int16{int16(k), int16(v)}] = 0
	}
	return nil
}

// resolve turns what read gathered into the tables.
func resolve(s *source) (*tables, error) {
	r := &resolver{src: s, shared: map[string]*schema.Layout{}, t: &tables{emptyDefault: map[*schema.Field]bool{}}}
	if err := r.readReleased(); err != nil {
		return nil, err
	}
	apis := map[int16]*schema.API{}
	for _, k := range s.messageKeys() {
		m, err := r.message(k)
		if err != nil {
			return nil, err
		}
		r.t.messages = append(r.t.messages, m)
		switch m.Kind {
		case "request", "response":
			a := apis[m.APIKey]
			if a == nil {
				a = &schema.API{Key: m.APIKey}
				apis[m.APIKey] = a
			}
			if m.Kind == "response" {
				a.Response = m
				break
			}
			a.Request = m
			a.Names = r.apiNames(k)
			a.Name = a.Names[0]
			a.Removed40 = r.removed40(m.APIKey, k, m.Valid)
		case "header":
			if m.Name == "RequestHeader" {
				r.t.requestHeader = m
			} else {
				r.t.responseHeader = m
			}
		case "data":
			r.t.data = append(r.t.data, m)
		}
	}
	for _, a := range apis {
		if a.Request == nil || a.Response == nil {
			return nil, fmt.Errorf("api %d lacks a request or response", a.Key)
		}
		r.t.apis = append(r.t.apis, a)
	}
	sort.Slice(r.t.apis, func(i, j int) bool { return r.t.apis[i].Key < r.t.apis[j].Key })
	for kv, n := range r.released {
		if n == 0 {
			return nil, fmt.Errorf("released.tsv: API %d v%d is not an unstable latest version in the folder that defines it: remove the row", kv[0], kv[1])
		}
	}
	if len(r.t.apis) == 0 || r.t.requestHeader == nil || r.t.responseHeader == nil {
		return nil, fmt.Errorf("the schemas define no API or no headers")
	}
	var err error
	if err = r.errors(); err != nil {
		return nil, err
	}
	if r.t.enums, err = resolveEnums(s.enums); err != nil {
		return nil, err
	}
	return r.t, nil
}

// messageKeys is every message key any folder defines, sorted.
func (s *source) messageKeys() []string {
	keys := map[string]bool{}
	for _, f := range s.folders {
		for k := range s.byFolder[f] {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	return sorted
}

// defined is one version of a message and the file that lays it out.
type defined struct {
	v   int16
	def *rawMessage
}

// versions is which file defines each version of message k: the first
// folder, in precedence order, whose file lists it. The versions must be
// contiguous.
func (s *source) versions(k string) (all schema.Range, vs []defined, err error) {
	all = schema.Range{Lo: schema.Open, Hi: -1}
	for _, f := range s.folders {
		if m := s.byFolder[f][k]; m != nil {
			all.Lo = min(all.Lo, m.valid.Lo)
			all.Hi = max(all.Hi, m.valid.Hi)
		}
	}
	for v := int(all.Lo); v <= int(all.Hi); v++ {
		for _, f := range s.folders {
			if m := s.byFolder[f][k]; m != nil && m.valid.Contains(int16(v)) {
				vs = append(vs, defined{int16(v), m})
				break
			}
		}
	}
	if len(vs) == 0 || vs[0].v != all.Lo || vs[len(vs)-1].v != all.Hi || len(vs) != int(all.Hi)-int(all.Lo)+1 {
		return all, nil, fmt.Errorf("%s: versions are not contiguous", k)
	}
	return all, vs, nil
}

// messageKinds maps the files' types to kinds. The internal schemas' keys
// and values of coordinator topics and metadata records are data messages.
var messageKinds = map[string]string{"request": "request", "response": "response", "header": "header", "data": "data",
	"coordinator-key": "data", "coordinator-value": "data", "metadata": "data"}

// message resolves message key k across its versions. Consecutive versions
// with the same layout and flexibility share one Version entry.
func (r *resolver) message(k string) (*schema.Message, error) {
	all, vs, err := r.src.versions(k)
	if err != nil {
		return nil, err
	}
	newest := vs[len(vs)-1].def
	kind, ok := messageKinds[newest.Type]
	if !ok {
		return nil, fmt.Errorf("%s/%s: unknown message type %q", newest.folder, newest.Name, newest.Type)
	}
	msg := &schema.Message{Name: newest.Name, Kind: kind, APIKey: -1, Valid: all, Unstable: schema.Range{Lo: 1, Hi: 0}}
	if newest.APIKey != nil && (kind == "request" || kind == "response") {
		msg.APIKey = int16(*newest.APIKey)
	}
	hdr := make([]int8, len(vs))
	for i, x := range vs {
		m := x.def
		where := m.folder + "/" + m.Name
		flex, err := parseRange(m.FlexibleVersions)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		root, err := r.layout(m, m.Name, m.Fields)
		if err != nil {
			return nil, err
		}
		if n := len(msg.Versions); n > 0 && msg.Versions[n-1].Root == root && msg.Versions[n-1].Flexible == flex && msg.Versions[n-1].Versions.Hi == x.v-1 {
			msg.Versions[n-1].Versions.Hi = x.v
		} else {
			msg.Versions = append(msg.Versions, schema.Version{Versions: schema.Range{Lo: x.v, Hi: x.v}, Flexible: flex, Root: root, Source: m.folder})
		}
		if m.LatestVersionUnstable && x.v == m.valid.Hi {
			if n, ok := r.released[[2]int16{msg.APIKey, x.v}]; ok && msg.APIKey >= 0 {
				r.released[[2]int16{msg.APIKey, x.v}] = n + 1 // a release serves it: stable
			} else {
				msg.Unstable = schema.Range{Lo: x.v, Hi: x.v}
			}
		}
		if hdr[i], err = headerVersion(m, x.v, flex); err != nil {
			return nil, err
		}
	}
	if kind == "request" || kind == "response" {
		// Indexed from version 0; versions below Valid.Lo repeat the first.
		for v := 0; v <= int(all.Hi); v++ {
			msg.HeaderVersions = append(msg.HeaderVersions, hdr[max(v-int(all.Lo), 0)])
		}
	}
	return msg, nil
}

// headerVersion is the header version of m at version v: what its
// headerVersions say, else Kafka's rule (flexible requests use header v2,
// flexible responses v1; ControlledShutdown v0 requests and ApiVersions
// responses keep v0).
func headerVersion(m *rawMessage, v int16, flex schema.Range) (int8, error) {
	h := int8(-1)
	for rs, hv := range m.HeaderVersions {
		rg, err := parseRange(rs)
		if err != nil {
			return 0, fmt.Errorf("%s headerVersions: %v", m.Name, err)
		}
		if rg.Contains(v) {
			n, _ := strconv.Atoi(hv)
			h = int8(n)
		}
	}
	if h >= 0 {
		return h, nil
	}
	fl := flex.Contains(v)
	switch {
	case m.Type == "request" && *m.APIKey == 7 && v == 0:
		return 0, nil
	case m.Type == "request" && fl:
		return 2, nil
	case m.Type == "request":
		return 1, nil
	case m.Type == "response" && *m.APIKey == 18:
		return 0, nil
	case fl:
		return 1, nil
	}
	return 0, nil
}

// kinds maps the schema files' primitive types to kinds.
var kinds = map[string]schema.Kind{
	"bool": schema.Bool, "int8": schema.Int8, "int16": schema.Int16, "uint16": schema.Uint16, "int32": schema.Int32,
	"uint32": schema.Uint32, "int64": schema.Int64, "float64": schema.Float64, "string": schema.String,
	"bytes": schema.Bytes, "uuid": schema.UUID, "records": schema.Records,
}

// layout resolves a struct of m named name, sharing it with an identical
// one resolved before.
func (r *resolver) layout(m *rawMessage, name string, raw []rawField) (*schema.Layout, error) {
	l := &schema.Layout{Name: name, Fields: make([]schema.Field, len(raw))}
	var empty []int // the fields whose default is ""
	for i, f := range raw {
		var err error
		if l.Fields[i], err = r.field(m, f); err != nil {
			return nil, err
		}
		if string(f.Default) == `""` {
			empty = append(empty, i)
		}
	}
	// Two layouts are the same when every field is: a sub-struct is
	// shared already, so its pointer stands for its structure.
	key := fmt.Sprintf("%q %#v %v", name, l.Fields, empty)
	if s, ok := r.shared[key]; ok {
		return s, nil
	}
	r.shared[key] = l
	for _, i := range empty {
		r.t.emptyDefault[&l.Fields[i]] = true
	}
	return l, nil
}

// field resolves field f of message m.
func (r *resolver) field(m *rawMessage, f rawField) (schema.Field, error) {
	where := m.folder + "/" + m.Name + "." + f.Name
	fail := func(format string, a ...any) (schema.Field, error) {
		return schema.Field{}, fmt.Errorf("%s: "+format, append([]any{where}, a...)...)
	}
	out := schema.Field{Name: f.Name, JSON: camel(f.Name), Type: f.Type, Tag: -1, Tagged: none, Flexible: none,
		EntityType: f.EntityType, MapKey: bool(f.MapKey), Ignorable: bool(f.Ignorable)}
	t, isArray := strings.CutPrefix(f.Type, "[]")
	if isArray {
		out.Kind = schema.Array
	}
	if k, ok := kinds[t]; ok {
		if len(f.Fields) > 0 {
			return fail("primitive with fields")
		}
		if isArray {
			out.Elem = k
		} else {
			out.Kind = k
		}
	} else {
		fields := f.Fields
		if len(fields) == 0 {
			cs := m.common(t)
			if cs == nil {
				return fail("unknown type %q", t)
			}
			fields = cs.Fields
		}
		sub, err := r.layout(m, t, fields)
		if err != nil {
			return schema.Field{}, err
		}
		out.Struct = sub
		if isArray {
			out.Elem = schema.Struct
		} else {
			out.Kind = schema.Struct
		}
	}
	var err error
	if out.Versions, err = parseRange(f.Versions); err != nil {
		return fail("%v", err)
	}
	if out.Nullable, err = parseRange(f.NullableVersions); err != nil {
		return fail("%v", err)
	}
	if len(f.Tag) > 0 {
		n, err := strconv.Atoi(strings.Trim(string(f.Tag), `"`))
		if err != nil {
			return fail("bad tag %s", f.Tag)
		}
		out.Tag = int32(n)
		if out.Tagged, err = parseRange(f.TaggedVersions); err != nil {
			return fail("%v", err)
		}
		if out.Tagged.Empty() {
			return fail("tag without taggedVersions")
		}
		if strings.TrimSpace(f.Versions) == "" {
			// Kafka's generator reads a tagged field without versions as
			// present in its tagged versions (TransactionLogValue's).
			out.Versions = out.Tagged
		}
	}
	if f.FlexibleVersions != nil {
		if out.Flexible, err = parseRange(*f.FlexibleVersions); err != nil {
			return fail("%v", err)
		}
		out.FlexSet = true
	}
	if len(f.Default) > 0 {
		if f.Default[0] == '"' {
			if err := json.Unmarshal(f.Default, &out.Default); err != nil {
				return fail("%v", err)
			}
		} else {
			out.Default = string(f.Default)
		}
	}
	return out, nil
}

// none is the empty range.
var none = schema.Range{Lo: 1, Hi: 0}

// camel is the value-JSON name of a field: its name with the first letter
// in lower case.
func camel(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// trimDir is an API's name from its request's or response's.
func trimDir(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, "Request"), "Response")
}

// apiNames is every name the request k has had, newest first.
func (r *resolver) apiNames(k string) []string {
	var names []string
	for fi := len(r.src.folders) - 1; fi >= 0; fi-- {
		if m := r.src.byFolder[r.src.folders[fi]][k]; m != nil {
			n := trimDir(m.Name)
			found := false
			for _, x := range names {
				found = found || x == n
			}
			if !found {
				names = append([]string{n}, names...)
			}
		}
	}
	return names
}

// removed40 is the versions of the API (request k, versions all) that
// Kafka 4.0 removed. The schemas README names keys 4-7 as the
// ZooKeeper-era APIs a 4.0 broker no longer serves, though kafka-4.0/
// still carries their files.
func (r *resolver) removed40(apiKey int16, k string, all schema.Range) schema.Range {
	if apiKey >= 4 && apiKey <= 7 {
		return all
	} else if m := r.src.byFolder["kafka-4.0"][k]; m != nil {
		return schema.Range{Lo: all.Lo, Hi: m.valid.Lo - 1}
	} else if r.src.byFolder["legacy"][k] != nil {
		return all
	}
	return none
}

// errors resolves errors.tsv into a table from the lowest code, and
// checks the renamed codes against it.
func (r *resolver) errors() error {
	codes := map[int]string{}
	lo, hi := 0, 0
	for _, row := range r.src.errors {
		c, err := strconv.Atoi(row[0])
		if err != nil {
			return fmt.Errorf("errors.tsv: bad row %q", row)
		}
		codes[c] = row[1]
		lo, hi = min(lo, c), max(hi, c)
	}
	r.t.errorBase = lo
	for c := lo; c <= hi; c++ {
		r.t.errorNames = append(r.t.errorNames, codes[c])
	}
	for _, row := range r.src.renamed {
		c, err := strconv.Atoi(row[0])
		if err != nil {
			return fmt.Errorf("errors-renamed.tsv: bad row %q", row)
		}
		if codes[c] != row[2] {
			return fmt.Errorf("errors-renamed.tsv: code %d is %s in errors.tsv, not %s", c, codes[c], row[2])
		}
		r.t.renamed = append(r.t.renamed, renamedError{int16(c), row[1], row[3]})
	}
	return nil
}

// resolveEnums groups the rows of enums.tsv into enumerations, in file order.
func resolveEnums(rows [][]string) ([]*schema.Enum, error) {
	var out []*schema.Enum
	for _, row := range rows {
		v, err := strconv.ParseInt(row[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("enums.tsv: bad row %q", row)
		}
		if len(out) == 0 || out[len(out)-1].Name != row[0] {
			out = append(out, &schema.Enum{Name: row[0]})
		}
		e := out[len(out)-1]
		e.Values = append(e.Values, schema.EnumValue{Value: v, Name: row[2]})
	}
	return out, nil
}
