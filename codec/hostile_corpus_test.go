//go:build !js

package codec_test

import (
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/hostile"
)

// The hostile corpus (testdata/hostile, see its MANIFEST) through the codec
// in-process, with the CLI's default limits: each entry is decoded in a
// child process of this test binary (under a 4 GiB address-space cap, so
// a decoder gone wrong takes down only the child), which reports the
// memory it took and what it found. The contract (issue 11): any frame up
// to 1 MiB decodes in under 256 MiB, and the user gets the entry's
// warning or error.
const hostileCLIBound = 256 << 20

// hostilePathEnv selects the path a child decodes through: "tree"
// (Decode and Frame.AppendJSON) or "fast" (Decoder.WriteJSON, no tree).
const hostilePathEnv = "KWIRE_HOSTILE_PATH"

func TestHostileCodecTree(t *testing.T) {
	if e, ok := hostile.ChildEntry(); ok {
		hostileCodecChild(e, os.Getenv(hostilePathEnv))
		return
	}
	hostileCodec(t, "TestHostileCodecTree", "tree")
}

func TestHostileCodecFast(t *testing.T) {
	if e, ok := hostile.ChildEntry(); ok {
		hostileCodecChild(e, os.Getenv(hostilePathEnv))
		return
	}
	hostileCodec(t, "TestHostileCodecFast", "fast")
}

func hostileCodec(t *testing.T, test, path string) {
	for _, e := range hostile.Frames() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			r, u, ok := hostile.RunChild(t, test, e, hostilePathEnv+"="+path)
			if !ok {
				return
			}
			if r.Skip != "" {
				t.Fatal(r.Skip)
			}
			t.Logf("%s: %s; RSS %s -> %s, live heap +%s, allocated %s", path, u, hostile.MiB(r.RSSBefore), hostile.MiB(r.HWM),
				hostile.MiB(int64(r.PeakLive)), hostile.MiB(int64(r.TotalAlloc)))
			for _, p := range e.Check(r.Outcome) {
				t.Error(p)
			}
			if r.Mismatch != "" {
				t.Error(r.Mismatch)
			}
			if grew := r.HWM - r.RSSBefore; grew > hostileCLIBound {
				t.Errorf("decoding grew the resident set by %s; the bound is %s", hostile.MiB(grew), hostile.MiB(hostileCLIBound))
			}
			if r.PeakLive > hostileCLIBound {
				t.Errorf("a collection saw %s live; the bound is %s", hostile.MiB(int64(r.PeakLive)), hostile.MiB(hostileCLIBound))
			}
		})
	}
}

// hostileCodecChild decodes e as the CLI would and reports.
func hostileCodecChild(e hostile.Entry, path string) {
	var r hostile.Report
	b, err := hostile.Load(e)
	if err != nil {
		r.Skip = err.Error()
		hostile.WriteReport(r)
		return
	}
	o := hostileOptions(e)
	scan := hostile.JSONScan{CountKey: e.Expect.CountKey, Want: e.Expect.Warning}
	var ws []codec.Warning
	var guess *codec.Guess
	var derr error
	var out []byte
	hostile.Measure(&r, func() {
		if path == "fast" {
			// Streamed, as kwire decode writes it: the scan holds a few
			// bytes of state, never the document.
			var fr *codec.Frame
			fr, derr = new(codec.Decoder).WriteJSON(&scan, b, o)
			ws, guess = fr.Warnings, fr.Guess
			return
		}
		f, err := codec.Decode(b, o)
		derr = err
		if f != nil && f.Root != nil {
			out = f.AppendJSON(nil)
			ws, guess = f.Warnings, f.Guess
		}
	})
	scan.Write(out)
	hostileFill(&r, e, &scan, ws, guess, derr)
	hostile.WriteReport(r)
}

// hostileOptions reads e as its mode says: a request, a pinned response,
// or with no hints (Auto) a request when it decodes cleanly as one and
// else the likeliest response. A size prefix that is wrong is an error
// either way, never a reason to guess.
func hostileOptions(e hostile.Entry) (o codec.Options) {
	switch e.Mode {
	case hostile.Response:
		o.Response, o.APIKey, o.Version = true, e.APIKey, e.Version
	case hostile.Auto:
		o.Auto = true
	}
	return o
}

// hostileFill puts what the codec said into r: its warnings and guess
// from the API (Frame.Warnings and Frame.Guess, or Info's), the items and
// the envelope's "warnings" and "guess" from the JSON, and whether the
// two agree.
func hostileFill(r *hostile.Report, e hostile.Entry, scan *hostile.JSONScan, ws []codec.Warning, g *codec.Guess, err error) {
	o := &r.Outcome
	o.Counted = scan.Counted
	for _, w := range ws {
		o.AddWarning(hostile.Warning{Offset: w.Offset, Buf: w.Buf, Path: w.Path, Message: w.Message, Limit: w.Limit}, e.Expect.Warning)
	}
	if g != nil {
		o.Guessed, o.GuessLimit = true, g.Cut
	}
	// The JSON envelope says the same as the API: every warning, and the
	// guess when there was one. (A frame that failed may have no
	// envelope end.)
	var fromJSON hostile.Outcome
	scan.Fill(&fromJSON)
	if err == nil {
		if scan.Bad != "" {
			r.Mismatch = scan.Bad
		} else if fromJSON.WarningCount != len(ws) {
			r.Mismatch = "the JSON's \"warnings\" holds " + strconv.Itoa(fromJSON.WarningCount) + " warnings, the codec returned " + strconv.Itoa(len(ws))
		} else if fromJSON.Guessed != (g != nil) {
			r.Mismatch = "the JSON's \"guess\" is present: " + strconv.FormatBool(fromJSON.Guessed) + "; the codec's Guess: " + strconv.FormatBool(g != nil)
		} else if g != nil && fromJSON.GuessLimit != g.Cut {
			r.Mismatch = "the JSON's guess says cut: " + strconv.FormatBool(fromJSON.GuessLimit) + "; Guess.Cut: " + strconv.FormatBool(g.Cut)
		}
	}
	if err != nil {
		o.Err, o.ErrText, o.ErrOff = true, err.Error(), -1
		var de *codec.DecodeError
		if errors.As(err, &de) {
			o.ErrPath, o.ErrOff = de.Path, de.Offset
		}
	}
}
