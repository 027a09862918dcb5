package payload

import (
	"encoding/base64"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/options"
	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"

	// The well-known types a schema may import, registered in
	// protoregistry.GlobalFiles (descriptor.proto comes with
	// descriptorpb, go_features.proto with the linker).
	_ "google.golang.org/protobuf/types/known/anypb"
	_ "google.golang.org/protobuf/types/known/apipb"
	_ "google.golang.org/protobuf/types/known/durationpb"
	_ "google.golang.org/protobuf/types/known/emptypb"
	_ "google.golang.org/protobuf/types/known/fieldmaskpb"
	_ "google.golang.org/protobuf/types/known/sourcecontextpb"
	_ "google.golang.org/protobuf/types/known/structpb"
	_ "google.golang.org/protobuf/types/known/timestamppb"
	_ "google.golang.org/protobuf/types/known/typepb"
	_ "google.golang.org/protobuf/types/known/wrapperspb"
)

// Protobuf schemas are compiled by bufbuild/protocompile's parser, linker
// and options packages (imports from the schema's references, the
// well-known types built in); values are
// decoded by google.golang.org/protobuf (dynamicpb, written as protojson).
// What is walked here is the wire format, with protowire, for the spans
// of each field.

// protoSchema is a compiled .proto file.
type protoSchema struct {
	file protoreflect.FileDescriptor
	res  linker.Resolver // the file and everything it imports, for Any
}

// mainFile is the name the schema itself is compiled under.
const mainFile = "kwire-schema.proto"

func compileProto(s *Schema) (*protoSchema, error) {
	srcs := map[string]string{mainFile: s.Text}
	err := walkReferences(s, func(r Reference) (bool, error) {
		if _, ok := srcs[r.Name]; ok {
			return false, nil
		}
		srcs[r.Name] = r.Schema.Text
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	c := protoCompiler{srcs: srcs, files: map[string]linker.File{}, sym: &linker.Symbols{}, h: reporter.NewHandler(nil)}
	f, err := c.file(mainFile)
	if err != nil {
		return nil, err
	}
	if f.Messages().Len() == 0 {
		return nil, errors.New("the file defines no message")
	}
	return &protoSchema{file: f, res: linker.ResolverFromFile(f)}, nil
}

// protoCompiler compiles a .proto file and its imports, one at a time,
// in the steps protocompile.Compiler takes (parse, link, interpret
// options, validate them). Its root package is not used: its init builds
// descriptors of every standard import, C++'s and Java's feature files
// too (200 KB and a millisecond of every kwire process's start, schemas
// or not); the well-known types come from protoregistry.GlobalFiles.
type protoCompiler struct {
	srcs  map[string]string
	files map[string]linker.File
	chain []string // being compiled, each importing the next: importing one again is a cycle
	sym   *linker.Symbols
	h     *reporter.Handler
}

func (c *protoCompiler) file(path string) (f linker.File, err error) {
	if f := c.files[path]; f != nil {
		return f, nil
	}
	// The well-known types are always the built-in ones: a registry's
	// copy (confluent-kafka-python registers its own descriptors of
	// them) adds nothing and may differ.
	if strings.HasPrefix(path, "google/protobuf/") {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			return nil, errNoFile
		}
		if f, err = linker.NewFileRecursive(fd); err != nil {
			return nil, err
		}
		c.files[path] = f
		return f, nil
	}
	c.chain = append(c.chain, path)
	defer func() {
		c.chain = c.chain[:len(c.chain)-1]
		if r := recover(); r != nil {
			f, err = nil, errors.New(path+": the protobuf compiler failed: "+panicText(r))
		}
	}()
	text, ok := c.srcs[path]
	if !ok {
		return nil, errNoFile
	}
	// A registry may hold a schema as .proto text or, as
	// confluent-kafka-python registers it, as a base64
	// FileDescriptorProto.
	var res parser.Result
	if fd := descriptorOf(text); fd != nil {
		fd.Name = proto.String(path)
		res = parser.ResultWithoutAST(fd)
	} else {
		ast, err := parser.Parse(path, strings.NewReader(text), c.h)
		if err != nil {
			return nil, err
		}
		if res, err = parser.ResultFromAST(ast, true, c.h); err != nil {
			return nil, err
		}
	}
	var deps linker.Files
	for _, imp := range res.FileDescriptorProto().GetDependency() {
		if i := slices.Index(c.chain, imp); i >= 0 {
			var b strings.Builder
			b.WriteString("cycle found in imports: ")
			for _, p := range append(c.chain[i:], imp) {
				b.WriteString(strconv.Quote(p))
				b.WriteString(" -> ")
			}
			return nil, reporter.Error(importSpan(res, imp), errors.New(strings.TrimSuffix(b.String(), " -> ")))
		}
		d, err := c.file(imp)
		if errors.Is(err, errNoFile) {
			// Said where the import is, as protocompile.Compiler does.
			err = reporter.Error(importSpan(res, imp), errors.New("could not resolve path "+strconv.Quote(imp)+": file does not exist"))
		}
		if err != nil {
			return nil, err
		}
		deps = append(deps, d)
	}
	lf, err := linker.Link(res, deps, c.sym, c.h)
	if err != nil {
		return nil, err
	}
	if _, err := options.InterpretOptions(lf, c.h); err != nil {
		return nil, err
	}
	if err := lf.ValidateOptions(c.h, c.sym); err != nil {
		return nil, err
	}
	if err := c.h.Error(); err != nil {
		return nil, err
	}
	lf.RemoveAST()
	c.files[path] = lf
	return lf, nil
}

// errNoFile is an import that no reference holds.
var errNoFile = errors.New("file does not exist")

// importSpan is where res imports dep.
func importSpan(res parser.Result, dep string) ast.SourceSpan {
	if root := res.AST(); root != nil {
		for _, decl := range root.Decls {
			if imp, ok := decl.(*ast.ImportNode); ok && imp.Name.AsString() == dep {
				return root.NodeInfo(imp.Name)
			}
		}
	}
	return ast.UnknownSpan(res.FileDescriptorProto().GetName())
}

// descriptorOf reads a schema given as a base64 FileDescriptorProto, or
// returns nil.
func descriptorOf(s string) *descriptorpb.FileDescriptorProto {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t\n;{") {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	fd := new(descriptorpb.FileDescriptorProto)
	if proto.Unmarshal(b, fd) != nil || fd.GetName() == "" {
		return nil
	}
	for _, m := range fd.MessageType {
		fillJSONNames(m)
	}
	return fd
}

// fillJSONNames gives each field of a descriptor that lacks one its
// default JSON name, as protoc writes it (Python's descriptors omit it;
// the compiler takes a missing one for a custom empty name).
func fillJSONNames(m *descriptorpb.DescriptorProto) {
	for _, f := range m.Field {
		if f.JsonName == nil {
			f.JsonName = proto.String(jsonName(f.GetName()))
		}
	}
	for _, n := range m.NestedType {
		fillJSONNames(n)
	}
}

// jsonName is a field's default JSON name: lowerCamelCase of its name.
func jsonName(s string) string {
	b := make([]byte, 0, len(s))
	up := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b = append(b, c)
	}
	return string(b)
}

// protoPayload decodes Protobuf data at p: with the registry's framing,
// the message-index list first (or, when it is not there, the first
// message, with a warning), then the message.
func (w *walker) protoPayload(ps *protoSchema, p int, framed bool) {
	md := ps.file.Messages().Get(0)
	b := w.in.B[:w.in.End]
	idxEnd := p
	if n := ps.file.Messages().Len(); !framed && n > 1 {
		// Data without the registry's framing names no message: the
		// file's first is taken, which the user may not mean.
		w.warnAt(p, "protobuf: the topic's schema file declares "+strconv.Itoa(n)+" messages and unframed data names none; read as the first, "+string(md.FullName())+" (declare the payload's message first to choose it)", false)
	}
	if framed {
		zz := indexReading(b, p, ps, true, w.maxDepth)
		var uv indexRead
		if !zz.ok {
			uv = indexReading(b, p, ps, false, w.maxDepth)
		}
		switch {
		case zz.ok:
			md, idxEnd = zz.m, zz.end
			w.protoEntriesWarning(ps, p, zz.idx, md)
			w.protoIndexes(b, p, zz.idx, true)
		case uv.ok:
			md, idxEnd = uv.m, uv.end
			w.warnAt(p, "protobuf: the message indexes are unsigned varints, not zig-zag ones (as confluent-kafka-python 1.7 writes them)", false)
			w.protoEntriesWarning(ps, p, uv.idx, md)
			w.protoIndexes(b, p, uv.idx, false)
		case protoWireOK(b[p:], 0, w.maxDepth):
			// The npm @kafkajs/confluent-schema-registry package (every
			// release, 3.9 and 4.1 too) writes no message-index list: the data
			// follows the id.
			w.warnAt(p, "protobuf: no message-index list after the schema id (as @kafkajs/confluent-schema-registry writes Protobuf); read as the file's first message, "+string(md.FullName()), false)
		case zz.m != nil:
			// The list names a message, whose data is broken: read it,
			// to say where.
			md, idxEnd = zz.m, zz.end
			w.protoEntriesWarning(ps, p, zz.idx, md)
			w.protoIndexes(b, p, zz.idx, true)
		case zz.idx != nil:
			w.fail(p, "protobuf: message indexes "+intsString(zz.idx)+" name no message of the schema")
			w.rest(p, "data")
			return
		default:
			w.fail(p, "protobuf: the message-index list does not read as varints")
			w.rest(p, "data")
			return
		}
	}
	w.member(`"message":`)
	w.out = append(w.out, '"')
	w.out = append(w.out, md.FullName()...)
	w.out = append(w.out, '"')
	if w.stopped {
		return
	}
	mark := len(w.out)
	if !w.takeData(idxEnd, 1) {
		return
	}
	root := w.leaf("protobuf", "protobuf message "+string(md.FullName()), schema.Struct, idxEnd, w.in.End)
	w.push("", -1)
	w.path = w.path[:0]
	w.protoMessage(md, root, idxEnd, w.in.End)
	if !w.stopped {
		js, err := w.protoJSON(ps, md, b[idxEnd:], idxEnd)
		if err != nil {
			w.fail(idxEnd, "protobuf: "+err.Error())
		} else if js != nil {
			w.decoded()
			w.out = appendCompact(w.out, js) // protojson varies its spacing on purpose
		}
	}
	w.finish(root, mark)
}

// protoJSON reads data, at p, as message md and writes it as protojson;
// nil and no error when anyFits stops it at a limit. The protobuf runtime
// panics on some data it should refuse (google.golang.org/protobuf
// v1.36.12: a map entry whose key comes twice, the second time of a wire
// type the key's type is never written as, in a message or in an Any's
// value): that is an error, said as the others are.
func (w *walker) protoJSON(ps *protoSchema, md protoreflect.MessageDescriptor, data []byte, p int) (js []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			js, err = nil, errors.New("the protobuf runtime failed on the data: "+panicText(r))
		}
	}()
	m := dynamicpb.NewMessage(md)
	err = proto.UnmarshalOptions{AllowPartial: true, RecursionLimit: w.maxDepth + 1, Resolver: ps.res}.Unmarshal(data, m)
	if err != nil || !w.anyFits(m, ps.res, p) {
		return nil, err
	}
	return protojson.MarshalOptions{Resolver: ps.res, AllowPartial: true}.Marshal(m)
}

// indexRead is one reading of the message-index list: the indexes, where
// they end, and the message they name when the data after them reads as
// Protobuf.
type indexRead struct {
	idx []int
	end int
	m   protoreflect.MessageDescriptor // the message the indexes name
	ok  bool                           // and the data reads as Protobuf
}

func indexReading(b []byte, p int, ps *protoSchema, zz bool, maxDepth int) indexRead {
	idx, end, ok := readIndexes(b, p, zz)
	if !ok {
		return indexRead{}
	}
	r := indexRead{idx: idx, end: end}
	r.m = messageAt(ps.file, idx, false)
	r.ok = r.m != nil && protoWireOK(b[end:], 0, maxDepth)
	return r
}

// readIndexes reads Confluent's message-index list at p: a count, then
// that many indexes, each a zig-zag varint (or, when zz is false, an
// unsigned one); a count of 0 (one zero byte) means [0].
func readIndexes(b []byte, p int, zz bool) ([]int, int, bool) {
	c, n := varint(b[p:], zz)
	if n <= 0 || c < 0 || c > int64(len(b)-p-n) {
		return nil, p, false
	}
	p += n
	if c == 0 {
		return []int{0}, p, true
	}
	idx := make([]int, 0, min(c, 8))
	for i := int64(0); i < c; i++ {
		v, n := varint(b[p:], zz)
		if n <= 0 || v < 0 || v > math.MaxInt32 {
			return nil, p, false
		}
		idx = append(idx, int(v))
		p += n
	}
	return idx, p, true
}

func varint(b []byte, zz bool) (int64, int) {
	u, n := protowire.ConsumeVarint(b)
	switch {
	case n < 0:
		return 0, n
	case zz:
		return protowire.DecodeZigZag(u), n
	case u > math.MaxInt64:
		return -1, n
	}
	return int64(u), n
}

// messageAt follows message indexes: the first among the file's
// messages, each next among the nested messages of the one before. The
// synthetic entry types of map fields are not counted, as Confluent's
// Java serializer (from the .proto text) and protobufjs do not: no
// producer writes a map entry as the record's type. With entries true it
// counts them, as clients that index protoc's descriptors (Python's,
// Go's) may.
func messageAt(f protoreflect.FileDescriptor, idx []int, entries bool) protoreflect.MessageDescriptor {
	if len(idx) == 0 {
		return nil
	}
	ms := f.Messages()
	var m protoreflect.MessageDescriptor
	for _, i := range idx {
		m = nil
		for j, k := 0, 0; j < ms.Len(); j++ {
			c := ms.Get(j)
			if !entries && c.IsMapEntry() {
				continue
			}
			if k == i {
				m = c
				break
			}
			k++
		}
		if m == nil {
			return nil
		}
		ms = m.Messages()
	}
	return m
}

// mapEntryBefore reports whether a map field's entry type precedes m, or
// one of the messages m is nested in, among its siblings: then m's
// indexes differ between the conventions that skip map entries and those
// that count them.
func mapEntryBefore(m protoreflect.MessageDescriptor) bool {
	for m != nil {
		var ms protoreflect.MessageDescriptors
		switch p := m.Parent().(type) {
		case protoreflect.MessageDescriptor:
			ms = p.Messages()
		case protoreflect.FileDescriptor:
			ms = p.Messages()
		default:
			return false
		}
		for j := 0; j < m.Index(); j++ {
			if ms.Get(j).IsMapEntry() {
				return true
			}
		}
		m, _ = m.Parent().(protoreflect.MessageDescriptor)
	}
	return false
}

// protoEntriesWarning says, when idx would name another message were map
// fields' entry types counted, which message was read and what the other
// convention names.
func (w *walker) protoEntriesWarning(ps *protoSchema, p int, idx []int, m protoreflect.MessageDescriptor) {
	if !mapEntryBefore(m) {
		return
	}
	other := "no message"
	if o := messageAt(ps.file, idx, true); o != nil {
		other = string(o.FullName())
	}
	w.warnAt(p, "protobuf: message indexes "+intsString(idx)+" read as "+string(m.FullName())+", map fields' entry types not counted (as Confluent's Java and JavaScript serializers index); counting them, as clients indexing protoc's descriptors may, they name "+other, false)
}

func intsString(v []int) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(x)
	}
	return s + "]"
}

// protoIndexes makes the messageIndexes node and JSON member for the
// list at p (zig-zag varints, or unsigned ones).
func (w *walker) protoIndexes(b []byte, p int, idx []int, zz bool) {
	w.member(`"messageIndexes":[`)
	for i, x := range idx {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.out = jsontext.AppendInt(w.out, int64(x))
	}
	w.out = append(w.out, ']')
	if !w.takeData(p, 1) {
		return
	}
	typ, etyp := "zig-zag varints", "zig-zag varint"
	if !zz {
		typ, etyp = "varints", "varint"
	}
	cnt, cn := varint(b[p:], zz)
	n := w.leaf("messageIndexes", typ, schema.Array, p, p+cn)
	n.Int = int64(len(idx))
	n.PrefixEnd = p + cn
	if cnt == 0 {
		return // a count of 0 means [0]
	}
	q := p + cn
	for i := range idx {
		// A limit that cuts an element is said on its path,
		// messageIndexes[i] beside "decoded".
		w.push("messageIndexes", ownMember)
		w.push("", i)
		ok := w.takeAt(q, 1)
		w.path = w.path[:len(w.path)-2]
		if !ok {
			return
		}
		_, vn := varint(b[q:], zz)
		e := w.node("messageIndexes", etyp, schema.Int32, q, q+vn)
		e.Role, e.Index, e.Int, e.Flags = tree.RoleElement, i, int64(idx[i]), tree.Varint
		w.add(n, e)
		q += vn
		n.End, w.topEnd = q, q
	}
}

// protoWireOK reports whether b reads as Protobuf wire format: tags and
// values that fit, groups closed, nesting within maxDepth. It checks no
// schema, only the framing, to tell the message-index list from data.
func protoWireOK(b []byte, depth, maxDepth int) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber {
			return false
		}
		if typ == protowire.StartGroupType && depth >= maxDepth {
			return false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return false
		}
		b = b[n+m:]
	}
	return true
}

// protoFailed reports a protowire read at p that failed (n < 0), saying
// what was read when it is not a field's value (" (a length)"...). The
// check inlines; the message is built out of line (protoFail).
func (w *walker) protoFailed(p, n int, what string) bool {
	if n >= 0 {
		return false
	}
	w.protoFail(p, n, what)
	return true
}

func (w *walker) protoFail(p, n int, what string) {
	w.fail(p, "protobuf: "+protowire.ParseError(n).Error()+what)
}

// protoMessage walks the fields of message md in [p, end), making a node
// for each under n. Paths and nodes name a repeated field's values as
// value JSON does, one array over all the field's occurrences: an
// occurrence's node is named by the field and its Index is the array's
// index of its (first) element, a packed run's elements numbered on from
// there; a warning inside one names that element. A map field's entry
// (a member of the field's object, by its key) says its warnings on the
// key's path once the key is read, before that on the field's.
func (w *walker) protoMessage(md protoreflect.MessageDescriptor, n *tree.Node, p, end int) {
	if !w.deeper(p) {
		return
	}
	entry := md.IsMapEntry()
	at := len(w.path) // a map entry's segment: its key's member once read, the path's end until then (the caller takes it off)
	if entry {
		w.push("", pathEnd)
	}
	b := w.in.B[:end]
	fields := md.Fields()
	var seen map[int]int // elements of each repeated field so far, by the field's index: as many as met, not as declared (a slice of every declared field's count cost each small message of a big type that much)
	for p < end {
		w.stopAt = p
		// A limit that cuts the field is said on its path, as its other
		// warnings are: its tag is peeked for it only when the charges
		// stop the walk (a tag that does not read leaves the message's
		// path, its failure said after the charges as it was).
		mark := len(w.path)
		if w.cuts(1, 1) {
			if num, typ, tn := protowire.ConsumeTag(b[p:]); tn >= 0 {
				fd := fields.ByNumber(num)
				w.protoPush(fd, num, typ, protoElement(fd, typ, seen), entry)
			}
		}
		ok := w.work(p, 1) && w.take(1)
		w.path = w.path[:mark]
		if !ok {
			return
		}
		num, typ, tn := protowire.ConsumeTag(b[p:])
		if w.protoFailed(p, tn, " (a field tag)") {
			return
		}
		fd := fields.ByNumber(num)
		if (fd == nil || !wireTypeFits(fd, typ)) && typ <= protowire.Fixed32Type {
			w.protoMismatch(md, fd, num, typ, p)
		}
		c := w.node(protoFieldName(fd, num, typ), "", schema.Invalid, p, p)
		c.TagEnd, c.SizeEnd, c.PrefixEnd, c.Tag = p+tn, p+tn, p+tn, int32(num)
		c.Index = protoElement(fd, typ, seen)
		w.protoPush(fd, num, typ, c.Index, entry)
		idx := c.Index // c may be the walk's scratch node without a tree, which protoField's children overwrite
		q := w.protoField(fd, typ, c, b, p+tn)
		w.path = w.path[:mark]
		w.add(n, c)
		if w.stopped {
			return
		}
		if idx >= 0 {
			if seen == nil {
				seen = map[int]int{}
			}
			k := 1
			if packed(fd, typ) {
				k = int(c.Int) // a packed run's elements (the run's last write to c, a scratch node or not)
			}
			seen[fd.Index()] = idx + k
		}
		if entry && num == 1 && fd != nil && wireTypeFits(fd, typ) {
			// The entry's key: what follows (its value) is the member of
			// that name, the last key read as Protobuf parsers take it.
			w.path[at] = pathSeg{protoMapKey(c), -1}
		}
		p = q
	}
	w.depth--
}

// protoElement is the index, in the array value JSON shows for repeated
// field fd, of the element (a packed run's first) that fd read as wire
// type typ is, seen counting the elements before it; -1 when fd is nil,
// not a list (a map's entries are its object's members) or typ not its.
func protoElement(fd protoreflect.FieldDescriptor, typ protowire.Type, seen map[int]int) int {
	if fd == nil || !fd.IsList() || !wireTypeFits(fd, typ) {
		return -1
	}
	return seen[fd.Index()]
}

// protoPush pushes the path of field number num (fd its descriptor, nil
// when not in the schema) read as wire type typ, idx its protoElement:
// the field's JSON name (its number when the schema has no such field of
// that wire type), and for an element of a repeated field not packed its
// index (a packed run's elements push theirs). A map entry's key and
// value push none: the entry is its key's member (protoMessage's path
// segment, which ends the path at the field's until a key is read).
func (w *walker) protoPush(fd protoreflect.FieldDescriptor, num protowire.Number, typ protowire.Type, idx int, entry bool) {
	if entry && fd != nil {
		return
	}
	segs := [2]pathSeg{{protoFieldName(fd, num, typ), -1}, {"", idx}}
	push := segs[:1]
	if idx >= 0 && !packed(fd, typ) {
		push = segs[:]
	}
	w.path = append(w.path, push...) // one append: each is a lot of WebAssembly
}

// packed reports whether repeated field fd read as wire type typ is a
// packed run of scalars: length-delimited, of a kind that is no string,
// group, message or bytes (protoreflect numbers those 9 to 12).
func packed(fd protoreflect.FieldDescriptor, typ protowire.Type) bool {
	k := fd.Kind()
	return typ == protowire.BytesType && (k < protoreflect.StringKind || k > protoreflect.BytesKind)
}

// protoFieldName is the path segment and node name of field number num
// read as wire type typ: fd's JSON name, or (fd nil: not in the schema;
// or typ not its, an unknown field to Protobuf parsers) the number.
func protoFieldName(fd protoreflect.FieldDescriptor, num protowire.Number, typ protowire.Type) string {
	if fd == nil || !wireTypeFits(fd, typ) {
		return strconv.Itoa(int(num))
	}
	return fd.JSONName()
}

// protoMapKey is map entry key c as protojson writes it, a member name:
// a string as it is, an integer in decimal, a bool as true or false.
func protoMapKey(c *tree.Node) string {
	switch c.Kind {
	case schema.Bool:
		return strconv.FormatBool(c.Int != 0)
	case schema.Int64:
		return strconv.FormatInt(c.Int, 10)
	}
	return string(c.Raw) // a string, or an unsigned 64-bit integer's digits
}

// maxMismatches bounds the fields a payload's warnings name one by one as
// not matching the schema; past it, one warning says there are more.
const maxMismatches = 8

// protoMismatch warns that field num at p, of wire type typ, is not
// field fd of message md as the schema has it (fd nil: md has no such
// field; else fd's type is never written as typ). The schema id names
// the writer's schema, so it means the schema does not match the data:
// Protobuf parsers keep such a field as unknown and protojson leaves
// it out of "decoded", so the warning is all that says it is there (the
// tree shows it). Each message's field is said once per payload.
func (w *walker) protoMismatch(md protoreflect.MessageDescriptor, fd protoreflect.FieldDescriptor, num protowire.Number, typ protowire.Type, p int) {
	key := string(md.FullName()) + "." + strconv.Itoa(int(num)) + "/" + strconv.Itoa(int(typ))
	for _, k := range w.mismatched {
		if k == key {
			return
		}
	}
	w.mismatched = append(w.mismatched, key)
	switch n := len(w.mismatched); {
	case n == maxMismatches+1:
		w.warnAt(p, "protobuf: more fields do not match the schema (each is said once; past "+strconv.Itoa(maxMismatches)+" no more are)", false)
		return
	case n > maxMismatches+1:
		return
	}
	msg := "protobuf: field " + strconv.Itoa(int(num)) + " (" + wireTypeName(typ) + ") "
	if fd == nil {
		msg += "is not in the schema's " + string(md.FullName())
	} else {
		msg += "is " + string(fd.Name()) + " in the schema's " + string(md.FullName()) + ", of type " + fieldKindName(fd) + ", which is never written as " + wireTypeName(typ)
	}
	w.warnAt(p, msg+": the schema does not match the data; \"decoded\" leaves the field out (protojson drops unknown fields), the tree shows it", false)
}

// wireTypeName names a Protobuf wire type.
func wireTypeName(typ protowire.Type) string {
	switch typ {
	case protowire.VarintType:
		return "wire type varint"
	case protowire.Fixed64Type:
		return "wire type fixed64"
	case protowire.BytesType:
		return "wire type length-delimited"
	case protowire.StartGroupType:
		return "wire type start group"
	case protowire.EndGroupType:
		return "wire type end group"
	case protowire.Fixed32Type:
		return "wire type fixed32"
	}
	return "wire type " + strconv.Itoa(int(typ))
}

// fieldKindName is fd's type as a .proto file writes it.
func fieldKindName(fd protoreflect.FieldDescriptor) string {
	k := protoKindName(fd)
	if fd.IsList() {
		k = "repeated " + k
	}
	return k
}

// protoField reads the value of field fd (nil: not in the schema) of wire
// type typ at p into c, returning where it ends.
func (w *walker) protoField(fd protoreflect.FieldDescriptor, typ protowire.Type, c *tree.Node, b []byte, p int) int {
	q := p
	if fd != nil && !wireTypeFits(fd, typ) {
		fd = nil // read as an unknown field, as Protobuf parsers do
	}
	kindName := ""
	if fd != nil {
		kindName = protoKindName(fd)
		if fd.IsMap() {
			// Named so, not by its synthetic entry message: an element of
			// a map (an object's member in "decoded", by its key), not of
			// a list (internal/render's NodePaths tells them so).
			kindName = "map<" + protoKindName(fd.MapKey()) + ", " + protoKindName(fd.MapValue()) + "> entry"
		}
	}
	switch typ {
	case protowire.VarintType, protowire.Fixed32Type, protowire.Fixed64Type:
		v, n := consumeScalar(typ, b[p:])
		if w.protoFailed(p, n, "") {
			return p
		}
		q = p + n
		scalarValue(c, fd, v)
		if typ == protowire.VarintType {
			c.Flags |= tree.Varint
		}
		if fd != nil && fd.Kind() == protoreflect.EnumKind {
			if ev := fd.Enum().Values().ByNumber(protoreflect.EnumNumber(c.Int)); ev != nil {
				kindName += " = " + string(ev.Name())
			}
		}
	case protowire.BytesType:
		l, n := protowire.ConsumeVarint(b[p:])
		if w.protoFailed(p, n, " (a length)") {
			return p
		}
		if l > uint64(len(b)-p-n) {
			w.fail(p, "protobuf: length "+strconv.FormatUint(l, 10)+" does not fit the "+strconv.Itoa(len(b)-p-n)+" bytes left")
			return p
		}
		s := p + n
		q = s + int(l)
		c.SizeEnd, c.PrefixEnd = s, s
		c.Kind, c.Raw = schema.Bytes, b[s:q:q]
		switch {
		case fd == nil:
		case fd.Kind() == protoreflect.StringKind:
			c.Kind = schema.String
		case fd.Kind() == protoreflect.MessageKind:
			c.Kind, c.Raw = schema.Struct, nil
			c.End = q
			w.protoMessage(fd.Message(), c, s, q)
			if w.stopped {
				return q
			}
		case fd.IsList() && packed(fd, typ):
			c.Kind, c.Raw = schema.Array, nil
			c.End = q
			w.protoPacked(fd, c, b[:q], s, c.Index)
			if w.stopped {
				return q
			}
		}
	case protowire.StartGroupType, protowire.EndGroupType:
		num, _, _ := protowire.ConsumeTag(b[c.Start:])
		n := protowire.ConsumeFieldValue(num, typ, b[p:])
		if n < 0 || typ == protowire.EndGroupType {
			w.fail(c.Start, "protobuf: a group that does not close")
			return p
		}
		q = p + n
		c.Kind, c.Raw = schema.Bytes, b[p:q:q]
		kindName = "group"
	default:
		w.fail(c.Start, "protobuf: unknown wire type "+strconv.Itoa(int(typ)))
		return p
	}
	if fd == nil {
		c.Type = "protobuf unknown field " + strconv.Itoa(int(c.Tag))
	} else {
		c.Type = "protobuf " + kindName
	}
	c.End = q
	return q
}

// protoKindName is the type of field fd's values as a node's type names
// it: a scalar's kind, a message's full name, "enum " and an enum's.
func protoKindName(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(fd.Message().FullName())
	case protoreflect.EnumKind:
		return "enum " + string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

// protoPacked reads a packed repeated scalar: elements back to back, the
// first element at index base of the field's array (after the elements of
// its occurrences before).
func (w *walker) protoPacked(fd protoreflect.FieldDescriptor, c *tree.Node, b []byte, p, base int) {
	i := 0
	for p < len(b) {
		// An element's limit cut or failure is said on its path.
		w.push("", base+i)
		if !w.work(p, 1) || !w.takeAt(p, 1) {
			w.pop()
			return
		}
		v, n := consumeScalar(packedType(fd), b[p:])
		if w.protoFailed(p, n, " (a packed element)") {
			w.pop()
			return
		}
		w.pop()
		e := w.node(fd.JSONName(), "protobuf "+fd.Kind().String(), schema.Int64, p, p+n)
		e.Role, e.Index = tree.RoleElement, base+i
		scalarValue(e, fd, v)
		w.add(c, e)
		i++
		p += n
	}
	c.Int = int64(i)
}

// consumeScalar reads a scalar of wire type typ (varint, fixed32 or
// fixed64) from b: its bits, and its length (negative: it does not fit).
func consumeScalar(typ protowire.Type, b []byte) (uint64, int) {
	switch typ {
	case protowire.Fixed32Type:
		v, n := protowire.ConsumeFixed32(b)
		return uint64(v), n
	case protowire.Fixed64Type:
		return protowire.ConsumeFixed64(b)
	}
	return protowire.ConsumeVarint(b)
}

// packedType is the wire type of each element of packed field fd.
func packedType(fd protoreflect.FieldDescriptor) protowire.Type {
	switch fd.Kind() {
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return protowire.Fixed32Type
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// scalarValue sets c's kind and value from v, the bits of a scalar of
// field fd's kind (nil: an unknown field, an unsigned integer), as
// protojson reads them: 32-bit kinds from their low 32 bits, sint kinds
// unzigzagged, floats from their IEEE bits, a bool as 0 or 1. An unsigned
// 64-bit value past an int64's range is its digits (a string, as
// protojson writes every 64-bit integer), not a negative number.
func scalarValue(c *tree.Node, fd protoreflect.FieldDescriptor, v uint64) {
	c.Kind, c.Int = schema.Int64, int64(v)
	if fd == nil {
		unsigned64(c, v)
		return
	}
	switch fd.Kind() {
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		unsigned64(c, v)
	case protoreflect.BoolKind:
		c.Kind = schema.Bool
		if v != 0 {
			c.Int = 1
		}
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		c.Int = protowire.DecodeZigZag(v)
	case protoreflect.Int32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		c.Int = int64(int32(v))
	case protoreflect.Uint32Kind:
		c.Int = int64(uint32(v))
	case protoreflect.FloatKind:
		c.Kind, c.Float = schema.Float64, float64(math.Float32frombits(uint32(v)))
	case protoreflect.DoubleKind:
		c.Kind, c.Float = schema.Float64, math.Float64frombits(v)
	}
}

// unsigned64 makes c, an unsigned 64-bit value, a string of its digits
// when an int64 cannot hold it.
func unsigned64(c *tree.Node, v uint64) {
	if v > math.MaxInt64 {
		c.Kind, c.Raw = schema.String, strconv.AppendUint(nil, v, 10)
	}
}

// wireTypeFits reports whether wire type typ can carry field fd.
func wireTypeFits(fd protoreflect.FieldDescriptor, typ protowire.Type) bool {
	switch fd.Kind() {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return typ == protowire.VarintType || (typ == protowire.BytesType && fd.IsList())
	case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return typ == protowire.Fixed32Type || (typ == protowire.BytesType && fd.IsList())
	case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return typ == protowire.Fixed64Type || (typ == protowire.BytesType && fd.IsList())
	case protoreflect.GroupKind:
		return typ == protowire.StartGroupType
	}
	return typ == protowire.BytesType
}
