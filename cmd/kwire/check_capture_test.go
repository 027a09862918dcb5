package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The rule captures: for each connection and conversation rule, a client
// (or, for the order of responses, a broker) written with franz-go's kmsg
// to break it, talking to franz-go's kfake on loopback and captured with
// dumpcap on lo; and the same conversation without the fault. With
// -update TestCheckRuleCaptures writes them to testdata/check (see its
// README); without, it checks that kwire check flags each fault with
// exactly its rule and finds nothing in its twin.

var checkCaptures = filepath.Join(sharedTestdata, "check")

// rawClient speaks Kafka over one TCP connection, frame by frame, so that
// it can send what a real client never would.
type rawClient struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	corr int32
}

func dialRaw(t *testing.T, addr string) *rawClient {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawClient{t: t, c: c, r: bufio.NewReader(c)}
}

// send writes r at version v with the next correlation id (or corr when
// given) and returns the id.
func (rc *rawClient) send(r kmsg.Request, v int16, corr ...int32) int32 {
	id := rc.corr + 1
	if len(corr) > 0 {
		id = corr[0]
	} else {
		rc.corr++
	}
	r.SetVersion(v)
	b := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kwire-misbehaving")).AppendRequest(nil, r, id)
	_, err := rc.c.Write(b)
	require.NoError(rc.t, err)
	return id
}

// recv reads one response frame (size prefix included).
func (rc *rawClient) recv() []byte {
	b, err := readSized(rc.r)
	require.NoError(rc.t, err)
	return b
}

// maxTestFrame bounds a frame (or raw SASL token) the tests' clients and brokers read.
const maxTestFrame = 16 << 20

// readSized reads a 4-byte big-endian size and that many bytes, and
// returns them with the size prefix.
func readSized(r io.Reader) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > maxTestFrame {
		return nil, fmt.Errorf("frame of %d bytes, more than %d", n, maxTestFrame)
	}
	b := make([]byte, 4+n)
	copy(b, size[:])
	if _, err := io.ReadFull(r, b[4:]); err != nil {
		return nil, err
	}
	return b, nil
}

// call sends r and decodes its answer.
func (rc *rawClient) call(r kmsg.Request, v int16) kmsg.Response {
	rc.send(r, v)
	return rc.decode(r, v, rc.recv())
}

func (rc *rawClient) decode(r kmsg.Request, v int16, b []byte) kmsg.Response {
	resp := r.ResponseKind()
	resp.SetVersion(v)
	body := b[8:]
	if r.IsFlexible() && r.Key() != 18 {
		body = body[1:] // the response header's (empty) tag section
	}
	require.NoError(rc.t, resp.ReadFrom(body))
	return resp
}

func (rc *rawClient) close() { rc.c.Close() }

// recordBatch is a magic-2 batch of n records.
func recordBatch(pid int64, seq int32, txn bool, n int) []byte {
	var recs []byte
	for i := 0; i < n; i++ {
		r := kmsg.Record{TimestampDelta64: int64(i), OffsetDelta: int32(i), Key: []byte("k" + strconv.Itoa(i)), Value: []byte("v" + strconv.Itoa(i))}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		recs = r.AppendTo(recs)
	}
	ts := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	attrs := int16(0)
	if txn {
		attrs = 0x10
	}
	epoch := int16(0)
	if pid < 0 {
		epoch = -1
	}
	b := kmsg.RecordBatch{Magic: 2, Attributes: attrs, LastOffsetDelta: int32(n - 1), FirstTimestamp: ts, MaxTimestamp: ts + int64(n-1),
		ProducerID: pid, ProducerEpoch: epoch, FirstSequence: seq, NumRecords: int32(n), Records: recs}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func produceReq(txn *string, batch []byte) *kmsg.ProduceRequest {
	r := kmsg.NewPtrProduceRequest()
	r.Acks, r.TimeoutMillis, r.TransactionID = -1, 5000, txn
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = batch
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return r
}

func metadataReqOf(topic string) *kmsg.MetadataRequest {
	r := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	r.Topics = append(r.Topics, t)
	return r
}

func fetchReqAt(offset int64) *kmsg.FetchRequest {
	r := kmsg.NewPtrFetchRequest()
	r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 10, 1, 1<<20
	t := kmsg.NewFetchRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchRequestTopicPartition()
	p.FetchOffset, p.PartitionMaxBytes = offset, 1<<20
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return r
}

// produceSome writes n records to orders-0 from a plain producer.
func produceSome(t *testing.T, addr string, n int) {
	rc := dialRaw(t, addr)
	defer rc.close()
	resp := rc.call(produceReq(nil, recordBatch(-1, -1, false, n)), 9).(*kmsg.ProduceResponse)
	require.Zero(t, resp.Topics[0].Partitions[0].ErrorCode)
}

func initProducer(rc *rawClient, txn *string) (int64, int16) {
	r := kmsg.NewPtrInitProducerIDRequest()
	r.TransactionalID, r.TransactionTimeoutMillis = txn, 60000
	resp := rc.call(r, 4).(*kmsg.InitProducerIDResponse)
	require.Zero(rc.t, resp.ErrorCode)
	return resp.ProducerID, resp.ProducerEpoch
}

// scenario drives one rule's conversation, with or without its fault,
// against a broker at addr (kfake, or what broker() put in front of it).
type scenario struct {
	rule   string
	sasl   bool                                      // kfake requires SASL (PLAIN, SCRAM-SHA-256)
	answer []string                                  // rules kfake's answers break in the faulty conversation alone
	broker func(t *testing.T, kfake string) string   // a misbehaving broker in front of kfake; "" for kfake itself
	run    func(t *testing.T, addr string, bad bool) // the client
}

// scenarioSASL is kfake's SASL for the scenarios that need it: the users
// of PLAIN and SCRAM-SHA-256.
var scenarioSASL = []kfake.Opt{kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "admin-secret"), kfake.Superuser("SCRAM-SHA-256", "scram", "scram-secret")}

var scenarios = []scenario{
	{rule: "conn.version", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		av := rc.call(&kmsg.ApiVersionsRequest{ClientSoftwareName: "kwire", ClientSoftwareVersion: "1"}, 3).(*kmsg.ApiVersionsResponse)
		hi := int16(0)
		for _, k := range av.ApiKeys {
			if k.ApiKey == 3 {
				hi = k.MaxVersion
			}
		}
		v := min(hi, 12)
		if bad {
			v = hi + 1 // a version the broker did not advertise
		}
		rc.send(metadataReqOf("orders"), v)
		rc.c.SetReadDeadline(time.Now().Add(time.Second))
		io.ReadFull(rc.r, make([]byte, 4)) // kfake may answer or close
	}},
	{rule: "conn.correlation", broker: holdingBroker, run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		rc.send(metadataReqOf("orders"), 9, 7)
		second := int32(8)
		if bad {
			second = 7 // the same id while the first is in flight
		}
		rc.send(metadataReqOf("orders"), 9, second)
		rc.recv()
		rc.recv()
	}},
	{rule: "conn.order", broker: reorderingBroker, run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		rc.send(metadataReqOf("orders"), 9)
		rc.send(metadataReqOf("orders"), 9)
		rc.recv()
		rc.recv()
	}},
	{rule: "conn.sasl", sasl: true, run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		hs := rc.call(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1).(*kmsg.SASLHandshakeResponse)
		require.Zero(t, hs.ErrorCode)
		if !bad {
			auth := rc.call(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("\x00admin\x00admin-secret")}, 1).(*kmsg.SASLAuthenticateResponse)
			require.Zero(t, auth.ErrorCode)
		}
		rc.send(metadataReqOf("orders"), 9)
		rc.c.SetReadDeadline(time.Now().Add(time.Second))
		io.ReadFull(rc.r, make([]byte, 4)) // kfake closes the connection on the fault
	}},
	{rule: "conn.sasl-exchange", sasl: true, run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		hs := rc.call(&kmsg.SASLHandshakeRequest{Mechanism: "SCRAM-SHA-256"}, 1).(*kmsg.SASLHandshakeResponse)
		require.Zero(t, hs.ErrorCode)
		sess, first, err := scram.Auth{User: "scram", Pass: "scram-secret"}.AsSha256Mechanism().Authenticate(context.Background(), addr)
		require.NoError(t, err)
		serverFirst := rc.call(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: first}, 1).(*kmsg.SASLAuthenticateResponse)
		require.Zero(t, serverFirst.ErrorCode)
		_, final, err := sess.Challenge(serverFirst.SASLAuthBytes)
		require.NoError(t, err)
		if bad {
			// The final message with the server's part of the nonce cut off.
			i := strings.Index(string(final), ",r=") + 3
			j := strings.Index(string(final), ",p=")
			nonce := strings.SplitN(string(first), ",r=", 2)[1]
			final = append(append(append([]byte{}, final[:i]...), nonce...), final[j:]...)
		}
		if bad {
			rc.send(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: final}, 1)
			rc.c.SetReadDeadline(time.Now().Add(time.Second))
			io.ReadFull(rc.r, make([]byte, 4)) // kfake closes the connection on the fault
			return
		}
		auth := rc.call(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: final}, 1).(*kmsg.SASLAuthenticateResponse)
		require.Zero(t, auth.ErrorCode)
	}},
	{rule: "conn.retry-version", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		req := &kmsg.ApiVersionsRequest{ClientSoftwareName: "kwire", ClientSoftwareVersion: "1"}
		rc.send(req, 5) // newer than kfake serves: UNSUPPORTED_VERSION, at v0
		rc.recv()
		v := int16(3)
		if bad {
			v = 5 // the same version again
		}
		rc.send(req, v)
		rc.recv()
	}},
	{rule: "conv.sequence", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		pid, _ := initProducer(rc, nil)
		rc.call(produceReq(nil, recordBatch(pid, 0, false, 2)), 9)
		next := int32(2)
		if bad {
			next = 3 // a gap
		}
		rc.call(produceReq(nil, recordBatch(pid, next, false, 1)), 9)
	}},
	{rule: "conv.txn-add", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		txn := kmsg.StringPtr("kwire-txn")
		pid, epoch := initProducer(rc, txn)
		if !bad {
			addPartitions(rc, *txn, pid, epoch)
		}
		rc.call(produceReq(txn, recordBatch(pid, 0, true, 2)), 9)
		rc.call(&kmsg.EndTxnRequest{TransactionalID: *txn, ProducerID: pid, ProducerEpoch: epoch, Commit: !bad}, 3)
	}},
	{rule: "conv.txn-end", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		txn := kmsg.StringPtr("kwire-txn-end")
		pid, epoch := initProducer(rc, txn)
		addPartitions(rc, *txn, pid, epoch)
		rc.call(produceReq(txn, recordBatch(pid, 0, true, 2)), 9)
		if !bad {
			rc.call(&kmsg.EndTxnRequest{TransactionalID: *txn, ProducerID: pid, ProducerEpoch: epoch, Commit: true}, 3)
		}
	}},
	{rule: "conv.fetch-offset", run: func(t *testing.T, addr string, bad bool) {
		produceSome(t, addr, 20)
		rc := dialRaw(t, addr)
		defer rc.close()
		rc.call(fetchReqAt(10), 11)
		next := int64(20)
		if bad {
			next = 5 // back, without a reset
		}
		rc.call(fetchReqAt(next), 11)
	}},
	{rule: "conv.commit-offset", run: func(t *testing.T, addr string, bad bool) {
		produceSome(t, addr, 5)
		rc := dialRaw(t, addr)
		defer rc.close()
		rc.call(fetchReqAt(0), 11)
		off := int64(5)
		if bad {
			off = 100 // past what was fetched
		}
		c := kmsg.NewPtrOffsetCommitRequest()
		c.Group, c.Generation = "kwire-standalone", -1
		ct := kmsg.NewOffsetCommitRequestTopic()
		ct.Topic = "orders"
		cp := kmsg.NewOffsetCommitRequestTopicPartition()
		cp.Offset = off
		ct.Partitions = append(ct.Partitions, cp)
		c.Topics = append(c.Topics, ct)
		rc.call(c, 8)
	}},
	{rule: "conv.fetch-session", run: func(t *testing.T, addr string, bad bool) {
		produceSome(t, addr, 5)
		rc := dialRaw(t, addr)
		defer rc.close()
		fetch := func(id, epoch int32, offset int64) *kmsg.FetchResponse {
			r := fetchReqAt(offset)
			r.SessionID, r.SessionEpoch = id, epoch
			return rc.call(r, 11).(*kmsg.FetchResponse)
		}
		first := fetch(0, 0, 0) // a full fetch asking for a session
		require.Zero(t, first.ErrorCode)
		require.NotZero(t, first.SessionID, "kfake gives a session")
		id := first.SessionID
		require.Zero(t, fetch(id, 1, 5).ErrorCode)
		epoch := int32(2)
		if bad {
			epoch = 3 // a skipped epoch
		}
		r := fetch(id, epoch, 5)
		if bad {
			require.EqualValues(t, 71, r.ErrorCode, "INVALID_FETCH_SESSION_EPOCH")
		} else {
			require.Zero(t, r.ErrorCode)
		}
		fetch(id, -1, 5) // closed
	}},
	{rule: "conn.fetch-session-unused", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		fetch := func(id, epoch int32) *kmsg.FetchResponse {
			r := fetchReqAt(0)
			r.SessionID, r.SessionEpoch = id, epoch
			return rc.call(r, 11).(*kmsg.FetchResponse)
		}
		// Four asks for a session (session id 0, epoch 0): the faulty
		// client uses none it is given, its twin continues each once
		// (epoch 1) before it asks again.
		for range 4 {
			got := fetch(0, 0)
			require.Zero(t, got.ErrorCode)
			require.NotZero(t, got.SessionID, "kfake gives a session")
			if !bad {
				require.Zero(t, fetch(got.SessionID, 1).ErrorCode)
			}
		}
	}},
	// kfake does not enforce a session's side of Fetch v13: it accepts
	// the switch that Kafka answers FETCH_SESSION_TOPIC_ID_ERROR.
	{rule: "conv.fetch-session-topic-ids", answer: []string{"conv.fetch-session-answer"}, run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		md := rc.call(metadataReqOf("orders"), 12).(*kmsg.MetadataResponse)
		require.Len(t, md.Topics, 1)
		topicID := md.Topics[0].TopicID
		fetch := func(v int16, id, epoch int32) *kmsg.FetchResponse {
			r := fetchReqAt(0)
			r.Topics[0].TopicID = topicID
			r.SessionID, r.SessionEpoch = id, epoch
			return rc.call(r, v).(*kmsg.FetchResponse)
		}
		first := fetch(12, 0, 0) // a session on the names' side
		require.Zero(t, first.ErrorCode)
		require.NotZero(t, first.SessionID, "kfake gives a session")
		id := first.SessionID
		require.Zero(t, fetch(12, id, 1).ErrorCode)
		v := int16(12)
		if bad {
			v = 13 // topic ids
		}
		require.Zero(t, fetch(v, id, 2).ErrorCode, "kfake accepts it either way")
		fetch(12, id, -1) // closed
	}},
	{rule: "conv.group-generation", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		member, first := joinClassic(rc, "")
		syncClassic(rc, member, first)
		_, gen := joinClassic(rc, member) // the leader rejoins: a new generation
		require.Greater(t, gen, first)
		syncClassic(rc, member, gen)
		if bad {
			gen = first // the generation before
		}
		hb := rc.call(&kmsg.HeartbeatRequest{Group: "kwire-group", Generation: gen, MemberID: member}, 3).(*kmsg.HeartbeatResponse)
		if bad {
			require.EqualValues(t, 22, hb.ErrorCode, "ILLEGAL_GENERATION")
		} else {
			require.Zero(t, hb.ErrorCode)
		}
		leave := kmsg.NewPtrLeaveGroupRequest()
		leave.Group = "kwire-group"
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = member
		leave.Members = append(leave.Members, m)
		rc.call(leave, 3)
	}},
	{rule: "conv.member-epoch", run: func(t *testing.T, addr string, bad bool) {
		rc := dialRaw(t, addr)
		defer rc.close()
		const member = "kwire-epoch-member"
		join := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		join.Group, join.MemberID, join.RebalanceTimeoutMillis = "kwire-848", member, 10000
		join.SubscribedTopicNames, join.Topics = []string{"orders"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		r := rc.call(join, 1).(*kmsg.ConsumerGroupHeartbeatResponse)
		require.Zero(t, r.ErrorCode)
		epoch := r.MemberEpoch
		hb := func(e int32) *kmsg.ConsumerGroupHeartbeatResponse {
			q := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			q.Group, q.MemberID, q.MemberEpoch, q.RebalanceTimeoutMillis = "kwire-848", member, e, -1
			return rc.call(q, 1).(*kmsg.ConsumerGroupHeartbeatResponse)
		}
		r = hb(epoch)
		require.Zero(t, r.ErrorCode)
		epoch = r.MemberEpoch
		if bad {
			r = hb(epoch + 5) // an epoch the coordinator never gave
			require.EqualValues(t, 110, r.ErrorCode, "FENCED_MEMBER_EPOCH")
		} else {
			r = hb(epoch)
			require.Zero(t, r.ErrorCode)
		}
		hb(-1) // leave
	}},
}

// joinClassic joins group kwire-group as member (empty: a new member, which
// JoinGroup v5 answers MEMBER_ID_REQUIRED with its id first) and returns
// the member id and generation.
func joinClassic(rc *rawClient, member string) (string, int32) {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"orders"}
	for range 2 {
		r := kmsg.NewPtrJoinGroupRequest()
		r.Group, r.SessionTimeoutMillis, r.RebalanceTimeoutMillis, r.MemberID, r.ProtocolType = "kwire-group", 10000, 10000, member, "consumer"
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", meta.AppendTo(nil)
		r.Protocols = append(r.Protocols, p)
		resp := rc.call(r, 5).(*kmsg.JoinGroupResponse)
		member = resp.MemberID
		if resp.ErrorCode == 79 { // MEMBER_ID_REQUIRED
			continue
		}
		require.Zero(rc.t, resp.ErrorCode)
		return member, resp.Generation
	}
	rc.t.Fatal("JoinGroup answered MEMBER_ID_REQUIRED twice")
	return "", 0
}

// syncClassic is the leader's SyncGroup, giving itself orders-0.
func syncClassic(rc *rawClient, member string, gen int32) {
	as := kmsg.NewConsumerMemberAssignment()
	at := kmsg.NewConsumerMemberAssignmentTopic()
	at.Topic, at.Partitions = "orders", []int32{0}
	as.Topics = append(as.Topics, at)
	r := kmsg.NewPtrSyncGroupRequest()
	r.Group, r.Generation, r.MemberID = "kwire-group", gen, member
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = member, as.AppendTo(nil)
	r.GroupAssignment = append(r.GroupAssignment, a)
	resp := rc.call(r, 3).(*kmsg.SyncGroupResponse)
	require.Zero(rc.t, resp.ErrorCode)
}

func addPartitions(rc *rawClient, txn string, pid int64, epoch int16) {
	r := kmsg.NewPtrAddPartitionsToTxnRequest()
	r.TransactionalID, r.ProducerID, r.ProducerEpoch = txn, pid, epoch
	t := kmsg.NewAddPartitionsToTxnRequestTopic()
	t.Topic, t.Partitions = "orders", []int32{0}
	r.Topics = append(r.Topics, t)
	rc.call(r, 3)
}

// reorderingBroker is a broker that answers each pair of a connection's
// requests in reverse order: a proxy to kfake that holds the first
// response of a pair until the second arrives. It returns its address.
func reorderingBroker(t *testing.T, upstream string) string {
	return pairingBroker(t, upstream, true)
}

// holdingBroker answers each pair of a connection's requests in order, but
// only once the second has arrived, so the first is still in flight when
// the second is sent: kfake alone may answer it first.
func holdingBroker(t *testing.T, upstream string) string {
	return pairingBroker(t, upstream, false)
}

// pairingBroker is a proxy to kfake that holds the first response of each
// pair until the second arrives, then writes both, swapped when swap is
// set. It returns its address.
func pairingBroker(t *testing.T, upstream string, swap bool) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				r := bufio.NewReader(u)
				var held []byte
				for {
					f, err := readSized(r)
					if err != nil {
						return
					}
					if held == nil {
						held = f
						continue
					}
					if swap {
						f, held = held, f
					}
					c.Write(held)
					c.Write(f)
					held = nil
				}
			}()
		}
	}()
	return l.Addr().String()
}

// passThrough is reorderingBroker's clean twin: a proxy that keeps the
// order, so that both captures have the same shape.
func passThrough(t *testing.T, upstream string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", upstream)
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				io.Copy(c, u)
			}()
		}
	}()
	return l.Addr().String()
}

// recordScenario runs one side of a scenario against a fresh kfake and
// captures the client's connections on loopback.
func recordScenario(t *testing.T, s scenario, bad bool) []byte {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, "orders")}
	if s.sasl {
		opts = append(opts, scenarioSASL...)
	}
	kport := freePort(t)
	cluster, err := kfake.NewCluster(append(opts, kfake.Ports(kport))...)
	require.NoError(t, err)
	defer cluster.Close()
	addr := cluster.ListenAddrs()[0]
	port := kport
	if s.broker != nil {
		b := s.broker
		if !bad {
			b = passThrough
		}
		addr = b(t, addr)
		_, ps, _ := net.SplitHostPort(addr)
		port, _ = strconv.Atoi(ps)
	}
	file := captureLoopback(t, port, func() { s.run(t, addr, bad) })
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return b
}

// checkLine is one finding of kwire check --format ndjson.
type checkLine struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
}

// checkRules runs kwire check on a file and returns the rules of its
// findings (skipped rules aside), sorted, and its exit status.
func checkRules(t *testing.T, args ...string) ([]string, int) {
	out, errOut, code := runCLI(t, append([]string{"check", "--format", "ndjson"}, args...), nil)
	require.NotEqual(t, 2, code, errOut)
	seen := map[string]bool{}
	var rules []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var c checkLine
		require.NoError(t, json.Unmarshal([]byte(l), &c), l)
		if c.Severity != "skipped" && !seen[c.Rule] {
			seen[c.Rule] = true
			rules = append(rules, c.Rule)
		}
	}
	sort.Strings(rules)
	return rules, code
}

// TestCheckRuleCaptures: each connection and conversation rule's capture
// (a misbehaving client or broker against kfake, captured on loopback) is
// flagged with exactly that rule; the same conversation without the fault
// is clean (but for kfake's SaslHandshake answers, conn.sasl-handshake).
// Each rule is a subtest named by its id, and -update records again (with
// dumpcap, on lo) the captures of the subtests that run, no others: name
// the rule, so that the other captures keep their bytes,
//
//	go test ./cmd/kwire -run '^TestCheckRuleCaptures$/^conv\.member-epoch$' -update
//
// (a new rule's scenario is recorded so too). Without -update, a missing
// capture fails its subtest with that command.
func TestCheckRuleCaptures(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.rule, func(t *testing.T) {
			if *update {
				needTool(t, "dumpcap")
				for _, bad := range []bool{true, false} {
					b := recordScenario(t, s, bad)
					require.NoError(t, os.WriteFile(captureName(s.rule, bad), b, 0o644))
				}
			}
			for _, bad := range []bool{true, false} {
				file, err := filepath.Abs(captureName(s.rule, bad))
				require.NoError(t, err)
				if _, err := os.Stat(file); err != nil {
					t.Fatalf("%v: record it with go test ./cmd/kwire -run '^TestCheckRuleCaptures$/^%s$' -update", err, regexp.QuoteMeta(s.rule))
				}
				rules, code := checkRules(t, file) // the broker side is inferred: the client sends requests
				kfake := kfakeRules(s)
				if bad {
					require.ElementsMatch(t, append(append([]string{s.rule}, kfake...), s.answer...), rules, "%s: the misbehaving conversation", file)
				} else {
					require.ElementsMatch(t, kfake, rules, "%s: the same conversation without the fault", file)
					require.Equal(t, 0, code)
				}
			}
		})
	}
}

// TestCheckRuleCapturesOneRule: -run names one rule's subtest of
// TestCheckRuleCaptures, and only it runs, so -update records only its
// captures (it was one test: -update with any -run recorded all 26
// files again). The test binary runs itself with such a pattern.
func TestCheckRuleCapturesOneRule(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", `^TestCheckRuleCaptures$/^conn\.version$`, "-test.v", "-test.count=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	ran := regexp.MustCompile(`(?m)^=== RUN\s+TestCheckRuleCaptures/(\S+)$`).FindAllStringSubmatch(string(out), -1)
	require.Len(t, ran, 1, string(out))
	require.Equal(t, "conn.version", ran[0][1])
	require.Contains(t, string(out), "--- PASS: TestCheckRuleCaptures/conn.version")
}

// kfakeRules are the rules kfake itself breaks in both conversations of
// scenario s (those its answers to the fault break are scenario.answer): it accepts
// a SASL mechanism with error code 0 and lists no enabled mechanisms,
// where Kafka's broker lists them (conn.sasl-handshake, a warning), in
// every SASL conversation.
func kfakeRules(s scenario) []string {
	if s.sasl {
		return []string{"conn.sasl-handshake"}
	}
	return nil
}

func captureName(rule string, bad bool) string {
	side := "good"
	if bad {
		side = "bad"
	}
	return filepath.Join(checkCaptures, rule+"."+side+".pcapng")
}

// TestCheckRealClientsKafkaJS: kafkajs (a non-idempotent producer, gzip
// and none; a consumer group reading and committing) against kfake, as
// captured in testdata/captures/kafkajs-clients.pcapng (-update records it
// again: node and site/node_modules' kafkajs, dumpcap on lo), breaks no
// rule: kafkajs's batches with producer id -1, epoch 0 and sequence 0 are
// allowed.
func TestCheckRealClientsKafkaJS(t *testing.T) {
	file := filepath.Join(sharedTestdata, "captures", "kafkajs-clients.pcapng")
	if *update {
		node := needTool(t, "node")
		mod, err := filepath.Abs(filepath.Join("..", "..", "site", "node_modules", "kafkajs"))
		require.NoError(t, err)
		if _, err := os.Stat(mod); err != nil {
			t.Fatalf("kafkajs is not installed: cd site && npm ci")
		}
		port := freePort(t)
		cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.Ports(port))
		require.NoError(t, err)
		defer cluster.Close()
		script, err := filepath.Abs(filepath.Join("testdata", "kafkajs-clients.mjs"))
		require.NoError(t, err)
		pcapng := captureLoopback(t, port, func() {
			cmd := exec.Command(node, script, "127.0.0.1:"+strconv.Itoa(port))
			cmd.Dir = filepath.Join("..", "..", "site") // its node_modules
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			require.Contains(t, string(out), "produced and consumed 3")
		})
		b, err := os.ReadFile(pcapng)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, b, 0o644))
	}
	abs, err := filepath.Abs(file)
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"check", "--fail-on", "note", abs}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.Empty(t, strings.TrimSpace(out))
	// It holds what the rule pages say kafkajs does.
	pc, _, code := runCLI(t, []string{"pcap", "--api", "Produce", abs}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, pc, `"producerId":-1,"producerEpoch":0,"baseSequence":0`)
}

// TestCheckTxnEndOnOneBrokerOfThree: a capture of one broker of a
// three-broker cluster holds a transactional producer's records (their
// partition's leader is that broker) but not its InitProducerId and
// EndTxn, which go to the transaction coordinator, another broker. That
// the producer left without EndTxn cannot be judged from it: it was a
// conv.txn-end warning, "closed its connections with a transaction open"
// (a tester's tshark capture of kgo and kfake's bootstrap broker).
func TestCheckTxnEndOnOneBrokerOfThree(t *testing.T) {
	ports := []int{freePort(t), freePort(t), freePort(t)}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.Ports(ports...), kfake.SeedTopics(1, "txn"))
	require.NoError(t, err)
	defer cluster.Close()
	seed := "127.0.0.1:" + strconv.Itoa(ports[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	direct, err := kgo.NewClient(kgo.SeedBrokers(seed))
	require.NoError(t, err)
	md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, direct)
	direct.Close()
	require.NoError(t, err)
	node := int32(-1)
	for _, b := range md.Brokers {
		if int(b.Port) == ports[0] {
			node = b.NodeID
		}
	}
	require.NotEqual(t, int32(-1), node, "the seed broker's node id")
	require.NoError(t, cluster.MoveTopicPartition("txn", 0, node))
	txnID := ""
	for i := 0; txnID == ""; i++ {
		if id := "kwire-txn-" + strconv.Itoa(i); cluster.CoordinatorFor(id) != node {
			txnID = id
		}
	}
	file := captureLoopback(t, ports[0], func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.TransactionalID(txnID), kgo.DefaultProduceTopic("txn"),
			kgo.RecordPartitioner(kgo.ManualPartitioner()))
		require.NoError(t, err)
		require.NoError(t, cl.BeginTransaction())
		for i := range 3 {
			require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v" + strconv.Itoa(i))}).FirstErr())
		}
		require.NoError(t, cl.EndTransaction(ctx, kgo.TryCommit))
		cl.Close()
	})
	port := strconv.Itoa(ports[0])
	out, errOut, code := runCLI(t, []string{"pcap", "--port", port, file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"apiName":"Produce"`, "the records went to the captured broker")
	require.NotContains(t, out, `"apiName":"EndTxn"`, "the coordinator was not captured")

	out, errOut, code = runCLI(t, []string{"check", "--port", port, "--fail-on", "warning", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.NotContains(t, out, "conv.txn-end warning")
	require.Contains(t, out, "conv.txn-end skipped ")
	require.Contains(t, out, "a transaction whose start was not captured")
}
