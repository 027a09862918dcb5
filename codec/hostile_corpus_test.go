package codec_test

import (
	"errors"
	"os"
	"reflect"
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
// (Decode and Frame.AppendJSON) or "fast" (Decoder.AppendJSON, no tree).
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
	if _, ok := fastAppendJSON(); !ok {
		t.Skip("codec.Decoder has no AppendJSON(dst, b, Options, JSONOptions) ([]byte, Info, error) yet: the fast path is not on this branch")
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
	var out []byte
	var derr error
	hostile.Measure(&r, func() {
		if path == "fast" {
			out, derr = decodeFast(e, b)
		} else {
			out, derr, r.Guessed = decodeTree(e, b)
		}
	})
	hostileFill(&r.Outcome, e, out, derr)
	hostile.WriteReport(r)
}

// hostileOptions reads e as its mode says. With no hints (Auto), the
// codec's own guessing is used where Options has it (a bool field Auto:
// a request when it decodes cleanly as one, else the likeliest
// response), found through reflection so this compiles before it lands.
func hostileOptions(e hostile.Entry) (o codec.Options, auto bool) {
	switch e.Mode {
	case hostile.Response:
		o.Response, o.APIKey, o.Version = true, e.APIKey, e.Version
	case hostile.Auto:
		if f := reflect.ValueOf(&o).Elem().FieldByName("Auto"); f.IsValid() && f.Kind() == reflect.Bool {
			f.SetBool(true)
			auto = true
		}
	}
	return o, auto
}

// decodeTree reads e as kwire decode does: a request, or a pinned
// response, or with no hints a request and else the likeliest response
// (by Options.Auto, or else as kwire decode did before it: GuessResponse
// after a failed request). A size prefix that is wrong is an error, never
// a reason to guess.
func decodeTree(e hostile.Entry, b []byte) ([]byte, error, bool) {
	o, auto := hostileOptions(e)
	f, err := codec.Decode(b, o)
	guessed := false
	var de *codec.DecodeError
	if err != nil && e.Mode == hostile.Auto && !auto && !(errors.As(err, &de) && de.Path == "size") {
		if c := codec.GuessResponse(b, codec.GuessOptions{}); len(c) > 0 {
			f, err, guessed = c[0].Frame, nil, true
		}
	}
	if f == nil || f.Root == nil {
		return nil, err, guessed
	}
	return f.AppendJSON(nil, codec.JSONOptions{}), err, guessed
}

// fastAppendJSON finds the tree-less fast path, (*codec.Decoder).AppendJSON,
// through reflection: it is another track's work, and this test must
// compile before it lands.
func fastAppendJSON() (reflect.Value, bool) {
	m := reflect.ValueOf(new(codec.Decoder)).MethodByName("AppendJSON")
	if !m.IsValid() {
		return m, false
	}
	mt := m.Type()
	ok := mt.NumIn() == 4 && mt.NumOut() == 3 &&
		mt.In(2) == reflect.TypeOf(codec.Options{}) && mt.In(3) == reflect.TypeOf(codec.JSONOptions{}) &&
		mt.Out(0) == reflect.TypeOf([]byte(nil)) && mt.Out(2) == reflect.TypeOf((*error)(nil)).Elem()
	if !ok {
		panic("codec.Decoder.AppendJSON has an unexpected signature: " + mt.String())
	}
	return m, true
}

func decodeFast(e hostile.Entry, b []byte) ([]byte, error) {
	m, ok := fastAppendJSON()
	if !ok {
		return nil, errors.New("no fast path")
	}
	o, _ := hostileOptions(e)
	res := m.Call([]reflect.Value{reflect.ValueOf([]byte(nil)), reflect.ValueOf(b),
		reflect.ValueOf(o), reflect.ValueOf(codec.JSONOptions{})})
	out := res[0].Bytes()
	err, _ := res[2].Interface().(error)
	return out, err
}

// hostileFill reads a decode's JSON and error into o.
func hostileFill(o *hostile.Outcome, e hostile.Entry, out []byte, err error) {
	scan := hostile.JSONScan{CountKey: e.Expect.CountKey}
	scan.Write(out)
	scan.Fill(o)
	if err != nil {
		o.Err, o.ErrText, o.ErrOff = true, err.Error(), -1
		var de *codec.DecodeError
		if errors.As(err, &de) {
			o.ErrPath, o.ErrOff = de.Path, de.Offset
		}
	}
}
