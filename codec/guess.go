package codec

import (
	"math"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Candidate is one reading of a response whose API and version were not
// given: the decode, how plausible it is, and why.
type Candidate struct {
	APIKey     int16
	Version    int16
	Frame      *Frame
	Score      float64  // 100 for a clean, plausible decode; less for each doubt
	Confidence float64  // this candidate's share of belief among all, 0-1
	Versions   []int16  // other versions that decode to the same value JSON
	Doubts     []string // what lowered the score
}

// GuessOptions bound the search.
type GuessOptions struct {
	NoSizePrefix bool
	Max          int // candidates to return (default 5)
}

// GuessResponse tries every API, version and header version on a response
// and ranks the readings that consume every byte: fewer warnings, known
// error codes, sane counts, lengths and text score higher. Versions that
// decode to the same JSON are folded into one candidate.
func GuessResponse(b []byte, o GuessOptions) []Candidate {
	max := o.Max
	if max <= 0 {
		max = 5
	}
	var all []Candidate
	seen := map[string]int{}
	for _, api := range schema.APIs() {
		m := api.Response
		for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
			f, err := Decode(b, Options{Response: true, APIKey: api.Key, Version: v, NoSizePrefix: o.NoSizePrefix, MaxNodes: 8*len(b) + 64})
			if err != nil {
				continue
			}
			js := string(f.AppendJSON(nil, JSONOptions{}))
			// The envelope names the version; fold equal bodies per API.
			key := strconv.Itoa(int(api.Key)) + js[len(`{"direction":"response","apiKey":`+strconv.Itoa(int(api.Key))):]
			key = stripVersion(key)
			if i, ok := seen[key]; ok {
				all[i].Versions = append(all[i].Versions, v)
				continue
			}
			score, doubts := plausibility(f)
			seen[key] = len(all)
			all = append(all, Candidate{APIKey: api.Key, Version: v, Frame: f, Score: score, Doubts: doubts})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	var sum float64
	for i := range all {
		sum += math.Exp((all[i].Score - all[0].Score) / 8)
	}
	for i := range all {
		all[i].Confidence = math.Exp((all[i].Score-all[0].Score)/8) / sum
	}
	if len(all) > max {
		all = all[:max]
	}
	return all
}

// stripVersion removes the apiVersion member from an envelope's JSON so
// versions with equal content compare equal.
func stripVersion(js string) string {
	const k = `,"apiVersion":`
	for i := 0; i+len(k) <= len(js); i++ {
		if js[i:i+len(k)] == k {
			j := i + len(k)
			for j < len(js) && js[j] >= '0' && js[j] <= '9' {
				j++
			}
			return js[:i] + js[j:]
		}
	}
	return js
}

// plausibility scores a clean decode: 100 less penalties for what real
// brokers rarely send.
func plausibility(f *Frame) (float64, []string) {
	score := 100.0
	var doubts []string
	doubt := func(p float64, why string) {
		score -= p
		if len(doubts) < 8 {
			doubts = append(doubts, why)
		}
	}
	fields := 0
	tree.Walk(f.Body, func(n *tree.Node) bool {
		for _, w := range n.Warnings {
			doubt(15, w)
		}
		if n.Field == nil || n.Role == tree.RoleElement && n.Kind == schema.Struct {
			return true
		}
		fields++
		switch n.Kind {
		case schema.Int16:
			if n.Field.Name == "ErrorCode" || len(n.Field.Name) > 9 && n.Field.Name[len(n.Field.Name)-9:] == "ErrorCode" {
				if schema.ErrorName(int16(n.Int)) == "" {
					doubt(12, n.Field.JSON+" "+strconv.FormatInt(n.Int, 10)+" is no Kafka error code")
				}
			}
		case schema.Int32:
			if n.Field.Name == "ThrottleTimeMs" && (n.Int < 0 || n.Int > 3600_000) {
				doubt(8, "throttleTimeMs "+strconv.FormatInt(n.Int, 10)+" is implausible")
			}
		case schema.Bool:
			if n.Int > 1 {
				doubt(5, "bool byte "+strconv.FormatInt(n.Int, 10))
			}
		case schema.String:
			if !n.Null && !printable(n.Raw) {
				doubt(10, n.Field.JSON+" is not printable text")
			}
		case schema.Array:
			if len(n.Children) > 10000 {
				doubt(3, n.Field.JSON+" holds "+strconv.Itoa(len(n.Children))+" elements")
			}
		}
		return true
	})
	if fields == 0 && f.Body != nil && f.Body.End-f.Body.Start == 0 {
		doubt(30, "the body is empty")
	}
	// A reading that explains more bytes with structure beats one that
	// swallows them into a single opaque field.
	if f.Body != nil {
		if n := f.Body.End - f.Body.Start; n > 0 {
			score += math.Min(5, float64(fields)/4)
		}
	}
	return score, doubts
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
