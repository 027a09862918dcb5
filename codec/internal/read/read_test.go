package read

import (
	"testing"

	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

func TestReaderErrorsAreStickyWithOffsets(t *testing.T) {
	r := newReader([]byte{0, 1, 2})
	require.Equal(t, int16(1), r.Int16())
	require.Equal(t, int32(0), r.Int32())
	require.Equal(t, 2, r.Err.Offset)
	require.ErrorIs(t, r.Err, wire.ErrShort)
	require.Equal(t, "wire: at byte 2: expected 4 bytes for int32, found 1 byte left", r.Err.Error())
	require.Equal(t, int8(0), r.Int8(), "reads after a failure return zero")
	require.Equal(t, 2, r.Err.Offset, "the first failure is kept")

	r = newReader([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	r.Uvarint()
	require.ErrorIs(t, r.Err, wire.ErrVarint)
	require.Equal(t, 0, r.Err.Offset)

	r = newReader([]byte{5})
	require.Nil(t, r.Span(-1, "x"))
	require.Nil(t, r.Span(2, "bytes"))
	require.Equal(t, "wire: at byte 0: expected 2 bytes for bytes, found 1 byte left", r.Err.Error())
}

func newReader(b []byte) *Reader { return &Reader{B: b} }

// A Reader's varints are package wire's: the same values, lengths and
// minimality, with a failure where the slice form says the bytes end.
func TestReaderVarintsAreWires(t *testing.T) {
	for _, b := range [][]byte{{0x05}, {0x00}, {0xac, 0x02}, {0x85, 0x00}, {0xff, 0xff, 0xff, 0xff, 0x0f},
		{0xff, 0xff, 0xff, 0xff, 0x1f}, {0x80, 0x80}, nil, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}} {
		v, n, minimal := wire.Uvarint(b)
		r := Reader{B: b}
		rv, rmin := r.UvarintMinimal()
		if n > 0 {
			require.Nil(t, r.Err)
			require.Equal(t, [3]any{v, minimal, n}, [3]any{rv, rmin, r.Off})
		} else {
			require.NotNil(t, r.Err)
		}
	}
}
