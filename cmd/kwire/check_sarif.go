package main

import "github.com/kwire/kwire/codec/check"

// SARIF 2.1.0 (OASIS), the report code-scanning tools read: one run whose
// tool lists every rule, one result per finding, and the rules that could
// not be judged as the invocation's notifications. Frames have no line and
// column, so a result is placed by its file (artifactLocation) and, as a
// logical location, where in the conversation it is (conn, correlation
// id, side, byte, path). An input that could not be read is an error
// notification, and the run's executionSuccessful is then false; one read
// only in part (cut short, corrupt) a warning notification.

type sarifReport struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
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
	URI string `json:"uri"`
}

// inputProblem is an input kwire check could not read (unread), or read
// only in part, and why.
type inputProblem struct {
	file, why string
	unread    bool
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
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
	for _, in := range o.inputs {
		level := "warning"
		if in.unread {
			level, inv.ExecutionSuccessful = "error", false
		}
		inv.Notifications = append(inv.Notifications, sarifNotification{Message: sarifText{in.why}, Level: level,
			Locations: []sarifLocation{{Physical: &sarifPhysical{sarifArtifact{in.file}}}}})
	}
	for _, k := range o.kept {
		f := &k.f
		loc := sarifLocation{Physical: &sarifPhysical{sarifArtifact{k.file}},
			Logical: []sarifLogical{{FullyQualifiedName: f.Where.String(), Kind: "element"}}}
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
	return sarifReport{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
}
