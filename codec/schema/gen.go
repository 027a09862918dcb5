//go:build ignore

// gen reads Kafka's JSON message schemas and writes kwire's schema tables.
//
// It follows the precedence rule of kafka/README.md: version N of a
// message is laid out by the first folder, in the order kafka/ORDER lists
// them, whose file for that message lists N in validVersions. Only
// structure is carried over; the files' prose ("about" texts, comments) is
// dropped, both from the tables and from the copy kept in kafka/.
//
//	go run gen.go                       # kafka/ -> tables_gen.go, constants_gen.go
//	go run gen.go -import DIR -as NAME  # copy Kafka's files from DIR into kafka/NAME,
//	                                    # first in kafka/ORDER, then generate
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// folders in precedence order (kafka/ORDER): the first that defines a
// version wins.
var folders []string

func readOrder(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "ORDER"))
	if err != nil {
		log.Fatal(err)
	}
	var fs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			fs = append(fs, l)
		}
	}
	return fs
}

// importFolder copies the message files of src into dir/name with their
// prose removed (structure only, in the files' own order), and puts name
// first in dir/ORDER so its versions take precedence.
func importFolder(dir, src, name string) {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		log.Fatalf("-import %s: no *.json files there", src)
	}
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			log.Fatal(err)
		}
		out, err := structureOnly(b)
		if err != nil {
			log.Fatalf("%s: %v", p, err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(p)), out, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	order := []string{name}
	for _, f := range readOrder(dir) {
		if f != name {
			order = append(order, f)
		}
	}
	head := "# Schema folders, first wins: version N of a message is laid out by the\n# first folder here whose file for it lists N in validVersions.\n"
	if err := os.WriteFile(filepath.Join(dir, "ORDER"), []byte(head+strings.Join(order, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}

// structureOnly rewrites a Kafka schema file (JSON with // comments) as
// plain JSON without comments and without "about" members, keeping the
// order of every other member, two spaces a level.
func structureOnly(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(stripComments(b)))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyValue(dec, &out, 0); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func copyValue(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	indent := func(d int) { out.WriteByte('\n'); out.WriteString(strings.Repeat("  ", d)) }
	switch t := t.(type) {
	case json.Delim:
		closing := byte('}')
		if t == '[' {
			closing = ']'
		}
		out.WriteByte(byte(t))
		n := 0
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if k == "about" {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return err
					}
					continue
				}
				if n > 0 {
					out.WriteByte(',')
				}
				indent(depth + 1)
				kb, _ := json.Marshal(k)
				out.Write(kb)
				out.WriteString(": ")
			} else {
				if n > 0 {
					out.WriteByte(',')
				}
				indent(depth + 1)
			}
			if err := copyValue(dec, out, depth+1); err != nil {
				return err
			}
			n++
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if n > 0 {
			indent(depth)
		}
		out.WriteByte(closing)
	default:
		vb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Write(vb)
	}
	return nil
}

type rawField struct {
	Name             string          `json:"name"`
	Type             string          `json:"type"`
	Versions         string          `json:"versions"`
	NullableVersions string          `json:"nullableVersions"`
	TaggedVersions   string          `json:"taggedVersions"`
	FlexibleVersions *string         `json:"flexibleVersions"`
	Tag              json.RawMessage `json:"tag"`
	Default          json.RawMessage `json:"default"`
	EntityType       string          `json:"entityType"`
	MapKey           bool            `json:"mapKey"`
	Ignorable        bool            `json:"ignorable"`
	Fields           []rawField      `json:"fields"`
}

type rawStruct struct {
	Name     string     `json:"name"`
	Versions string     `json:"versions"`
	Fields   []rawField `json:"fields"`
}

type rawMessage struct {
	APIKey                *int              `json:"apiKey"`
	Type                  string            `json:"type"`
	Name                  string            `json:"name"`
	ValidVersions         string            `json:"validVersions"`
	FlexibleVersions      string            `json:"flexibleVersions"`
	LatestVersionUnstable bool              `json:"latestVersionUnstable"`
	HeaderVersions        map[string]string `json:"headerVersions"`
	Fields                []rawField        `json:"fields"`
	CommonStructs         []rawStruct       `json:"commonStructs"`

	folder string
	valid  rng
	common map[string]*rawStruct
}

type rng struct{ lo, hi int }

const open = 0x7fff

func (r rng) empty() bool         { return r.lo > r.hi }
func (r rng) contains(v int) bool { return v >= r.lo && v <= r.hi }
func (r rng) lit() string {
	if r.empty() {
		return "none"
	}
	hi := strconv.Itoa(r.hi)
	if r.hi == open {
		hi = "Open"
	}
	return fmt.Sprintf("Range{%d, %s}", r.lo, hi)
}

func parseRange(s string) (rng, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "none":
		return rng{1, 0}, nil
	case strings.HasSuffix(s, "+"):
		lo, err := strconv.Atoi(strings.TrimSuffix(s, "+"))
		return rng{lo, open}, err
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return rng{}, fmt.Errorf("bad range %q", s)
		}
		return rng{lo, hi}, nil
	}
	v, err := strconv.Atoi(s)
	return rng{v, v}, err
}

func mustRange(s, where string) rng {
	r, err := parseRange(s)
	if err != nil {
		log.Fatalf("%s: %v", where, err)
	}
	return r
}

// stripComments removes // comments that stand outside strings.
func stripComments(b []byte) []byte {
	var out bytes.Buffer
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		} else if c == '/' && i+1 < len(b) && b[i+1] == '/' {
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
			continue
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// msgKey identifies a message across folders: requests and responses by API
// key and type, headers and data messages by name.
func (m *rawMessage) key() string {
	if m.APIKey != nil && (m.Type == "request" || m.Type == "response") {
		return fmt.Sprintf("%s/%03d", m.Type, *m.APIKey)
	}
	return m.Type + "/" + m.Name
}

func load(dir string) map[string]map[string]*rawMessage {
	byFolder := map[string]map[string]*rawMessage{}
	for _, f := range folders {
		files, err := filepath.Glob(filepath.Join(dir, f, "*.json"))
		if err != nil {
			log.Fatal(err)
		}
		byFolder[f] = map[string]*rawMessage{}
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				log.Fatal(err)
			}
			var m rawMessage
			if err := json.Unmarshal(stripComments(b), &m); err != nil {
				log.Fatalf("%s: %v", p, err)
			}
			m.folder = f
			m.valid = mustRange(m.ValidVersions, p)
			m.common = map[string]*rawStruct{}
			for i := range m.CommonStructs {
				m.common[m.CommonStructs[i].Name] = &m.CommonStructs[i]
			}
			if prev, dup := byFolder[f][m.key()]; dup {
				log.Fatalf("%s: %s defined twice (also %s)", p, m.key(), prev.Name)
			}
			byFolder[f][m.key()] = &m
		}
	}
	return byFolder
}

var kinds = map[string]string{
	"bool": "Bool", "int8": "Int8", "int16": "Int16", "uint16": "Uint16", "int32": "Int32",
	"uint32": "Uint32", "int64": "Int64", "float64": "Float64", "string": "String",
	"bytes": "Bytes", "uuid": "UUID", "records": "Records",
}

// emitter writes layouts as package-level variables, sharing identical ones.
type emitter struct {
	out    bytes.Buffer
	byText map[string]string
	n      int
}

func (e *emitter) layout(m *rawMessage, name string, fields []rawField) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Layout{Name: %q, Fields: []Field{\n", name)
	for _, f := range fields {
		b.WriteString(e.field(m, f))
	}
	b.WriteString("}}")
	text := b.String()
	if v, ok := e.byText[text]; ok {
		return v
	}
	v := fmt.Sprintf("l%d", e.n)
	e.n++
	e.byText[text] = v
	fmt.Fprintf(&e.out, "var %s = %s\n\n", v, text)
	return v
}

func camel(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func (e *emitter) field(m *rawMessage, f rawField) string {
	where := m.folder + "/" + m.Name + "." + f.Name
	var b strings.Builder
	fmt.Fprintf(&b, "{Name: %q, JSON: %q, Type: %q", f.Name, camel(f.Name), f.Type)
	t := f.Type
	isArray := strings.HasPrefix(t, "[]")
	if isArray {
		t = t[2:]
		b.WriteString(", Kind: Array")
	}
	var sub string
	if k, ok := kinds[t]; ok {
		if isArray {
			fmt.Fprintf(&b, ", Elem: %s", k)
		} else {
			fmt.Fprintf(&b, ", Kind: %s", k)
		}
		if len(f.Fields) > 0 {
			log.Fatalf("%s: primitive with fields", where)
		}
	} else {
		fields := f.Fields
		if len(fields) == 0 {
			cs, ok := m.common[t]
			if !ok {
				log.Fatalf("%s: unknown type %q", where, t)
			}
			fields = cs.Fields
		}
		sub = e.layout(m, t, fields)
		if isArray {
			b.WriteString(", Elem: Struct")
		} else {
			b.WriteString(", Kind: Struct")
		}
		fmt.Fprintf(&b, ", Struct: &%s", sub)
	}
	fmt.Fprintf(&b, ", Versions: %s", mustRange(f.Versions, where).lit())
	// Ranges are always written: the zero Range is {0, 0}, version 0.
	fmt.Fprintf(&b, ", Nullable: %s", mustRange(f.NullableVersions, where).lit())
	tag := -1
	tagged := "none"
	if len(f.Tag) > 0 {
		s := strings.Trim(string(f.Tag), `"`)
		n, err := strconv.Atoi(s)
		if err != nil {
			log.Fatalf("%s: bad tag %s", where, f.Tag)
		}
		tag = n
		tv := mustRange(f.TaggedVersions, where)
		if tv.empty() {
			log.Fatalf("%s: tag without taggedVersions", where)
		}
		tagged = tv.lit()
	}
	fmt.Fprintf(&b, ", Tagged: %s, Tag: %d", tagged, tag)
	if f.FlexibleVersions != nil {
		fmt.Fprintf(&b, ", Flexible: %s, FlexSet: true", mustRange(*f.FlexibleVersions, where).lit())
	} else {
		b.WriteString(", Flexible: none")
	}
	if len(f.Default) > 0 {
		var d string
		if f.Default[0] == '"' {
			if err := json.Unmarshal(f.Default, &d); err != nil {
				log.Fatalf("%s: %v", where, err)
			}
		} else {
			d = string(f.Default)
		}
		fmt.Fprintf(&b, ", Default: %q", d)
	}
	if f.EntityType != "" {
		fmt.Fprintf(&b, ", EntityType: %q", f.EntityType)
	}
	if f.MapKey {
		b.WriteString(", MapKey: true")
	}
	if f.Ignorable {
		b.WriteString(", Ignorable: true")
	}
	b.WriteString("},\n")
	return b.String()
}

type version struct {
	v   int
	def *rawMessage
}

func trimDir(name string) string {
	return strings.TrimSuffix(strings.TrimSuffix(name, "Request"), "Response")
}

func main() {
	dir := flag.String("schemas", "kafka", "the schema folder: ORDER, the folders it names, errors.tsv, enums.tsv")
	out := flag.String("out", "tables_gen.go", "output file")
	constsOut := flag.String("consts", "constants_gen.go", "output file for the API key and error code constants")
	imp := flag.String("import", "", "copy Kafka's message files (clients/src/main/resources/common/message) from `DIR` first")
	as := flag.String("as", "kafka-import", "the folder name the imported files get under -schemas")
	flag.Parse()

	if *imp != "" {
		importFolder(*dir, *imp, *as)
	}
	folders = readOrder(*dir)

	g := &generator{byFolder: load(*dir), e: &emitter{byText: map[string]string{}}, apis: map[int]*apiInfo{}}
	for i, k := range g.messageKeys() {
		g.message(i, k)
	}

	var b bytes.Buffer
	b.WriteString("// Code generated by gen.go from Kafka's message schemas. DO NOT EDIT.\n\npackage schema\n\n")
	b.Write(g.e.out.Bytes())
	b.Write(g.msgs.Bytes())
	keys := g.writeAPIs(&b)
	codes, lo, hi := writeErrors(&b, filepath.Join(*dir, "errors.tsv"))
	renamed := readRenamed(filepath.Join(*dir, "errors-renamed.tsv"), codes)
	writeEnums(&b, filepath.Join(*dir, "enums.tsv"))
	writeGo(*out, b.Bytes())

	var c bytes.Buffer
	c.WriteString("// Code generated by gen.go from Kafka's message schemas. DO NOT EDIT.\n\npackage schema\n\n")
	c.WriteString("// API keys, one for every API the tables know, named after the API as\n// Kafka names it now. APIName gives the name of a key.\nconst (\n")
	for _, k := range keys {
		fmt.Fprintf(&c, "Key%s = %d\n", g.apis[k].names[0], k)
	}
	c.WriteString(")\n\n")
	writeErrorConstants(&c, codes, lo, hi, renamed)
	writeGo(*constsOut, c.Bytes())
}

// apiInfo is what the tables say of one API key.
type apiInfo struct {
	key      int
	names    []string // every name it has had, newest first
	req, rsp string   // the variables of its request and response
	removed  rng      // the versions Kafka 4.0 removed
}

// generator holds what the messages add to as they are written.
type generator struct {
	byFolder             map[string]map[string]*rawMessage
	e                    *emitter
	msgs                 bytes.Buffer // the Message variables
	apis                 map[int]*apiInfo
	dataVars             []string
	reqHeader, rspHeader string
}

// messageKeys is every message key any folder defines, sorted.
func (g *generator) messageKeys() []string {
	keys := map[string]bool{}
	for _, f := range folders {
		for k := range g.byFolder[f] {
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

// versions is which file defines each version of message k: the first
// folder, in precedence order, whose file lists it. The versions must be
// contiguous.
func (g *generator) versions(k string) (all rng, vs []version) {
	all = rng{1 << 30, -1}
	for _, f := range folders {
		if m := g.byFolder[f][k]; m != nil {
			all.lo = min(all.lo, m.valid.lo)
			all.hi = max(all.hi, m.valid.hi)
		}
	}
	for v := all.lo; v <= all.hi; v++ {
		for _, f := range folders {
			if m := g.byFolder[f][k]; m != nil && m.valid.contains(v) {
				vs = append(vs, version{v, m})
				break
			}
		}
	}
	if len(vs) == 0 || vs[0].v != all.lo || vs[len(vs)-1].v != all.hi || len(vs) != all.hi-all.lo+1 {
		log.Fatalf("%s: versions are not contiguous", k)
	}
	return all, vs
}

// headerVersion is the header version of m at version v: what its
// headerVersions say, else Kafka's rule (flexible requests use header v2,
// flexible responses v1; ControlledShutdown v0 requests and ApiVersions
// responses keep v0).
func headerVersion(m *rawMessage, v int, flex rng) int {
	h := -1
	for rs, hv := range m.HeaderVersions {
		if mustRange(rs, m.Name+" headerVersions").contains(v) {
			h, _ = strconv.Atoi(hv)
		}
	}
	if h >= 0 {
		return h
	}
	fl := flex.contains(v)
	switch {
	case m.Type == "request" && *m.APIKey == 7 && v == 0:
		return 0
	case m.Type == "request" && fl:
		return 2
	case m.Type == "request":
		return 1
	case m.Type == "response" && *m.APIKey == 18:
		return 0
	case fl:
		return 1
	}
	return 0
}

// message writes the Message variable of key k (the ith) and records it
// as its API's request or response, a header, or a data message.
func (g *generator) message(i int, k string) {
	all, vs := g.versions(k)
	newest := vs[len(vs)-1].def
	// Consecutive versions with the same layout and flexibility share one
	// Version entry.
	type group struct {
		lo, hi int
		flex   rng
		root   string
		folder string
	}
	var groups []group
	unstable := rng{1, 0}
	hdr := make([]int, len(vs))
	for _, x := range vs {
		m := x.def
		flex := mustRange(m.FlexibleVersions, m.folder+"/"+m.Name)
		root := g.e.layout(m, m.Name, m.Fields)
		if n := len(groups); n > 0 && groups[n-1].root == root && groups[n-1].flex == flex && groups[n-1].hi == x.v-1 {
			groups[n-1].hi = x.v
		} else {
			groups = append(groups, group{x.v, x.v, flex, root, m.folder})
		}
		if m.LatestVersionUnstable && x.v == m.valid.hi {
			unstable = rng{x.v, x.v}
		}
		hdr[x.v-all.lo] = headerVersion(m, x.v, flex)
	}
	mv := fmt.Sprintf("m%d", i)
	kind := map[string]string{"request": "Request", "response": "Response", "header": "Header", "data": "Data"}[newest.Type]
	apiKey := -1
	if newest.APIKey != nil && (kind == "Request" || kind == "Response") {
		apiKey = *newest.APIKey
	}
	msgs := &g.msgs
	fmt.Fprintf(msgs, "var %s = Message{Name: %q, Kind: %s, APIKey: %d, Valid: %s, Unstable: %s,\nVersions: []Version{\n",
		mv, newest.Name, kind, apiKey, rng{all.lo, all.hi}.lit(), unstable.lit())
	for _, gr := range groups {
		fmt.Fprintf(msgs, "{Versions: %s, Flexible: %s, Root: &%s, Source: %q},\n", rng{gr.lo, gr.hi}.lit(), gr.flex.lit(), gr.root, gr.folder)
	}
	msgs.WriteString("},\n")
	if kind == "Request" || kind == "Response" {
		// Indexed from version 0; versions below Valid.Lo repeat the first.
		msgs.WriteString("HeaderVersions: []int8{")
		for v := 0; v <= all.hi; v++ {
			idx := max(v-all.lo, 0)
			fmt.Fprintf(msgs, "%d,", hdr[idx])
		}
		msgs.WriteString("},\n")
	}
	msgs.WriteString("}\n\n")

	switch kind {
	case "Request", "Response":
		a := g.apis[apiKey]
		if a == nil {
			a = &apiInfo{key: apiKey}
			g.apis[apiKey] = a
		}
		if kind == "Request" {
			a.req = mv
			g.apiNames(a, k)
			a.removed = g.removed40(apiKey, k, all)
		} else {
			a.rsp = mv
		}
	case "Header":
		if newest.Name == "RequestHeader" {
			g.reqHeader = mv
		} else {
			g.rspHeader = mv
		}
	case "Data":
		g.dataVars = append(g.dataVars, mv)
	}
}

// apiNames adds every name the request k has had to a.names, newest first.
func (g *generator) apiNames(a *apiInfo, k string) {
	for fi := len(folders) - 1; fi >= 0; fi-- {
		if m := g.byFolder[folders[fi]][k]; m != nil {
			n := trimDir(m.Name)
			found := false
			for _, x := range a.names {
				found = found || x == n
			}
			if !found {
				a.names = append([]string{n}, a.names...)
			}
		}
	}
}

// removed40 is the versions of the API (request k, versions all) that
// Kafka 4.0 removed. The schemas README names keys 4-7 as the
// ZooKeeper-era APIs a 4.0 broker no longer serves, though kafka-4.0/
// still carries their files.
func (g *generator) removed40(apiKey int, k string, all rng) rng {
	if apiKey >= 4 && apiKey <= 7 {
		return rng{all.lo, all.hi}
	} else if m := g.byFolder["kafka-4.0"][k]; m != nil {
		return rng{all.lo, m.valid.lo - 1}
	} else if g.byFolder["legacy"][k] != nil {
		return rng{all.lo, all.hi}
	}
	return rng{1, 0}
}

// writeAPIs writes the API table, its index by key, the headers and the
// data messages, and returns the API keys in order.
func (g *generator) writeAPIs(b *bytes.Buffer) []int {
	keys := make([]int, 0, len(g.apis))
	for k := range g.apis {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	b.WriteString("var apis = []*API{\n")
	for _, k := range keys {
		a := g.apis[k]
		if a.req == "" || a.rsp == "" {
			log.Fatalf("api %d lacks a request or response", k)
		}
		qn := make([]string, len(a.names))
		for i, n := range a.names {
			qn[i] = strconv.Quote(n)
		}
		fmt.Fprintf(b, "{Key: %d, Name: %q, Names: []string{%s}, Category: category(%d), Request: &%s, Response: &%s, Removed40: %s},\n",
			k, a.names[0], strings.Join(qn, ", "), k, a.req, a.rsp, a.removed.lit())
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(b, "var apiByKey = func() []*API {\nt := make([]*API, %d)\nfor _, a := range apis {\nt[a.Key] = a\n}\nreturn t\n}()\n\n", keys[len(keys)-1]+1)
	fmt.Fprintf(b, "var requestHeader = &%s\nvar responseHeader = &%s\n\n", g.reqHeader, g.rspHeader)
	fmt.Fprintf(b, "var dataMessages = []*Message{")
	for _, v := range g.dataVars {
		fmt.Fprintf(b, "&%s, ", v)
	}
	b.WriteString("}\n\n")
	return keys
}

// writeErrors writes the error names of errors.tsv (path) as a table
// indexed from the lowest code, and returns the codes with their range.
func writeErrors(b *bytes.Buffer, path string) (codes map[int]string, lo, hi int) {
	codes = map[int]string{}
	for _, r := range readTSV(path) {
		c, err := strconv.Atoi(r[0])
		if err != nil || len(r) < 2 {
			log.Fatalf("errors.tsv: bad row %q", r)
		}
		codes[c] = r[1]
		lo, hi = min(lo, c), max(hi, c)
	}
	fmt.Fprintf(b, "const errorBase = %d\n\nvar errorNames = [...]string{\n", lo)
	for c := lo; c <= hi; c++ {
		fmt.Fprintf(b, "%q,\n", codes[c])
	}
	b.WriteString("}\n\n")
	return codes, lo, hi
}

// writeEnums writes the enumerations of enums.tsv (path), in file order.
func writeEnums(b *bytes.Buffer, path string) {
	b.WriteString("var enums = []*Enum{\n")
	var cur string
	for _, r := range readTSV(path) {
		if len(r) < 3 {
			log.Fatalf("enums.tsv: bad row %q", r)
		}
		if r[0] != cur {
			if cur != "" {
				b.WriteString("}},\n")
			}
			cur = r[0]
			fmt.Fprintf(b, "{Name: %q, Values: []EnumValue{", cur)
		}
		fmt.Fprintf(b, "{%s, %q}, ", r[1], r[2])
	}
	b.WriteString("}},\n}\n")
}

// writeErrorConstants writes a constant for every error code, deprecated
// ones for their old names, and the table of old names.
func writeErrorConstants(c *bytes.Buffer, codes map[int]string, lo, hi int, renamed []renamedError) {
	c.WriteString("// Error codes, one for every code Kafka defines, named after Kafka's\n// name for it (UNKNOWN_TOPIC_OR_PARTITION is CodeUnknownTopicOrPartition).\n// ErrorName gives the name of a code, ErrorCodeByName the code of a name.\nconst (\n")
	for code := lo; code <= hi; code++ {
		if n := codes[code]; n != "" {
			fmt.Fprintf(c, "Code%s = %d\n", goName(n), code)
		}
	}
	c.WriteString(")\n\n")
	if len(renamed) > 0 {
		c.WriteString("// Old names of error codes, as clients of their time print them.\nconst (\n")
		for _, r := range renamed {
			fmt.Fprintf(c, "// Deprecated: Kafka %s renamed %s to %s; use Code%s.\nCode%s = %d\n", r.until, r.old, codes[int(r.code)], goName(codes[int(r.code)]), goName(r.old), r.code)
		}
		c.WriteString(")\n\n")
	}
	c.WriteString("// renamedErrors maps the old names of error codes to their codes.\nvar renamedErrors = []struct {\nname string\ncode int16\n}{\n")
	for _, r := range renamed {
		fmt.Fprintf(c, "{%q, %d},\n", r.old, r.code)
	}
	c.WriteString("}\n")
}

// writeGo formats Go source and writes it to path.
func writeGo(path string, b []byte) {
	src, err := format.Source(b)
	if err != nil {
		os.WriteFile(path+".broken", b, 0o644)
		log.Fatalf("format %s: %v", path, err)
	}
	if err := os.WriteFile(path, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// goName turns an error name into a Go name: NOT_LEADER_OR_FOLLOWER becomes
// NotLeaderOrFollower, UNKNOWN_TOPIC_ID UnknownTopicID.
func goName(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "_") {
		if w == "" {
			continue
		}
		if w == "ID" {
			b.WriteString(w)
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}

type renamedError struct {
	code       int16
	old, until string
}

// readRenamed reads errors-renamed.tsv: code, old name, the name it has
// now (checked against errors.tsv), and the Kafka version that renamed it.
func readRenamed(p string, codes map[int]string) []renamedError {
	var out []renamedError
	for _, r := range readTSV(p) {
		c, err := strconv.Atoi(r[0])
		if err != nil || len(r) < 4 {
			log.Fatalf("errors-renamed.tsv: bad row %q", r)
		}
		if codes[c] != r[2] {
			log.Fatalf("errors-renamed.tsv: code %d is %s in errors.tsv, not %s", c, codes[c], r[2])
		}
		out = append(out, renamedError{int16(c), r[1], r[3]})
	}
	return out
}

func readTSV(p string) [][]string {
	f, err := os.Open(p)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}
