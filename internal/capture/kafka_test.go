package capture

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestProduceAcksEveryVersion reads acks from Produce requests encoded by
// franz-go's kmsg at every version it knows, with and without a
// transactional id and a client id: the header and the fields before acks
// are walked as the tables lay them out.
func TestProduceAcksEveryVersion(t *testing.T) {
	txn := "txn-1"
	for v := int16(0); v <= (&kmsg.ProduceRequest{}).MaxVersion(); v++ {
		for _, acks := range []int16{0, 1, -1} {
			for _, withTxn := range []bool{false, true} {
				for _, clientID := range []string{"", "producer-with-a-long-client-id"} {
					req := kmsg.NewPtrProduceRequest()
					req.SetVersion(v)
					req.Acks = acks
					req.TimeoutMillis = 30000
					if withTxn {
						req.TransactionID = &txn
					}
					var opts []kmsg.RequestFormatterOpt
					if clientID != "" {
						opts = append(opts, kmsg.FormatterClientID(clientID))
					}
					b := kmsg.NewRequestFormatter(opts...).AppendRequest(nil, req, 7)
					want := int(acks)
					require.Equal(t, want, produceAcks(b, v), "v%d acks %d txn %v client %q", v, acks, withTxn, clientID)
					assert.Equal(t, -2, produceAcks(b[:14], v), "v%d cut short", v)
				}
			}
		}
	}
	assert.Equal(t, -2, produceAcks(nil, 3))
	assert.Equal(t, -2, produceAcks([]byte{0, 0, 0, 4}, -1))
}

// TestPlausibleAPI: the request header test takes its bounds from the
// tables, with the declared margin for a newer Kafka.
func TestPlausibleAPI(t *testing.T) {
	hdr := func(key, ver int16) []byte {
		return []byte{0, 0, 0, 20, byte(key >> 8), byte(key), byte(ver >> 8), byte(ver)}
	}
	fetch := schema.ByName("Fetch")
	require.NotNil(t, fetch)
	hi := fetch.Request.Valid.Hi
	assert.True(t, plausibleAPI(hdr(fetch.Key, 0)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, hi)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, hi+newerVersions)))
	assert.False(t, plausibleAPI(hdr(fetch.Key, -1)))
	assert.True(t, plausibleAPI(hdr(maxKnownKey+newerAPIs, 0)), "an API newer than the tables")
	assert.False(t, plausibleAPI(hdr(maxKnownKey+newerAPIs+1, 0)))
	assert.False(t, plausibleAPI(hdr(maxKnownKey+1, newerVersions+1)))
	assert.False(t, plausibleAPI(hdr(-1, 0)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, 0)[:6]), "as far as the bytes go")

	// Past the margin, a known API's header is one when its client id
	// vouches for it: farClientID printable characters or more, within
	// the frame's size.
	withID := func(key, ver int16, id ...byte) []byte {
		b := append(hdr(key, ver), 0, 0, 0, 7) // correlation id
		b = append(b, byte(len(id)>>8), byte(len(id)))
		return append(b, id...)
	}
	far := hi + newerVersions + 1
	assert.True(t, plausibleAPI(hdr(fetch.Key, far)), "as far as the bytes go: its client id is to come")
	assert.True(t, plausibleAPI(withID(fetch.Key, far, []byte("kgo")...)[:15]), "as far as the bytes go")
	assert.True(t, plausibleAPI(withID(fetch.Key, far, []byte("kgo")...)))
	assert.True(t, plausibleAPI(withID(fetch.Key, 32767, []byte("rdkafka")...)))
	assert.False(t, plausibleAPI(withID(fetch.Key, far, []byte("k")...)[:15]), "a client id of 1 character")
	assert.False(t, plausibleAPI(withID(fetch.Key, far)), "an empty client id")
	assert.False(t, plausibleAPI(withID(fetch.Key, far, 'k', 0, 'o')), "a byte not printable")
	assert.False(t, plausibleAPI(withID(fetch.Key, far, 'k', 'g', 0xc3, 0xa9)), "not ASCII")
	assert.False(t, plausibleAPI(withID(maxKnownKey+1, newerVersions+1, []byte("kgo")...)), "an API the tables lack")
	long := withID(fetch.Key, far, []byte("kgo")...)
	long[13] = 11 // more than the 20-byte frame holds past its header's 10
	assert.False(t, plausibleAPI(long))
	null := withID(fetch.Key, far)
	null[12], null[13] = 0xff, 0xff
	assert.False(t, plausibleAPI(null), "a null client id")

	// As the next frame, vouching for the one before it: only with its
	// client id all there.
	const max = 100 << 20
	assert.True(t, reqPrefixOK(hdr(fetch.Key, hi), max))
	assert.False(t, reqPrefixOK(hdr(fetch.Key, far), max))
	assert.False(t, reqPrefixOK(withID(fetch.Key, far, []byte("kgo")...)[:16], max))
	assert.True(t, reqPrefixOK(withID(fetch.Key, far, []byte("kgo")...), max))
}

// TestFarVersionRequests: a request at a version far past the newest the
// tables know (Metadata v99), its header well formed, a text client id
// in it, is a request: framed, paired and named by its version, in a
// capture begun mid-connection (read by resynchronising), in one
// followed from its handshake (in sync), and cut into segments of a few
// bytes (judged as its bytes come). It was taken for one only up to
// newerVersions past the newest: mid-connection its bytes were skipped
// and its answers read with no request; in sync it was an "implausible
// frame header", framed by its size alone. Such a version with a client
// id too short to vouch for it, or of an API the tables lack, is still
// no request.
func TestFarVersionRequests(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	for _, c := range []struct {
		name      string
		handshake bool
		piece     int
	}{
		{"mid-connection", false, 1 << 20},
		{"in sync", true, 1 << 20},
		{"mid-connection, in pieces", false, 5},
		{"in sync, in pieces", true, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newTB(t, layers.LinkTypeEthernet)
			v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
			if c.handshake {
				v.handshake()
			}
			for corr := int32(1); corr <= 3; corr++ {
				v.sendAll(v.split(true, kreq(schema.KeyMetadata, 99, corr, "rdkafka", body), c.piece))
				v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
			}
			v.fin()
			r := b.read(Options{})
			assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r), "%v", r.Notes)
			for _, x := range r.Exchanges {
				assert.Equal(t, [2]int16{schema.KeyMetadata, 99}, [2]int16{x.APIKey, x.APIVersion})
			}
			assert.False(t, hasNote(r, "implausible frame header"), "%v", r.Notes)
			assert.False(t, hasNote(r, "skipped"), "%v", r.Notes)
		})
	}

	// Not evidence enough: a client id of 1 character; an API key past
	// the tables' at a version past the margin for a new API. The
	// capture begins mid-connection, so nothing vouches for them but
	// their headers.
	for _, req := range [][]byte{
		kreq(schema.KeyMetadata, 99, 1, "c", body),
		kreq(maxKnownKey+1, newerVersions+1, 1, "rdkafka", body),
	} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.req(req)
		v.resp(kresp(1, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
		v.fin()
		r := b.read(Options{})
		for _, x := range r.Exchanges {
			assert.Nil(t, x.Request, "% x", req)
		}
	}
}

// TestFarVersionWeakClientIDs: requests at a version far past the newest
// the tables know whose client id does not vouch for them (null, 1 or 2
// characters, binary) are requests all the same when the same client's
// next request vouches for them: the same client id, a correlation id a
// little past. (Not an empty one: zeros read as that.) Resynchronising, the frame after is read for it; in
// sync, the request framed before. They were skipped (mid-connection,
// every one; in sync, every one after the first, which its size framed).
func TestFarVersionWeakClientIDs(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	weak := func(id []byte, corr int32) []byte {
		q := kreq(schema.KeyMetadata, 99, corr, string(id), body)
		if id == nil {
			q[12], q[13] = 0xff, 0xff // null
		}
		return q
	}
	for _, id := range [][]byte{nil, []byte("c"), []byte("ab"), {0, 1, 0xfe}, []byte("k\x00go")} {
		for _, c := range []struct {
			name      string
			handshake bool
			piece     int
		}{
			{"mid-connection", false, 1 << 20},
			{"in sync", true, 1 << 20},
			{"mid-connection, in pieces", false, 5},
			{"in sync, in pieces", true, 5},
		} {
			name := fmt.Sprintf("%q", id)
			if id == nil {
				name = "null"
			}
			t.Run(name+" "+c.name, func(t *testing.T) {
				b := newTB(t, layers.LinkTypeEthernet)
				v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
				if c.handshake {
					v.handshake()
				}
				for corr := int32(1); corr <= 4; corr++ {
					v.sendAll(v.split(true, weak(id, corr), c.piece))
					v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
				}
				v.fin()
				r := b.read(Options{})
				assert.Equal(t, []int32{1, 2, 3, 4}, pairedCorrs(r), "%v", r.Notes)
				for _, x := range r.Exchanges {
					assert.Equal(t, [2]int16{schema.KeyMetadata, 99}, [2]int16{x.APIKey, x.APIVersion})
				}
				assert.False(t, hasNote(r, "skipped"), "%v", r.Notes)
				if c.handshake {
					// The first, which nothing before vouches for, is
					// framed by its size, as it was.
					require.Len(t, r.Notes, 1, "%v", r.Notes)
					assert.Contains(t, r.Notes[0].Message, "at offset 0 of the client stream, framed by its size all the same")
				} else {
					assert.Empty(t, r.Notes)
				}
			})
		}
	}

	// Not evidence enough: such a request alone (nothing after it), or
	// followed by one whose client id or correlation id is not the
	// next of the same client's; an empty client id.
	for _, qs := range [][][]byte{
		{weak(nil, 1)},
		{weak([]byte{}, 1), weak([]byte{}, 2), weak([]byte{}, 3)},
		{weak([]byte("c"), 1), weak([]byte("d"), 2)},
		{weak([]byte("c"), 1), weak(nil, 2)},
		{weak(nil, 2), weak(nil, 2)},
		{weak(nil, 2), weak(nil, 1)},
		{weak(nil, 1), weak(nil, 1+maxCorrStep+1)},
	} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		for _, q := range qs {
			v.req(q)
		}
		v.resp(kresp(1, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
		v.fin()
		r := b.read(Options{})
		assert.Zero(t, r.Conns[0].Requests, "% x", qs)
	}
}

// farWeak is a Metadata v99 request whose client id (nil: null) does not
// vouch for its version (TestFarVersionWeakClientIDs).
func farWeak(id []byte, corr int32, body []byte) []byte {
	q := kreq(schema.KeyMetadata, 99, corr, string(id), body)
	if id == nil {
		q[12], q[13] = 0xff, 0xff // null
	}
	return q
}

// TestFarVersionChainedDecidesClient: on a connection whose broker side
// neither its ports nor its SYN tell, requests at a version far past the
// newest that the same client's next request vouches for (farChained,
// follows) count as requests when the sides are decided: the side whose
// frames answer their correlation ids is the broker's. They counted
// against their side (looksLikeRequest says no), so the responses,
// whose first bytes read as a Produce v1 request with an empty client
// id, made the broker's side the client's and no exchange paired.
func TestFarVersionChainedDecidesClient(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	for _, id := range [][]byte{nil, []byte("c"), {0, 1, 0xfe}} {
		for _, piece := range []int{1 << 20, 5} {
			b := newTB(t, layers.LinkTypeEthernet)
			v := b.conv("10.0.0.1:40000", "10.0.0.2:40001")
			for corr := int32(1); corr <= 4; corr++ {
				v.sendAll(v.split(true, farWeak(id, corr, body), piece))
				v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
			}
			v.fin()
			r := b.read(Options{})
			require.Len(t, r.Conns, 1, "%q", id)
			assert.Equal(t, uint16(40001), r.Conns[0].Broker.Port, "%q in pieces of %d", id, piece)
			assert.False(t, r.Conns[0].BrokerByPort)
			assert.Equal(t, []int32{1, 2, 3, 4}, pairedCorrs(r), "%q in pieces of %d: %v", id, piece, r.Notes)
			for _, x := range r.Exchanges {
				assert.Equal(t, [2]int16{schema.KeyMetadata, 99}, [2]int16{x.APIKey, x.APIVersion})
				if x.Request != nil {
					assert.True(t, x.Request.FromClient)
					assert.True(t, x.Request.chained, "taken on the chain rule: %q %d %d", id, piece, x.CorrelationID)
				}
			}
		}
	}
}

// TestFarVersionChainedKeptDamaged: a request at a version far past the
// newest, its client id null, short or binary, that a gap cuts into
// after its client id is kept up to the gap (Options.KeepDamaged) when
// the same client's request before it vouches for it (follows), as an
// ordinary request is, so its answer pairs with it and decodes as its
// API; and it vouches for the request after it in turn. It was dropped
// (looksLikeRequest says no), its answer unpaired, and the request after
// it skipped as an implausible header until the one after that vouched
// for it.
func TestFarVersionChainedKeptDamaged(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	long := append(append([]byte{}, body...), make([]byte, 100)...)
	for _, id := range [][]byte{nil, []byte("c"), {0, 1, 0xfe}} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		for corr := int32(1); corr <= 5; corr++ {
			if corr != 3 {
				v.req(farWeak(id, corr, body))
				v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
				continue
			}
			segs := v.split(true, farWeak(id, corr, long), 30)
			v.send(segs[0])
			v.b.tcp(v.s, v.c, v.ss, v.cs, fACK, nil) // the rest is lost
			v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
		}
		v.fin()
		r := b.read(Options{KeepDamaged: true})
		assert.Equal(t, []int32{1, 2, 3, 4, 5}, pairedCorrs(r), "%q: %v", id, r.Notes)
		for _, x := range r.Exchanges {
			assert.Equal(t, [2]int16{schema.KeyMetadata, 99}, [2]int16{x.APIKey, x.APIVersion})
			if x.CorrelationID == 3 && assert.NotNil(t, x.Request) {
				assert.Len(t, x.Request.Bytes, 30)
				assert.Equal(t, int64(len(farWeak(id, 3, long))-30), x.Request.Missing)
			}
		}
		assert.True(t, hasNote(r, "damaged by a gap: only its first 30 bytes are kept"), "%q: %v", id, r.Notes)
		assert.False(t, hasNote(r, "dropped"), "%q: %v", id, r.Notes)
		assert.False(t, hasNote(r, "skipped"), "%q: %v", id, r.Notes)
		// the first, which nothing before vouches for, framed by its size
		implausible := 0
		for _, n := range r.Notes {
			if strings.HasPrefix(n.Message, "implausible frame header") {
				implausible++
			}
		}
		assert.Equal(t, 1, implausible, "%q: %v", id, r.Notes)
	}
}

// TestFarVersionChainsRandomBytes: random bytes, mostly zeros or not,
// and random bytes strewn with headers at a version far past the newest
// (of a known API, a plausible size, a null or short client id, each its
// own correlation id), frame no request by farChained or follows: the
// rule asks for the same client id and the next correlation id in the
// frame that the size leads to, which such bytes do not hold. (Measured
// over 3,000 client streams of 4 KiB each, picked up mid-connection.)
// Nor do they, sent both ways on a connection whose broker side is not
// known, give a frame that the sides are decided by as such a request
// (Frame.chained: 1,000 connections).
func TestFarVersionChainsRandomBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	random := func(round int) []byte {
		data := make([]byte, 4096)
		rng.Read(data)
		switch round % 3 {
		case 1: // three bytes in four zeros: small sizes, ids and counts
			for i := range data {
				if rng.Intn(4) > 0 {
					data[i] = 0
				}
			}
		case 2: // far-version headers at random places
			for range 40 {
				at := rng.Intn(len(data) - 16)
				h := kreq(schema.KeyMetadata, int16(100+rng.Intn(1000)), rng.Int31(), "", nil)
				binary.BigEndian.PutUint32(h, uint32(10+rng.Intn(200)))
				binary.BigEndian.PutUint16(h[12:], uint16(rng.Intn(4)-1))
				copy(data[at:], h)
			}
		}
		return data
	}
	far, frames := 0, 0
	for round := range 3000 {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.sendAll(v.split(true, random(round), 1400))
		v.fin()
		r := b.read(Options{})
		frames += r.Frames
		for _, x := range r.Exchanges {
			if q := x.Request; q != nil && len(q.Bytes) >= 14 && isFarVersion(q.Bytes) && !farVersion(q.Bytes, x.APIKey, x.APIVersion, true) {
				far++
				t.Logf("round %d: % x", round, q.Bytes[:14])
			}
		}
	}
	t.Logf("%d frames found in 3,000 streams of random bytes", frames)
	assert.Zero(t, far, "requests taken on a chain in random bytes")

	chained, frames := 0, 0
	for round := range 1000 {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:40001")
		c, s := v.split(true, random(round), 1400), v.split(false, random(round+1), 1400)
		for i := range c {
			v.send(c[i])
			v.send(s[i])
		}
		v.fin()
		r := b.read(Options{})
		frames += r.Frames
		for _, x := range r.Exchanges {
			for _, f := range []*Frame{x.Request, x.Response} {
				if f != nil && f.chained {
					chained++
					t.Logf("round %d: % x", round, f.Bytes[:14])
				}
			}
		}
	}
	t.Logf("%d frames found in 1,000 connections of random bytes both ways", frames)
	assert.Zero(t, chained, "frames counted as requests on a chain in random bytes")
}
