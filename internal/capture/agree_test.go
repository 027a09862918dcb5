package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// exchangeKey names an exchange by its connection and its frames (where
// each begins in its stream and its correlation id), so Read's exchanges
// and ReadFunc's compare whatever order they come in.
func exchangeKey(x *Exchange) string {
	frame := func(f *Frame) string {
		if f == nil {
			return "-"
		}
		corr := int64(-1)
		if f.FromClient && len(f.Bytes) >= 12 {
			corr = int64(int32(uint32(f.Bytes[8])<<24 | uint32(f.Bytes[9])<<16 | uint32(f.Bytes[10])<<8 | uint32(f.Bytes[11])))
		} else if !f.FromClient && len(f.Bytes) >= 8 {
			corr = int64(int32(uint32(f.Bytes[4])<<24 | uint32(f.Bytes[5])<<16 | uint32(f.Bytes[6])<<8 | uint32(f.Bytes[7])))
		}
		return "@" + strconv.FormatInt(f.StreamOffset, 10) + " corr " + strconv.FormatInt(corr, 10) + " len " + strconv.Itoa(len(f.Bytes))
	}
	return x.Conn.String() + " " + frame(x.Request) + " -> " + frame(x.Response)
}

// requireAgree reads data with Read and with ReadFunc and requires the
// same exchanges of both: the same requests paired with the same
// responses, the same left unpaired. It returns Read's result.
func requireAgree(t *testing.T, data []byte, opts Options) *Result {
	t.Helper()
	r, err := Read(bytes.NewReader(data), opts)
	require.NoError(t, err)
	var read, streamed []string
	for _, x := range r.Exchanges {
		read = append(read, exchangeKey(x))
	}
	_, err = ReadFunc(bytes.NewReader(data), opts, func(x *Exchange) { streamed = append(streamed, exchangeKey(x)) })
	require.NoError(t, err)
	slices.Sort(read)
	slices.Sort(streamed)
	require.Equal(t, read, streamed, "Read's exchanges (expected) and ReadFunc's (actual)")
	return r
}

// TestAgreeSkippedFarVersion: a far-version request nothing vouches for
// is skipped, and the next request is found by resynchronising after
// its answer was framed. Read paired them; ReadFunc handed the answer
// out alone, then the request unanswered.
func TestAgreeSkippedFarVersion(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	for _, piece := range []int{1 << 20, 5} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.sendAll(v.split(true, farWeak([]byte("c"), 1, body), piece))
		v.resp(kresp(1, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
		for corr := int32(2); corr <= 3; corr++ {
			v.sendAll(v.split(true, kreq(schema.KeyMetadata, 12, corr, "rdkafka", body), piece))
			v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
		}
		v.fin()
		r := requireAgree(t, b.pcap(), Options{})
		assert.Contains(t, pairedCorrs(r), int32(2), "%v", r.Notes)
	}
}

// TestAgreeChainedAnswerFirst: a far-version request with a weak client
// id is taken when the same client's next request vouches for it
// (farChained), so while resynchronising it is framed only once that
// next request came; its answer, which came before, was framed first.
// Read paired them; ReadFunc handed the answer out alone.
func TestAgreeChainedAnswerFirst(t *testing.T) {
	body := []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}
	for _, id := range [][]byte{nil, []byte("c"), []byte("ab")} {
		for _, piece := range []int{1 << 20, 5} {
			for _, keep := range []bool{false, true} {
				b := newTB(t, layers.LinkTypeEthernet)
				v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
				// the first request is cut: the stream begins mid-frame
				v.sendAll(v.split(true, farWeak(id, 1, body)[3:], piece))
				v.resp(kresp(1, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
				for corr := int32(2); corr <= 4; corr++ {
					v.sendAll(v.split(true, farWeak(id, corr, body), piece))
					v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
				}
				v.fin()
				r := requireAgree(t, b.pcap(), Options{KeepDamaged: keep})
				assert.Equal(t, []int32{2, 3, 4}, pairedCorrs(r), "%v", r.Notes)
			}
		}
	}
}

// TestAgreeCaptures: Read and ReadFunc give the same exchanges for the
// shared captures and the ones the tests generate.
func TestAgreeCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(captures, "*.pcap*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			require.NoError(t, err)
			for _, opts := range []Options{{}, {KeepDamaged: true}} {
				requireAgree(t, data, opts)
			}
		})
	}
	for _, c := range testdataFiles {
		t.Run("gen "+c.name, func(t *testing.T) {
			data := c.gen(t)
			for _, opts := range []Options{{}, {KeepDamaged: true}} {
				requireAgree(t, data, opts)
			}
		})
	}
}

// TestEarlyResponsesBounded: ReadFunc holds an unpaired response in
// case its request is framed late (holdEarly), but not for ever: at
// most maxEarlyConn on a connection (past which they are all handed
// out), and each for maxEarlyWait packets of its connection. Read pairs
// by the same rules, so both agree.
func TestEarlyResponsesBounded(t *testing.T) {
	t.Run("per connection", func(t *testing.T) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		for corr := int32(100); corr < 100+maxEarlyConn+1; corr++ {
			v.resp(apiVersionsResp(corr))
		}
		v.req(apiVersionsReq(1))
		v.resp(apiVersionsResp(1))
		data := b.pcap()
		requireAgree(t, data, Options{})
		var got []*Exchange
		_, err := ReadFunc(bytes.NewReader(data), Options{}, func(x *Exchange) { got = append(got, x) })
		require.NoError(t, err)
		require.Len(t, got, maxEarlyConn+2)
		for i, x := range got[:maxEarlyConn] {
			assert.Equal(t, int32(100+i), x.CorrelationID)
			assert.Nil(t, x.Request)
		}
		assert.True(t, got[maxEarlyConn].Paired(), "the connection's own exchange, before it ends")
		assert.Equal(t, int32(100+maxEarlyConn), got[maxEarlyConn+1].CorrelationID, "held until the connection ended")
	})
	t.Run("wait", func(t *testing.T) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		v.resp(apiVersionsResp(1 << 20))
		n := int32(maxEarlyWait) // two packets each
		for corr := int32(1); corr <= n; corr++ {
			v.req(apiVersionsReq(corr))
			v.resp(apiVersionsResp(corr))
		}
		data := b.pcap()
		requireAgree(t, data, Options{})
		var got []*Exchange
		_, err := ReadFunc(bytes.NewReader(data), Options{}, func(x *Exchange) { got = append(got, x) })
		require.NoError(t, err)
		require.Len(t, got, int(n)+1)
		i := slices.IndexFunc(got, func(x *Exchange) bool { return x.CorrelationID == 1<<20 })
		assert.Nil(t, got[i].Request)
		// handed out once maxEarlyWait packets of the connection came
		// after it (each exchange is two packets), not held until the
		// connection ended
		assert.Equal(t, maxEarlyWait/2, i, "handed out after exchange %d of %d", i, n)
	})
}

// TestEarlyLetGoWhenNoRequestCan: a response held in case its request
// is framed late (holdEarly) is handed out as soon as a request of its
// connection numbered after it is answered, not 256 of its packets
// later: the client stream frames in order, and a client numbers its
// requests in order, so its request would have been framed before that
// one; it cannot come now. Read pairs by the same rules, so both agree.
// (A connection's end, both FINs or an RST, and the capture's let the
// held responses go already.)
func TestEarlyLetGoWhenNoRequestCan(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.resp(apiVersionsResp(5)) // packet 4: its request not captured
	v.resp(apiVersionsResp(1 << 20))
	for corr := int32(10); corr < 20; corr++ {
		v.req(apiVersionsReq(corr))
		v.resp(apiVersionsResp(corr)) // corr 10's: packet 7
	}
	v.fin() // packets 26 to 28
	data := b.pcap()
	requireAgree(t, data, Options{})
	at := map[int32]int{} // the packet each lone response was handed out at
	var e *engine
	e = newEngine(Options{}, func(x *Exchange) {
		if x.Request == nil {
			at[x.CorrelationID] = e.res.Packets
		}
	})
	require.NoError(t, e.run(bytes.NewReader(data)))
	assert.Equal(t, map[int32]int{5: 7, 1 << 20: 27}, at,
		"5 as 10 is answered; 1<<20, numbered past every request, when the connection ends")
}

// agreeFarBody is a Metadata request's body, for the far-version tests.
var agreeFarBody = []byte{0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', 1, 0, 0}

// TestAgreeFarVersionMixes guards TestAgreeSkippedFarVersion's and
// TestAgreeChainedAnswerFirst's cases over many mixes: four requests,
// each a plain one or a far-version one with a weak client id (the
// same id as the others, which may vouch for it, or another), answered
// after each, one answer before its request, every answer first, all
// pipelined after the requests, or in reverse; the stream begun at its
// SYN or cut inside the first request (3 or 9 bytes in); whole segments
// or 5-byte ones; the broker's port known or not; KeepDamaged or not.
// Read and ReadFunc give the same exchanges, and a plain request after
// the first, answered after it, is paired whatever came before it.
func TestAgreeFarVersionMixes(t *testing.T) {
	const (
		answered    = iota // each answer after its request
		secondFirst        // the second answer before its request
		cut3               // no SYN, the stream begins 3 bytes into the first request
		allFirst           // every answer before its request
		cut9               // as cut3, 9 bytes in
		everyOther         // the first and third answers before their requests
		pipelined          // all requests, then all answers
		reversed           // all requests, then the answers last first
		orders
	)
	for _, id := range [][]byte{nil, []byte("c"), {0, 1, 0xfe}} {
		for mix := range 81 * orders {
			kinds := []int{mix % 3, mix / 3 % 3, mix / 9 % 3, mix / 27 % 3} // plain, far (id), far ("z")
			order := mix / 81
			for _, piece := range []int{1 << 20, 5} {
				for _, port := range []string{"9092", "40001"} {
					b := newTB(t, layers.LinkTypeEthernet)
					v := b.conv("10.0.0.1:40000", "10.0.0.2:"+port)
					if order != cut3 && order != cut9 {
						v.handshake()
					}
					var later [][]byte
					for i, k := range kinds {
						corr := int32(i + 1)
						q := kreq(schema.KeyMetadata, 12, corr, "rdkafka", agreeFarBody)
						switch k {
						case 1:
							q = farWeak(id, corr, agreeFarBody)
						case 2:
							q = farWeak([]byte("z"), corr, agreeFarBody)
						}
						if i == 0 && order == cut3 {
							q = q[3:]
						} else if i == 0 && order == cut9 {
							q = q[9:]
						}
						r := kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0})
						switch {
						case order == secondFirst && i == 1, order == allFirst, order == everyOther && i%2 == 0:
							v.resp(r)
							v.sendAll(v.split(true, q, piece))
						case order == pipelined || order == reversed:
							v.sendAll(v.split(true, q, piece))
							later = append(later, r)
						default:
							v.sendAll(v.split(true, q, piece))
							v.resp(r)
						}
					}
					if order == reversed {
						slices.Reverse(later)
					}
					for _, r := range later {
						v.sendAll(v.split(false, r, piece))
					}
					v.fin()
					data := b.pcap()
					for _, keep := range []bool{false, true} {
						r := requireAgree(t, data, Options{KeepDamaged: keep})
						if order == answered || order == cut3 || order == cut9 {
							for i, k := range kinds[1:] {
								if k == 0 {
									require.Contains(t, pairedCorrs(r), int32(i+2), "id %q kinds %v order %d piece %d port %s keep %v: %v", id, kinds, order, piece, port, keep, r.Notes)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestAgreeFarVersionLate: far-version requests with a weak client id,
// each vouched for by the next, the stream cut inside the first, sent
// in 1- or 3-byte segments, with up to 300 bare ACKs after each answer
// (an answer framed before its request is held maxEarlyWait packets of
// its connection); and on three connections at once, one of plain
// requests, with MaxWaitingBytes small enough to let held answers go.
// Read and ReadFunc give the same exchanges.
func TestAgreeFarVersionLate(t *testing.T) {
	for _, id := range [][]byte{nil, []byte("c"), {0, 1, 0xfe}} {
		for _, acks := range []int{0, 255, 256, 257, 300} {
			for _, piece := range []int{1, 3, 1 << 20} {
				for _, cut := range []int{0, 3} {
					b := newTB(t, layers.LinkTypeEthernet)
					v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
					if cut == 0 {
						v.handshake()
					}
					for corr := int32(1); corr <= 4; corr++ {
						q := farWeak(id, corr, agreeFarBody)
						if corr == 1 {
							q = q[cut:]
						}
						v.sendAll(v.split(true, q, piece))
						v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
						for range acks {
							v.b.tcp(v.c, v.s, v.cs, v.ss, fACK, nil)
						}
					}
					v.fin()
					data := b.pcap()
					for _, keep := range []bool{false, true} {
						requireAgree(t, data, Options{KeepDamaged: keep})
					}
				}
			}
		}
		for _, waiting := range []int{1, 13, 20, 40, 0} {
			for _, piece := range []int{2, 1 << 20} {
				b := newTB(t, layers.LinkTypeEthernet)
				vs := []*cv{b.conv("10.0.0.1:40000", "10.0.0.2:9092"), b.conv("10.0.0.3:40000", "10.0.0.2:9092"), b.conv("10.0.0.4:40000", "10.0.0.2:9092")}
				for corr := int32(1); corr <= 4; corr++ {
					for j, v := range vs {
						q := farWeak(id, corr, agreeFarBody)
						if j == 2 {
							q = kreq(schema.KeyMetadata, 12, corr, "rdkafka", agreeFarBody)
						}
						if corr == 1 {
							q = q[3:]
						}
						v.sendAll(v.split(true, q, piece))
					}
					for _, v := range vs {
						v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
					}
				}
				for _, v := range vs {
					v.fin()
				}
				data := b.pcapng()
				for _, keep := range []bool{false, true} {
					requireAgree(t, data, Options{KeepDamaged: keep, MaxWaitingBytes: waiting})
				}
			}
		}
	}
}
