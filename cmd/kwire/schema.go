package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/render"
)

// messageArgs resolves "API [--version N] [--request|--response]" for schema and example.
func messageArgs(e *env, name string, args []string, examples ...string) (*schema.API, int16, bool, int) {
	fs := newFlags(e, name, "API [--version N] [--request|--response]", examples...)
	version := new(int)
	*version = -1
	fs.Var(versionFlag{version}, "version", "API version `N` (0 to 32767; default: the newest)")
	request := fs.Bool("request", false, "the request (the default)")
	response := fs.Bool("response", false, "the response instead of the request")
	rest, code := parseFlags(e, fs, args)
	if code >= 0 {
		return nil, 0, false, code
	}
	if *request && *response {
		fail(e, "%s: give --request or --response, not both", name)
		return nil, 0, false, 2
	}
	if len(rest) == 2 && *version < 0 && isVersionWord(rest[1]) {
		v := strings.TrimPrefix(strings.ToLower(rest[1]), "v")
		fail(e, "%s takes a version as a flag: kwire %s %s --version %s", name, name, rest[0], v)
		return nil, 0, false, 2
	}
	if len(rest) != 1 {
		fail(e, "%s needs one API name or key (run kwire apis)", name)
		return nil, 0, false, 2
	}
	api := schema.ByName(rest[0])
	if api == nil {
		fail(e, "%s", unknownAPI(rest[0]))
		return nil, 0, false, 2
	}
	v := api.Request.Valid.Hi
	if *version >= 0 {
		v = int16(*version)
		if !api.Request.Valid.Contains(v) {
			fail(e, "%s", versionRefused(name, api, v, *response))
			return nil, 0, false, 2
		}
	}
	return api, v, *response, -1
}

// versionRefused is why kwire schema or example (name) has no layout or
// frame for version v of api: the versions kwire knows, and what the user
// can run instead. A version newer than any known is refused rather than
// drawn with the newest layout, as kwire decode reads its bytes: decode
// reads bytes that exist, and says how (newerVersion), but a layout or a
// frame printed under v's name would be kwire's invention, not v's.
func versionRefused(name string, api *schema.API, v int16, response bool) string {
	valid := api.Request.Valid
	msg := api.Name + " has versions " + valid.String() + ", not " + strconv.Itoa(int(v))
	if v < valid.Lo {
		return msg + " (run kwire apis)"
	}
	dir := ""
	if response {
		dir = " --response"
	}
	does := "shows"
	if name == "example" {
		does = "prints"
	}
	return msg + ": v" + strconv.Itoa(int(v)) + " is newer than kwire knows" + knownFrom() +
		"; kwire " + name + " " + api.Name + " --version " + strconv.Itoa(int(valid.Hi)) + dir + " " + does +
		" the newest, whose layout kwire decode reads a newer version's bytes with, saying so"
}

// knownFrom says where kwire's versions come from, " (its schemas are Kafka
// 4.3's)", or "" when no folder of the tables names a release.
func knownFrom() string {
	if release, _ := newestKafka(); release != "" {
		return " (its schemas are Kafka " + release + "'s)"
	}
	return ""
}

// isVersionWord reports whether s is a version as people write one after
// an API's name: "9" or "v9".
func isVersionWord(s string) bool {
	s = strings.TrimPrefix(strings.ToLower(s), "v")
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func runSchema(e *env, args []string) int {
	api, v, response, code := messageArgs(e, "schema", args, "kwire schema Produce", "kwire schema metadata --version 1 --response")
	if code >= 0 {
		return code
	}
	m := api.Request
	dir := "Request"
	if response {
		m, dir = api.Response, "Response"
	}
	hdr := "request header v"
	if response {
		hdr = "response header v"
	}
	flex := "not flexible"
	if m.Flexible(v) {
		flex = "flexible"
	}
	fmt.Fprintf(e.stdout, "%s %s v%d (API key %d, %s, %s%d)\n\n", api.Name, strings.ToLower(dir), v, api.Key, flex, hdr, m.HeaderVersion(v))
	fmt.Fprint(e.stdout, render.BNF(m, v, fmt.Sprintf("%s %s (Version: %d)", api.Name, dir, v)))
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tTYPE\tVERSIONS\tNULLABLE\tTAG\tDEFAULT\tENTITY\tMAP KEY")
	for _, r := range render.FieldTable(m, v) {
		mk := ""
		if r.MapKey {
			mk = "yes"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", strings.Repeat("  ", r.Depth), r.Path[strings.LastIndex(r.Path, ".")+1:], r.Type, r.Versions, r.Nullable, r.Tag, r.Default, r.EntityType, mk)
	}
	tw.Flush()
	return 0
}
