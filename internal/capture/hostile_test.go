package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGzipPcap(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 2)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, err := w.Write(b.pcap())
	require.NoError(t, err)
	require.NoError(t, w.Close())
	r, err := Read(&z, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
}

func TestHostileSnaplen(t *testing.T) {
	// A header snap length of 4 GiB must not make us allocate it, and
	// packets longer than the declared snap length are still read.
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 2)
	data := b.pcap()
	for _, snap := range []uint32{0xffffffff, 10} {
		binary.LittleEndian.PutUint32(data[16:], snap)
		r, err := Read(bytes.NewReader(data), Options{})
		require.NoError(t, err)
		assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
	}
}

func TestPcapBigEndianMicros(t *testing.T) {
	// hand-written big-endian microsecond pcap with one Raw IPv4 packet
	b := newTB(t, layers.LinkTypeRaw)
	simple(b, 1)
	var out bytes.Buffer
	hdr := []uint32{0xa1b2c3d4, 0x00020004, 0, 0, 65535, linkRaw}
	for i, v := range hdr {
		if i == 1 {
			out.Write([]byte{0, 2, 0, 4})
			continue
		}
		binary.Write(&out, binary.BigEndian, v)
	}
	for i, p := range b.pkts {
		binary.Write(&out, binary.BigEndian, []uint32{uint32(b.times[i].Unix()), uint32(b.times[i].Nanosecond() / 1000), uint32(len(p)), uint32(len(p))})
		out.Write(p)
	}
	r, err := Read(&out, Options{})
	require.NoError(t, err)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	assert.Equal(t, b.times[3].Truncate(1000), r.Exchanges[0].Request.Time)
}

func TestCorruptPcapngBlock(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 3)
	data := b.pcapng()
	// find the 8th enhanced packet block and give it a 4 GiB capture length
	off, n := 0, 0
	for off+8 <= len(data) {
		typ := binary.LittleEndian.Uint32(data[off:])
		blen := int(binary.LittleEndian.Uint32(data[off+4:]))
		if typ == 6 {
			n++
			if n == 8 {
				binary.LittleEndian.PutUint32(data[off+20:], 0xfffffff0)
				break
			}
		}
		off += blen
	}
	require.Equal(t, 8, n)
	r, err := Read(bytes.NewReader(data), Options{})
	require.NoError(t, err)
	assert.True(t, r.Truncated())
	assert.Equal(t, 7, r.Packets)
	assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
	// and a block length that is not a multiple of 4
	data = b.pcapng()
	binary.LittleEndian.PutUint32(data[4:], 0x1d)
	_, err = Read(bytes.NewReader(data), Options{})
	assert.ErrorIs(t, err, ErrFormat)
}

func TestHugeTimestampResolution(t *testing.T) {
	// An interface description block whose if_tsresol option is 10^64
	// (it made pcapgo divide by zero): the resolution is refused and the
	// microsecond default kept, so the packets still read.
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 1)
	data := b.pcapng()
	shb := int(binary.LittleEndian.Uint32(data[4:]))
	idbLen := int(binary.LittleEndian.Uint32(data[shb+4:]))
	// rebuild the IDB: linktype 1, snaplen, option 9 (tsresol) = 64, end
	idb := binary.LittleEndian.AppendUint32(nil, 1)
	idb = binary.LittleEndian.AppendUint32(idb, 32)
	idb = binary.LittleEndian.AppendUint16(idb, 1)
	idb = binary.LittleEndian.AppendUint16(idb, 0)
	idb = binary.LittleEndian.AppendUint32(idb, 65536)
	idb = append(idb, 9, 0, 1, 0, 64, 0, 0, 0, 0, 0, 0, 0)
	idb = binary.LittleEndian.AppendUint32(idb, 32)
	patched := append(append(bytes.Clone(data[:shb]), idb...), data[shb+idbLen:]...)
	r, err := Read(bytes.NewReader(patched), Options{})
	require.NoError(t, err)
	assert.False(t, r.Truncated())
	assert.Equal(t, []int32{1}, pairedCorrs(r))
}

// allocatedPerRead is the bytes Read allocates reading data, on average
// over a few reads: a count of work, not a time.
func allocatedPerRead(t *testing.T, data []byte) uint64 {
	const reads = 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range reads {
		if _, err := Read(bytes.NewReader(data), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / reads
}

// TestDeclaredPacketSizeCostsBytesGiven: a record or block header that
// declares a packet of 1 MiB (the most Read takes) in a file that ends a
// few bytes later (the hostile corpus: testdata/hostile/pcap-declares-1mib.pcap and pcapng-declares-1mib.pcapng) cost a 1 MiB allocation for each
// such file, the buffer made at the size declared before a byte of it
// was read: 48 bytes of input, 1 MiB of memory cleared (and 265 µs of a
// fuzzer's time each, most of the inputs it made from them). The buffer
// now grows with the bytes read. And a capture of a few bytes is no
// longer read through a 64 KiB buffer: a reader whose length is known
// (bytes.Reader) gets a buffer of that length.
func TestDeclaredPacketSizeCostsBytesGiven(t *testing.T) {
	empty := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0}
	for _, name := range []string{"pcap-declares-1mib.pcap", "pcapng-declares-1mib.pcapng", ""} {
		data := empty
		if name != "" {
			var err error
			data, err = os.ReadFile(filepath.Join("..", "..", "testdata", "hostile", name))
			require.NoError(t, err)
			r, err := Read(bytes.NewReader(data), Options{})
			require.NoError(t, err)
			require.NotNil(t, r.Truncation, name)
			assert.Contains(t, r.Truncation.Message, "after packet 0: truncated", name)
		}
		// A few KiB for the engine and the result, whatever was declared.
		assert.Less(t, allocatedPerRead(t, data), uint64(16<<10), "%q (%d bytes)", name, len(data))
	}
}
