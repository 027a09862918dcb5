package check

import (
	"slices"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
)

// seqKey is an idempotent producer's partition: its sequence numbers run
// per producer id and partition, from 0 again at each new epoch.
type seqKey struct {
	pid   int64
	topic string
	part  int32
}

// seqState is what a producer sent to a partition: its epoch, the next
// sequence and the last batches (a retry resends one of them as it was).
type seqState struct {
	epoch  int16
	next   int32
	recent [recentBatches][2]int32 // base sequence, record count
	n      int
	lost   int // Checker.lost at the last batch (or at InitProducerId)
	pos    int // reqPos of the last batch's request
	conn   int // its connection
}

// recentBatches is how many batches a retry may reach back: Kafka keeps
// the last five per producer (ProducerStateEntry.NUM_BATCHES_TO_RETAIN)
// and a producer has at most five in flight.
const recentBatches = 8

// txnState is a transactional producer's current transaction.
type txnState struct {
	txnID string
	epoch int16
	// known: the transaction's start was seen (the producer's
	// InitProducerId answer, or the EndTxn that ended its previous
	// transaction), so its coordinator's connection was captured.
	// AddPartitionsToTxn sets it too: what it adds is followed from there.
	known bool
	added map[partKey]bool
	// wrote are the partitions the transaction holds records of: until
	// it ends, its producer's batches to them are transactional.
	wrote  map[partKey]bool
	open   bool // records or offsets went into it since it began
	openAt Where
	conns  map[int]bool
	tv2    bool // Produce v12+: partitions are added by the produce itself
	// lost is Checker.lost when the transaction began (or became known):
	// an add, a produce or an EndTxn lost since may be what a rule
	// would miss.
	lost int
	// moved: a coordinator request of the transaction was answered
	// NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, so the producer may
	// have gone on with a coordinator the capture does not see.
	moved bool
	// ended: the last transaction was ended by an EndTxn at endEpoch,
	// committing (endCommit) or aborting. The same EndTxn again with
	// nothing in the transaction since ends that one again: a client's
	// retry, or the other leg of a proxy in the same capture (client to
	// proxy, proxy to broker), not an empty transaction.
	ended     bool
	endEpoch  int16
	endCommit bool
}

// pidEpoch is a producer id at one epoch: one producer (a fenced
// producer's old epoch is its own, the new one another's).
type pidEpoch struct {
	pid   int64
	epoch int16
}

// maxFenced bounds Checker.fenced: past it, the oldest answers are
// forgotten (and their producers' batches not held to them).
const maxFenced = 1024

// fence notes that producer id pid at epoch was refused as fenced, by
// the response of exchange a.
func (c *Checker) fence(a *analysis, pid int64, epoch int16) {
	k := pidEpoch{pid, epoch}
	if _, ok := c.fenced[k]; ok {
		return
	}
	if len(c.fenced) >= maxFenced {
		clear(c.fenced)
	}
	c.fenced[k] = respPos(&a.x)
}

// toldFenced reports whether producer id pid at epoch was told, before
// the request of exchange a, that it is fenced.
func (c *Checker) toldFenced(a *analysis, pid int64, epoch int16) bool {
	at, ok := c.fenced[pidEpoch{pid, epoch}]
	pos := reqPos(&a.x)
	return ok && (pos == 0 || at < pos)
}

// refused reports whether a's response was captured and refused the
// request with an error code.
func refused(a *analysis) bool {
	rsp := &a.rsp
	return rsp.Present && rsp.Err == nil && !rsp.Guessed && rsp.ErrorCode != 0
}

// fencedAnswer reports whether a's response says the producer is fenced.
func fencedAnswer(a *analysis) bool {
	return refused(a) && (a.rsp.ErrorCode == errInvalidProducerEpoch || a.rsp.ErrorCode == errProducerFenced)
}

// partKey names a partition of a client (identity) or of a producer.
type partKey struct {
	who   string
	topic string
	part  int32
}

// fetchState is a consumer's view of one partition.
type fetchState struct {
	last     int64 // the last fetch offset
	first    int64 // the first fetch offset seen
	returned int64 // one past the last offset a fetch response returned
	resets   int   // the identity's reset count when last fetched
	conn     int   // the connection of the last fetch
	lost     int   // Checker.lost at the last fetch
	pos      int   // reqPos of the last fetch
	seen     bool
	// others are where the partition's fetches over other connections
	// were, each when it was last fetched over it (the last
	// maxFetchConns): a fetch over one of them again is judged against
	// that connection's last, as each connection's fetches are one
	// consumer's (two consumers with one host and client id, both legs
	// of kwire proxy in one capture, a leader that moved away and back).
	others []connFetch
	// truncs are the end offsets the consumer's position may go back to
	// (KIP-320: OffsetForLeaderEpoch answers, Fetch responses'
	// divergingEpoch) with where they were answered: a fetch sent after
	// one may start there (-1: anywhere, the end offset undefined, the
	// consumer resets). The last maxResetOffsets are kept.
	truncs []truncation
	// epoch is the last fetch's currentLeaderEpoch (-1: none); validate
	// says the consumer validates its position (KIP-320): a fetch was
	// answered FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH, or a fetch
	// came with a newer leader epoch. Its OffsetForLeaderEpoch answer may
	// have come from a broker the capture does not see.
	epoch    int32
	validate bool
	// whole: nothing was lost before the first fetch seen nor between the
	// fetches since (an earlier fetch, or a reset, may be in what was).
	whole bool
}

// connFetch is where a partition's fetches over connection conn were
// when it was last fetched over it: the offset, the identity's reset
// count, Checker.lost and the request's position.
type connFetch struct {
	conn              int
	last              int64
	resets, lost, pos int
}

// maxFetchConns bounds the connections a partition's fetchState keeps
// (others).
const maxFetchConns = 4

// over is where the partition's fetches over conn were, and whether it
// was fetched over conn.
func (f *fetchState) over(conn int) (connFetch, bool) {
	if f.seen && f.conn == conn {
		return connFetch{conn, f.last, f.resets, f.lost, f.pos}, true
	}
	for _, o := range f.others {
		if o.conn == conn {
			return o, true
		}
	}
	return connFetch{}, false
}

// truncation is an end offset a consumer's position may go back to, and
// the position (packet or frame) of the response that gave it.
type truncation struct {
	off int64
	at  int
}

// before reports whether the end offset was answered before a fetch sent
// at pos: exchanges without positions (frames, not a capture) come in
// order.
func (t truncation) before(pos int) bool { return pos == 0 || t.at < pos }

// wrapSequence adds n to a sequence as Kafka does: past the int32 maximum
// it wraps to 0 (DefaultRecordBatch.incrementSequence).
func wrapSequence(seq, n int32) int32 {
	if seq > (1<<31-1)-n {
		return n - ((1<<31 - 1) - seq) - 1
	}
	return seq + n
}

func (c *Checker) conversation(a *analysis, cs *connState) {
	req, rsp := &a.req, &a.rsp
	cn := cs.conn
	if rsp.Present && rsp.Err == nil && !rsp.Guessed {
		for _, t := range rsp.Topics {
			c.topicByID[t.ID] = t.Name
		}
	}
	if !req.Present || req.Err != nil || req.HeaderMismatch {
		return
	}
	who := identity(cn, req.ClientID)
	switch a.key {
	case schema.KeyInitProducerId:
		if rsp.Present && rsp.Err == nil && rsp.ErrorCode == 0 {
			t := c.txn(rsp.ProducerID)
			*t = txnState{txnID: req.TxnID, epoch: rsp.ProducerEpoch, known: true, conns: map[int]bool{cn.ID: true}, lost: c.lost}
		}
	case schema.KeyProduce:
		c.produce(a, req, cn)
		if fencedAnswer(a) {
			for i := range req.Parts {
				for _, b := range req.Parts[i].Batches {
					if b.ProducerID >= 0 {
						c.fence(a, b.ProducerID, b.ProducerEpoch)
					}
				}
			}
		}
	case schema.KeyAddPartitionsToTxn:
		for _, tx := range req.Txns {
			if tx.VerifyOnly {
				continue
			}
			t := c.txn(tx.ProducerID)
			if !t.known {
				t.known, t.lost = true, c.lost
			}
			t.conns[cn.ID] = true
			for _, p := range tx.Parts {
				t.added[partKey{"", c.topicName(p.Topic), p.Partition}] = true
			}
			c.coordinatorMoved(a, tx.ProducerID)
		}
	case schema.KeyAddOffsetsToTxn, schema.KeyTxnOffsetCommit:
		t := c.txn(req.ProducerID)
		if !t.open {
			t.open, t.openAt = true, a.where(Request)
		}
		t.conns[cn.ID] = true
		if a.key == schema.KeyAddOffsetsToTxn {
			c.coordinatorMoved(a, req.ProducerID)
		} else {
			c.groupGeneration(a, who)
		}
	case schema.KeyEndTxn:
		t := c.txn(req.ProducerID)
		t.conns[cn.ID] = true
		if fencedAnswer(a) {
			c.fence(a, req.ProducerID, req.ProducerEpoch)
		}
		if refused(a) || t.known && req.ProducerEpoch < t.epoch {
			// A refused EndTxn ends nothing; one at an older epoch than
			// the producer id's current one is a fenced producer's (a
			// zombie's), which Kafka refuses (PRODUCER_FENCED): the
			// current epoch's transaction goes on.
			c.coordinatorMoved(a, req.ProducerID)
			break
		}
		switch {
		case !t.known || t.open || len(t.added) > 0:
		case t.ended && t.endEpoch == req.ProducerEpoch && t.endCommit == req.Commit:
			// The transaction just ended, ended again (see ended).
		case t.lost != c.lost:
			c.skip(ConvTxnEnd, a.where(Request), "an EndTxn "+c.afterLoss()+" is not judged (what went into its transaction may be in them)")
		default:
			c.add(ConvTxnEnd, a.where(Request), "EndTxn for producer id "+i64(req.ProducerID)+" ends a transaction that holds nothing",
				"EndTxn after records or offsets went into the transaction", "an empty transaction")
		}
		t.known, t.open, t.lost, t.moved = true, false, c.lost, false
		t.ended, t.endEpoch, t.endCommit = true, req.ProducerEpoch, req.Commit
		t.epoch = max(t.epoch, req.ProducerEpoch)
		clear(t.added)
		clear(t.wrote)
		c.coordinatorMoved(a, req.ProducerID)
	case schema.KeyFetch:
		c.fetchSession(a, cs)
		if req.ReplicaID < 0 {
			c.fetch(a, who, cn.ID)
		}
	case schema.KeyListOffsets, schema.KeyOffsetFetch:
		c.resets[who]++
		c.resetOffsets(a, who)
	case schema.KeyOffsetForLeaderEpoch:
		c.truncations(a, who)
	case schema.KeyOffsetCommit:
		c.commit(a, who)
		c.groupGeneration(a, who)
	case schema.KeyJoinGroup:
		c.joinMember(a, who)
		c.joinGroup(a, who)
	case schema.KeyHeartbeat, schema.KeySyncGroup, schema.KeyLeaveGroup:
		c.groupGeneration(a, who)
	case schema.KeyConsumerGroupHeartbeat:
		c.memberEpoch(a)
	}
}

// coordinatorMoved marks a producer's transaction whose coordinator
// answered NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE: the producer
// looks for its coordinator again, maybe on a broker the capture does not
// see.
func (c *Checker) coordinatorMoved(a *analysis, pid int64) {
	if rsp := &a.rsp; rsp.Present && rsp.Err == nil && !rsp.Guessed &&
		(rsp.ErrorCode == errNotCoordinator || rsp.ErrorCode == errCoordinatorUnavailable) {
		c.txn(pid).moved = true
	}
}

func (c *Checker) txn(pid int64) *txnState {
	t := c.txns[pid]
	if t == nil {
		t = &txnState{added: map[partKey]bool{}, conns: map[int]bool{}}
		c.txns[pid] = t
	}
	if t.added == nil {
		t.added = map[partKey]bool{}
	}
	if t.wrote == nil {
		t.wrote = map[partKey]bool{}
	}
	return t
}

func (c *Checker) topicName(t string) string {
	if n, ok := c.topicByID[t]; ok {
		return n
	}
	return t
}

// produce follows an idempotent producer's sequences and a transactional
// producer's partitions.
func (c *Checker) produce(a *analysis, req *frameFacts, cn *Conn) {
	for i := range req.Parts {
		p := &req.Parts[i]
		for j := range p.Batches {
			b := &p.Batches[j]
			if b.Partial || b.Magic != 2 || b.ProducerID < 0 || b.BaseSequence < 0 || b.control() || b.RecordCount <= 0 {
				continue
			}
			topic := c.topicName(p.Topic)
			c.sequence(a, b, seqKey{b.ProducerID, topic, p.Partition})
			pk := partKey{"", topic, p.Partition}
			if !b.transactional() {
				if t := c.txns[b.ProducerID]; t != nil && t.wrote[pk] {
					if t.lost != c.lost {
						c.skip(ConvTxnWrite, a.batchAt(Request, b, batchAttributes, "attributes"), "a batch "+c.afterLoss()+" is not judged (its transaction's end may be in them)")
					} else {
						// ProducerAppendInfo.appendDataBatch: "Expected
						// transactional write" (INVALID_TXN_STATE).
						c.add(ConvTxnWrite, a.batchAt(Request, b, batchAttributes, "attributes"),
							"producer id "+i64(b.ProducerID)+" wrote a non-transactional batch to "+topic+"-"+itoa(int(p.Partition))+" while its transaction there is open",
							"a transactional batch, or EndTxn first", "the transactional bit clear")
					}
				}
				continue
			}
			t := c.txn(b.ProducerID)
			if t.known && b.ProducerEpoch < t.epoch {
				// A fenced producer's (a zombie's) batch: Kafka refuses
				// it (INVALID_PRODUCER_EPOCH), it is no part of the
				// current epoch's transaction.
				continue
			}
			t.epoch = max(t.epoch, b.ProducerEpoch)
			t.conns[cn.ID] = true
			t.wrote[pk] = true
			if !t.open {
				t.open, t.openAt = true, a.batchAt(Request, b, 0, "")
			}
			switch {
			case req.Version >= 12:
				t.tv2 = true // the broker adds the partition itself (KIP-890)
				t.added[pk] = true
			case t.added[pk]:
			case !t.known:
				c.skip(ConvTxnAdd, a.batchAt(Request, b, 0, ""), "a transaction whose start was not captured is not judged")
			case t.moved:
				c.skip(ConvTxnAdd, a.batchAt(Request, b, 0, ""), "a transaction whose coordinator answered NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE is not judged (its producer may add partitions through a coordinator the capture does not see)")
			case t.lost != c.lost:
				c.skip(ConvTxnAdd, a.batchAt(Request, b, 0, ""), "a transactional batch "+c.afterLoss()+" is not judged (its AddPartitionsToTxn may be in them)")
			default:
				c.add(ConvTxnAdd, a.batchAt(Request, b, batchProducerID, "producerId"),
					"producer id "+i64(b.ProducerID)+" produced transactional records to "+topic+"-"+itoa(int(p.Partition))+" without adding the partition to its transaction",
					"AddPartitionsToTxn for "+topic+"-"+itoa(int(p.Partition))+" first", "none")
				t.added[pk] = true // said once per partition and transaction
			}
		}
	}
}

// sequence checks one batch's base sequence and epoch against what its
// producer sent to that partition before, as Kafka's
// ProducerAppendInfo.checkSequence does: the first batch of a producer
// Kafka holds no state of for the partition may start anywhere, a new
// epoch starts at 0, an epoch never goes back, and within an epoch each
// batch follows the last.
func (c *Checker) sequence(a *analysis, b *batchFacts, k seqKey) {
	seq := func() Where { return a.batchAt(Request, b, batchBaseSequence, "baseSequence") }
	where := k.topic + "-" + itoa(int(k.part))
	s := c.producers[k]
	switch {
	case s == nil:
		s = &seqState{}
		c.producers[k] = s
		if b.BaseSequence != 0 {
			c.skip(ConvSequence, seq(), "a producer's first batch seen for a partition is judged from its sequence on: Kafka takes any sequence from a producer it holds no state of there, and earlier batches may have gone to a broker the capture does not see")
		}
	case reqPos(&a.x) < s.pos && connID(a.x.Conn) == s.conn:
		// An older request handed out after later ones (its answer
		// lost, or given up on): the state has moved past it.
		c.skip(ConvSequence, seq(), "a batch whose exchange ended after later batches' (its response was not captured) is not judged")
		return
	case b.ProducerEpoch < s.epoch:
		// Refused (InvalidProducerEpochException): the state stays. A
		// fenced producer (a zombie: another connection than the one
		// the newer epoch came over) sends its old epoch until Kafka
		// tells it so: fencing at work, not its fault. Going on after
		// being told (INVALID_PRODUCER_EPOCH or PRODUCER_FENCED), or
		// going back over the connection that carried the newer
		// epoch, is.
		told := c.toldFenced(a, k.pid, b.ProducerEpoch)
		if told || connID(a.x.Conn) == s.conn {
			what := "went back to an older epoch for " + where + " over the connection that carried the newer one"
			if told {
				what = "sent epoch " + itoa(int(b.ProducerEpoch)) + " to " + where + " after being told it is fenced (INVALID_PRODUCER_EPOCH or PRODUCER_FENCED)"
			}
			c.add(ConvSequence, a.batchAt(Request, b, batchProducerEpoch, "producerEpoch"),
				"producer id "+i64(k.pid)+" "+what,
				"epoch "+itoa(int(s.epoch))+" or later", "epoch "+itoa(int(b.ProducerEpoch)))
		}
		return
	case b.ProducerEpoch > s.epoch:
		switch {
		case b.BaseSequence == 0:
		case s.lost != c.lost:
			c.skip(ConvSequence, seq(), "a producer's batch "+c.afterLoss()+" is not judged (its earlier batches may be in them)")
		default:
			c.add(ConvSequence, seq(),
				"producer id "+i64(k.pid)+"'s first batch to "+where+" at its new epoch "+itoa(int(b.ProducerEpoch))+" (after "+itoa(int(s.epoch))+") does not start at sequence 0",
				"0", itoa(int(b.BaseSequence)))
		}
		*s = seqState{}
	default:
		for i := 0; i < min(s.n, recentBatches); i++ {
			if r := s.recent[i]; r[0] == b.BaseSequence && r[1] == b.RecordCount {
				return // a retry
			}
		}
		switch {
		case b.BaseSequence == s.next:
		case s.lost != c.lost:
			c.skip(ConvSequence, seq(), "a producer's batch "+c.afterLoss()+" is not judged (its earlier batches may be in them)")
		default:
			what := "a gap"
			if seqBefore(b.BaseSequence, s.next) {
				what = "an overlap with batches sent before"
			}
			c.add(ConvSequence, seq(),
				"producer id "+i64(k.pid)+" (epoch "+itoa(int(b.ProducerEpoch))+") leaves "+what+" in its sequence for "+where,
				itoa(int(s.next)), itoa(int(b.BaseSequence)))
		}
	}
	s.recent[s.n%recentBatches] = [2]int32{b.BaseSequence, b.RecordCount}
	s.n++
	s.epoch, s.next = b.ProducerEpoch, wrapSequence(b.BaseSequence, b.RecordCount)
	s.lost, s.pos, s.conn = c.lost, reqPos(&a.x), connID(a.x.Conn)
}

// connID is a connection's id, 0 for none.
func connID(cn *Conn) int {
	if cn == nil {
		return 0
	}
	return cn.ID
}

// seqBefore reports whether sequence a comes before b (within half the
// sequence space, as sequences wrap).
func seqBefore(a, b int32) bool {
	d := int64(b) - int64(a)
	if d < 0 {
		d += 1 << 31
	}
	return d > 0 && d < 1<<30
}

// fetch follows a consumer's fetch offsets and what the responses
// returned, over connection conn. A consumer fetches a partition over one
// connection, its leader's: a fetch over another may be another consumer
// of the same host and client id (the default client ids make that
// common) or a new leader, so it moves the position wherever it goes.
// Where a position moves back legitimately (a reset, another
// connection), it is also a new start for the commits to be judged by.
func (c *Checker) fetch(a *analysis, who string, conn int) {
	req, rsp := &a.req, &a.rsp
	resets := c.resets[who]
	for i := range req.Parts {
		p := &req.Parts[i]
		k := partKey{who, c.topicName(p.Topic), p.Partition}
		f := c.fetchers[k]
		if f == nil {
			f = &fetchState{first: p.Offset, returned: -1, whole: c.lost == 0, epoch: -1}
			c.fetchers[k] = f
		}
		pos := reqPos(&a.x)
		ref, fetched := f.over(conn)
		switch {
		case !fetched:
			// The first fetch, or one over another connection than
			// before (a new leader): the consumer's position is
			// followed from there.
		case pos < ref.pos:
			// An older fetch handed out after later ones (its answer
			// lost, or given up on): the position has moved past it.
			c.skip(ConvFetchOffset, a.atPath(Request, p.loc.path()+".fetchOffset"),
				"a fetch whose exchange ended after later fetches' (its response was not captured) is not judged")
			continue
		case ref.resets != resets:
		case p.Offset < ref.last && f.truncatedTo(p.Offset, pos):
			// KIP-320: the consumer truncated its position to the end
			// offset OffsetForLeaderEpoch or a divergingEpoch answered.
		case p.Offset < ref.last && !f.answered(pos) && (f.validate || p.LeaderEpoch > f.epoch && f.epoch >= 0):
			c.skip(ConvFetchOffset, a.atPath(Request, p.loc.path()+".fetchOffset"),
				"a fetch offset after the consumer validated its position (KIP-320: a new leader epoch, or FENCED_LEADER_EPOCH) is not judged: the OffsetForLeaderEpoch answer it truncates to is not in the capture")
		case p.Offset < ref.last && ref.lost != c.lost:
			c.skip(ConvFetchOffset, a.atPath(Request, p.loc.path()+".fetchOffset"),
				"a fetch offset "+c.afterLoss()+" is not judged (a reset may be in them)")
		case p.Offset < ref.last:
			c.add(ConvFetchOffset, a.atPath(Request, p.loc.path()+".fetchOffset"),
				"the fetch offset for "+k.topic+"-"+itoa(int(p.Partition))+" went back without a reset (ListOffsets, OffsetFetch or OFFSET_OUT_OF_RANGE) or a truncation (OffsetForLeaderEpoch, divergingEpoch)",
				"at least "+i64(ref.last), i64(p.Offset))
		}
		if f.seen && f.lost != c.lost {
			f.whole = false
		}
		// Wherever the position moved back (a reset, another connection,
		// a seek already said), the consumer fetches from there: the
		// commits are judged from it.
		f.first = min(f.first, p.Offset)
		if f.seen && f.conn != conn {
			f.switchTo(conn)
		}
		f.seen, f.last, f.resets, f.conn, f.lost, f.pos = true, p.Offset, resets, conn, c.lost, pos
		// An end offset answered before every connection's last fetch
		// has been fetched from (or passed) over each of them; without
		// positions, over several connections, that cannot be told, and
		// the last maxResetOffsets stay.
		oldest := pos
		for _, o := range f.others {
			oldest = min(oldest, o.pos)
		}
		if len(f.others) == 0 || oldest > 0 {
			f.truncs = slices.DeleteFunc(f.truncs, func(t truncation) bool { return t.before(oldest) })
		}
		f.epoch, f.validate = p.LeaderEpoch, false
		delete(c.resetTo, k)
	}
	if !rsp.Present || rsp.Err != nil {
		return
	}
	for i := range rsp.Parts {
		p := &rsp.Parts[i]
		k := partKey{who, c.topicName(p.Topic), p.Partition}
		f := c.fetchers[k]
		if f == nil {
			continue
		}
		if p.ErrorCode == errOffsetOutOfRange {
			c.resets[who]++
			continue
		}
		if p.ErrorCode == errFencedLeaderEpoch || p.ErrorCode == errUnknownLeaderEpoch {
			f.validate = true
		}
		if p.HasTruncate {
			f.addTruncation(p.Truncate, respPos(&a.x))
		}
		for j := range p.Batches {
			b := &p.Batches[j]
			if !b.Partial && b.Magic == 2 {
				f.returned = max(f.returned, b.BaseOffset+int64(b.LastOffsetDelta)+1)
			}
		}
	}
}

// truncations keeps the end offsets an OffsetForLeaderEpoch answer gave
// the consumer who, for the partitions it fetches: KIP-320, its position
// goes back to them (Consumer's SubscriptionState.maybeCompleteValidation;
// an undefined one, -1, resets it). They are also positions it may
// commit before it fetches again.
func (c *Checker) truncations(a *analysis, who string) {
	rsp := &a.rsp
	if !rsp.Present || rsp.Err != nil || rsp.Guessed {
		return
	}
	for i := range rsp.Parts {
		p := &rsp.Parts[i]
		if p.ErrorCode != 0 || !p.HasTruncate {
			continue
		}
		k := partKey{who, c.topicName(p.Topic), p.Partition}
		if f := c.fetchers[k]; f != nil && f.seen {
			f.addTruncation(p.Truncate, respPos(&a.x))
		}
		if p.Truncate >= 0 {
			offs := c.resetTo[k]
			if len(offs) == maxResetOffsets {
				offs = append(offs[:0], offs[1:]...)
			}
			c.resetTo[k] = append(offs, p.Truncate)
		}
	}
}

func (f *fetchState) addTruncation(off int64, at int) {
	if len(f.truncs) == maxResetOffsets {
		f.truncs = append(f.truncs[:0], f.truncs[1:]...)
	}
	f.truncs = append(f.truncs, truncation{off, at})
}

// answered reports whether an end offset was answered for a fetch sent
// at pos.
func (f *fetchState) answered(pos int) bool {
	for _, t := range f.truncs {
		if t.before(pos) {
			return true
		}
	}
	return false
}

// switchTo keeps where the partition's fetches over its last connection
// were (others) as it is fetched over conn, which others no longer hold,
// dropping the oldest past maxFetchConns.
func (f *fetchState) switchTo(conn int) {
	kept := f.others[:0]
	for _, o := range f.others {
		if o.conn != conn && o.conn != f.conn {
			kept = append(kept, o)
		}
	}
	if len(kept) == maxFetchConns {
		kept = append(kept[:0], kept[1:]...)
	}
	f.others = append(kept, connFetch{f.conn, f.last, f.resets, f.lost, f.pos})
}

// truncatedTo reports whether a fetch at offset, sent at pos, starts
// where an end offset answered before it put the position: that offset,
// or anywhere after an undefined one (-1: the consumer resets, or fetches
// at -1 to be answered OFFSET_OUT_OF_RANGE, as kgo does).
func (f *fetchState) truncatedTo(offset int64, pos int) bool {
	for _, t := range f.truncs {
		if t.before(pos) && (t.off == offset || t.off < 0) {
			return true
		}
	}
	return false
}

// maxResetOffsets is how many offsets a consumer's resets gave one
// partition since it last fetched it are kept (resetTo).
const maxResetOffsets = 4

// resetOffsets keeps the offsets a ListOffsets or OffsetFetch answer gave
// the consumer who, per partition: the position it may take without a
// fetch (kafka-python's seek_to_end and position(), say), which it may
// commit before it fetches again.
func (c *Checker) resetOffsets(a *analysis, who string) {
	rsp := &a.rsp
	if !rsp.Present || rsp.Err != nil || rsp.Guessed {
		return
	}
	for i := range rsp.Parts {
		p := &rsp.Parts[i]
		if p.ErrorCode != 0 || p.Offset < 0 {
			continue
		}
		k := partKey{who, c.topicName(p.Topic), p.Partition}
		offs := c.resetTo[k]
		if len(offs) == maxResetOffsets {
			offs = append(offs[:0], offs[1:]...)
		}
		c.resetTo[k] = append(offs, p.Offset)
	}
}

// commit checks committed offsets against what the consumer fetched, or
// a reset since gave it.
func (c *Checker) commit(a *analysis, who string) {
	req := &a.req
	for i := range req.Parts {
		p := &req.Parts[i]
		k := partKey{who, c.topicName(p.Topic), p.Partition}
		f := c.fetchers[k]
		if f == nil || !f.seen {
			c.skip(ConvCommitOffset, a.atPath(Request, p.loc.path()+".committedOffset"), "an offset committed for a partition whose fetches were not captured is not judged")
			continue
		}
		if slices.Contains(c.resetTo[k], p.Offset) {
			continue // the position a reset since the last fetch gave
		}
		hi := max(f.last, f.returned)
		switch {
		case p.Offset > hi && f.lost != c.lost:
			c.skip(ConvCommitOffset, a.atPath(Request, p.loc.path()+".committedOffset"),
				"an offset committed "+c.afterLoss()+" is not judged (the consumer's later fetches may be in them)")
		case p.Offset < f.first && (!f.whole || f.lost != c.lost):
			c.skip(ConvCommitOffset, a.atPath(Request, p.loc.path()+".committedOffset"),
				"an offset committed before the first fetch seen, "+c.afterLoss()+", is not judged (the consumer's earlier fetches may be in them)")
		case p.Offset > hi:
			c.add(ConvCommitOffset, a.atPath(Request, p.loc.path()+".committedOffset"),
				"the offset committed for "+k.topic+"-"+itoa(int(p.Partition))+" is past what the consumer fetched (records it never read would be skipped)",
				"at most "+i64(hi), i64(p.Offset))
		case p.Offset < f.first:
			c.add(ConvCommitOffset, a.atPath(Request, p.loc.path()+".committedOffset"),
				"the offset committed for "+k.topic+"-"+itoa(int(p.Partition))+" is before where the consumer started fetching",
				"at least "+i64(f.first), i64(p.Offset))
		}
	}
}

// End applies what can be judged only once everything was seen: a
// transaction with records whose producer's connections all closed
// without ending it, judged only where the capture holds the
// transaction's start (so its coordinator's connection), its coordinator
// did not move, and nothing was lost since it began. It returns those
// findings. What it judges (a finding not Skipped) is only of
// connections the caller marked closed: it holds as well for a capture
// whose reading was cut after they closed (kwire check's Ctrl-C), whereas
// what it says not judged may depend on where the capture ended. The
// transactions it does not judge are said once for each reason (and
// whether their connections closed), at the first of them, with every
// producer id, whatever the rule said not judged before: each open
// transaction is in a line. Each finding's ConnsClosed says whether the
// connections it is of (the producers') had all closed: one not judged
// for a reason of its own (the transaction's start not captured, its
// coordinator moved, bytes lost since it began) and ConnsClosed is not
// judged for that reason wherever after their close the capture ends.
func (c *Checker) End() []Finding {
	c.out = c.out[:0]
	pids := make([]int64, 0, len(c.txns))
	for pid := range c.txns {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	var skips []txnSkip
	for _, pid := range pids {
		t := c.txns[pid]
		if !t.open {
			continue
		}
		closed := len(t.conns) > 0
		for id := range t.conns {
			if cs := c.conns[id]; cs == nil || !cs.conn.Closed {
				closed = false
			}
		}
		why := ""
		switch {
		case !t.known:
			// Its EndTxn goes to the transaction coordinator, which may be
			// a broker the capture does not see.
			why = "a transaction whose start was not captured (no InitProducerId, AddPartitionsToTxn or earlier EndTxn of its producer: its coordinator's connection may not be in the capture) is not judged"
		case t.moved:
			why = "a transaction whose coordinator answered NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE is not judged (its producer may have ended it with a coordinator the capture does not see)"
		case t.lost != c.lost:
			why = "a transaction still open " + c.afterLoss() + " is not judged (its EndTxn may be in them)"
		case closed:
			c.add(ConvTxnEnd, t.openAt, "producer id "+i64(pid)+" closed its connections with a transaction open", "EndTxn", "no EndTxn")
			c.out[len(c.out)-1].ConnsClosed = true
			continue
		default:
			why = "a transaction still open when the capture ended, its producer connected, is not judged"
		}
		i := slices.IndexFunc(skips, func(s txnSkip) bool { return s.why == why && s.closed == closed })
		if i < 0 {
			i = len(skips)
			skips = append(skips, txnSkip{why: why, closed: closed, at: t.openAt})
		}
		skips[i].pids = append(skips[i].pids, pid)
	}
	for _, s := range skips {
		c.out = append(c.out, Finding{Rule: ConvTxnEnd, Where: s.at, What: s.why + s.producers(), Skipped: true, ConnsClosed: s.closed})
	}
	return c.out
}

// txnSkip is the transactions End does not judge for one reason: why,
// where the first began, their producer ids (ascending), and whether
// their connections all closed.
type txnSkip struct {
	why    string
	at     Where
	pids   []int64
	closed bool
}

// maxListed is how many producer ids a line of End lists.
const maxListed = 8

// producers names s's transactions' producers, after the reason that
// says the first not judged: ": producer id 7", or ", nor are 2 more
// like it: producer ids 7, 8 and 9, the first here".
func (s *txnSkip) producers() string {
	n := len(s.pids)
	if n == 1 {
		return ": producer id " + i64(s.pids[0])
	}
	b := []byte(", nor are " + itoa(n-1) + " more like it: producer ids ")
	for i, pid := range s.pids[:min(n, maxListed)] {
		switch {
		case i == 0:
		case i == n-1:
			b = append(b, " and "...)
		default:
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, pid, 10)
	}
	if n > maxListed {
		b = append(b, " and "+itoa(n-maxListed)+" more"...)
	}
	return string(b) + ", the first here"
}
