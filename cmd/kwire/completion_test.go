package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// helpFlags reads a command's flags from what its --help prints (the flag
// package's "  -name type" lines): the user's view, apart from the flag
// sets completion reads.
func helpFlags(t *testing.T, cmd string) []string {
	out, _, code := runCLI(t, []string{cmd, "--help"}, nil)
	require.Equal(t, 0, code)
	var flags []string
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out, -1) {
		flags = append(flags, m[1])
	}
	return flags
}

// Every command of the table and every flag its --help lists is in each
// shell's script: the scripts are written from the table and cannot drift.
func TestCompletionCoversEveryCommandAndFlag(t *testing.T) {
	scripts := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, errOut, code := runCLI(t, []string{"completion", sh}, nil)
		require.Equal(t, 0, code, errOut)
		scripts[sh] = out
	}
	flags := 0
	top := regexp.MustCompile(`COMP_CWORD" -eq 1 \]; then\n\s+COMPREPLY=\(\$\(compgen -W "([^"]*)"`).FindStringSubmatch(scripts["bash"])
	require.NotNil(t, top)
	for _, c := range commands {
		require.Contains(t, strings.Fields(top[1]), c.name)
		require.Contains(t, scripts["zsh"], "'"+c.name+":", c.name)
		require.Contains(t, scripts["fish"], "-a "+c.name+" ", c.name)
		for _, f := range helpFlags(t, c.name) {
			flags++
			require.Regexp(t, regexp.MustCompile(`(?m)^        `+regexp.QuoteMeta(c.name)+`\) COMPREPLY=\(\$\(compgen -W "[^"]*--`+regexp.QuoteMeta(f)+`[ "]`), scripts["bash"], "bash: %s --%s", c.name, f)
			require.Regexp(t, regexp.MustCompile(`'--`+regexp.QuoteMeta(f)+`=?\[`), scripts["zsh"], "zsh: %s --%s", c.name, f)
			require.Contains(t, scripts["fish"], `"__fish_seen_subcommand_from `+c.name+`" -l `+f+" ", "fish: %s --%s", c.name, f)
		}
	}
	require.Greater(t, flags, 60)
	_, errOut, code := runCLI(t, []string{"completion", "powershell"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `unknown shell "powershell"`)
}

// Flag values come from the choices a flag's usage lists; texts that are
// not such a list give none.
func TestUsageChoices(t *testing.T) {
	for usage, want := range map[string][]string{
		"output: json (indented), ndjson, tree, grid or annotated (tree and grid draw at most 2^18 and 2^17 nodes)":        {"json", "ndjson", "tree", "grid", "annotated"},
		"colour: auto (on a terminal, unless NO_COLOR is set), always or never":                                            {"auto", "always", "never"},
		"size prefix: auto, yes or no (auto: the first 4 bytes are a size when ...)":                                       {"auto", "yes", "no"},
		"each exchange as ndjson, or tree (one exchange at a time, for a terminal); auto: tree on a terminal, else ndjson": nil,
		"API name or key (e.g. Metadata or 3), to pin a response's API":                                                    nil,
		"decoders working at once": nil,
	} {
		require.Equal(t, want, usageChoices(usage), usage)
	}
}

// complete asks bash for the completions of a command line (its last word
// being completed) with the script loaded, as a user's shell would.
func bashComplete(t *testing.T, words ...string) []string {
	bash := needTool(t, "bash")
	script := `source <(kwire completion bash) && COMP_WORDS=("$@") && COMP_CWORD=$((${#COMP_WORDS[@]}-1)) && _kwire && printf '%s\n' "${COMPREPLY[@]}"`
	cmd := exec.Command(bash, append([]string{"-c", script, "bash"}, words...)...)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kwireBin)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return strings.Fields(string(out))
}

func TestBashCompletion(t *testing.T) {
	require.Equal(t, []string{"decode"}, bashComplete(t, "kwire", "dec"))
	require.Equal(t, []string{"completion"}, bashComplete(t, "kwire", "compl"))
	require.Equal(t, []string{"--format"}, bashComplete(t, "kwire", "decode", "--for"))
	require.Equal(t, []string{"--progress"}, bashComplete(t, "kwire", "pcap", "--prog"))
	require.Equal(t, []string{"json", "ndjson", "tree", "grid", "annotated"}, bashComplete(t, "kwire", "decode", "--format", ""))
	require.Equal(t, []string{"Fetch", "FetchSnapshot"}, bashComplete(t, "kwire", "pcap", "--api", "Fetch"))
	require.Equal(t, []string{"Produce"}, bashComplete(t, "kwire", "schema", "Prod"))
	require.Equal(t, []string{"zsh"}, bashComplete(t, "kwire", "completion", "z"))
	require.Contains(t, bashComplete(t, "kwire", "pcap", "kfake"), "kfake-clients.pcapng")
	require.Empty(t, bashComplete(t, "kwire", "batch", "--jobs", ""), "a number: nothing to offer")
	// log's arguments are PATH...: files and directories, though its
	// usage line never says FILE; site takes flags only, though its
	// usage names a --wasm FILE.
	require.Equal(t, []string{"logdir"}, bashComplete(t, "kwire", "log", "logd"))
	require.Contains(t, bashComplete(t, "kwire", "log", "logdir/"), "logdir/__consumer_offsets-7")
	require.Empty(t, bashComplete(t, "kwire", "site", "logd"))
}

func TestFishCompletion(t *testing.T) {
	fish := needTool(t, "fish")
	complete := func(line string) []string {
		cmd := exec.Command(fish, "--no-config", "-c", "kwire completion fish | source; complete -C '"+line+"'")
		cmd.Dir = workDir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kwireBin)+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		var words []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			w, _, _ := strings.Cut(l, "\t")
			words = append(words, w)
		}
		return words
	}
	require.Equal(t, []string{"decode"}, complete("kwire dec"))
	require.Equal(t, []string{"--format"}, complete("kwire decode --form"))
	require.ElementsMatch(t, []string{"json", "ndjson", "tree", "grid", "annotated"}, complete("kwire decode --format "))
	require.Equal(t, []string{"Produce"}, complete("kwire example Produ"))
	require.ElementsMatch(t, []string{"bash", "zsh", "fish"}, complete("kwire completion "))
	require.Equal(t, []string{"logdir/"}, complete("kwire log logd"))
	require.Contains(t, complete("kwire log logdir/"), "logdir/__consumer_offsets-7/")
}

// zsh completes inside a real interactive zsh on a pty (zsh/zpty): the
// line after a tab is what a user sees.
func TestZshCompletion(t *testing.T) {
	zsh := needTool(t, "zsh")
	complete := func(line, want string) {
		script := `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PS1="> "; autoload -U compinit; compinit -u -D; source <(kwire completion zsh)'
zpty -w -n z "$1"$'\t'
setopt extendedglob
out="" clean=""
for i in {1..150}; do
  if zpty -r -t z chunk; then out+=$chunk; else sleep 0.1; fi
  clean=${out//$'\e'\[[0-9;?]#[a-zA-Z]/}
  [[ $clean == *"$2"* ]] && break
done
zpty -d z
print -r -- "$clean"
`
		cmd := exec.Command(zsh, "-f", "-c", script, "zsh", line, want)
		cmd.Dir = workDir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kwireBin)+":"+os.Getenv("PATH"))
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("zsh did not finish completing %q", line)
		}
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), want, "completing %q", line)
	}
	complete("kwire schema Produ", "kwire schema Produce")
	complete("kwire decode --form", "kwire decode --format=")
	complete("kwire completio", "kwire completion")
	complete("kwire log logd", "kwire log logdir/")
}

// kwire version and --version say the build and the newest Kafka release
// of the schema folders (read here from the folder list itself).
func TestVersion(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"version"}, nil)
	require.Equal(t, 0, code, errOut)
	same, _, code := runCLI(t, []string{"--version"}, nil)
	require.Equal(t, 0, code)
	require.Equal(t, out, same)
	require.True(t, strings.HasPrefix(out, "kwire "), out)
	require.Contains(t, out, "  module  github.com/kwire/kwire\n")
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	require.NoError(t, err)
	require.Contains(t, out, "  go      "+strings.TrimSpace(string(goVersion))+" ")
	// The newest kafka-X.Y folder in the schema folder's ORDER.
	order, err := os.ReadFile(filepath.Join("..", "..", "codec", "schema", "kafka", "ORDER"))
	require.NoError(t, err)
	best, bestFolder := "", ""
	for _, l := range strings.Split(string(order), "\n") {
		if m := regexp.MustCompile(`^kafka-(\d+)\.(\d+)`).FindStringSubmatch(l); m != nil {
			if v := m[1] + "." + m[2]; best == "" || versionLess(best, v) {
				best, bestFolder = v, l
			}
		}
	}
	require.NotEmpty(t, best)
	require.Contains(t, out, "  kafka   "+best+": the newest release whose message schemas it carries ("+bestFolder+"), API keys 0-")
	// A binary built from a git checkout carries the commit (go build
	// stamps it, though not from a git worktree, nor with -buildvcs=false).
	out = versionText(&debug.BuildInfo{Main: debug.Module{Path: "github.com/kwire/kwire", Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "84ac854fdc0b84e63c95d29396a31818b7863983"},
		{Key: "vcs.time", Value: "2026-05-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	require.True(t, strings.HasPrefix(out, "kwire v0.3.0\n  module  github.com/kwire/kwire\n  commit  84ac854fdc0b84e63c95d29396a31818b7863983 (2026-05-01T10:00:00Z, with uncommitted changes)\n  go      go"), out)
	_, errOut, code = runCLI(t, []string{"version", "extra"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "version takes no arguments")
}

func versionLess(a, b string) bool {
	pa, pb := strings.SplitN(a, ".", 2), strings.SplitN(b, ".", 2)
	num := func(s string) int {
		n := 0
		for _, c := range s {
			n = n*10 + int(c-'0')
		}
		return n
	}
	if num(pa[0]) != num(pb[0]) {
		return num(pa[0]) < num(pb[0])
	}
	return num(pa[1]) < num(pb[1])
}
