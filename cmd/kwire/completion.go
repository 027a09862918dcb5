package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// Shell completion, written from the command table: each command's flags
// are learnt by running its --help with newFlags collecting the flag set
// (nothing is typed twice), flag values from the choices each flag's
// usage lists ("output: json, ndjson or tree"), and API names from the
// schema tables. What a command's arguments are (files, API names, the
// words of its synopsis's "a|b|c", or none) the command table declares
// (command.args), whatever words its usage line uses for them.

// flagSet is a command's flag set and synopsis, as newFlags made them.
type flagSet struct {
	fs       *flag.FlagSet
	synopsis string
}

// complFlag is one flag for completion.
type complFlag struct {
	name    string
	usage   string   // its first clause, for the shells that show one
	value   bool     // takes a value (not a bool flag)
	choices []string // the values it takes, when its usage lists them
	apis    bool     // takes an API name
	files   string   // "file" or "dir" when it takes a path (its usage says FILE or DIR)
}

// complCommand is one command for completion.
type complCommand struct {
	name, summary string
	flags         []complFlag
	args          string   // "api", "choices", "files" or "none"
	choices       []string // for args == "choices"
}

func runCompletion(e *env, args []string) int {
	fs := newFlags(e, "completion", "bash|zsh|fish   (bash: source <(kwire completion bash); zsh: source <(kwire completion zsh) after compinit; fish: kwire completion fish | source)",
		"kwire completion bash", "kwire completion zsh", "kwire completion fish")
	rest, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) != 1 {
		fail(e, "completion needs one shell: bash, zsh or fish")
		return 2
	}
	cmds := completionCommands()
	var out string
	switch rest[0] {
	case "bash":
		out = bashCompletion(cmds)
	case "zsh":
		out = zshCompletion(cmds)
	case "fish":
		out = fishCompletion(cmds)
	default:
		fail(e, "completion: unknown shell %q: bash, zsh or fish", rest[0])
		return 2
	}
	io.WriteString(e.stdout, out)
	return 0
}

// completionCommands learns every command's flags from the command table.
func completionCommands() []complCommand {
	var out []complCommand
	for _, c := range commands {
		var sets []flagSet
		quiet := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, flagSets: &sets}
		c.run(quiet, []string{"--help"})
		cc := complCommand{name: c.name, summary: c.summary, args: [...]string{argsNone: "none", argsFiles: "files", argsAPI: "api", argsChoices: "choices"}[c.args]}
		if len(sets) > 0 {
			s := sets[0]
			s.fs.VisitAll(func(f *flag.Flag) {
				_, plain := flag.UnquoteUsage(f)
				cf := complFlag{name: f.Name, usage: firstClause(plain), value: !isBoolFlag(f)}
				if cf.value {
					cf.choices = usageChoices(f.Usage)
					cf.apis = f.Name == "api"
					switch name, _ := flag.UnquoteUsage(f); name {
					case "FILE":
						cf.files = "file"
					case "DIR":
						cf.files = "dir"
					}
				}
				cc.flags = append(cc.flags, cf)
			})
			if c.args == argsChoices {
				first, _, _ := strings.Cut(strings.TrimSpace(s.synopsis), " ")
				cc.choices = strings.Split(first, "|")
			}
		}
		out = append(out, cc)
	}
	return out
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// usageChoices reads the values a flag's usage lists after its first
// colon ("colour: auto (on a terminal), always or never"): each a single
// lower-case word; nil when the text is not such a list.
func usageChoices(usage string) []string {
	_, list, ok := strings.Cut(usage, ": ")
	if !ok {
		return nil
	}
	// Drop parenthesised asides, then stop at the end of the clause.
	var b strings.Builder
	depth := 0
	for _, r := range list {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	list, _, _ = strings.Cut(b.String(), ";")
	list = strings.ReplaceAll(list, " or ", ", ")
	var out []string
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && (r < '0' || r > '9') }) {
			return nil
		}
		out = append(out, w)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// firstClause is a flag's usage up to the end of its first clause (a
// colon or semicolon ending a word, or an aside in parentheses): what a
// shell shows beside it.
func firstClause(usage string) string {
	for _, sep := range []string{": ", "; ", " ("} {
		if i := strings.Index(usage, sep); i > 0 {
			usage = usage[:i]
		}
	}
	return strings.TrimSpace(usage)
}

func apiNames() []string {
	var names []string
	for _, a := range schema.APIs() {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return names
}

func commandNames(cmds []complCommand) string {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	return strings.Join(names, " ")
}

// ---- bash ----

func bashCompletion(cmds []complCommand) string {
	var b bytes.Buffer
	b.WriteString("# bash completion for kwire, written by kwire completion bash.\n")
	b.WriteString("# Load it with: source <(kwire completion bash)\n")
	fmt.Fprintf(&b, "_kwire_apis=%q\n", strings.Join(apiNames(), " "))
	b.WriteString(`_kwire() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=${COMP_WORDS[1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
`)
	fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n", commandNames(cmds)+" help --help --version")
	b.WriteString("        return\n    fi\n")
	b.WriteString("    case \"$cmd\" in\n")
	fmt.Fprintf(&b, "    help) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W %q -- \"$cur\")); return;;\n", commandNames(cmds))
	b.WriteString("    esac\n")
	// A flag that takes a value: complete the value.
	b.WriteString("    case \"$cmd $prev\" in\n")
	for _, c := range cmds {
		for _, f := range c.flags {
			if !f.value {
				continue
			}
			pat := fmt.Sprintf("%q|%q", c.name+" -"+f.name, c.name+" --"+f.name)
			switch {
			case f.apis:
				fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W \"$_kwire_apis\" -- \"$cur\")); return;;\n", pat)
			case len(f.choices) > 0:
				fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return;;\n", pat, strings.Join(f.choices, " "))
			case f.files == "file":
				fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n", pat)
			case f.files == "dir":
				fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n", pat)
			default:
				fmt.Fprintf(&b, "    %s) return;;\n", pat)
			}
		}
	}
	b.WriteString("    esac\n")
	b.WriteString("    if [[ $cur == -* ]]; then\n        case \"$cmd\" in\n")
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "--"+f.name)
		}
		fl = append(fl, "--help")
		fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\"));;\n", c.name, strings.Join(fl, " "))
	}
	b.WriteString("        esac\n        return\n    fi\n")
	b.WriteString("    case \"$cmd\" in\n")
	for _, c := range cmds {
		switch c.args {
		case "api":
			fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W \"$_kwire_apis\" -- \"$cur\"));;\n", c.name)
		case "choices":
			fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\"));;\n", c.name, strings.Join(c.choices, " "))
		}
	}
	var files []string
	for _, c := range cmds {
		if c.args == "files" {
			files = append(files, c.name)
		}
	}
	fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -f -- \"$cur\"));;\n    esac\n}\n", strings.Join(files, "|"))
	b.WriteString("complete -o filenames -F _kwire kwire\n")
	return b.String()
}

// ---- zsh ----

// zshQuote escapes text for a single-quoted _arguments spec or
// _describe entry: quotes, brackets and colons.
func zshQuote(s string) string {
	r := strings.NewReplacer(`'`, `'\''`, `[`, `\[`, `]`, `\]`, `:`, `\:`)
	return r.Replace(s)
}

func zshCompletion(cmds []complCommand) string {
	var b bytes.Buffer
	b.WriteString("#compdef kwire\n# zsh completion for kwire, written by kwire completion zsh.\n")
	b.WriteString("# Load it with: source <(kwire completion zsh) (after compinit), or save it as _kwire on $fpath.\n")
	b.WriteString("_kwire() {\n")
	b.WriteString("    local -a kwire_apis\n")
	b.WriteString("    kwire_apis=(" + strings.Join(apiNames(), " ") + ")\n")
	b.WriteString("    if (( CURRENT == 2 )); then\n        local -a cmds\n        cmds=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "            '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString("        )\n        _describe -t commands 'kwire command' cmds\n        return\n    fi\n")
	b.WriteString("    local cmd=${words[2]}\n")
	b.WriteString("    (( CURRENT -= 1 )); shift words\n")
	b.WriteString("    case $cmd in\n")
	b.WriteString("    help) _describe -t commands 'kwire command' '(" + commandNames(cmds) + ")';;\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s)\n        _arguments -s \\\n", c.name)
		for _, f := range c.flags {
			desc := zshQuote(f.usage)
			switch {
			case !f.value:
				fmt.Fprintf(&b, "            '--%s[%s]' \\\n", f.name, desc)
			case f.apis:
				fmt.Fprintf(&b, "            '--%s=[%s]:API:($kwire_apis)' \\\n", f.name, desc)
			case len(f.choices) > 0:
				fmt.Fprintf(&b, "            '--%s=[%s]:%s:(%s)' \\\n", f.name, desc, f.name, strings.Join(f.choices, " "))
			case f.files == "file":
				fmt.Fprintf(&b, "            '--%s=[%s]:%s:_files' \\\n", f.name, desc, f.name)
			case f.files == "dir":
				fmt.Fprintf(&b, "            '--%s=[%s]:%s:_files -/' \\\n", f.name, desc, f.name)
			default:
				fmt.Fprintf(&b, "            '--%s=[%s]:%s: ' \\\n", f.name, desc, f.name)
			}
		}
		b.WriteString("            '--help[show the usage]' \\\n")
		switch c.args {
		case "api":
			b.WriteString("            '1:API:($kwire_apis)'\n")
		case "choices":
			fmt.Fprintf(&b, "            '1:%s:(%s)'\n", c.name, strings.Join(c.choices, " "))
		case "files":
			b.WriteString("            '*:file:_files'\n")
		default:
			b.WriteString("            '*: :'\n")
		}
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n}\n")
	b.WriteString("if [ \"$funcstack[1]\" = \"_kwire\" ]; then\n    _kwire \"$@\"\nelse\n    compdef _kwire kwire\nfi\n")
	return b.String()
}

// ---- fish ----

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion(cmds []complCommand) string {
	var b bytes.Buffer
	b.WriteString("# fish completion for kwire, written by kwire completion fish.\n")
	b.WriteString("# Load it with: kwire completion fish | source, or save it in ~/.config/fish/completions/kwire.fish\n")
	b.WriteString("complete -c kwire -f\n")
	b.WriteString("set -l kwire_apis " + strings.Join(apiNames(), " ") + "\n")
	b.WriteString("set -l kwire_commands " + commandNames(cmds) + " help\n")
	b.WriteString("complete -c kwire -n \"not __fish_seen_subcommand_from $kwire_commands\" -l version -d 'print the build'\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c kwire -n \"not __fish_seen_subcommand_from $kwire_commands\" -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	b.WriteString("complete -c kwire -n \"not __fish_seen_subcommand_from $kwire_commands\" -a help -d 'show a command\\'s usage'\n")
	b.WriteString("complete -c kwire -n \"__fish_seen_subcommand_from help\" -a \"" + commandNames(cmds) + "\"\n")
	for _, c := range cmds {
		cond := fmt.Sprintf("-n \"__fish_seen_subcommand_from %s\"", c.name)
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c kwire %s -l %s -d %s", cond, f.name, fishQuote(f.usage))
			switch {
			case !f.value:
			case f.apis:
				line += " -x -a \"$kwire_apis\""
			case len(f.choices) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.choices, " "))
			case f.files != "":
				line += " -r -F"
			default:
				line += " -x"
			}
			b.WriteString(line + "\n")
		}
		fmt.Fprintf(&b, "complete -c kwire %s -l help -d 'show the usage'\n", cond)
		switch c.args {
		case "api":
			fmt.Fprintf(&b, "complete -c kwire %s -a \"$kwire_apis\"\n", cond)
		case "choices":
			fmt.Fprintf(&b, "complete -c kwire %s -a %s\n", cond, fishQuote(strings.Join(c.choices, " ")))
		case "files":
			fmt.Fprintf(&b, "complete -c kwire %s -F\n", cond)
		}
	}
	return b.String()
}
