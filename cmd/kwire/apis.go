package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/near"
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

// unknownAPI says that name is no API, with the nearest API name when one
// is a slip away (a letter or two wrong, missing or extra: "Fech",
// "ApiVersion", "metdata").
func unknownAPI(name string) string {
	msg := "unknown API " + strconv.Quote(name)
	best := near.Nearest(strings.TrimSpace(name), func(try func(alias, answer string)) {
		for _, a := range schema.APIs() {
			for _, an := range a.Names {
				try(an, a.Name)
			}
		}
	})
	if best != "" {
		return msg + " (did you mean " + best + "? kwire apis lists them)"
	}
	return msg + " (run kwire apis)"
}
