package payload

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// JSON Schema payloads are JSON: the data is shown as it is, and checked
// against the schema (google/jsonschema-go, drafts 07 and 2020-12) when
// the Config asks. It was chosen for what it costs every kwire process
// at start-up: 80 KB of package init, where santhosh-tekuri/jsonschema
// compiled every draft's meta-schemas in its init (1.7 MB, 10 ms).
// Without Validate no validator is made. A schema the validator cannot
// take (another draft, a keyword it refuses, a loop of references) does
// not stop the data being shown: each payload says it was not validated,
// and why.

type jsonSchema struct {
	rs  *jsonschema.Resolved // nil: not validated
	why string               // why not, when validation was asked for
	l   *loops               // its schemas placed, to bound validating (jsonschemacost.go)

	// The references' loader, and the properties' subschemas resolved
	// alone, by where they are, when a payload first needs one (nil: it
	// could not be), to name every property that breaks its rules, in
	// order (validate).
	load  func(*url.URL) (*jsonschema.Schema, error)
	mu    sync.Mutex
	props map[string]*jsonschema.Resolved
}

// baseURL is where the schema and its references are placed, so that
// relative $refs (a reference's name, as the registry gives it) resolve.
// Nothing is fetched from it, nor from any URL: the loader answers from
// the schema's references alone.
const baseURL = "https://schemas.kwire.invalid/"

const mainURL = baseURL + "schema.json"

// The $schema values the validator takes, by the spelling it takes them.
const (
	draft07   = "http://json-schema.org/draft-07/schema#"
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// compileJSONSchema reads a JSON Schema; with validate, it also makes the
// validator, or says why it cannot.
func compileJSONSchema(s *Schema, validate bool) (*jsonSchema, error) {
	if !json.Valid([]byte(s.Text)) {
		return nil, notJSON(s.Text)
	}
	if !validate {
		return &jsonSchema{}, nil
	}
	rs, l, load, err := resolveJSONSchema(s)
	if err != nil {
		return &jsonSchema{why: bounded(err.Error())}, nil
	}
	return &jsonSchema{rs: rs, l: l, load: load}, nil
}

// validate checks inst: nil, or every violation said in an order of its
// own. The validator stops at the first violation it meets, and meets
// properties in Go's map order: an object breaking two properties' rules
// was said by either from run to run (and by the tree's path and the
// JSON's differently). So, when the root schema lists properties, each
// of inst's that breaks its subschema is said, by name in order, and so
// on down (properties), through the properties of an object whose
// subschema lists them in turn (or a $ref to one), maxNested levels
// below the root's; where no property of an object breaks its rules,
// what the object breaks is said. Checking each level's properties again
// costs no more than checking the whole value did, which the steps
// counted first bound (jsonschemacost.go): all of it at most
// maxNested+2 times.
func (js *jsonSchema) validate(inst any) error {
	err := js.rs.Validate(inst)
	if err == nil {
		return nil
	}
	said, ok := js.properties(mainURL+"#", "", js.rs.Schema(), inst, 0)
	if !ok || len(said) == 0 {
		return err
	}
	return errors.New(strings.Join(said, "; "))
}

// maxNested is how many levels below the root's properties validate says
// each property's violations on its own.
const maxNested = 4

// properties says what inst breaks of the properties of s, the subschema
// at loc (a URL whose fragment is a JSON Pointer; path is its properties'
// path from the root, "/properties/a/properties/b", as the violations are
// said): each property of inst that breaks its subschema, by name in
// order, its own properties' violations said in turn when they can be.
// ok is false when they cannot be said one by one (inst is no object, s
// lists no properties of its own or through a $ref the walk can follow,
// a subschema cannot be resolved alone): the caller says what the
// validator said.
func (js *jsonSchema) properties(loc, path string, s *jsonschema.Schema, inst any, depth int) (said []string, ok bool) {
	obj, isObj := inst.(map[string]any)
	if !isObj || s == nil {
		return nil, false
	}
	for hops := 0; s.Ref != "" && len(s.Properties) == 0; hops++ {
		// A $ref to the schema that lists them: its place, as the
		// validator resolves it.
		if hops == 8 || js.l == nil {
			return nil, false
		}
		r, err := url.Parse(s.Ref)
		base := js.l.baseURI[js.l.base[s]]
		if err != nil || base == nil {
			return nil, false
		}
		t, err := js.l.follow(s, s.Ref)
		u := base.ResolveReference(r)
		if err != nil || t == nil || u.Fragment != "" && !strings.HasPrefix(u.Fragment, "/") {
			return nil, false // an anchor names no pointer to go on from
		}
		frag := u.Fragment
		u.Fragment = ""
		loc, s = u.String()+"#"+frag, t
	}
	if len(s.Properties) == 0 {
		return nil, false
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		if s.Properties[name] != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		tok := pointerToken(name)
		child, at := loc+"/properties/"+tok, path+"/properties/"+tok
		prs := js.resolved(child)
		if prs == nil {
			return nil, false
		}
		e := prs.Validate(obj[name])
		if e == nil {
			continue
		}
		if depth < maxNested {
			if below, ok := js.properties(child, at, s.Properties[name], obj[name], depth+1); ok && len(below) > 0 {
				said = append(said, below...)
				continue
			}
		}
		// As the validator says a property's violation, the place it
		// names first (where the subschema is) said once, as the path.
		msg := strings.TrimPrefix(e.Error(), "validating root: ")
		if i := strings.IndexByte(child, '#'); i >= 0 {
			msg = strings.TrimPrefix(msg, "validating "+child[i+1:]+": ")
		}
		said = append(said, "validating "+at+": "+msg)
	}
	return said, true
}

// pointerToken is name as a JSON Pointer's reference token.
func pointerToken(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}

// resolved is the subschema at loc (a URL with a JSON Pointer fragment
// in the schema or one of its references) resolved as a document of its
// own that refers to it (so that its $refs resolve as in the schema);
// nil when it cannot be.
func (js *jsonSchema) resolved(loc string) *jsonschema.Resolved {
	js.mu.Lock()
	defer js.mu.Unlock()
	if prs, ok := js.props[loc]; ok {
		return prs
	}
	if js.props == nil {
		js.props = map[string]*jsonschema.Resolved{}
	}
	js.props[loc] = nil
	root := js.rs.Schema()
	w := &jsonschema.Schema{Schema: root.Schema, Ref: loc}
	func() {
		defer func() { _ = recover() }()
		prs, err := w.Resolve(&jsonschema.ResolveOptions{
			BaseURI: baseURL + "property.json",
			Loader: func(u *url.URL) (*jsonschema.Schema, error) {
				if u.String() == mainURL {
					return root, nil
				}
				return js.load(u)
			},
		})
		if err == nil {
			js.props[loc] = prs
		}
	}()
	return js.props[loc]
}

// resolveJSONSchema makes the validator for s and its references.
func resolveJSONSchema(s *Schema) (rs *jsonschema.Resolved, l *loops, load func(*url.URL) (*jsonschema.Schema, error), err error) {
	defer func() {
		if r := recover(); r != nil {
			rs, l, load, err = nil, nil, nil, errors.New("the validator failed on the schema: "+panicText(r))
		}
	}()
	root, err := parseJSONSchema(s.Text, "")
	if err != nil {
		return nil, nil, nil, err
	}
	// The references by the URLs a $ref may name them by: their names
	// resolved against where the schema is placed, and against the
	// schema's own $id.
	refs := map[string]*Schema{}
	main, _ := url.Parse(mainURL)
	bases := []*url.URL{main}
	if id, err := url.Parse(root.ID); err == nil && root.ID != "" {
		if u := bases[0].ResolveReference(id); u.IsAbs() {
			u.Fragment = ""
			bases = append(bases, u)
		}
	}
	seen := map[*Schema]bool{}
	err = walkReferences(s, func(r Reference) (bool, error) {
		if seen[r.Schema] {
			return false, nil
		}
		seen[r.Schema] = true
		ref, err := url.Parse(r.Name)
		if err != nil {
			return false, errors.New("reference " + strconv.Quote(r.Name) + ": " + err.Error())
		}
		for _, b := range bases {
			u := b.ResolveReference(ref)
			u.Fragment = ""
			if refs[u.String()] == nil {
				refs[u.String()] = r.Schema
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	load = func(u *url.URL) (*jsonschema.Schema, error) {
		r := refs[u.String()]
		if r == nil {
			return nil, errors.New("no reference of the schema is " + strconv.Quote(u.String()) + " (kwire loads no URL)")
		}
		// A reference without $schema is of the schema's draft.
		d, err := parseJSONSchema(r.Text, root.Schema)
		if err != nil {
			return nil, errors.New("reference " + strconv.Quote(u.String()) + ": " + err.Error())
		}
		return d, nil
	}
	docs := map[string]*jsonschema.Schema{mainURL: root}
	rs, err = root.Resolve(&jsonschema.ResolveOptions{
		BaseURI: mainURL,
		Loader: func(u *url.URL) (*jsonschema.Schema, error) {
			d, err := load(u)
			if err == nil {
				docs[u.String()] = d
			}
			return d, err
		},
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkLoops(docs); err != nil {
		return nil, nil, nil, err
	}
	l, err = newLoops(docs)
	return rs, l, load, err
}

// parseJSONSchema reads a schema document, with its $schema spelt as the
// validator takes it (dflt when it has none).
func parseJSONSchema(text, dflt string) (*jsonschema.Schema, error) {
	// The draft first: another draft's keywords may not even parse
	// (draft 04's boolean exclusiveMinimum).
	var head struct {
		Schema string `json:"$schema"`
	}
	json.Unmarshal([]byte(text), &head) // (a boolean schema has none)
	draft := dflt
	switch strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(head.Schema, "http://"), "https://"), "#") {
	case "":
		if draft == "" {
			draft = draft2020 // what the validator takes a schema without one for
		}
	case "json-schema.org/draft-07/schema":
		draft = draft07
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		draft = draft2020
	default:
		return nil, errors.New("$schema is " + strconv.Quote(head.Schema) + "; kwire validates drafts 07 and 2020-12")
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal([]byte(text), s); err != nil {
		return nil, err
	}
	s.Schema = draft
	return s, nil
}

// jsonSchemaPayload shows the JSON at p, and validates it when asked.
func (w *walker) jsonSchemaPayload(js *jsonSchema, p int, validate bool) {
	data := w.in.B[p:w.in.End]
	s := jsonScan{b: data, maxDepth: w.maxDepth}
	s.ws()
	ok := s.value(0)
	if ok {
		s.ws()
		if s.p < len(data) {
			ok = s.bad("bytes after the JSON value")
		}
	}
	switch {
	case !ok && s.deep:
		w.limit(p+s.p, jsonTooDeep(w.maxDepth))
		w.rest(p, "data")
		return
	case !ok:
		w.fail(p+s.p, "jsonschema: the data is not JSON: "+s.why)
		w.rest(p, "data")
		return
	}
	if validate {
		switch {
		case js.rs != nil:
			mismatch, failed, limit := w.validateWithin(js, data)
			switch {
			case limit != "":
				w.warnAt(p, "jsonschema: not validated: "+limit, true)
			case mismatch != nil:
				w.warnAt(p, "jsonschema: the data does not match the schema: "+bounded(mismatch.Error()), false)
			case failed != "":
				w.warnAt(p, "jsonschema: not validated: "+bounded(failed), false)
			}
		case js.why != "":
			w.warnAt(p, "jsonschema: not validated: "+js.why, false)
		}
	}
	w.jsonValue(p, w.in.End, "json")
}

// exactNumbers gives the validator integers as int64 or uint64, so that
// ids and timestamps past 2^53 compare exactly (as float64, which
// encoding/json would make them, 9007199254740993 is 9007199254740992);
// other numbers are float64. The validator takes json.Number for bounds
// but not for "type", so none is left.
func exactNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return u
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		for i, e := range x {
			x[i] = exactNumbers(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = exactNumbers(e)
		}
	}
	return v
}

// panicText is what a library's panic says.
func panicText(r any) string {
	switch x := r.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	return "a panic"
}

// oneLine joins a library's multi-line message into one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// maxMessage bounds a library's or a schema source's message in a
// warning: a message that is said for every payload naming the schema
// must not carry unbounded text (a schema quoted whole, a registry's
// error page); room enough for kwire's own advice about a registry the
// page may not read (CORS), whose end says what to do.
const maxMessage = 1024

// bounded is msg on one line, cut to maxMessage bytes (on a character's
// boundary) with how long it was.
func bounded(msg string) string {
	msg = oneLine(msg)
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "… (" + strconv.Itoa(len(msg)) + " bytes, cut)"
}

// notJSON says where text fails to be JSON: the line and column (in
// bytes) of the byte encoding/json stopped at, and why.
func notJSON(text string) error {
	err := json.Unmarshal([]byte(text), new(json.RawMessage))
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return errors.New("not JSON")
	}
	off := min(max(int(se.Offset)-1, 0), len(text))
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndexByte(text[:off], '\n')
	return errors.New("not JSON at line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ": " + se.Error())
}
