package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/input"
)

// SARIF 2.1.0 (OASIS), the report code-scanning tools read: one run whose
// tool lists every rule, one result per finding, and the rules that could
// not be judged as the invocation's notifications. Frames have no line and
// column, so a result is placed by its file (artifactLocation) and, as a
// logical location, where in the conversation it is (conn, correlation
// id, side, byte, path). An input that could not be read is an error
// notification, and the run's executionSuccessful is then false; one read
// only in part (cut short, corrupt) a warning notification.
//
// A result's physicalLocation has a region where kwire knows which bytes
// of the file it is about (SARIF 2.1.0 §3.30), never one guessed: in a
// file of binary frames, the frame's bytes (byteOffset, byteLength), or,
// for a finding at a byte of the frame, an insertion point before that
// byte with the frame as its contextRegion; in a text file of frames
// (hex, dumps) whose lines each decode on their own, the lines that hold
// the frame whole (startLine, endLine), as a frame's byte offset in the
// decoded bytes is no offset in the text. A capture's findings have no
// region: the capture reader keeps no file offsets, and a frame may span
// packets. Every location's properties say where in the conversation it
// is, as the JSON's "where" does (conn, frame, correlationId, side,
// packet, offset in the frame, buf, path), so that a capture's findings
// name their packet.
//
// An artifact's uri is a URI (SARIF 2.1.0 §3.4.3), percent-encoded: a
// file:// URI for an absolute path, a relative reference for a relative
// one with uriBaseId %SRCROOT%, which the run's originalUriBaseIds give
// as the working directory's file:// URI. Standard input has no uri: its
// artifactLocation's description says "standard input".

type sarifReport struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool                `json:"tool"`
	BaseIDs     map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
	Invocations []sarifInvocation        `json:"invocations"`
	Results     []sarifResult            `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID               string            `json:"id"`
	Name             string            `json:"name"`
	ShortDescription sarifText         `json:"shortDescription"`
	DefaultConfig    sarifConfig       `json:"defaultConfiguration"`
	Properties       map[string]string `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Message    sarifText           `json:"message"`
	Level      string              `json:"level"`
	Descriptor *sarifDescriptorRef `json:"associatedRule,omitempty"`
	Locations  []sarifLocation     `json:"locations,omitempty"`
}

type sarifDescriptorRef struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	Physical   *sarifPhysical `json:"physicalLocation,omitempty"`
	Logical    []sarifLogical `json:"logicalLocations,omitempty"`
	Properties map[string]any `json:"properties,omitempty"`
}

type sarifPhysical struct {
	Artifact      sarifArtifact `json:"artifactLocation"`
	Region        *sarifRegion  `json:"region,omitempty"`
	ContextRegion *sarifRegion  `json:"contextRegion,omitempty"`
}

// sarifRegion is a binary region (byteOffset, and byteLength unless it is
// an insertion point) or a text region of whole lines (startLine,
// endLine), never both.
type sarifRegion struct {
	StartLine  int  `json:"startLine,omitempty"`
	EndLine    int  `json:"endLine,omitempty"`
	ByteOffset *int `json:"byteOffset,omitempty"`
	ByteLength *int `json:"byteLength,omitempty"`
}

// frameSpan is where a frame of a frames file is in the file: its bytes
// (binary files), or the lines that hold it (line > 0, text files), or
// neither (known false).
type frameSpan struct {
	known         bool
	off, n        int // bytes in a binary file
	line, endLine int // lines in a text file, 1-based
}

// frameSpans says where each frame of a frames file is in it: raw is the
// file, data what it decoded to (form), frames data cut into frames, in
// order and back to back. A binary file's frames are at their offsets in
// data. A text file's are placed only when each of its lines decodes on
// its own (in the file's form) to the bytes the whole file decoded to, in
// order, and the frame starts and ends at a line's boundary; else nil.
func frameSpans(raw, data []byte, form input.Format, frames [][]byte) []frameSpan {
	spans := make([]frameSpan, len(frames))
	if form == input.FormatBinary {
		off := 0
		for i, f := range frames {
			spans[i] = frameSpan{known: true, off: off, n: len(f)}
			off += len(f)
		}
		return spans
	}
	// The decoded offset each line starts and ends at.
	type lineBytes struct{ line, start, end int }
	var lines []lineBytes
	at, mode := 0, input.Hex
	if form == input.FormatBase64 {
		mode = input.Base64
	}
	for n, l := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 || n == 0 && len(bytes.TrimSpace(l[input.BOMLen(l):])) == 0 {
			continue
		}
		b, f, err := input.Parse(l, mode)
		if err != nil || f != form || !bytes.HasPrefix(data[at:], b) {
			return nil
		}
		lines = append(lines, lineBytes{n + 1, at, at + len(b)})
		at += len(b)
	}
	if at != len(data) {
		return nil
	}
	off, j := 0, 0
	for i, f := range frames {
		for j < len(lines) && lines[j].start < off {
			j++
		}
		if j < len(lines) && lines[j].start == off {
			k := j
			for k < len(lines) && lines[k].end < off+len(f) {
				k++
			}
			if k < len(lines) && lines[k].end == off+len(f) {
				spans[i] = frameSpan{known: true, line: lines[j].line, endLine: lines[k].line}
			}
		}
		off += len(f)
	}
	return spans
}

// sarifRegions is the region of a finding at w in a frames file whose
// frames are at spans (nil for a capture), and the region that encloses
// it, when it is known.
func sarifRegions(w check.Where, spans []frameSpan) (region, context *sarifRegion) {
	if w.Frame < 1 || w.Frame > len(spans) || !spans[w.Frame-1].known {
		return nil, nil
	}
	s := spans[w.Frame-1]
	if s.line > 0 {
		return &sarifRegion{StartLine: s.line, EndLine: s.endLine}, nil
	}
	frame := &sarifRegion{ByteOffset: &s.off, ByteLength: &s.n}
	if w.HasOffset && w.Buf == 0 && w.Offset >= 0 && w.Offset <= s.n {
		at := s.off + w.Offset
		return &sarifRegion{ByteOffset: &at}, frame
	}
	return frame, nil
}

// sarifWhere is w as a location's properties, the keys of the JSON
// format's "where".
func sarifWhere(w check.Where) map[string]any {
	p := map[string]any{}
	if w.Conn > 0 {
		p["conn"] = w.Conn
	}
	if w.Frame > 0 {
		p["frame"] = w.Frame
	}
	if w.HasCorr {
		p["correlationId"] = w.Correlation
	}
	if w.Side != check.NoSide {
		p["side"] = w.Side.String()
	}
	if w.Packet > 0 {
		p["packet"] = w.Packet
	}
	if w.HasOffset {
		p["offset"] = w.Offset
		if w.Buf > 0 {
			p["buf"] = w.Buf
		}
	}
	if w.Path != "" {
		p["path"] = w.Path
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

type sarifArtifact struct {
	URI         string     `json:"uri,omitempty"`
	URIBaseID   string     `json:"uriBaseId,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

// inputProblem is an input kwire check could not read (unread), or read
// only in part, and why.
type inputProblem struct {
	file, why string
	unread    bool
}

// srcRoot is the uriBaseId of relative paths: the working directory.
const srcRoot = "%SRCROOT%"

// sarifArtifactOf is where file is, as SARIF's artifactLocation says it
// (see the package comment above); relative reports whether it is
// relative to srcRoot.
func sarifArtifactOf(file string) (a sarifArtifact, relative bool) {
	switch {
	case file == "-":
		return sarifArtifact{Description: &sarifText{"standard input"}}, false
	case filepath.IsAbs(file):
		return sarifArtifact{URI: fileURI(file, false)}, false
	}
	return sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(file)}).String(), URIBaseID: srcRoot}, true
}

// fileURI is the file:// URI of the absolute path p, ending in a slash
// when dir is set.
func fileURI(p string, dir bool) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x: file:///C:/x
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// sarifLogical names where in the conversation a finding is (connection,
// frame or packet, side, byte, field path). It has no kind: SARIF's are
// kinds of code and of XML or JSON documents ("element" is an XML
// element), and a place in a Kafka conversation is none of them.
type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

// sarifLog builds the report of what o kept.
func sarifLog(o *checkOut) sarifReport {
	rules := check.Rules()
	index := map[string]int{}
	drv := sarifDriver{Name: "kwire check", InformationURI: "https://github.com/kwire/kwire"}
	for i, r := range rules {
		index[r.ID] = i
		drv.Rules = append(drv.Rules, sarifRule{ID: r.ID, Name: r.ID, ShortDescription: sarifText{r.Statement},
			DefaultConfig: sarifConfig{Level: r.Severity.String()},
			Properties:    map[string]string{"level": r.Level.String(), "docs": "rules/" + r.ID + ".html"}})
	}
	run := sarifRun{Tool: sarifTool{drv}, Results: []sarifResult{}}
	inv := sarifInvocation{ExecutionSuccessful: true}
	relative := false
	artifact := func(file string) sarifArtifact {
		a, rel := sarifArtifactOf(file)
		relative = relative || rel
		return a
	}
	for _, in := range o.inputs {
		level := "warning"
		if in.unread {
			level, inv.ExecutionSuccessful = "error", false
		}
		inv.Notifications = append(inv.Notifications, sarifNotification{Message: sarifText{in.why}, Level: level,
			Locations: []sarifLocation{{Physical: &sarifPhysical{Artifact: artifact(in.file)}}}})
	}
	for _, k := range o.kept {
		f := &k.f
		region, context := sarifRegions(f.Where, k.spans)
		loc := sarifLocation{Physical: &sarifPhysical{Artifact: artifact(k.file), Region: region, ContextRegion: context},
			Logical: []sarifLogical{{FullyQualifiedName: f.Where.String()}}, Properties: sarifWhere(f.Where)}
		text := string(f.AppendText(nil))
		if f.Skipped {
			inv.Notifications = append(inv.Notifications, sarifNotification{Message: sarifText{text}, Level: "note",
				Descriptor: &sarifDescriptorRef{ID: f.Rule.ID, Index: index[f.Rule.ID]}, Locations: []sarifLocation{loc}})
			continue
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule.ID, RuleIndex: index[f.Rule.ID], Level: f.Severity.String(),
			Message: sarifText{text}, Locations: []sarifLocation{loc}})
	}
	run.Invocations = []sarifInvocation{inv}
	if wd, err := os.Getwd(); relative && err == nil {
		run.BaseIDs = map[string]sarifArtifact{srcRoot: {URI: fileURI(wd, true)}}
	}
	return sarifReport{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}
