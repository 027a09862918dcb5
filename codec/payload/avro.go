package payload

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Avro schemas are parsed by hamba/avro; what is walked here is the
// binary encoding, which needs the schema's shape only. So the parsed
// schema is compiled into avroType, a small graph the walker follows
// without interface calls (recursive types are cycles in it).

type avroKind uint8

const (
	aNull avroKind = iota
	aBoolean
	aInt
	aLong
	aFloat
	aDouble
	aBytes
	aString
	aRecord
	aEnum
	aArray
	aMap
	aUnion
	aFixed
)

type avroType struct {
	kind    avroKind
	name    string // full name of a named type; the type's name otherwise ("long", "array")
	label   string // the node's type: "avro record com.acme.Order", "avro long"
	logical string // logical type name, or ""
	scale   int    // decimal
	fields  []avroField
	items   *avroType // array items, map values
	types   []*avroType
	symbols []string
	size    int // fixed
}

type avroField struct {
	name string
	key  []byte // `"name":`, escaped
	t    *avroType
}

// avroPrimitives are the kinds of Avro's primitive types.
var avroPrimitives = map[avro.Type]avroKind{
	avro.Boolean: aBoolean, avro.Int: aInt, avro.Long: aLong, avro.Float: aFloat,
	avro.Double: aDouble, avro.Bytes: aBytes, avro.String: aString,
}

// compileAvro parses s into one set of named types with the references
// it needs, parsed as it meets their names: a parse that stops at a name
// it does not know (avroUnknown) adds the types of the references that
// define one of that name (avroDefines, found by reading each
// reference's JSON once) and is tried again. Each reference is parsed
// once, with the types of those it needs in turn, into the types it
// defines (avroRef): a schema or reference is parsed again only after a
// name it lacked was added, each parse given only the types it asked
// for, and a reference no name leads to is not parsed at all (trying
// every pending reference until a pass made no progress cost a parse for
// each reference in each pass, quadratic in their number; and each parse
// copied every type parsed before it). Where several references define a
// type of one name, the first of them (in walkReferences' order) is the
// one kept. Types of several references (or of s and a reference) that
// name each other in a loop, which no order of parses defines before
// they are named, are read as one schema writes such types: the
// definition a parse lacks put where it first names the type (inline),
// the types inside it naming those outside, which are being defined.
// With s.Avro, what the references' parses found is kept for the other
// schemas of those references (AvroRefs).
func compileAvro(s *Schema) (*avroType, error) {
	var refs []Reference
	seen := map[*Schema]bool{}
	err := walkReferences(s, func(r Reference) (bool, error) {
		if seen[r.Schema] {
			return false, nil
		}
		seen[r.Schema] = true
		refs = append(refs, r)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	c := &avroResolver{}
	if u := s.Avro; u != nil {
		if out, ok := u.leftOut(refs); ok {
			// Its parsed types are shared, and hamba's parse writes
			// into those it is given (derefSchema): one schema at a time.
			u.mu.Lock()
			defer u.mu.Unlock()
			c.u, c.out, c.shared = u, out, true
		}
	}
	if c.u == nil {
		c.u = &AvroRefs{refs: refs}
	}
	c.local = make([]*avroRef, len(c.u.refs))
	c.parsing = make([]bool, len(c.u.refs))
	p := c.parse(s.Text, -1)
	if _, unknown := avroUnknown(p.err); unknown {
		// A reference that does not parse may be the one meant (its
		// names unread): said rather than the name it did not define.
		for k, r := range refs {
			i := k
			if c.shared {
				i = c.u.index[r.Schema]
			}
			if e := c.resolve(i); e != nil && e.err != nil {
				if _, unknown := avroUnknown(e.err); !unknown {
					return nil, errors.New("reference " + strconv.Quote(r.Name) + ": " + e.err.Error())
				}
			}
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return compileAvroSchema(p.sc, map[string]*avroType{}), nil
}

// AvroRefs keeps what parsing Avro references found (the types each
// defines, or why it does not parse), for the schemas that refer to them:
// each reference is parsed once for all of them, not again for each (a
// folder of 200 .avsc files, each naming the type of the one before,
// took 2.6 s to check, every file's schema parsing the chain below it
// again). A schema uses it (Schema.Avro) when its references are among
// those it was made for, in their order (a folder's file leaves out
// itself; a reference's name is the schema's own); what a parse found is kept only when it holds for every such
// schema: no reference left out was looked at, no reference's parse
// waited on another's (types that name each other). It keeps the
// references' parsed types, so bound what it is made for. Its methods
// may be called from several goroutines (a schema's compiling holds it).
type AvroRefs struct {
	mu    sync.Mutex
	refs  []Reference
	index map[*Schema]int
	// definers are, by a type's name (its last part), the references
	// defining one: read at the first name a parse does not know.
	definers map[string][]int
	kept     []*avroRef
	// bare are, by reference, why its text alone (no type given) does
	// not parse, once a parse met it: what every parse of it tries
	// first. A parse that fails leaves the cache it was given as it was
	// (hamba adds its types only when it succeeds), so this is all it
	// did, whoever asked: a schema reaching a loop of references, whose
	// parses are not kept (avroRef.clean), begins each of them here
	// rather than parse its text again (each file of a folder of 51 in
	// one loop parsed the 50 others: 2,652 parses, 153 now).
	bare []error
	// entered are, by reference, what resolving it found when a schema
	// entered it first (nothing resolved or under way before) and it is
	// not kept: every reference's parse in turn (a loop's, not clean),
	// for the schemas that enter there with the same references out
	// among those it looked at. A file naming into a loop parsed the
	// loop's files again, one each, for each such file (a folder of a
	// loop of 51 files and 50 files naming its first: 2,803 parses).
	entered []*avroEntry
}

// avroEntry is what resolving a reference first found: the parses in
// the order made (setLocal), the references whose being left out was
// looked at (seen), and which of those were (out).
type avroEntry struct {
	refs []int
	got  []*avroRef
	seen refSet
	out  refSet
}

// avroParses counts compileAvro's parses (tests).
var avroParses atomic.Int64

// NewAvroRefs returns an AvroRefs for the references refs and theirs.
func NewAvroRefs(refs []Reference) *AvroRefs {
	u := &AvroRefs{index: map[*Schema]int{}}
	walkReferences(&Schema{References: refs}, func(r Reference) (bool, error) {
		if _, ok := u.index[r.Schema]; ok {
			return false, nil
		}
		u.index[r.Schema] = len(u.refs)
		u.refs = append(u.refs, r)
		return true, nil
	})
	u.kept = make([]*avroRef, len(u.refs))
	u.bare = make([]error, len(u.refs))
	u.entered = make([]*avroEntry, len(u.refs))
	return u
}

// leftOut is which of u's references refs leaves out, when refs are
// among them and in their order (u's references are not changed once
// made: no lock needed).
func (u *AvroRefs) leftOut(refs []Reference) (refSet, bool) {
	out := newRefSet(len(u.refs))
	next := 0
	for _, r := range refs {
		i, ok := u.index[r.Schema]
		if !ok || i < next {
			return nil, false
		}
		for ; next < i; next++ {
			out.set(next)
		}
		next = i + 1
	}
	for ; next < len(u.refs); next++ {
		out.set(next)
	}
	return out, true
}

// define is the references defining a type of the name (its last part).
func (u *AvroRefs) define(name string) []int {
	if u.definers == nil {
		u.definers = map[string][]int{}
		for i, r := range u.refs {
			for _, n := range avroDefines(r.Schema.Text) {
				if l := u.definers[n]; len(l) == 0 || l[len(l)-1] != i {
					u.definers[n] = append(u.definers[n], i)
				}
			}
		}
	}
	return u.definers[name]
}

// avroRef is what a reference's parse found.
type avroRef struct {
	// names are the types it defines, as hamba's cache holds them (its
	// names and aliases).
	names map[string]avro.Schema
	err   error
	// lacks is the name it stopped at when err is that a type is
	// unknown (lacking), its last part.
	lacks   string
	lacking bool
	// touched are the references its parse looked at (those defining a
	// name it lacked, and theirs); clean, that none of them waited on a
	// parse under way (names that loop).
	touched refSet
	clean   bool
}

// avroResolver is one schema's compiling: over the references of u, but
// those out, each reference's parse (local) and those under way.
type avroResolver struct {
	u       *AvroRefs
	out     refSet
	shared  bool
	local   []*avroRef
	parsing []bool
	// lackers are, by a name, the references in local whose parse
	// stopped lacking it.
	lackers map[string][]int
	// depth is the references' parses under way; resolved, how many
	// are in local. While a first resolve is recorded (AvroRefs.entered),
	// entry gets every setLocal and the references out looked at.
	depth, resolved int
	entry           *avroEntry
}

// isOut is whether reference i is left out, looked at.
func (c *avroResolver) isOut(i int) bool {
	if c.entry != nil {
		c.entry.seen.set(i)
	}
	return c.out.has(i)
}

// setLocal makes r reference i's parse for this schema.
func (c *avroResolver) setLocal(i int, r *avroRef) {
	c.local[i] = r
	c.resolved++
	if c.entry != nil {
		c.entry.refs = append(c.entry.refs, i)
		c.entry.got = append(c.entry.got, r)
	}
	if r.lacking {
		if c.lackers == nil {
			c.lackers = map[string][]int{}
		}
		c.lackers[r.lacks] = append(c.lackers[r.lacks], i)
	}
}

// resolve is reference i's parse, nil while it is under way.
func (c *avroResolver) resolve(i int) *avroRef {
	if r := c.local[i]; r != nil {
		return r
	}
	if c.shared {
		r := c.u.kept[i]
		if r != nil && c.entry != nil {
			c.entry.seen.or(r.touched)
		}
		if r != nil && !r.touched.meets(c.out) {
			c.setLocal(i, r)
			return r
		}
	}
	if c.parsing[i] {
		return nil
	}
	first := c.shared && c.depth == 0 && c.resolved == 0
	if first {
		// What every parse of this schema's resolving i found, when
		// another schema's found it alike: nothing before it, and the
		// same references out among those it looked at.
		if e := c.u.entered[i]; e != nil && c.sameOut(e) {
			for k, j := range e.refs {
				c.setLocal(j, e.got[k])
			}
			return c.local[i]
		}
		c.entry = &avroEntry{seen: newRefSet(len(c.u.refs))}
		defer func() { c.entry = nil }()
	}
	c.parsing[i] = true
	c.depth++
	p := c.parse(c.u.refs[i].Schema.Text, i)
	c.depth--
	c.parsing[i] = false
	r := &avroRef{err: p.err, touched: p.touched, clean: p.clean}
	r.lacks, r.lacking = avroUnknown(p.err)
	if p.err == nil {
		r.names = map[string]avro.Schema{}
		avroOwn(p.sc, p.cache, p.given, r.names)
	}
	c.setLocal(i, r)
	// A parse that is not clean is not kept: what it found depends on
	// which parses were under way when it began (the schema compiled
	// first, the names its text reached first), not on the reference
	// alone. In a loop, the parses that meet the reference entered
	// first under way put its type's definition inside their own text
	// (inline), and it is parsed with their types, copy included;
	// entered at another reference, the roles turn. Kept, such a parse
	// gave a later schema another reading than it has alone: t1 and t2
	// naming each other, t2 defining a record R2 twice, the schema
	// "com.acme.t1" says `reference "t2.avsc": duplicate name` alone,
	// but said `reference "t1.avsc"` after the file t0 (naming t2)
	// had entered the loop at t2 (FuzzAvroRefs' seed "y\x00y\x00&&0").
	// A parse naming into a loop is not clean either. What one entry
	// into the loop found is kept whole, by the reference entered, when
	// nothing came before it (AvroRefs.entered: the schema's first
	// resolve), with every reference whose being left out was looked at
	// (isOut; def does not mark them touched); other entries parse the
	// loop again. What every parse of a reference
	// tries first, its text with no types given, fails alike whoever
	// asks, and is kept (AvroRefs.bare): a file of a folder in one loop
	// costs 3 parses (its own text, then with the loop put in), where it
	// cost one for each file in the loop (52 for each of 51 files:
	// BenchmarkAvroRefsLoop, 320 ms the folder, 96 ms now); a file naming
	// into a loop at a type no file entered first parses the loop's
	// files again with the types given, one each; at one entered so,
	// none (BenchmarkAvroRefsIntoLoop: 50 files naming the loop's t000,
	// 2,803 parses for the folder, 304 now; TestAvroRefsSameResults
	// logs them by schema). Each file's
	// type is the whole loop, read from a text that holds it (inline):
	// quadratic in the loop's length for the folder all the same (a
	// loop of 255 files, the most references a schema follows: 3 s of
	// CPU, 8 s before the bare parses were kept and failing found the
	// definers that fail in one walk, where inline walked the loop for
	// each name it put in).
	if c.shared && r.clean && !r.touched.meets(c.out) {
		c.u.kept[i] = r
	} else if first {
		e := c.entry
		e.out = newRefSet(len(c.u.refs))
		e.out.or(e.seen)
		e.out.and(c.out)
		c.u.entered[i] = e
	}
	return r
}

// sameOut is whether e holds for this schema: the references e's
// resolving looked at are left out here as they were there.
func (c *avroResolver) sameOut(e *avroEntry) bool {
	for k, w := range e.seen {
		var o uint64
		if c.out != nil {
			o = c.out[k]
		}
		if o&w != e.out[k] {
			return false
		}
	}
	return true
}

// avroParse is a text's parse: the schema, or why not; the cache it was
// parsed with and the types given it from references; the references
// looked at and whether none was under way.
type avroParse struct {
	sc      avro.Schema
	err     error
	cache   *avro.SchemaCache
	given   map[string]avro.Schema
	touched refSet
	clean   bool
}

// parse parses text, given the types of the references defining each
// name it lacks (the last definer's first, so the first one's are
// kept), tried again while a name lacked added types. ref is the
// reference whose text it is (-1: the schema's own), whose first try,
// with no types given, is u.bare's when it is known to fail.
func (c *avroResolver) parse(text string, ref int) avroParse {
	p := avroParse{cache: &avro.SchemaCache{}, given: map[string]avro.Schema{}, clean: true}
	if c.shared {
		p.touched = newRefSet(len(c.u.refs))
	}
	added := map[int]bool{}
	tried := map[string]bool{}
	for first := true; ; first = false {
		if bare := first && ref >= 0 && c.shared; bare && c.u.bare[ref] != nil {
			p.sc, p.err = nil, c.u.bare[ref]
		} else {
			avroParses.Add(1)
			p.sc, p.err = parseAvro(text, p.cache)
			if bare && p.err != nil {
				c.u.bare[ref] = p.err
			}
		}
		name, ok := avroUnknown(p.err)
		if !ok || tried[name] {
			return p
		}
		tried[name] = true
		more := false
		for _, i := range slices.Backward(c.u.define(name)) {
			p.touched.set(i)
			if c.isOut(i) || added[i] {
				continue
			}
			r := c.resolve(i)
			if r == nil {
				p.clean = false
				continue
			}
			p.touched.or(r.touched)
			p.clean = p.clean && r.clean
			if r.err != nil {
				continue
			}
			added[i], more = true, true
			for n, t := range r.names {
				p.cache.Add(n, t)
				p.given[n] = t
			}
		}
		if !more {
			// No reference gave the name: when its definer waits on
			// this parse (types that name each other in a loop), its
			// definition is put where text first uses it, as one
			// schema writes types that name each other, and text is
			// tried again.
			t, ok := c.inline(text, name, p.cache)
			if !ok {
				return p
			}
			text, p.clean = t, false
		}
	}
}

// inline is text with, in place of its first use of each type it lacks
// whose definer cannot be parsed for the loop text is in, the
// definition of that type: the name the parse stopped at (its last
// part), and the others the definitions put in use in turn, all in one
// pass (a loop of 50 records cost 50 parses, and as many parses of a
// longer text, one type at a time). Such a definer is the first of the
// name's that is a parse under way (one waiting on text's), or that
// failed lacking a name that text defines, or that a definer failing so
// lacks in turn (a loop through text: a schema that is no reference, as
// each file of a folder is). ok is false when nothing was put in.
func (c *avroResolver) inline(text, name string, cache *avro.SchemaCache) (string, bool) {
	tv, ok := avroJSON(text)
	if !ok {
		return "", false
	}
	var fails map[int]bool // the definers failing for text (failing), found once asked
	defs := map[int]any{}  // definers' texts read as JSON
	def := func(lp string) (any, bool) {
		for _, i := range c.u.define(lp) {
			if c.isOut(i) {
				continue
			}
			if !c.parsing[i] {
				if fails == nil {
					own := map[string]bool{}
					for _, n := range avroDefines(text) {
						own[n] = true
					}
					fails = c.failing(own)
				}
				if !fails[i] {
					continue
				}
			}
			v, ok := defs[i]
			if !ok {
				v, _ = avroJSON(c.u.refs[i].Schema.Text)
				defs[i] = v
			}
			if v != nil {
				return v, true
			}
		}
		return nil, false
	}
	in := avroInliner{known: func(n string) bool { return cache.Get(n) != nil }, def: def, defined: map[string]bool{}, asked: map[string]bool{}, first: name}
	tv = in.walk(tv, "")
	if !in.put {
		return "", false
	}
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if e.Encode(tv) != nil {
		return "", false
	}
	return b.String(), true
}

// failing is the references whose parse failed lacking a name of own,
// or a name whose definers' parses (not left out) fail so in turn: found
// back from the first, along "lacks a name it defines", each reference
// once. (Asked for each definer, a walk forward from it cost a walk
// along a loop of references for each name inline put in: cubic in the
// loop's length for a folder of its files, half the time of one of 255.)
// Nothing is parsed while inline asks, so it holds for the whole call.
func (c *avroResolver) failing(own map[string]bool) map[int]bool {
	fails := map[int]bool{}
	var todo []int
	for n := range own {
		for _, i := range c.lackers[n] {
			if !fails[i] {
				fails[i] = true
				todo = append(todo, i)
			}
		}
	}
	if len(todo) == 0 {
		return fails
	}
	lackers := map[int][]int{} // by reference, those lacking a name it defines
	for m, is := range c.lackers {
		for _, j := range c.u.define(m) {
			if !c.isOut(j) {
				lackers[j] = append(lackers[j], is...)
			}
		}
	}
	for len(todo) > 0 {
		j := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, i := range lackers[j] {
			if !fails[i] {
				fails[i] = true
				todo = append(todo, i)
			}
		}
	}
	return fails
}

// avroInliner walks a schema's JSON as hamba's parse meets its types,
// keeping the full names defined so far (a record's before its fields,
// as Avro allows a record to name itself), and puts in place of a use of
// a name neither defined nor known the definition def finds for it (its
// name made full, so that it keeps its namespace there), walked in turn.
// Avro names a type only once it is defined, so types in two texts that
// name each other are one text's types with the other's inside, whose
// names for the outer ones are names of types being defined.
type avroInliner struct {
	known   func(full string) bool
	def     func(lastPart string) (any, bool)
	defined map[string]bool
	asked   map[string]bool // the names def was asked for
	first   string          // the name the parse stopped at
	put     bool            // a definition was put in
}

func (in *avroInliner) walk(v any, ns string) any {
	switch x := v.(type) {
	case string:
		if _, prim := avroPrimitives[avro.Type(x)]; prim || x == "null" {
			return v
		}
		full := avroFullName(ns, x)
		if in.defined[full] || in.known(full) || in.asked[full] {
			return v
		}
		in.asked[full] = true
		lp := lastPart(full)
		if lp != in.first && !in.put {
			// Before the name the parse stopped at, every name is
			// known to it: a name only this walk misses is one it
			// reads otherwise, left as it is.
			return v
		}
		dv, ok := in.def(lp)
		if !ok {
			return v
		}
		d := avroFindDef(dv, "", full)
		if d == nil {
			return v
		}
		in.put = true
		return in.walk(d, "")
	case []any:
		for i, e := range x {
			x[i] = in.walk(e, ns)
		}
	case map[string]any:
		switch t := x["type"].(type) {
		case []any:
			x["type"] = in.walk(t, ns)
		case string:
			switch t {
			case "record", "error", "enum", "fixed":
				own, full := avroNamespace(x, ns)
				in.defined[full] = true
				as, _ := x["aliases"].([]any)
				for _, a := range as {
					if a, ok := a.(string); ok {
						in.defined[avroFullName(own, a)] = true
					}
				}
				if t == "record" || t == "error" {
					fs, _ := x["fields"].([]any)
					for _, f := range fs {
						if f, ok := f.(map[string]any); ok {
							f["type"] = in.walk(f["type"], own)
						}
					}
				}
			case "array":
				x["items"] = in.walk(x["items"], ns)
			case "map":
				x["values"] = in.walk(x["values"], ns)
			default:
				// {"type":"com.acme.A"}: the type by its name.
				if r := in.walk(t, ns); r != any(t) {
					return r
				}
			}
		}
	}
	return v
}

// avroJSON reads an Avro schema's text as JSON, numbers kept as written
// (defaults), or as the name it is when it is not JSON (as hamba reads
// it).
func avroJSON(text string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if d.Decode(&v) == nil && !d.More() {
		return v, true
	}
	if isAvroName(text) {
		return text, true
	}
	return nil, false
}

// avroNamespace is the namespace of the named type m in namespace ns,
// and its full name: Avro's rules (a full name's own namespace, else
// the type's "namespace", else the one it is in).
func avroNamespace(m map[string]any, ns string) (string, string) {
	n, _ := m["name"].(string)
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[:i], n
	}
	if x, _ := m["namespace"].(string); x != "" {
		ns = x
	}
	return ns, avroFullName(ns, n)
}

// avroFullName is name in namespace ns, as hamba looks names up.
func avroFullName(ns, name string) string {
	if ns == "" || strings.Contains(name, ".") {
		return name
	}
	return ns + "." + name
}

// avroFindDef finds, in the schema v (in namespace ns), the first named
// type defined (as hamba's parse meets them) whose full name or an
// alias's is full: a copy of its JSON object, named by its full name.
// A copy: the same definition put in two places is two objects, each
// walked once.
func avroFindDef(v any, ns, full string) map[string]any {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if d := avroFindDef(e, ns, full); d != nil {
				return d
			}
		}
	case map[string]any:
		switch t := x["type"].(type) {
		case []any:
			return avroFindDef(t, ns, full)
		case string:
			switch t {
			case "record", "error", "enum", "fixed":
				own, name := avroNamespace(x, ns)
				match := name == full
				as, _ := x["aliases"].([]any)
				for _, a := range as {
					if a, ok := a.(string); ok && avroFullName(own, a) == full {
						match = true
					}
				}
				if match {
					d := avroCopy(x).(map[string]any)
					d["name"] = name
					return d
				}
				if t == "record" || t == "error" {
					fs, _ := x["fields"].([]any)
					for _, f := range fs {
						if f, ok := f.(map[string]any); ok {
							if d := avroFindDef(f["type"], own, full); d != nil {
								return d
							}
						}
					}
				}
			case "array":
				return avroFindDef(x["items"], ns, full)
			case "map":
				return avroFindDef(x["values"], ns, full)
			}
		}
	}
	return nil
}

// avroCopy is a deep copy of JSON value v.
func avroCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = avroCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = avroCopy(e)
		}
		return a
	}
	return v
}

// avroOwn adds to names the types sc defines itself (not those given it,
// where it stops), as cache holds them: their full names and aliases.
func avroOwn(sc avro.Schema, cache *avro.SchemaCache, given map[string]avro.Schema, names map[string]avro.Schema) {
	if _, ok := sc.(*avro.RefSchema); ok {
		return // a type defined above it, or given
	}
	if ns, ok := sc.(avro.NamedSchema); ok {
		if _, ok := names[ns.FullName()]; ok {
			return
		}
		if g, ok := given[ns.FullName()]; ok && (g == sc || isRefTo(g, sc)) {
			return
		}
		for _, n := range append([]string{ns.FullName()}, ns.Aliases()...) {
			if t := cache.Get(n); t != nil {
				names[n] = t
			}
		}
	}
	switch s := sc.(type) {
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			avroOwn(f.Type(), cache, given, names)
		}
	case *avro.ArraySchema:
		avroOwn(s.Items(), cache, given, names)
	case *avro.MapSchema:
		avroOwn(s.Values(), cache, given, names)
	case *avro.UnionSchema:
		for _, t := range s.Types() {
			avroOwn(t, cache, given, names)
		}
	}
}

// isRefTo reports whether g is a reference to the type sc.
func isRefTo(g, sc avro.Schema) bool {
	r, ok := g.(*avro.RefSchema)
	return ok && avro.Schema(r.Schema()) == sc
}

// refSet is a set of references, by index (nil: none, and none kept).
type refSet []uint64

func newRefSet(n int) refSet { return make(refSet, (n+63)/64) }

func (b refSet) set(i int) {
	if b != nil {
		b[i/64] |= 1 << (i % 64)
	}
}

func (b refSet) has(i int) bool { return b != nil && b[i/64]&(1<<(i%64)) != 0 }

func (b refSet) or(c refSet) {
	for i := range min(len(b), len(c)) {
		b[i] |= c[i]
	}
}

func (b refSet) and(c refSet) {
	for k := range b {
		if k < len(c) {
			b[k] &= c[k]
		} else {
			b[k] = 0
		}
	}
}

func (b refSet) meets(c refSet) bool {
	for i := range min(len(b), len(c)) {
		if b[i]&c[i] != 0 {
			return true
		}
	}
	return false
}

// avroUnknown is the name, its last part, that hamba/avro's parse error
// says it does not know ("avro: unknown type: com.acme.Address").
func avroUnknown(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	const unknown = "avro: unknown type: "
	m := err.Error()
	i := strings.LastIndex(m, unknown)
	if i < 0 {
		return "", false
	}
	return lastPart(m[i+len(unknown):]), true
}

// lastPart is a full Avro name's last part: "Address" of
// "com.acme.Address".
func lastPart(n string) string { return n[strings.LastIndexByte(n, '.')+1:] }

// avroDefines lists the names, their last parts, of the named types
// (records, errors, enums, fixed) and their aliases that the JSON text
// may define: every object whose "type" is one of them, wherever it is
// (more than the parse will define does no harm: a reference parsed
// that is not needed).
func avroDefines(text string) []string {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return nil
	}
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			switch v["type"] {
			case "record", "error", "enum", "fixed":
				if n, ok := v["name"].(string); ok {
					names = append(names, lastPart(n))
				}
				if as, ok := v["aliases"].([]any); ok {
					for _, a := range as {
						if a, ok := a.(string); ok {
							names = append(names, lastPart(a))
						}
					}
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return names
}

// parseAvro parses an Avro schema's text with hamba/avro. hamba reads
// text that is not JSON as a type's name, and its error then quotes the
// whole text (a schema of 84 KB with a stray comma, in every warning):
// text that is neither JSON nor a name is said not to be JSON, and where.
func parseAvro(text string, cache *avro.SchemaCache) (avro.Schema, error) {
	if !json.Valid([]byte(text)) && !isAvroName(text) {
		return nil, notJSON(text)
	}
	return avro.ParseWithCache(text, "", cache)
}

// isAvroName reports whether s is a (full) name, as Avro spells them:
// what hamba takes for a named or primitive type when it is not JSON.
func isAvroName(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	start := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			start = false
		case c >= '0' && c <= '9' && !start:
		case c == '.' && !start:
			start = true
		default:
			return false
		}
	}
	return !start
}

func compileAvroSchema(sc avro.Schema, named map[string]*avroType) *avroType {
	if ref, ok := sc.(*avro.RefSchema); ok {
		sc = ref.Schema()
	}
	if ns, ok := sc.(avro.NamedSchema); ok {
		if t := named[ns.FullName()]; t != nil {
			return t
		}
	}
	t := &avroType{name: string(sc.Type())}
	if ls, ok := sc.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		t.logical = string(ls.Logical().Type())
		if d, ok := ls.Logical().(*avro.DecimalLogicalSchema); ok {
			t.scale = d.Scale()
		}
	}
	switch s := sc.(type) {
	case *avro.NullSchema:
		t.kind = aNull
	case *avro.PrimitiveSchema:
		t.kind = avroPrimitives[s.Type()]
	case *avro.RecordSchema:
		t.kind, t.name = aRecord, s.FullName()
		named[t.name] = t
		for _, f := range s.Fields() {
			key := jsontext.AppendString(nil, []byte(f.Name()))
			t.fields = append(t.fields, avroField{name: f.Name(), key: append(key, ':')})
		}
		for i, f := range s.Fields() {
			t.fields[i].t = compileAvroSchema(f.Type(), named)
		}
	case *avro.EnumSchema:
		t.kind, t.name, t.symbols = aEnum, s.FullName(), s.Symbols()
		named[t.name] = t
	case *avro.FixedSchema:
		t.kind, t.name, t.size = aFixed, s.FullName(), s.Size()
		named[t.name] = t
	case *avro.ArraySchema:
		t.kind = aArray
		t.items = compileAvroSchema(s.Items(), named)
	case *avro.MapSchema:
		t.kind = aMap
		t.items = compileAvroSchema(s.Values(), named)
	case *avro.UnionSchema:
		t.kind = aUnion
		for _, b := range s.Types() {
			t.types = append(t.types, compileAvroSchema(b, named))
		}
	}
	t.label = "avro " + t.name
	switch t.kind {
	case aRecord, aEnum, aFixed:
		t.label = "avro " + string(sc.Type()) + " " + t.name
	case aArray, aMap, aUnion:
		t.label = "avro " + string(sc.Type())
	}
	if t.logical != "" {
		t.label += " (" + t.logical + ")"
	}
	return t
}

// avroPayload decodes the Avro data at p to the payload's end.
func (w *walker) avroPayload(t *avroType, p int) {
	mark := len(w.out)
	w.decoded()
	w.stopAt = p
	if !w.takeData(p, 1) {
		w.rollback(mark)
		return
	}
	root := w.leaf("avro", t.label, schema.Struct, p, w.in.End)
	w.push("", -1)
	w.path = w.path[:0]
	q := w.avroValue(t, root, p)
	if !w.stopped && q < w.in.End {
		left, unit := w.in.End-q, " bytes"
		if left == 1 {
			unit = " byte"
		}
		w.fail(q, "avro: "+strconv.Itoa(left)+unit+" after the value the schema describes")
	}
	w.finish(root, mark)
}

// avroValue reads a value of type t at p into node n (made by the caller,
// spanning what it can), writes its JSON, and returns where it ends. A
// failure stops the walk (w.stopped) where it happened.
func (w *walker) avroValue(t *avroType, n *tree.Node, p int) int {
	end := w.in.End
	b := w.in.B
	if n != nil {
		n.Start, n.PrefixEnd = p, p
	}
	switch t.kind {
	case aNull:
		n.Null = true
		w.out = append(w.out, "null"...)
		n.Kind = schema.Invalid
	case aBoolean:
		if p >= end {
			w.fail(p, "avro: the payload ends before a boolean")
			return p
		}
		if b[p] > 1 {
			w.fail(p, "avro: boolean byte "+strconv.Itoa(int(b[p]))+" is neither 0 nor 1")
			return p
		}
		n.Kind, n.Int = schema.Bool, int64(b[p])
		w.out = strconv.AppendBool(w.out, b[p] == 1)
		p++
	case aInt, aLong:
		v, q := w.avroLong(p)
		if w.stopped {
			return p
		}
		if t.kind == aInt && (v < math.MinInt32 || v > math.MaxInt32) {
			w.fail(p, "avro: int "+strconv.FormatInt(v, 10)+" does not fit 32 refSet")
			return p
		}
		n.Kind, n.Int, n.Flags = schema.Int64, v, n.Flags|tree.Varint
		if t.kind == aInt {
			n.Kind = schema.Int32
		}
		w.out = jsontext.AppendInt64(w.out, v, t.kind == aLong && w.in.Int64Strings)
		p = q
	case aFloat:
		if end-p < 4 {
			w.fail(p, "avro: the payload ends inside a float")
			return p
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[p:]))
		n.Kind, n.Float = schema.Float64, float64(f)
		w.out = appendFloat(w.out, float64(f), 32)
		p += 4
	case aDouble:
		if end-p < 8 {
			w.fail(p, "avro: the payload ends inside a double")
			return p
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(b[p:]))
		n.Kind, n.Float = schema.Float64, f
		w.out = appendFloat(w.out, f, 64)
		p += 8
	case aBytes, aString:
		l, q := w.avroLong(p)
		if w.stopped {
			return p
		}
		if l < 0 || l > int64(end-q) {
			w.fail(p, "avro: "+t.name+" length "+strconv.FormatInt(l, 10)+" does not fit the "+strconv.Itoa(end-q)+" bytes left")
			return p
		}
		n.PrefixEnd = q
		p = q + int(l)
		n.Raw = b[q:p:p]
		if t.kind == aString {
			n.Kind = schema.String
			if !utf8.Valid(n.Raw) {
				w.fail(q, "avro: a string is not valid UTF-8")
				return q
			}
			w.out = jsontext.AppendString(w.out, n.Raw)
		} else {
			n.Kind = schema.Bytes
			w.out = appendCodePoints(w.out, n.Raw)
		}
	case aFixed:
		if end-p < t.size {
			w.fail(p, "avro: the payload ends inside fixed "+t.name+" ("+strconv.Itoa(t.size)+" bytes)")
			return p
		}
		n.Kind, n.Raw = schema.Bytes, b[p:p+t.size:p+t.size]
		w.out = appendCodePoints(w.out, n.Raw)
		p += t.size
	case aEnum:
		v, q := w.avroLong(p)
		if w.stopped {
			return p
		}
		if v < 0 || v >= int64(len(t.symbols)) {
			w.fail(p, "avro: enum "+t.name+" index "+strconv.FormatInt(v, 10)+" is not one of its "+strconv.Itoa(len(t.symbols))+" symbols")
			return p
		}
		sym := t.symbols[v]
		n.Kind, n.Raw, n.Int = schema.String, []byte(sym), v
		w.out = jsontext.AppendString(w.out, n.Raw)
		p = q
	case aUnion:
		v, q := w.avroLong(p)
		if w.stopped {
			return p
		}
		if v < 0 || v >= int64(len(t.types)) {
			w.fail(p, "avro: union branch "+strconv.FormatInt(v, 10)+" is not one of its "+strconv.Itoa(len(t.types)))
			return p
		}
		bt := t.types[v]
		n.Type = "avro union[" + strconv.FormatInt(v, 10) + "] " + bt.label[len("avro "):]
		if bt.kind == aNull {
			n.Null, n.Kind, n.PrefixEnd, n.End = true, schema.Invalid, q, q
			w.out = append(w.out, "null"...)
			return q
		}
		w.out = append(w.out, '{')
		w.out = jsontext.AppendString(w.out, []byte(bt.name))
		w.out = append(w.out, ':')
		// The branch's value is the union node itself, its prefix the
		// branch index: one node per union, as a person reads it.
		// Its type, set above, is the branch's, to which the branch's
		// logical type adds its reading.
		q0 := q
		q = w.avroValue(bt, n, q)
		n.Start, n.PrefixEnd = p, max(n.PrefixEnd, q0)
		if w.stopped {
			return q
		}
		w.out = append(w.out, '}')
		p = q
	case aRecord:
		if !w.deeper(p) {
			return p
		}
		n.Kind = schema.Struct
		w.out = append(w.out, '{')
		for i := range t.fields {
			f := &t.fields[i]
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.out = append(w.out, f.key...)
			// A limit that cuts the field is said on its path, as its
			// other warnings are.
			w.push(f.name, -1)
			if !w.takeAt(p, 1) {
				w.pop()
				return p
			}
			c := w.node(f.name, f.t.label, schema.Invalid, p, p)
			p = w.avroValue(f.t, c, p)
			w.pop()
			w.add(n, c)
			if w.stopped {
				return p
			}
		}
		w.out = append(w.out, '}')
		w.depth--
	case aArray, aMap:
		if !w.deeper(p) {
			return p
		}
		p = w.avroBlocks(t, n, p)
		if w.stopped {
			return p
		}
		w.depth--
	}
	n.End = p
	if t.logical != "" && w.s != nil && !w.stopped {
		logicalNote(n, t)
	}
	return p
}

// avroBlocks reads an array or a map: blocks of items, each a count
// (negative: its absolute value, then the block's size in bytes), ended
// by a zero count. Every item is paid for (a node, a unit of work) as it
// is read, so a count the bytes cannot hold costs nothing.
func (w *walker) avroBlocks(t *avroType, n *tree.Node, p int) int {
	n.Kind = schema.Array
	isMap := t.kind == aMap
	if isMap {
		w.out = append(w.out, '{')
	} else {
		w.out = append(w.out, '[')
	}
	idx := 0
	first := true
	var seen keySet // a map's keys, for duplicates
	// The first key seen twice is said where it is; the others are
	// counted and said once, where the map's reading ends: a map of a
	// hundred thousand equal keys is two warnings, not one per entry.
	dups, lastDup := 0, 0
	defer func() {
		if dups > 1 {
			w.warnAt(lastDup, "avro: "+strconv.Itoa(dups-1)+" more keys of this map appear more than once, the last here", false)
		}
	}()
	for {
		hdr := p // where this block's count starts
		c, q := w.avroLong(p)
		if w.stopped {
			return p
		}
		sized := c < 0
		if sized {
			if c == math.MinInt64 {
				w.fail(p, "avro: block count "+strconv.FormatInt(c, 10)+" is out of range")
				return p
			}
			c = -c
			_, q = w.avroLong(q)
			if w.stopped {
				return p
			}
		}
		if n != nil && first {
			n.PrefixEnd = q
		}
		if !first && c != 0 {
			// A later block's count (and size): a node of its own
			// between the items, as the closing zero count is, not the
			// next item's prefix, which the views call its length.
			if !w.takeAt(hdr, 1) {
				return hdr
			}
			typ := "avro block count"
			if sized {
				typ = "avro block count and byte size"
			}
			e := w.node("count", typ, schema.Int64, hdr, q)
			e.Role = tree.RoleFraming // the container's path, not a map key "count"'s
			e.Flags |= tree.Varint
			e.Int = c
			w.add(n, e)
		}
		first = false
		p = q
		if c == 0 {
			if idx > 0 {
				// The closing zero count: a node, so the items tile.
				if !w.takeAt(hdr, 1) {
					return hdr
				}
				e := w.node("end", "avro block count 0", schema.Int64, hdr, q)
				e.Role = tree.RoleFraming // the container's path, not a map key "end"'s
				e.Flags |= tree.Varint
				w.add(n, e)
			}
			break
		}
		for ; c > 0; c-- {
			if p >= w.in.End && !zeroSized(t.items) {
				w.fail(p, "avro: the payload ends inside a "+t.name+" ("+strconv.FormatInt(c, 10)+" items declared are missing)")
				return p
			}
			// A limit that cuts the item is said on its path, as its
			// other warnings are: an element's index, or an entry's key
			// (peeked, only when the charges below stop the walk: a key
			// that does not read leaves the map's path, its failure
			// said after the charges as it was).
			named := false
			if !isMap {
				w.push("", idx)
				named = true
			} else if w.cuts(1, 3) {
				var key string
				if key, named = w.avroPeekKey(p); named {
					w.push(key, -1)
				}
			}
			ok := w.work(p, 1) && w.takeAt(p, 1) && (!isMap || w.takeAt(p, 2))
			if named {
				w.pop()
			}
			if !ok {
				return p
			}
			if idx > 0 {
				w.out = append(w.out, ',')
			}
			var e *tree.Node
			if isMap {
				// An entry: a struct named by its key, holding the key
				// (with its length) and the value.
				k, kq := w.avroLong(p)
				if w.stopped {
					return p
				}
				if k < 0 || k > int64(w.in.End-kq) {
					w.fail(p, "avro: map key length "+strconv.FormatInt(k, 10)+" does not fit the "+strconv.Itoa(w.in.End-kq)+" bytes left")
					return p
				}
				ke := kq + int(k)
				key := w.in.B[kq:ke:ke]
				if !utf8.Valid(key) {
					w.fail(kq, "avro: a map key is not valid UTF-8")
					return p
				}
				if seen.add(key) {
					lastDup = kq
					if dups++; dups == 1 {
						shown := key
						if len(shown) > 64 {
							shown = shown[:64] // said in bounded length
						}
						w.warnAt(kq, "avro: map key "+strconv.Quote(string(shown))+" appears more than once", false)
					}
				}
				w.out = jsontext.AppendString(w.out, key)
				w.out = append(w.out, ':')
				name := string(key)
				e = w.node(name, "avro map entry", schema.Struct, p, ke)
				kn := w.node("key", "avro string", schema.String, p, ke)
				kn.PrefixEnd, kn.Raw = kq, key
				w.add(e, kn)
				v := w.node("value", t.items.label, schema.Invalid, ke, ke)
				w.push(name, -1)
				p = w.avroValue(t.items, v, ke)
				w.add(e, v)
				e.End = p
			} else {
				e = w.node(t.name, t.items.label, schema.Invalid, p, p)
				e.Role, e.Index = tree.RoleElement, idx
				w.push("", idx)
				p = w.avroValue(t.items, e, p)
			}
			w.pop()
			w.add(n, e)
			idx++
			if w.stopped {
				return p
			}
		}
	}
	if isMap {
		w.out = append(w.out, '}')
	} else {
		w.out = append(w.out, ']')
	}
	if n != nil {
		n.Int = int64(idx)
	}
	return p
}

// keySet is a map's keys so far, for duplicates: a list for a few, a
// set past 16.
type keySet struct {
	list [][]byte
	set  map[string]bool
}

// add adds key, reporting whether it was there already.
func (k *keySet) add(key []byte) bool {
	if k.set == nil && len(k.list) < 16 {
		for _, x := range k.list {
			if string(x) == string(key) {
				return true
			}
		}
		k.list = append(k.list, key)
		return false
	}
	if k.set == nil {
		k.set = make(map[string]bool, 64)
		for _, x := range k.list {
			k.set[string(x)] = true
		}
	}
	if k.set[string(key)] {
		return true
	}
	k.set[string(key)] = true
	return false
}

func zeroSized(t *avroType) bool {
	return t.kind == aNull || (t.kind == aFixed && t.size == 0) || (t.kind == aRecord && len(t.fields) == 0)
}

// avroLong reads a zig-zag varint (at most 10 bytes) at p.
func (w *walker) avroLong(p int) (int64, int) {
	var u uint64
	b := w.in.B
	for i := 0; i < 10; i++ {
		if p+i >= w.in.End {
			w.fail(p, "avro: the payload ends inside a varint")
			return 0, p
		}
		c := b[p+i]
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				break
			}
			return int64(u>>1) ^ -int64(u&1), p + i + 1
		}
	}
	w.fail(p, "avro: a varint is longer than 10 bytes")
	return 0, p
}

// avroPeekKey reads the map key whose length is at p, without failing:
// false when it does not read (the walk says why when it reads it).
func (w *walker) avroPeekKey(p int) (string, bool) {
	b := w.in.B[:w.in.End]
	var u uint64
	for i := 0; i < 10 && p+i < len(b); i++ {
		c := b[p+i]
		u |= uint64(c&0x7f) << (7 * i)
		if c >= 0x80 {
			continue
		}
		if i == 9 && c > 1 {
			return "", false
		}
		k, q := int64(u>>1)^-int64(u&1), p+i+1
		if k < 0 || k > int64(len(b)-q) || !utf8.Valid(b[q:q+int(k)]) {
			return "", false
		}
		return string(b[q : q+int(k)]), true
	}
	return "", false
}

// appendFloat writes f as Avro's JSON does: the shortest decimal that
// reads back as the same float; NaN and infinities as the strings Java's
// encoder writes for them.
func appendFloat(dst []byte, f float64, refSet int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, refSet)
}

// appendCodePoints writes bytes as Avro's JSON encoding does: a string
// whose code points U+0000-U+00FF are the bytes.
func appendCodePoints(dst []byte, raw []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range raw {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c < 0x80:
			dst = append(dst, c)
		default:
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return append(dst, '"')
}

// logicalNote puts a logical type's reading on its node, for the tree: a
// date, a time, a decimal, a UUID. The value JSON keeps the underlying
// value (Avro's JSON encoding).
func logicalNote(n *tree.Node, t *avroType) {
	var s string
	switch t.logical {
	case "date":
		s = time.Unix(n.Int*86400, 0).UTC().Format("2006-01-02")
	case "timestamp-millis", "local-timestamp-millis":
		s = time.UnixMilli(n.Int).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	case "timestamp-micros", "local-timestamp-micros":
		s = time.UnixMicro(n.Int).UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	case "time-millis":
		s = time.UnixMilli(n.Int).UTC().Format("15:04:05.000")
	case "time-micros":
		s = time.UnixMicro(n.Int).UTC().Format("15:04:05.000000")
	case "decimal":
		if n.Raw == nil {
			return
		}
		s = decimalString(n.Raw, t.scale)
	case "uuid":
		if n.Kind == schema.String {
			return
		}
		if len(n.Raw) == 16 {
			s = uuidString(n.Raw)
		}
	case "duration":
		if len(n.Raw) == 12 {
			s = strconv.FormatUint(uint64(binary.LittleEndian.Uint32(n.Raw)), 10) + " months " +
				strconv.FormatUint(uint64(binary.LittleEndian.Uint32(n.Raw[4:])), 10) + " days " +
				strconv.FormatUint(uint64(binary.LittleEndian.Uint32(n.Raw[8:])), 10) + " ms"
		}
	}
	if s == "" {
		return
	}
	if t.logical != "local-timestamp-millis" && t.logical != "local-timestamp-micros" {
		n.Type += " = " + s
	} else {
		n.Type += " = " + s[:len(s)-1] + " (local)"
	}
}

// decimalString reads a two's-complement big-endian unscaled value.
func decimalString(b []byte, scale int) string {
	if len(b) > 64 {
		return ""
	}
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	s := v.String()
	if scale <= 0 {
		return s
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if scale > 64 {
		// Past 64 places, in E notation, as Java's BigDecimal writes
		// small numbers (and no zeros the schema's scale asks for are
		// made): 1 at scale 70 is 1E-70, 123 is 1.23E-68.
		e := "E" + strconv.Itoa(len(s)-1-scale)
		if len(s) > 1 {
			s = s[:1] + "." + s[1:]
		}
		s += e
	} else {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func uuidString(b []byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0xf])
	}
	return string(out)
}
