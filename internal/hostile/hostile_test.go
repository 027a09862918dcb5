package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// generated is one run of the generator, shared by the tests.
var generated = sync.OnceValue(Generated)

// TestCorpusIsGenerated keeps testdata/hostile equal to what the generator
// makes: run go run ./internal/hostile/gen after changing an entry.
func TestCorpusIsGenerated(t *testing.T) {
	gen := generated()
	for name, want := range gen {
		got, err := os.ReadFile(filepath.Join(Dir(), name))
		if err != nil {
			t.Errorf("%s: %v (run go run ./internal/hostile/gen)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator makes (%d bytes committed, %d generated): run go run ./internal/hostile/gen", name, len(got), len(want))
		}
	}
	err := filepath.WalkDir(Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(Dir(), p)
		if _, ok := gen[filepath.ToSlash(rel)]; !ok && rel != "README.md" {
			t.Errorf("%s is in testdata/hostile but no entry makes it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGenerationIsDeterministic(t *testing.T) {
	for _, e := range Entries() {
		if !bytes.Equal(e.Generate(), generated()[e.File()]) {
			t.Errorf("%s: two runs of the generator differ", e.Name)
		}
	}
}

// TestEntriesAreSmallAndDescribed: the point of the corpus is a few bytes
// costing a lot; every entry says what it attacks and what the user gets.
func TestEntriesAreSmallAndDescribed(t *testing.T) {
	seen := map[string]bool{}
	total := 0
	for _, e := range Entries() {
		if seen[e.Name] {
			t.Errorf("%s: two entries of that name", e.Name)
		}
		seen[e.Name] = true
		n := len(generated()[e.File()])
		total += n
		if n > 256<<10 {
			t.Errorf("%s: %d bytes; keep entries under 256 KiB", e.Name, n)
		}
		if e.Attacks == "" || e.Expect.String() == "" {
			t.Errorf("%s: says nothing about what it attacks or what the user must get", e.Name)
		}
		if e.Mode == Pcap && !strings.Contains(e.Name, ".pcap") && !strings.HasPrefix(e.Name, "follow-") || e.Mode == Storage && !strings.HasPrefix(e.Name, "storage/") ||
			e.Mode != Pcap && e.Mode != Storage && !strings.HasSuffix(e.Name, ".bin") {
			t.Errorf("%s: name does not match mode %s", e.Name, e.Mode)
		}
	}
	t.Logf("%d entries, %d bytes in all", len(seen), total)
}

func TestJSONScan(t *testing.T) {
	doc := `{"direction":"request","body":{"records":[{"magic":2,"records":[{"offsetDelta":0,"key":{"text":"\"offsetDelta\":"}},` +
		`{"offsetDelta":1}]},{"magic":0,"value":null},{"magic":1,"messages":[{"magic":1}]}]},` +
		`"guess":{"confidence":0.5,"workLimit":true},` +
		`"warnings":[{"offset":12,"path":"body.records","message":"cut: the MaxNodes limit","limit":true},{"offset":3,"buf":1,"path":"x","message":"m"}]}`
	for _, chunk := range []int{1, 7, len(doc)} {
		s := JSONScan{}
		for i := 0; i < len(doc); i += chunk {
			s.Write([]byte(doc[i:min(i+chunk, len(doc))]))
		}
		var o Outcome
		s.Fill(&o)
		if o.Counted != 6 {
			t.Errorf("chunk %d: counted %d items, want 6 (2 records, a batch, 3 messages)", chunk, o.Counted)
		}
		if len(o.Warnings) != 2 || !o.Warnings[0].Limit || o.Warnings[1].Buf != 1 || o.Warnings[0].Path != "body.records" {
			t.Errorf("chunk %d: warnings %+v", chunk, o.Warnings)
		}
		if !o.Guessed || !o.GuessLimit {
			t.Errorf("chunk %d: guessed %v, limit %v", chunk, o.Guessed, o.GuessLimit)
		}
	}
	var o Outcome
	g := JSONScan{}
	g.Write([]byte(`{"guess":{"confidence":1.000,"tried":368,"cut":true}}`))
	g.Fill(&o)
	if !o.Guessed || !o.GuessLimit {
		t.Errorf("a guess cut short: guessed %v, limit %v", o.Guessed, o.GuessLimit)
	}
	s := JSONScan{CountKey: "voterId"}
	s.Write([]byte(`{"a":[{"voterId":1},{"voterId":2}],"voterIds":3}`))
	if s.Counted != 2 {
		t.Errorf("counted %d voterId, want 2", s.Counted)
	}
}

// TestJSONScanWarningFlood: a flood of warnings is counted to the last,
// and the ones a check needs are kept past the first KeepWarnings.
func TestJSONScanWarningFlood(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"body":{},"warnings":[`)
	const n = 3 * KeepWarnings
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		msg := "unknown tag 0"
		switch i {
		case n - 2:
			msg = "non-minimal varint"
		case n - 1:
			msg = "cut by the MaxNodes limit"
		}
		b.WriteString(`{"offset":` + strconv.Itoa(i) + `,"path":"body","message":"` + msg + `"}`)
	}
	b.WriteString(`]}`)
	s := JSONScan{Want: "non-minimal|nothing"}
	s.Write([]byte(b.String()))
	var o Outcome
	s.Fill(&o)
	if o.WarningCount != n || s.Bad != "" {
		t.Fatalf("counted %d warnings, want %d (%s)", o.WarningCount, n, s.Bad)
	}
	if len(o.Warnings) != KeepWarnings+2 {
		t.Errorf("kept %d warnings, want %d", len(o.Warnings), KeepWarnings+2)
	}
	e := Entry{Name: "x.bin", Mode: Request, Expect: Expect{Warning: "non-minimal", Limit: "MaxNodes"}}
	if bad := e.Check(o); len(bad) != 0 {
		t.Errorf("%v", bad)
	}
}

func TestParseStderr(t *testing.T) {
	var o Outcome
	ParseStderr([]byte(`kwire: read as a response: guessed Fetch v7 response, confidence 0.93
kwire: warning: at byte 40 of derived buffer 2 (body.responses[0].partitions[0].records): not decompressed: the MaxDecompressed limit (64 MiB) is used up
kwire: warning: at byte 7 (body): non-minimal varint
kwire: at byte 0 (size): expected a size of at most 14 (the bytes given), found 2147483647
`), &o, "")
	if !o.Guessed || o.WarningCount != 2 || !o.Err || o.ErrPath != "size" || o.ErrOff != 0 {
		t.Fatalf("%+v", o)
	}
	if w := o.Warnings[0]; w.Offset != 40 || w.Buf != 2 || w.Path != "body.responses[0].partitions[0].records" || w.NamesLimit() != "MaxDecompressed" {
		t.Errorf("%+v", w)
	}
	if w := o.Warnings[1]; w.IsLimit() || w.Message != "non-minimal varint" {
		t.Errorf("%+v", w)
	}
}

func TestCheck(t *testing.T) {
	e := Entry{Name: "x.bin", Mode: Request, Expect: Expect{Count: 10, Warning: "a|b"}}
	if bad := e.Check(Outcome{Counted: 10, Warnings: []Warning{{Message: "b!"}}}); len(bad) != 0 {
		t.Errorf("all items and the warning: %v", bad)
	}
	if bad := e.Check(Outcome{Counted: 3, Warnings: []Warning{{Message: "a"}}}); len(bad) != 1 {
		t.Errorf("3 of 10 items, no limit warning: %v", bad)
	}
	if bad := e.Check(Outcome{Counted: 3, Warnings: []Warning{{Message: "a"}, {Message: "cut", Limit: true}}}); len(bad) != 0 {
		t.Errorf("3 of 10 items and a limit warning: %v", bad)
	}
	e = Entry{Name: "y.bin", Mode: Request, Expect: errAt("header*", 4)}
	if bad := e.Check(Outcome{Err: true, ErrPath: "header.requestApiKey", ErrOff: 4}); len(bad) != 0 {
		t.Errorf("%v", bad)
	}
	if bad := e.Check(Outcome{Err: true, ErrPath: "", ErrOff: 4}); len(bad) != 1 {
		t.Errorf("an empty path: %v", bad)
	}
	e = Entry{Name: "z.pcap", Mode: Pcap, Expect: Expect{Survive: true}}
	if bad := e.Check(Outcome{Exit: 2, Text: "panic: runtime error\n\ngoroutine 1 [running]:"}); len(bad) != 2 {
		t.Errorf("a panic: %v", bad)
	}
}

// TestManifestLists every entry once, in order, with its size.
func TestManifestListsEveryEntry(t *testing.T) {
	m := string(generated()["MANIFEST"])
	var names []string
	for _, line := range strings.Split(m, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("MANIFEST line with %d fields: %q", len(f), line)
		}
		names = append(names, f[0])
	}
	var want []string
	for _, e := range Entries() {
		want = append(want, e.Name)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("MANIFEST lists %v", names)
	}
}
