package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/kwire/kwire/codec/schema"
)

type apiInfo struct {
	Key        int16    `json:"key"`
	Name       string   `json:"name"`
	Names      []string `json:"names,omitempty"`
	Category   string   `json:"category"`
	MinVersion int16    `json:"minVersion"`
	MaxVersion int16    `json:"maxVersion"`
	Removed40  string   `json:"removedInKafka40,omitempty"`
	Unstable   []int16  `json:"unstableVersions,omitempty"`
}

func apiInfos() []apiInfo {
	var out []apiInfo
	for _, a := range schema.APIs() {
		i := apiInfo{Key: a.Key, Name: a.Name, Category: a.Category.String(),
			MinVersion: a.Request.Valid.Lo, MaxVersion: a.Request.Valid.Hi}
		if len(a.Names) > 1 {
			i.Names = a.Names
		}
		if !a.Removed40.Empty() {
			i.Removed40 = a.Removed40.String()
		}
		if u := a.Request.Unstable; !u.Empty() {
			for v := u.Lo; v <= u.Hi; v++ {
				i.Unstable = append(i.Unstable, v)
			}
		}
		out = append(out, i)
	}
	return out
}

func runAPIs(e *env, args []string) int {
	fs := newFlags(e, "apis", "[--json]", "kwire apis", "kwire apis --json")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fail(e, "apis takes no arguments")
		return 2
	}
	infos := apiInfos()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.Encode(infos)
		return 0
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tNAME\tCATEGORY\tVERSIONS\tNOTES")
	for _, i := range infos {
		notes := ""
		if i.Removed40 != "" {
			notes = "Kafka 4.0 removed v" + i.Removed40
		}
		if len(i.Unstable) > 0 {
			if notes != "" {
				notes += "; "
			}
			notes += fmt.Sprintf("v%d unstable", i.Unstable[0])
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d-%d\t%s\n", i.Key, i.Name, i.Category, i.MinVersion, i.MaxVersion, notes)
	}
	tw.Flush()
	return 0
}
