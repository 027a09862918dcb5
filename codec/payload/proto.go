package payload

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Protobuf schemas are compiled by bufbuild/protocompile (imports from
// the schema's references, the well-known types built in); values are
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
	var add func(s *Schema, depth int) error
	add = func(s *Schema, depth int) error {
		if depth > 32 {
			return errors.New("references nest deeper than 32")
		}
		for _, r := range s.References {
			if r.Schema == nil {
				continue
			}
			if _, ok := srcs[r.Name]; ok {
				continue
			}
			srcs[r.Name] = r.Schema.Text
			if err := add(r.Schema, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(s, 0); err != nil {
		return nil, err
	}
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(srcs)}),
		MaxParallelism: 1,
	}
	files, err := c.Compile(context.Background(), mainFile)
	if err != nil {
		return nil, err
	}
	f := files[0]
	if f.Messages().Len() == 0 {
		return nil, errors.New("the file defines no message")
	}
	return &protoSchema{file: f, res: linker.ResolverFromFile(f)}, nil
}

// protoPayload decodes Protobuf data at p: with the registry's framing,
// the message-index list first (or, when it is not there, the first
// message, with a warning), then the message.
func (w *walker) protoPayload(ps *protoSchema, p int, framed bool) {
	md := ps.file.Messages().Get(0)
	b := w.in.B[:w.in.End]
	var idx []int
	idxEnd := p
	if framed {
		var ok bool
		idx, idxEnd, ok = readIndexes(b, p)
		var m protoreflect.MessageDescriptor
		if ok {
			m = messageAt(ps.file, idx)
		}
		switch {
		case m != nil && protoWireOK(b[idxEnd:], 0, w.maxDepth):
			md = m
		case protoWireOK(b[p:], 0, w.maxDepth) && (!ok || p == w.in.End || b[p] != 0):
			// The npm @kafkajs/confluent-schema-registry package (4.1)
			// writes no message-index list: the data follows the id.
			idx, idxEnd = nil, p
			w.warnAt(p, "protobuf: no message-index list after the schema id (as @kafkajs/confluent-schema-registry 4.1 writes Protobuf); read as the file's first message, "+string(md.FullName()), false)
		case !ok:
			w.fail(p, "protobuf: the message-index list does not read as zig-zag varints")
			w.rest(p, "data")
			return
		case m == nil:
			w.fail(p, "protobuf: message indexes "+intsString(idx)+" name no message of the schema")
			w.rest(p, "data")
			return
		default:
			md = m
		}
		if idx != nil {
			w.protoIndexes(b, p, idxEnd, idx)
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
	if !w.take(1) {
		return
	}
	root := w.leaf("protobuf", "protobuf message "+string(md.FullName()), schema.Struct, idxEnd, w.in.End)
	w.push("", -1)
	w.path = w.path[:0]
	w.protoMessage(md, root, idxEnd, w.in.End)
	if !w.stopped {
		m := dynamicpb.NewMessage(md)
		err := proto.UnmarshalOptions{AllowPartial: true, RecursionLimit: w.maxDepth + 1, Resolver: ps.res}.Unmarshal(b[idxEnd:], m)
		if err == nil {
			var js []byte
			js, err = protojson.MarshalOptions{Resolver: ps.res, AllowPartial: true}.Marshal(m)
			if err == nil {
				w.member(`"decoded":`)
				w.out = compactJSON(w.out, js)
			}
		}
		if err != nil {
			w.fail(idxEnd, "protobuf: "+err.Error())
		}
	}
	w.finish(root, mark)
}

// readIndexes reads Confluent's message-index list at p: a zig-zag varint
// count, then that many zig-zag varint indexes; a count of 0 (one zero
// byte) means [0].
func readIndexes(b []byte, p int) ([]int, int, bool) {
	c, n := zigzag(b[p:])
	if n <= 0 || c < 0 || c > int64(len(b)-p-n) {
		return nil, p, false
	}
	p += n
	if c == 0 {
		return []int{0}, p, true
	}
	idx := make([]int, 0, min(c, 8))
	for i := int64(0); i < c; i++ {
		v, n := zigzag(b[p:])
		if n <= 0 || v < 0 || v > math.MaxInt32 {
			return nil, p, false
		}
		idx = append(idx, int(v))
		p += n
	}
	return idx, p, true
}

func zigzag(b []byte) (int64, int) {
	u, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, n
	}
	return protowire.DecodeZigZag(u), n
}

// messageAt follows message indexes: the first among the file's
// messages, each next among the nested messages of the one before.
func messageAt(f protoreflect.FileDescriptor, idx []int) protoreflect.MessageDescriptor {
	if len(idx) == 0 {
		return nil
	}
	ms := f.Messages()
	var m protoreflect.MessageDescriptor
	for _, i := range idx {
		if i >= ms.Len() {
			return nil
		}
		m = ms.Get(i)
		ms = m.Messages()
	}
	return m
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

// protoIndexes makes the messageIndexes node and JSON member.
func (w *walker) protoIndexes(b []byte, p, end int, idx []int) {
	w.member(`"messageIndexes":[`)
	for i, x := range idx {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.out = strconv.AppendInt(w.out, int64(x), 10)
	}
	w.out = append(w.out, ']')
	if !w.take(1) {
		return
	}
	n := w.leaf("messageIndexes", "zig-zag varints", schema.Array, p, end)
	n.Int = int64(len(idx))
	_, cn := zigzag(b[p:])
	n.PrefixEnd = p + cn
	q := p + cn
	if end-p == 1 {
		return // the one zero byte that means [0]
	}
	for i := range idx {
		if !w.take(1) {
			return
		}
		_, vn := zigzag(b[q:])
		e := w.node("messageIndexes", "zig-zag varint", schema.Int32, q, q+vn)
		e.Role, e.Index, e.Int, e.Flags = tree.RoleElement, i, int64(idx[i]), tree.Varint
		w.add(n, e)
		q += vn
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

// protoMessage walks the fields of message md in [p, end), making a node
// for each under n.
func (w *walker) protoMessage(md protoreflect.MessageDescriptor, n *tree.Node, p, end int) {
	if !w.deeper(p) {
		return
	}
	b := w.in.B[:end]
	fields := md.Fields()
	var seen []int // occurrences of each field so far, for repeated ones
	for p < end {
		w.stopAt = p
		if !w.work(p, 1) || !w.take(1) {
			return
		}
		num, typ, tn := protowire.ConsumeTag(b[p:])
		if tn < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(tn).Error()+" (a field tag)")
			return
		}
		fd := fields.ByNumber(num)
		name := strconv.Itoa(int(num))
		if fd != nil {
			name = fd.JSONName()
			if fd.Cardinality() == protoreflect.Repeated {
				if seen == nil {
					seen = make([]int, fields.Len())
				}
				name += "[" + strconv.Itoa(seen[fd.Index()]) + "]"
				seen[fd.Index()]++
			}
		}
		c := w.node(name, "", schema.Invalid, p, p)
		c.TagEnd, c.SizeEnd, c.PrefixEnd, c.Tag = p+tn, p+tn, p+tn, int32(num)
		w.push(name, -1)
		q := w.protoField(fd, typ, c, b, p+tn)
		w.pop()
		w.add(n, c)
		if w.stopped {
			return
		}
		p = q
	}
	w.depth--
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
		kindName = fd.Kind().String()
		if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
			kindName = string(fd.Message().FullName())
		} else if fd.Kind() == protoreflect.EnumKind {
			kindName = "enum " + string(fd.Enum().FullName())
		}
	}
	switch typ {
	case protowire.VarintType:
		v, n := protowire.ConsumeVarint(b[p:])
		if n < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(n).Error())
			return p
		}
		q = p + n
		c.Kind, c.Int, c.Flags = schema.Int64, int64(v), c.Flags|tree.Varint
		if fd != nil {
			switch fd.Kind() {
			case protoreflect.BoolKind:
				c.Kind = schema.Bool
				if v != 0 {
					c.Int = 1
				}
			case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
				c.Int = protowire.DecodeZigZag(v)
			case protoreflect.Int32Kind, protoreflect.Uint32Kind:
				c.Int = int64(int32(v))
				if fd.Kind() == protoreflect.Uint32Kind {
					c.Int = int64(uint32(v))
				}
			case protoreflect.EnumKind:
				c.Int = int64(int32(v))
				if ev := fd.Enum().Values().ByNumber(protoreflect.EnumNumber(c.Int)); ev != nil {
					kindName += " = " + string(ev.Name())
				}
			}
		}
	case protowire.Fixed32Type:
		v, n := protowire.ConsumeFixed32(b[p:])
		if n < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(n).Error())
			return p
		}
		q = p + n
		c.Kind, c.Int = schema.Int64, int64(v)
		if fd != nil {
			switch fd.Kind() {
			case protoreflect.FloatKind:
				c.Kind, c.Float = schema.Float64, float64(math.Float32frombits(v))
			case protoreflect.Sfixed32Kind:
				c.Int = int64(int32(v))
			}
		}
	case protowire.Fixed64Type:
		v, n := protowire.ConsumeFixed64(b[p:])
		if n < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(n).Error())
			return p
		}
		q = p + n
		c.Kind, c.Int = schema.Int64, int64(v)
		if fd != nil && fd.Kind() == protoreflect.DoubleKind {
			c.Kind, c.Float = schema.Float64, math.Float64frombits(v)
		}
	case protowire.BytesType:
		l, n := protowire.ConsumeVarint(b[p:])
		if n < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(n).Error()+" (a length)")
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
		case fd.IsList() && fd.Kind() != protoreflect.BytesKind:
			c.Kind, c.Raw = schema.Array, nil
			c.End = q
			w.protoPacked(fd, c, b[:q], s)
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

// protoPacked reads a packed repeated scalar: elements back to back.
func (w *walker) protoPacked(fd protoreflect.FieldDescriptor, c *tree.Node, b []byte, p int) {
	i := 0
	for p < len(b) {
		if !w.work(p, 1) || !w.take(1) {
			return
		}
		var n int
		var v uint64
		switch fd.Kind() {
		case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
			var x uint32
			x, n = protowire.ConsumeFixed32(b[p:])
			v = uint64(x)
		case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
			v, n = protowire.ConsumeFixed64(b[p:])
		default:
			v, n = protowire.ConsumeVarint(b[p:])
		}
		if n < 0 {
			w.fail(p, "protobuf: "+protowire.ParseError(n).Error()+" (a packed element)")
			return
		}
		e := w.node(fd.JSONName(), "protobuf "+fd.Kind().String(), schema.Int64, p, p+n)
		e.Role, e.Index, e.Int = tree.RoleElement, i, int64(v)
		switch fd.Kind() {
		case protoreflect.FloatKind:
			e.Kind, e.Float = schema.Float64, float64(math.Float32frombits(uint32(v)))
		case protoreflect.DoubleKind:
			e.Kind, e.Float = schema.Float64, math.Float64frombits(v)
		case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
			e.Int = protowire.DecodeZigZag(v)
		case protoreflect.BoolKind:
			e.Kind = schema.Bool
		}
		w.add(c, e)
		i++
		p += n
	}
	c.Int = int64(i)
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

// compactJSON appends src without the white space outside strings
// (protojson varies its spacing on purpose).
func compactJSON(dst, src []byte) []byte {
	in := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if in {
			dst = append(dst, c)
			switch c {
			case '\\':
				if i+1 < len(src) {
					i++
					dst = append(dst, src[i])
				}
			case '"':
				in = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
		case '"':
			in = true
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
