package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/internal/render"
)

func runAPIs(e *env, args []string) int {
	fs := newFlags(e, "apis", "[--json]", "kwire apis", "kwire apis --json")
	asJSON := fs.Bool("json", false, "print JSON")
	if code := parseFlagsOnly(e, fs, args, ""); code >= 0 {
		return code
	}
	infos := render.APIList()
	if *asJSON {
		e.stdout.Write(append(jsontext.Indent(nil, render.AppendAPIList(nil)), '\n'))
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
