package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// importFolder copies the message files of src into dir/name with their
// prose removed (structure only, in the files' own order), and puts name
// first in dir/ORDER so its versions take precedence.
func importFolder(dir, src, name string) error {
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("-import %s: no *.json files there", src)
	}
	dst := filepath.Join(dir, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, p := range files {
		if err := importFile(p, dst); err != nil {
			return err
		}
	}
	return putFirst(dir, name, "# Schema folders, first wins: version N of a message is laid out by the\n# first folder here whose file for it lists N in validVersions.\n")
}

// putFirst puts folder name first in dir/ORDER, below the comment head.
func putFirst(dir, name, head string) error {
	folders, err := readOrder(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	order := []string{name}
	for _, f := range folders {
		if f != name {
			order = append(order, f)
		}
	}
	return os.WriteFile(filepath.Join(dir, "ORDER"), []byte(head+strings.Join(order, "\n")+"\n"), 0o644)
}

// importFile writes schema file p, structure only, into folder dst (made
// if need be).
func importFile(p, dst string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	out, err := structureOnly(b)
	if err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, filepath.Base(p)), out, 0o644)
}

// structureOnly rewrites a Kafka schema file (JSON with // comments) as
// plain JSON without comments and without "about" members, keeping the
// order of every other member, two spaces a level.
func structureOnly(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(stripComments(b)))
	dec.UseNumber()
	var out bytes.Buffer
	if err := copyValue(dec, &out, 0); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// copyValue copies the next JSON value of dec to out, indented for depth,
// leaving out every "about" member.
func copyValue(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	indent := func(d int) { out.WriteByte('\n'); out.WriteString(strings.Repeat("  ", d)) }
	d, ok := t.(json.Delim)
	if !ok {
		vb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Write(vb)
		return nil
	}
	closing := byte('}')
	if d == '[' {
		closing = ']'
	}
	out.WriteByte(byte(d))
	n := 0
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			if k == "about" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			if n > 0 {
				out.WriteByte(',')
			}
			indent(depth + 1)
			kb, _ := json.Marshal(k)
			out.Write(kb)
			out.WriteString(": ")
		} else {
			if n > 0 {
				out.WriteByte(',')
			}
			indent(depth + 1)
		}
		if err := copyValue(dec, out, depth+1); err != nil {
			return err
		}
		n++
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if n > 0 {
		indent(depth)
	}
	out.WriteByte(closing)
	return nil
}
