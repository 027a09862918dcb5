package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// runVersion prints the build (module version, the commit it was built
// from, the Go toolchain) and the newest Kafka release whose message
// schemas the tables were generated from. `kwire --version` is the same.
func runVersion(e *env, args []string) int {
	fs := newFlags(e, "version", "", "kwire version", "kwire --version")
	if code := parseFlagsOnly(e, fs, args, ""); code >= 0 {
		return code
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprint(e.stdout, versionText(bi))
	return 0
}

// versionText says what bi (nil when the binary carries none) and the
// schema tables say.
func versionText(bi *debug.BuildInfo) string {
	var b strings.Builder
	version, module, commit := "(unknown)", "", ""
	if bi != nil {
		version, module = bi.Main.Version, bi.Main.Path
		var rev, when string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			commit = rev
			if when != "" {
				commit += " (" + when
				if modified {
					commit += ", with uncommitted changes"
				}
				commit += ")"
			} else if modified {
				commit += " (with uncommitted changes)"
			}
		}
	}
	b.WriteString("kwire " + version + "\n")
	if module != "" {
		b.WriteString("  module  " + module + "\n")
	}
	if commit != "" {
		b.WriteString("  commit  " + commit + "\n")
	}
	b.WriteString("  go      " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n")
	apis := schema.APIs()
	keys := "API keys " + strconv.Itoa(int(apis[0].Key)) + "-" + strconv.Itoa(int(apis[len(apis)-1].Key))
	if release, folder := newestKafka(); release != "" {
		b.WriteString("  kafka   " + release + ": the newest release whose message schemas it carries (" + folder + "), " + keys + "\n")
	} else {
		b.WriteString("  kafka   " + keys + "\n")
	}
	return b.String()
}

// newestKafka finds, among the schema folders the tables were generated
// from (each layout names its folder), the newest named for a Kafka
// release, "kafka-X.Y" or "kafka-X.Y-what": its release and its name.
func newestKafka() (release, folder string) {
	best := [2]int{-1, -1}
	seen := map[string]bool{}
	consider := func(src string) {
		if seen[src] {
			return
		}
		seen[src] = true
		rest, ok := strings.CutPrefix(src, "kafka-")
		if !ok {
			return
		}
		rel, _, _ := strings.Cut(rest, "-")
		maj, min, ok := strings.Cut(rel, ".")
		if !ok {
			return
		}
		x, err1 := strconv.Atoi(maj)
		y, err2 := strconv.Atoi(min)
		if err1 != nil || err2 != nil {
			return
		}
		if x > best[0] || x == best[0] && y > best[1] {
			best, release, folder = [2]int{x, y}, rel, src
		}
	}
	for _, a := range schema.APIs() {
		for _, m := range []*schema.Message{a.Request, a.Response} {
			for _, d := range m.Versions {
				consider(d.Source)
			}
		}
	}
	return release, folder
}
