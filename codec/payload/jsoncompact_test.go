package payload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
)

// checkCompactRef is checkCompact as jsonScan alone does it (as it was
// before scanCompact): the reference scanCompact must agree with.
func checkCompactRef(dst, p []byte, maxDepth, room int, b *budget.Budget) ([]byte, bool) {
	s := jsonScan{b: p, maxDepth: maxDepth}
	s.ws()
	start := s.p
	if !s.value(0) {
		return dst, false
	}
	end := s.p
	s.ws()
	nodes := 1 + s.commas + 2*s.nonEmpty
	if s.p != len(s.b) || s.deepest > room || !b.Fits(nodes) {
		return dst, false
	}
	b.Nodes += nodes
	w := jsonScan{b: p[start:end], maxDepth: maxDepth, emit: true, out: dst}
	w.value(0)
	return w.out, true
}

// shape is what jsonScan says of a text with no limit: whether it is
// JSON, the nodes the walk makes for it, its deepest nesting, and whether
// there is white space inside the value (jsonScan's emit writes it
// shorter).
type shape struct {
	ok             bool
	nodes, deepest int
	spaced         bool
}

func shapeOf(p []byte) shape {
	s := jsonScan{b: p, maxDepth: 1 << 30}
	s.ws()
	start := s.p
	if !s.value(0) {
		return shape{}
	}
	end := s.p
	if s.ws(); s.p != len(p) {
		return shape{}
	}
	w := jsonScan{b: p[start:end], maxDepth: 1 << 30, emit: true}
	w.value(0)
	return shape{true, 1 + s.commas + 2*s.nonEmpty, s.deepest, len(w.out) != end-start}
}

// agreeCompact checks that checkCompact and scanCompact say of p what
// jsonScan says: JSON or not, the nodes charged, the text written, the
// nesting (a limit at, above and below it) and the white space inside.
func agreeCompact(t testing.TB, p []byte, maxDepth, room int) {
	t.Helper()
	const prefix = `{"v":`
	big := budget.Budget{MaxNodes: 1 << 30, NestedNodes: 1 << 30}
	b1, b2 := big, big
	wantOut, wantOK := checkCompactRef([]byte(prefix), p, maxDepth, room, &b1)
	out, ok := checkCompact([]byte(prefix), p, maxDepth, room, &b2)
	if ok != wantOK || !bytes.Equal(out, wantOut) || b1.Nodes != b2.Nodes {
		t.Fatalf("%q (maxDepth %d, room %d): checkCompact %v %q %d nodes; jsonScan %v %q %d nodes",
			p, maxDepth, room, ok, out, b2.Nodes, wantOK, wantOut, b1.Nodes)
	}
	// Every text the scanner takes, jsonScan takes at that limit, and
	// with the same shape; at a limit one less, it nests too deep (full).
	// It leaves what nests deeper than its stack to jsonScan (full).
	limit := min(maxDepth, room)
	nodes, spaced, full := scanCompact(p, limit)
	want := shapeOf(p)
	switch {
	case want.ok && want.deepest <= min(limit, stackDepth):
		if nodes != want.nodes || spaced != want.spaced || full {
			t.Fatalf("%q (limit %d): scanCompact %d nodes, spaced %v, full %v; jsonScan %d nodes, spaced %v",
				p, limit, nodes, spaced, full, want.nodes, want.spaced)
		}
		if want.deepest > 0 {
			if n, _, full := scanCompact(p, want.deepest-1); n != 0 || !full {
				t.Fatalf("%q nests %d deep: scanCompact at limit %d: %d nodes, full %v", p, want.deepest, want.deepest-1, n, full)
			}
		}
	case want.ok:
		if nodes != 0 || !full {
			t.Fatalf("%q nests %d deep: scanCompact at limit %d: %d nodes, full %v", p, want.deepest, limit, nodes, full)
		}
	default:
		if nodes != 0 {
			t.Fatalf("%q is not JSON: scanCompact %d nodes", p, nodes)
		}
	}
	// The nodes charged fit exactly or not at all, on both paths.
	if wantOK {
		n := b1.Nodes
		for _, nested := range []int{n, n - 1} {
			b1, b2 := budget.Budget{NestedNodes: nested}, budget.Budget{NestedNodes: nested}
			_, ok1 := checkCompactRef(nil, p, maxDepth, room, &b1)
			_, ok2 := checkCompact(nil, p, maxDepth, room, &b2)
			if ok1 != ok2 || b1 != b2 {
				t.Fatalf("%q with NestedNodes %d: checkCompact %v %+v; jsonScan %v %+v", p, nested, ok2, b2, ok1, b1)
			}
		}
	}
}

// agreeJSON checks checkCompact against encoding/json, with no limit met:
// the same texts are JSON, strings valid UTF-8 (RFC 8259 asks it,
// encoding/json lets invalid bytes through), and the text written is
// json.Compact's.
func agreeJSON(t testing.TB, p []byte) {
	t.Helper()
	if len(p) >= 10000 {
		return // encoding/json stops at 10000 deep
	}
	b := budget.Budget{MaxNodes: 1 << 30, NestedNodes: 1 << 30}
	got, ok := checkCompact(nil, p, 1<<20, 1<<20, &b)
	if want := json.Valid(p) && utf8.Valid(p); ok != want {
		t.Fatalf("%q: checkCompact %v, encoding/json %v", p, ok, want)
	}
	if ok {
		var want bytes.Buffer
		if err := json.Compact(&want, p); err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q: checkCompact wrote %q, json.Compact %q (%v)", p, got, want.Bytes(), err)
		}
	}
}

// agreeAll checks p at the limits that matter: none, the default, and
// each side of its own nesting and of scanCompact's stack.
func agreeAll(t testing.TB, p []byte) {
	t.Helper()
	agreeJSON(t, p)
	for _, d := range []int{32, 1 << 20} {
		agreeCompact(t, p, d, d)
	}
	if s := shapeOf(p); s.ok && s.deepest > 0 {
		for _, d := range []int{s.deepest - 1, s.deepest, s.deepest + 1} {
			agreeCompact(t, p, d, d)
			agreeCompact(t, p, 1<<20, d)
		}
	}
}

// compactSeeds are texts of each kind the scanner reads, valid or not
// but one change away: every byte, escape and rune past ASCII at every
// place of short strings (names and values, 8-byte words and the bytes
// after the last), numbers' and literals' edge cases in each place a
// value goes, and nesting around 63 (the scanner's stack) and 64.
func compactSeeds() [][]byte {
	var seeds [][]byte
	add := func(s string) { seeds = append(seeds, []byte(s)) }
	var ins []string
	for c := 0; c < 256; c++ {
		ins = append(ins, string([]byte{byte(c)}))
	}
	ins = append(ins, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u00e9`, `\uD83D\uDE00`, `\u12`, `\u12G4`, `\x`, `\`, `\U0041`,
		"é", "€", "😀", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\x80\x80")
	for _, s := range ins {
		for n := 0; n <= 17; n++ {
			for at := 0; at <= n; at++ {
				text := strings.Repeat("a", at) + s + strings.Repeat("b", n-at)
				add(`{"k":"` + text + `","n":1}`)
				add(`{"` + text + `":[]}`)
				add(`["` + text + `"]`)
			}
		}
	}
	numbers := []string{"0", "-0", "01", "-01", "00", "1", "-", "--1", "+1", "1.", "1.5", ".5", "-.5", "1.e1", "1e", "1e+", "1e-", "1E5",
		"1e+5", "1.5e-3", "0.0", "-0.0e0", "0e0", "0x1", "1_0", "Infinity", "NaN", "12345678", "123456789", "1234567890123456789012",
		"9.", "1ee1", "1e1.5", "1.2.3", "2-1", "1e+-1", "07", "100", "1.0000000000001", "-123456789e-12345"}
	literals := []string{"true", "false", "null", "tru", "nul", "fals", "t", "f", "n", "trUe", "nulll", "truefalse", "True", "NULL"}
	for _, v := range append(numbers, literals...) {
		for _, f := range []string{"%s", "[%s]", "[%s,1]", "[1,%s]", `{"a":%s}`, `{"a":%s,"b":2}`, " %s ", "[ %s ]", `{"a": %s }`, "[%s ,1]", `{"v":"xxxxxxxxxxxxxxxx","w":%s}`} {
			add(fmt.Sprintf(f, v))
		}
	}
	base := []string{
		`{"order":714572124,"sku":"SKU-95659","qty":3,"price":21011,"currency":"EUR","note":"express delivery"}`,
		`{"a":[1,2.5e-3,"x\u00e9\n",true,null],"b":{},"c":[],"d":[{},[{"e":[false]}]]}`,
		`[[],{},[[]],{"a":{}},[{"b":[]}],-1,0.5,"s"]`,
		`"str"`, `12`, `true`, `{}`, `[]`,
	}
	for _, b := range base {
		add(b)
		for i := 0; i <= len(b); i++ {
			add(b[:i]) // cut short
			for _, s := range []string{" ", "\t", "\n", "\r", " \r\n\t ", "\x0b", "\x0c", "\x00", "\xa0"} {
				add(b[:i] + s + b[i:]) // white space, and what is not
			}
			if i < len(b) {
				for _, c := range []byte(`{}[]",:0-1.eE tfn\x`) {
					add(b[:i] + string(c) + b[i+1:]) // a byte changed
				}
			}
		}
	}
	for d := 1; d <= 70; d++ {
		add(strings.Repeat("[", d) + strings.Repeat("]", d))
		add(strings.Repeat("[", d) + "1" + strings.Repeat("]", d))
		add(strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d))
		add(strings.Repeat(`[{"a":`, d) + "[]" + strings.Repeat("}]", d))
		add(strings.Repeat("[ ", d) + strings.Repeat(" ]", d))
		add(strings.Repeat("[", d) + strings.Repeat("]", d-1))       // one left open
		add(strings.Repeat("[", d) + strings.Repeat("]", d+1))       // one closed too many
		add(strings.Repeat("[", d) + "}" + strings.Repeat("]", d-1)) // the wrong closer
		add(strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d-1) + "]")
		add(strings.Repeat("[", d) + strings.Repeat("],[", 2) + strings.Repeat("]", d))
	}
	return seeds
}

// TestCheckCompactAgreesWithJSONScan runs the seeds through the scanner,
// jsonScan and encoding/json: they agree on each.
func TestCheckCompactAgreesWithJSONScan(t *testing.T) {
	seeds := compactSeeds()
	for _, p := range seeds {
		agreeAll(t, p)
	}
	t.Logf("%d texts", len(seeds))
}

// TestCheckCompactDepths nests containers around scanCompact's stack
// (63), 64 and the limits: at each maxDepth and room the scanner, or
// jsonScan when the stack is too small, says what jsonScan says.
func TestCheckCompactDepths(t *testing.T) {
	for d := 0; d <= 130; d++ {
		texts := []string{
			strings.Repeat("[", d) + strings.Repeat("]", d),
			strings.Repeat(`{"k":[`, d/2) + "0" + strings.Repeat("]}", d/2),
			strings.Repeat("[", d) + strings.Repeat("]", max(d-1, 0)),
			strings.Repeat("[", d) + "}" + strings.Repeat("]", max(d-1, 0)),
		}
		for _, text := range texts {
			for _, limit := range []int{1, 2, 31, 32, 33, 62, 63, 64, 65, 100, 127, 128, 129, 1 << 20} {
				agreeCompact(t, []byte(text), limit, limit)
				agreeCompact(t, []byte(text), limit, limit-1)
				agreeCompact(t, []byte(text), limit, d)
			}
		}
	}
}

// TestCheckCompactRegressions are FuzzCheckCompact's finds.
func TestCheckCompactRegressions(t *testing.T) {
	for _, c := range []struct {
		name           string
		p              string
		maxDepth, room int
	}{
		// No room: even a number nests deeper (0) than room.
		{"number, room below 0", "0", 0, -2},
	} {
		t.Run(c.name, func(t *testing.T) { agreeCompact(t, []byte(c.p), c.maxDepth, c.room) })
	}
}

// FuzzCheckCompact checks arbitrary text, at an arbitrary maxDepth and
// room, with scanCompact against jsonScan and encoding/json.
func FuzzCheckCompact(f *testing.F) {
	for i, p := range compactSeeds() {
		if i%1024 == 0 { // a sample: the test runs them all
			f.Add(p, uint8(32), uint8(0))
		}
	}
	f.Add([]byte(strings.Repeat("[", 70)+strings.Repeat("]", 70)), uint8(100), uint8(3))
	plain := NewDecoder(nil, Config{})
	f.Fuzz(func(t *testing.T, p []byte, depth, cut uint8) {
		maxDepth := int(depth)
		agreeCompact(t, p, maxDepth, maxDepth-int(cut%4))
		agreeJSON(t, p)
		compactValid(t, p, maxDepth, int(cut))
		// Decode's own path to it (plain, then the walk when the nodes
		// do not fit), at a node limit the input picks: the members
		// valid JSON, both paths alike.
		decodeBothCut(t, plain, p, false, "t", fuzzLimitBudget(int(cut), 1<<16))
	})
}

// compactValid checks that what checkCompact writes after a member's key
// is valid JSON, also at NestedNodes nested: the value when it reports
// true, nothing when false.
func compactValid(t testing.TB, p []byte, maxDepth, nested int) {
	t.Helper()
	const prefix = `{"v":`
	for _, b := range []budget.Budget{{MaxNodes: 1 << 30, NestedNodes: 1 << 30}, {NestedNodes: nested}} {
		out, ok := checkCompact([]byte(prefix), p, maxDepth, maxDepth, &b)
		switch {
		case ok && !json.Valid(append(out, '}')):
			t.Fatalf("%q (NestedNodes %d): checkCompact wrote invalid JSON %s", p, b.NestedNodes, out)
		case !ok && string(out) != prefix:
			t.Fatalf("%q (NestedNodes %d): checkCompact failed, yet wrote %s", p, b.NestedNodes, out)
		}
	}
}
