package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/kwire/kwire/codec/check"
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
	Physical *sarifPhysical `json:"physicalLocation,omitempty"`
	Logical  []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
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
			Locations: []sarifLocation{{Physical: &sarifPhysical{artifact(in.file)}}}})
	}
	for _, k := range o.kept {
		f := &k.f
		loc := sarifLocation{Physical: &sarifPhysical{artifact(k.file)},
			Logical: []sarifLogical{{FullyQualifiedName: f.Where.String()}}}
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
