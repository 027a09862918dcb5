package payload

import (
	"strconv"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// anyFits reports whether writing m as protojson stays within MaxDepth and
// the work budget. protojson expands each google.protobuf.Any, reading
// its value as the message its type URL names, at any depth and outside
// the budget: an Any in an Any 2,400 deep, 62 KB of data, was JSON 2,400
// deep and took seconds. So the Anys are read here first, each level's
// value bytes charged as work and each level counted as nesting; when a
// limit is met the walk stops with a limit warning at p (the data's
// start) and no JSON is written.
func (w *walker) anyFits(m protoreflect.Message, res linker.Resolver, p int) bool {
	return w.anyWalk(m, res, p, 1)
}

const anyName = "google.protobuf.Any"

// anyWalk reads the Anys of m, a message depth deep.
func (w *walker) anyWalk(m protoreflect.Message, res linker.Resolver, p, depth int) bool {
	if depth > w.maxDepth {
		w.limit(p, "payload not decoded: its messages, with what its google.protobuf.Any values hold, nest deeper than the MaxDepth limit ("+strconv.Itoa(w.maxDepth)+")")
		return false
	}
	md := m.Descriptor()
	if md.FullName() == anyName {
		url, val := md.Fields().ByNumber(1), md.Fields().ByNumber(2)
		if url == nil || val == nil {
			return true
		}
		mt, err := res.FindMessageByURL(m.Get(url).String())
		if err != nil {
			return true // protojson says it cannot
		}
		b := m.Get(val).Bytes()
		if !w.work(p, len(b)) {
			return false
		}
		inner := mt.New()
		opts := proto.UnmarshalOptions{AllowPartial: true, RecursionLimit: w.maxDepth - depth + 1, Resolver: res}
		if opts.Unmarshal(b, inner.Interface()) != nil {
			return true // protojson says why
		}
		return w.anyWalk(inner, res, p, depth+1)
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			if fd.Message() == nil {
				break
			}
			l := v.List()
			for i := 0; i < l.Len() && ok; i++ {
				ok = w.anyWalk(l.Get(i).Message(), res, p, depth+1)
			}
		case fd.IsMap():
			if fd.MapValue().Message() == nil {
				break
			}
			v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
				ok = w.anyWalk(e.Message(), res, p, depth+1)
				return ok
			})
		case fd.Message() != nil:
			ok = w.anyWalk(v.Message(), res, p, depth+1)
		}
		return ok
	})
	return ok
}
