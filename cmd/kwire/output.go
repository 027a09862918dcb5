package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// colorOn decides whether to colour: --color always|never|auto, where auto
// means a terminal and no NO_COLOR in the environment.
func colorOn(mode string, tty bool) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		_, noColor := os.LookupEnv("NO_COLOR")
		return tty && !noColor, nil
	}
	return false, errorf("--color must be auto, always or never, not %q", mode)
}

// highlightJSON colours JSON for a terminal with chroma.
func highlightJSON(js []byte) []byte {
	lexer := lexers.Get("json")
	it, err := lexer.Tokenise(nil, string(js))
	if err != nil {
		return js
	}
	var out bytes.Buffer
	if err := formatters.Get("terminal256").Format(&out, styles.Get("monokai"), it); err != nil {
		return js
	}
	return out.Bytes()
}

func indentJSON(js []byte) []byte {
	var ind bytes.Buffer
	if json.Indent(&ind, js, "", "  ") != nil {
		return js
	}
	return ind.Bytes()
}

const (
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

// treeText writes the tree indented, each line with its byte range and the
// bytes it covers.
func treeText(f *codec.Frame, color bool) string {
	var b strings.Builder
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	var walk func(n *tree.Node, depth int)
	walk = func(n *tree.Node, depth int) {
		name := n.Name
		if n.Field != nil {
			name = n.Field.JSON
		}
		if n.Role == tree.RoleElement {
			name = "[" + strconv.Itoa(n.Index) + "]"
		}
		rng := "[" + strconv.Itoa(n.Start) + "," + strconv.Itoa(n.End) + ")"
		if n.Buf > 0 {
			rng = "buf" + strconv.Itoa(n.Buf) + rng
		}
		line := strings.Repeat("  ", depth) + paint(ansiBold, name)
		if n.Type != "" {
			line += " " + paint(ansiDim, n.Type)
		}
		if len(n.Children) == 0 || n.Kind == 0 {
			if v := render.ShortValue(n, f.APIKey); v != "" && n.Role != tree.RoleFrame {
				line += " = " + v
			}
		}
		pad := 60 - len([]rune(stripANSI(line)))
		if pad < 1 {
			pad = 1
		}
		line = paint(ansiCyan, padRight(rng, 14)) + line + strings.Repeat(" ", pad)
		if len(n.Children) == 0 && n.Buf < len(f.Buffers) {
			raw := f.Buffers[n.Buf][n.Start:n.End]
			h := hex.EncodeToString(raw[:min(len(raw), 16)])
			var sp strings.Builder
			for i := 0; i < len(h); i += 2 {
				if i > 0 {
					sp.WriteByte(' ')
				}
				sp.WriteString(h[i : i+2])
			}
			if len(raw) > 16 {
				sp.WriteString(" …")
			}
			line += paint(ansiDim, sp.String())
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		for _, w := range n.Warnings {
			b.WriteString(strings.Repeat(" ", 14) + strings.Repeat("  ", depth+1) + paint(ansiRed, "warning: "+w) + "\n")
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(f.Root, 0)
	return b.String()
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-len(s))
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// gridText draws the RFC-style grid of every buffer.
func gridText(f *codec.Frame) string {
	var b strings.Builder
	for i := range f.Buffers {
		cells := render.Cells(f, i)
		if len(cells) == 0 {
			continue
		}
		if i > 0 {
			b.WriteString("\nderived buffer " + strconv.Itoa(i) + " (" + strconv.Itoa(len(f.Buffers[i])) + " bytes, decompressed)\n")
		}
		b.WriteString(render.Terminal(cells, render.Layout(cells, 4, 32, nil)))
	}
	return b.String()
}
