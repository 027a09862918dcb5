// Package summary holds the rules a capture's per-API summary follows,
// shared by kwire pcap --summary, kwire proxy --summary and the playground's
// capture table (through kwire.wasm, and capture.wasm for the figures of
// exchanges past those it lists, so it uses no fmt and no reflection):
// latency percentiles by nearest rank over a bounded sample, with the
// maximum kept exactly, and which error codes are part of a normal exchange
// rather than a failure.
package summary

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/kwire/kwire/codec/schema"
)

// MaxLatencies is how many latencies Latencies keeps; past that, a uniform
// sample of them (so memory stays flat however long the capture).
const MaxLatencies = 1 << 14

// Latencies holds an API's latencies, or a uniform sample of them
// (reservoir sampling, seeded: the same capture gives the same table), and
// the largest exactly. The zero value is empty and ready.
type Latencies struct {
	// d is in nanoseconds, not time.Duration: sorting a []time.Duration
	// with slices.Sort names the type in its generic dictionary, and the
	// linker then keeps time.Duration.String, which nothing calls, in
	// capture.wasm (see internal/sortfunc).
	d      []int64
	seen   int
	max    time.Duration
	rng    *rand.Rand
	sorted bool
}

// Add records one latency.
func (l *Latencies) Add(d time.Duration) {
	l.seen++
	l.max = max(l.max, d)
	l.sorted = false
	if len(l.d) < MaxLatencies {
		l.d = append(l.d, int64(d))
		return
	}
	if l.rng == nil {
		l.rng = rand.New(rand.NewPCG(1, 2))
	}
	if j := l.rng.IntN(l.seen); j < MaxLatencies {
		l.d[j] = int64(d)
	}
}

// Count is how many latencies were added: with none, an API's summary has
// no latency to show (its exchanges all unpaired), not a latency of 0.
func (l *Latencies) Count() int { return l.seen }

// Max is the largest latency added (exact, sampled or not).
func (l *Latencies) Max() time.Duration { return l.max }

// Sampled reports whether the percentiles come from a sample.
func (l *Latencies) Sampled() bool { return l.seen > len(l.d) }

// Percentile returns the p-th quantile (0 < p <= 1) by nearest rank: the
// smallest latency that at least p of them do not exceed. With two
// latencies the 99th percentile is the larger one, never the smaller; p >= 1
// is the maximum. It is 0 when nothing was added.
func (l *Latencies) Percentile(p float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	if p >= 1 {
		return l.max
	}
	if !l.sorted {
		slices.Sort(l.d)
		l.sorted = true
	}
	return time.Duration(l.d[Rank(p, len(l.d))])
}

// Rank is the index, in n values sorted ascending, of the p-th quantile by
// nearest rank: ceil(p*n) - 1, within [0, n-1]. The playground's table
// computes its percentiles with the same rule.
func Rank(p float64, n int) int {
	i := int(math.Ceil(p*float64(n))) - 1
	return min(max(i, 0), n-1)
}

// Expected reports whether error code in a response of the API with key
// is part of a normal exchange, not a failure: a step of a protocol that
// clients go through every day. Such codes are shown, but not as errors.
//
//   - JoinGroup MEMBER_ID_REQUIRED: a new member's first join is answered
//     with its member id and this code, and it joins again (KIP-394).
//   - Heartbeat, SyncGroup, OffsetCommit REBALANCE_IN_PROGRESS: how a group
//     member learns that a rebalance started, and rejoins.
//   - Metadata LEADER_NOT_AVAILABLE: a topic just created (by a producer's
//     first metadata request, say) has no leader for a moment; clients
//     retry.
//   - FindCoordinator COORDINATOR_NOT_AVAILABLE: the coordinator's internal
//     topic is still being created on a fresh cluster; clients retry.
//
// The list is kwire's own judgement of what is routine (the schemas say
// nothing about it), kept short on purpose.
func Expected(key, code int16) bool {
	switch code {
	case schema.CodeMemberIDRequired:
		return key == schema.KeyJoinGroup
	case schema.CodeRebalanceInProgress:
		return key == schema.KeyHeartbeat || key == schema.KeySyncGroup || key == schema.KeyOffsetCommit
	case schema.CodeLeaderNotAvailable:
		return key == schema.KeyMetadata
	case schema.CodeCoordinatorNotAvailable:
		return key == schema.KeyFindCoordinator
	}
	return false
}
