package codec

import (
	"math"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/sortfunc"
)

// Any, as Options.APIKey or Options.Version, says the API or version of a
// response is not known: Decode and the JSON writers then guess it.
const Any = -1

// Candidate is one reading of a response whose API and version were not
// given: how plausible it is, and why.
type Candidate struct {
	APIKey     int16
	Version    int16
	Score      float64  // 100 for a clean, plausible decode, up to 5 more for bytes read as many fields; less for each doubt
	Confidence float64  // this candidate's share of belief among all, 0-1
	Versions   []int16  // other versions that decode to the same value JSON
	Doubts     []string // what lowered the score
}

// Guess says how a frame came to be read as a response of its API and
// version: Candidates are the clean readings, best first (the one chosen
// is Candidates[0]; they carry no Frame), Tried counts the readings tried,
// and Cut says a work limit ended the search before every one was: the
// MaxWork limit, or the guess's own bound on the nodes its readings read
// (guessNodes: bytes dense in nodes, which every reading tried reads
// again, cost far more than their bytes scanned say).
type Guess struct {
	Confidence float64
	Tried      int
	Cut        bool
	Candidates []Candidate
	nodes      int // read by every reading tried, together
}

// guessResponses ranks the clean readings of b as a response (of api
// alone, when given). Every reading is walked without records or nested
// payloads and without a tree: its header and body are written as value
// JSON into one reused buffer, hashed to fold versions that read the
// same, and scored as they are read. All readings draw from budget's
// work, each with MaxNodes of its own.
func (dec *Decoder) guessResponses(b []byte, noSize bool, only *schema.API, lim Limits, spend *budget.Budget) *Guess {
	g := &Guess{}
	type folded struct {
		key uint64
		idx int
	}
	var seen []folded
	var all []Candidate
	nodesLeft := guessNodes(len(b))
	avail := frameBytes(b, noSize)
	var w walker
	var gs guessSink
	var out jsontext.Writer
	for _, api := range schema.APIs() {
		if only != nil && api != only {
			continue
		}
		m := api.Response
		for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
			if spend.Work >= spend.MaxWork || nodesLeft <= 0 {
				g.Cut = true
				break
			}
			g.Tried++
			if avail < minResponse(api.Key, v) {
				// Too few bytes for the reading's header and body: it fails
				// without a walk (a flood of tiny frames would cost one walk
				// of each of some 370 readings each).
				continue
			}
			maxNodes := min(lim.MaxNodes, nodesLeft)
			cb := &budget.Budget{MaxNodes: maxNodes, NestedNodes: maxNodes, MaxDecompressed: lim.MaxDecompressed, MaxWork: spend.MaxWork, Work: spend.Work}
			o := Options{Response: true, APIKey: api.Key, Version: v, NoSizePrefix: noSize, raw: true, Limits: lim}
			out.Reset(nil)
			out.B = append(out.B, byte(api.Key>>8), byte(api.Key))
			gs.reset(&dec.jf, &out)
			w.init(&dec.jf, &gs, &o, len(b), cb)
			err := w.frame(b, &o)
			spend.Work = cb.Work
			nodesLeft -= cb.Nodes
			g.nodes += cb.Nodes
			if err != nil {
				continue
			}
			// Versions of one API that read to the same header and body fold.
			key := fnv64a(out.B)
			dup := false
			for _, s := range seen {
				if s.key == key {
					all[s.idx].Versions = append(all[s.idx].Versions, v)
					dup = true
					break
				}
			}
			if dup {
				continue
			}
			score, doubts := gs.sc.total(gs.empty)
			seen = append(seen, folded{key, len(all)})
			all = append(all, Candidate{APIKey: api.Key, Version: v, Score: score, Doubts: doubts})
		}
		if g.Cut {
			break
		}
	}
	// Readings of the same score (the same bytes read as fields of the
	// same kinds and values, as an error code and an empty array are in
	// a dozen APIs) are ranked by what is likelier on the wire, not by
	// key: ApiVersions first, which opens every connection (the one
	// response a client reads before it knows a version), and any
	// version Kafka 4.0 serves before those it removed (LeaderAndIsr,
	// StopReplica and the other ZooKeeper-era inter-broker APIs, old
	// versions).
	sortfunc.Stable(len(all), func(i, j int) bool {
		if all[i].Score != all[j].Score {
			return all[i].Score > all[j].Score
		}
		return tieRank(&all[i]) < tieRank(&all[j])
	}, func(i, j int) { all[i], all[j] = all[j], all[i] })
	var sum, top float64
	if len(all) > 0 {
		top = all[0].Score
	}
	sized := ""
	if noSize {
		// Read as unsized, bytes whose first 4 are a size that fits
		// them exactly may well be a sized frame: a reading as clean
		// as any shares the belief with the ones found.
		if sized = sizeFits(b); sized != "" {
			top = max(top, 100)
			sum += math.Exp((100 - top) / 8)
		}
	}
	for i := range all {
		sum += math.Exp((all[i].Score - top) / 8)
	}
	for i := range all {
		all[i].Confidence = math.Exp((all[i].Score-top)/8) / sum
		if sized != "" {
			all[i].Doubts = append(all[i].Doubts[:min(len(all[i].Doubts), maxDoubts-1):min(len(all[i].Doubts), maxDoubts-1)], sized)
		}
	}
	g.Candidates = all
	if len(all) > 0 {
		g.Confidence = all[0].Confidence
	}
	return g
}

// sizeFits says, when b's first 4 bytes, a big-endian int32, are the
// number of bytes after them (4 or more: a header's worth), that they may
// be a size prefix, for bytes read as having none; "" otherwise.
func sizeFits(b []byte) string {
	if len(b) < 8 {
		return ""
	}
	n := int64(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
	if n != int64(len(b)-4) {
		return ""
	}
	return "the first 4 bytes are " + decimal(int(n)) + ", the length of the rest: a size prefix? The bytes were read as having none"
}

// tieRank orders readings of one score: ApiVersions 0, a reading Kafka
// 4.0 serves at one of its versions 1, one it removed at all of them 2.
func tieRank(c *Candidate) int {
	if c.APIKey == schema.KeyApiVersions {
		return 0
	}
	api := schema.ByKey(c.APIKey)
	if api == nil {
		return 2
	}
	if !api.Removed40.Contains(c.Version) {
		return 1
	}
	for _, v := range c.Versions {
		if !api.Removed40.Contains(v) {
			return 1
		}
	}
	return 2
}

// fnv64a is the 64-bit FNV-1a hash of b.
func fnv64a(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// guessSink writes a reading's header and body as value JSON (for the
// hash that folds versions) and scores its body as it goes: 100 less
// penalties for what real brokers rarely send.
type guessSink struct {
	jsonSink
	sc     scorer
	inBody bool
	empty  bool // the body holds no bytes, or was never reached
}

func (g *guessSink) reset(f *Frame, out *jsontext.Writer) {
	g.jsonSink.reset(f, out, &Options{})
	g.bare = true
	g.sc, g.inBody, g.empty = scorer{}, false, true
}

// note weighs n, a node of the body handed over: its warnings, and its
// value when it is a field (struct elements aside).
func (g *guessSink) note(n *tree.Node) {
	if !g.inBody {
		return
	}
	for _, w := range n.Warnings {
		g.sc.doubt(15, w)
	}
	if n.Field == nil || n.Role == tree.RoleElement && n.Kind == schema.Struct {
		return
	}
	g.sc.field(n.Field, n.Kind, n.Int, n.Raw, n.Null, int(n.Int))
}

func (g *guessSink) begin(n *tree.Node, l *schema.Layout, hint int) {
	if n.Role == tree.RoleBody {
		g.inBody = true
	}
	g.jsonSink.begin(n, l, hint)
}

func (g *guessSink) end(n *tree.Node) {
	if n.Role == tree.RoleBody {
		g.empty = n.End == n.Start
		g.note(n)
		g.inBody = false
	} else {
		g.note(n)
	}
	g.jsonSink.end(n)
}

func (g *guessSink) leaf(n *tree.Node) {
	g.note(n)
	g.jsonSink.leaf(n)
}

// keepVersion keeps the readings of version v alone (it was given).
func (g *Guess) keepVersion(v int16) {
	var keep []Candidate
	for _, c := range g.Candidates {
		if c.Version == v || containsVersion(c.Versions, v) {
			c.Version, c.Versions = v, nil
			keep = append(keep, c)
		}
	}
	g.Candidates = keep
	g.Confidence = 0
	if len(keep) > 0 {
		g.Confidence = keep[0].Confidence
	}
}

// scorer adds up the doubts about one reading.
type scorer struct {
	score  float64
	doubts []string
	fields int
}

// guessNodes bounds the nodes all of a guess's readings of n bytes read
// together: 64K and 8 a byte. Realistic responses of 2 to 64 KiB take at
// most 1.6 a byte for every reading tried, and the smallest frames a few
// thousand in all; 3 KB of empty unknown tags took 143 a byte (430 ms).
func guessNodes(n int) int { return 64<<10 + 8*n }

// maxDoubts is how many doubts a reading keeps to show.
const maxDoubts = 8

func (s *scorer) doubt(p float64, why string) {
	s.score -= p
	if len(s.doubts) < maxDoubts {
		s.doubts = append(s.doubts, why)
	}
}

// field weighs one decoded field: its kind, integer value, bytes, null and
// element count.
func (s *scorer) field(f *schema.Field, k schema.Kind, i int64, raw []byte, null bool, count int) {
	s.fields++
	switch k {
	case schema.Int16:
		if f.Name == "ErrorCode" || len(f.Name) > 9 && f.Name[len(f.Name)-9:] == "ErrorCode" {
			if schema.ErrorName(int16(i)) == "" {
				s.doubt(12, f.JSON+" "+strconv.FormatInt(i, 10)+" is no Kafka error code")
			}
		}
	case schema.Int32:
		if f.Name == "ThrottleTimeMs" && (i < 0 || i > 3600_000) {
			s.doubt(8, "throttleTimeMs "+strconv.FormatInt(i, 10)+" is implausible")
		}
	case schema.Bool:
		if i > 1 {
			s.doubt(5, "bool byte "+strconv.FormatInt(i, 10))
		}
	case schema.String:
		if !null && !printable(raw) {
			s.doubt(10, f.JSON+" is not printable text")
		}
	case schema.Records:
		// A real response's records are whole entries, the last one
		// perhaps cut short: bytes that are not tell of a misreading.
		if whole, cut, err := rec.Framing(raw); err != nil {
			s.doubt(40, f.JSON+" do not frame as record batches: "+err.Error())
		} else if cut && whole == 0 {
			s.doubt(10, f.JSON+" hold no whole batch")
		}
	case schema.Array:
		if count > 10000 {
			s.doubt(3, f.JSON+" holds "+decimal(count)+" elements")
		}
	}
}

// total is the score: 100 less the doubts, less 30 for an empty body, plus
// up to 5 for a reading that explains its bytes with structure rather than
// swallowing them into one opaque field.
func (s *scorer) total(emptyBody bool) (float64, []string) {
	score := 100 + s.score
	if s.fields == 0 && emptyBody {
		score -= 30
		if len(s.doubts) < 8 {
			s.doubts = append(s.doubts, "the body is empty")
		}
	}
	if !emptyBody {
		score += math.Min(5, float64(s.fields)/4)
	}
	return score, s.doubts
}

func printable(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 || (!unicode.IsPrint(r) && !unicode.IsSpace(r)) {
			return false
		}
		b = b[n:]
	}
	return true
}

// frameBytes is how many bytes of b a reading as a response can read:
// the frame's after its size prefix (unless noSize), no more than the
// size declares.
func frameBytes(b []byte, noSize bool) int {
	if noSize {
		return len(b)
	}
	size, ok := wire.SizePrefix(b)
	if !ok {
		return 0
	}
	if n := len(b) - 4; size < 0 || int(size) >= n {
		return n
	}
	return int(size)
}

// minResponse is the fewest bytes a response of API key at version v
// holds, its header's and body's: every field there at v with its least
// encoding (an empty string, array or bytes, a null struct where
// nullable), tagged fields absent. A reading of fewer bytes fails.
func minResponse(key, v int16) int {
	t := minResponses()
	if int(key) >= len(t) || int(v) >= len(t[key]) {
		return 0
	}
	return int(t[key][v])
}

// minResponses is minResponse's table, made once: by API key, then
// version.
var minResponses = sync.OnceValue(func() [][]int32 {
	var t [][]int32
	h := schema.ResponseHeader()
	for _, api := range schema.APIs() {
		m := api.Response
		for int(api.Key) >= len(t) {
			t = append(t, nil)
		}
		sizes := make([]int32, int(m.Valid.Hi)+1)
		for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
			hv := m.HeaderVersion(v)
			sizes[v] = int32(minStruct(h.At(hv).Root, hv, h.Flexible(hv)) + minStruct(m.At(v).Root, v, m.Flexible(v)))
		}
		t[api.Key] = sizes
	}
	return t
})

// minStruct is the fewest bytes a struct of layout l holds at version v.
func minStruct(l *schema.Layout, v int16, flex bool) int {
	n := 0
	if flex {
		n++ // the tag section's count
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || f.IsTagged(v) {
			continue
		}
		compact := f.CompactAt(v, flex)
		switch {
		case f.Kind.FixedSize() > 0:
			n += f.Kind.FixedSize()
		case compact && (f.Kind == schema.String || f.Kind == schema.Bytes || f.Kind == schema.Records || f.Kind == schema.Array):
			n++
		case f.Kind == schema.String:
			n += 2
		case f.Kind == schema.Bytes || f.Kind == schema.Records || f.Kind == schema.Array:
			n += 4
		case f.Kind == schema.Struct && f.Nullable.Contains(v):
			n++ // the presence byte, -1
		case f.Kind == schema.Struct:
			n += minStruct(f.Struct, v, flex)
		}
	}
	return n
}
