package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// The read stage: Kafka's schema files and kwire's hand-kept TSV files as
// they are written, checked only for syntax. Nothing here knows the
// precedence rule or the tables' shape.

// rawField is a field as a schema file writes it.
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
	MapKey           jsonBool        `json:"mapKey"`
	Ignorable        jsonBool        `json:"ignorable"`
	Fields           []rawField      `json:"fields"`
}

// jsonBool is a boolean a file may also write as a string ("false"), as
// Kafka's own generator (Jackson) accepts: SubscriptionInfoData does.
type jsonBool bool

func (b *jsonBool) UnmarshalJSON(p []byte) error {
	switch string(p) {
	case "true", `"true"`:
		*b = true
	case "false", `"false"`, "null":
		*b = false
	default:
		return fmt.Errorf("not a boolean: %s", p)
	}
	return nil
}

// rawStruct is one of a file's commonStructs.
type rawStruct struct {
	Name     string     `json:"name"`
	Versions string     `json:"versions"`
	Fields   []rawField `json:"fields"`
}

// rawMessage is one schema file, with the folder it was read from and its
// validVersions parsed.
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
	valid  schema.Range
}

// key identifies a message across folders: requests and responses by API
// key and type, headers and data messages by name.
func (m *rawMessage) key() string {
	if m.APIKey != nil && (m.Type == "request" || m.Type == "response") {
		return fmt.Sprintf("%s/%03d", m.Type, *m.APIKey)
	}
	return m.Type + "/" + m.Name
}

// common returns the commonStruct named name, or nil.
func (m *rawMessage) common(name string) *rawStruct {
	for i := range m.CommonStructs {
		if m.CommonStructs[i].Name == name {
			return &m.CommonStructs[i]
		}
	}
	return nil
}

// source is everything the read stage gathers from a schema folder.
type source struct {
	folders  []string                          // kafka/ORDER: first wins
	byFolder map[string]map[string]*rawMessage // folder -> message key -> file
	errors   [][]string                        // errors.tsv rows: code, name
	renamed  [][]string                        // errors-renamed.tsv rows: code, old name, name, Kafka version
	enums    [][]string                        // enums.tsv rows: enum, value, name
	released [][]string                        // released.tsv rows: API key, version, release
	internal *internalSource                   // kafka/internal, when there
}

// read reads the schema folder dir: ORDER, the message files of every
// folder it names, the TSV files, and the internal schemas (internal/).
func read(dir string) (*source, error) {
	folders, err := readOrder(dir)
	if err != nil {
		return nil, err
	}
	s := &source{folders: folders, byFolder: map[string]map[string]*rawMessage{}}
	for _, f := range folders {
		if s.byFolder[f], err = readFolder(filepath.Join(dir, f), f); err != nil {
			return nil, err
		}
	}
	for _, t := range []struct {
		name string
		rows *[][]string
		cols int
	}{{"errors.tsv", &s.errors, 2}, {"errors-renamed.tsv", &s.renamed, 4}, {"enums.tsv", &s.enums, 3}} {
		if *t.rows, err = readTSV(filepath.Join(dir, t.name), t.cols); err != nil {
			return nil, err
		}
	}
	// released.tsv is optional: a folder without one marks every version
	// its files call unstable so.
	if _, err := os.Stat(filepath.Join(dir, "released.tsv")); err == nil {
		if s.released, err = readTSV(filepath.Join(dir, "released.tsv"), 3); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "internal", "ORDER")); err == nil {
		if s.internal, err = readInternal(filepath.Join(dir, "internal")); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// readOrder reads dir/ORDER: one folder a line, # comments.
func readOrder(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "ORDER"))
	if err != nil {
		return nil, err
	}
	var fs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			fs = append(fs, l)
		}
	}
	return fs, nil
}

// readFolder reads every *.json of path, keyed by message key; folder is
// its name in ORDER.
func readFolder(path, folder string) (map[string]*rawMessage, error) {
	files, err := filepath.Glob(filepath.Join(path, "*.json"))
	if err != nil {
		return nil, err
	}
	out := map[string]*rawMessage{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		m, err := parseMessage(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		m.folder = folder
		if prev, dup := out[m.key()]; dup {
			return nil, fmt.Errorf("%s: %s defined twice (also %s)", p, m.key(), prev.Name)
		}
		out[m.key()] = m
	}
	return out, nil
}

// parseMessage parses one schema file (JSON with // comments).
func parseMessage(b []byte) (*rawMessage, error) {
	var m rawMessage
	if err := json.Unmarshal(stripComments(b), &m); err != nil {
		return nil, err
	}
	var err error
	if m.valid, err = parseRange(m.ValidVersions); err != nil {
		return nil, err
	}
	return &m, nil
}

// parseRange parses a version range as the schema files write it: "",
// "none", "3", "1-4", "3+".
func parseRange(s string) (schema.Range, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "none":
		return schema.Range{Lo: 1, Hi: 0}, nil
	case strings.HasSuffix(s, "+"):
		lo, err := version(strings.TrimSuffix(s, "+"))
		return schema.Range{Lo: lo, Hi: schema.Open}, err
	case strings.Contains(s, "-"):
		a, b, _ := strings.Cut(s, "-")
		lo, err1 := version(a)
		hi, err2 := version(b)
		if err1 != nil || err2 != nil {
			return schema.Range{}, fmt.Errorf("bad range %q", s)
		}
		return schema.Range{Lo: lo, Hi: hi}, nil
	}
	v, err := version(s)
	return schema.Range{Lo: v, Hi: v}, err
}

// version parses one version number, which must fit below schema.Open.
func version(s string) (int16, error) {
	v, err := strconv.ParseInt(s, 10, 16)
	if err != nil || v < 0 || v >= int64(schema.Open) {
		return 0, fmt.Errorf("bad version %q", s)
	}
	return int16(v), nil
}

// stripComments removes // and /* */ comments that stand outside strings
// (Kafka Streams' SubscriptionInfoData has the second kind).
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
		} else if c == '/' && i+1 < len(b) && b[i+1] == '*' {
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				end = len(b) - i - 2
			}
			// Newlines are kept, so error positions keep their lines.
			out.Write(bytes.Repeat([]byte("\n"), bytes.Count(b[i:i+2+end], []byte("\n"))))
			i += 2 + end + 1
			continue
		}
		out.WriteByte(c)
	}
	return out.Bytes()
}

// readTSV reads the tab-separated rows of p, skipping blank lines and #
// comments; every row must have at least cols columns.
func readTSV(p string, cols int) ([][]string, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]string
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := strings.Split(line, "\t")
		if len(r) < cols {
			return nil, fmt.Errorf("%s: bad row %q", filepath.Base(p), r)
		}
		rows = append(rows, r)
	}
	return rows, s.Err()
}
