package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// Varint vectors from the protobuf encoding Kafka adopted (KIP-482 for
// unsigned varints, the record format's zig-zag varints).
func TestVarints(t *testing.T) {
	uv := []struct {
		v   uint32
		enc []byte
	}{
		{0, []byte{0}}, {1, []byte{1}}, {127, []byte{0x7f}}, {128, []byte{0x80, 1}},
		{300, []byte{0xac, 0x02}}, {math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, c := range uv {
		require.Equal(t, c.enc, AppendUvarint(nil, c.v))
		v, n, minimal := Uvarint(c.enc)
		require.Equal(t, [3]any{c.v, len(c.enc), true}, [3]any{v, n, minimal})
		require.Equal(t, len(c.enc), UvarintLen(uint64(c.v)))
	}
	zz := []struct {
		v   int32
		enc []byte
	}{{0, []byte{0}}, {-1, []byte{1}}, {1, []byte{2}}, {-2, []byte{3}}, {63, []byte{0x7e}}, {-64, []byte{0x7f}}, {64, []byte{0x80, 1}},
		{math.MaxInt32, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}}, {math.MinInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}}}
	for _, c := range zz {
		require.Equal(t, c.enc, AppendVarint(nil, c.v))
		v, _, _ := Varint(c.enc)
		require.Equal(t, c.v, v)
	}
	for _, v := range []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 1 << 40} {
		got, _, _ := Varlong(AppendVarlong(nil, v))
		require.Equal(t, v, got)
	}
}

func TestFrames(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteFrame(&buf, []byte("hello")))
	require.NoError(t, WriteFrame(&buf, nil))
	f, err := ReadFrame(&buf, nil, 100)
	require.NoError(t, err)
	require.Equal(t, []byte("\x00\x00\x00\x05hello"), f)
	f, err = ReadFrame(&buf, f, 100)
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0, 0, 0}, f)
	_, err = ReadFrame(&buf, nil, 100)
	require.Equal(t, io.EOF, err)

	_, err = ReadFrame(bytes.NewReader([]byte{0x7f, 0, 0, 0}), nil, 1<<20)
	var we *Error
	require.ErrorAs(t, err, &we)
	require.Equal(t, "wire: at byte 0: expected a frame size from 0 to 1048576, found 2130706432", err.Error())
	_, err = ReadFrame(bytes.NewReader([]byte{0xff, 0, 0, 0}), nil, 1<<20)
	require.ErrorAs(t, err, &we)
	require.Equal(t, "-16777216", we.Found)
	_, err = ReadFrame(bytes.NewReader([]byte{0, 0, 0, 9, 1}), nil, 1<<20)
	require.True(t, errors.Is(err, io.ErrUnexpectedEOF))
}

// The slice decoders the records parser uses agree with the Reader's and
// say what the Reader says: too short, too long, or not minimal.
func TestSliceVarints(t *testing.T) {
	for _, c := range []struct {
		name    string
		b       []byte
		u       uint32
		n       int
		minimal bool
	}{
		{"one byte", []byte{0x05}, 5, 1, true},
		{"zero", []byte{0x00}, 0, 1, true},
		{"two bytes", []byte{0xac, 0x02}, 300, 2, true},
		{"padded with a zero byte", []byte{0x85, 0x00}, 5, 2, false},
		{"max uint32", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 0xffffffff, 5, true},
		{"bits beyond 32", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 0xffffffff, 5, false},
		{"ends inside", []byte{0x80, 0x80}, 0, 0, false},
		{"empty", nil, 0, 0, false},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0, -1, false},
	} {
		v, n, minimal := Uvarint(c.b)
		require.Equal(t, c.u, v, c.name)
		require.Equal(t, c.n, n, c.name)
		require.Equal(t, c.minimal, minimal, c.name)
	}
	for _, v := range []int32{0, -1, 1, -64, 64, math.MaxInt32, math.MinInt32} {
		got, n, minimal := Varint(AppendVarint(nil, v))
		require.Equal(t, v, got)
		require.Equal(t, len(AppendVarint(nil, v)), n)
		require.True(t, minimal)
	}
	for _, v := range []int64{0, -1, 1 << 40, math.MaxInt64, math.MinInt64} {
		got, n, minimal := Varlong(AppendVarlong(nil, v))
		require.Equal(t, v, got)
		require.Equal(t, len(AppendVarlong(nil, v)), n)
		require.True(t, minimal)
	}
	ten := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}
	_, n, minimal := Varlong(ten)
	require.Equal(t, 10, n)
	require.False(t, minimal, "bits beyond 64")
}

func TestSplitFrame(t *testing.T) {
	two := []byte{0, 0, 0, 2, 'a', 'b', 0, 0, 0, 0, 9}
	f, rest, ok := SplitFrame(two, 0)
	require.True(t, ok)
	require.Equal(t, []byte{0, 0, 0, 2, 'a', 'b'}, f)
	require.Equal(t, len(f), cap(f), "appending to a frame cannot overwrite the next")
	f, rest, ok = SplitFrame(rest, 0)
	require.True(t, ok)
	require.Equal(t, []byte{0, 0, 0, 0}, f)
	require.Equal(t, []byte{9}, rest)
	for name, b := range map[string][]byte{
		"short prefix": {0, 0, 1},
		"past the end": {0, 0, 0, 3, 'a', 'b'},
		"negative":     {0xff, 0xff, 0xff, 0xff, 'a'},
		"over max":     {0, 0, 0, 2, 'a', 'b'},
	} {
		_, rest, ok := SplitFrame(b, 1)
		require.False(t, ok, name)
		require.Equal(t, b, rest, name)
	}
	size, ok := SizePrefix([]byte{0x80, 0, 0, 0})
	require.True(t, ok)
	require.Equal(t, int32(math.MinInt32), size)
}

// A peer that declares a large frame and sends little of it costs what it
// sent, not what it declared: ReadFrame grows its buffer with the bytes
// that arrive. A frame sent whole, in pieces, still reads whole.
func TestReadFrameGrowsWithBytesRead(t *testing.T) {
	allocated := func(fn func()) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		fn()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	const max = 64 << 20
	for _, sent := range []int{0, 1000, 100 << 10} {
		in := append([]byte{0x03, 0xff, 0xff, 0xff}, make([]byte, sent)...) // declares 64 MiB - 1
		var err error
		got := allocated(func() { _, err = ReadFrame(bytes.NewReader(in), nil, max) })
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.Less(t, got, uint64(3*sent+256<<10), "declared 64 MiB, sent %d bytes", sent)
	}

	payload := make([]byte, 3<<20+17)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	var conn bytes.Buffer
	require.NoError(t, WriteFrame(&conn, payload))
	require.NoError(t, WriteFrame(&conn, []byte("next")))
	r := iotest.HalfReader(&conn)
	f, err := ReadFrame(r, nil, max)
	require.NoError(t, err)
	require.Equal(t, len(payload)+4, len(f))
	require.Equal(t, payload, f[4:])
	reused := f
	f, err = ReadFrame(r, reused, max)
	require.NoError(t, err)
	require.Equal(t, []byte("\x00\x00\x00\x04next"), f)
	require.Same(t, &reused[0], &f[0], "a buffer that holds the frame is reused")
}
