package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCheckGroupRulesRealClients: two of kgo's group consumers against
// kfake, captured on loopback, live a consumer group's normal life: the
// first joins, syncs, heartbeats, fetches and commits; the second joins
// (a rebalance: the first is answered REBALANCE_IN_PROGRESS and rejoins),
// both consume and commit; the second leaves (another rebalance) and then
// the first. kwire check finds nothing of the group rules in it, and
// judges them (no line says a member was not judged), nor of the fetch
// session rules (kgo's consumers fetch in KIP-227 sessions): in the classic
// protocol with the eager range balancer and kgo's default cooperative
// sticky one, and in KIP-848's (ConsumerGroupHeartbeat); and two of
// kafka-python's consumers, whose heartbeats come from a thread of their
// own, in the classic protocol.
func TestCheckGroupRulesRealClients(t *testing.T) {
	t.Parallel() // mostly waiting on its clients' polls; its own kfake, port and dumpcap: no global state
	needTool(t, "dumpcap")
	for _, tc := range []struct {
		name   string
		opts   []kgo.Opt
		apis   []string // the group's APIs the capture must hold
		python bool     // kafka-python's consumers (testdata/kafkapython-group.py), not kgo's
	}{
		{"eager", []kgo.Opt{kgo.Balancers(kgo.RangeBalancer())}, []string{"JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "LeaveGroup"}, false},
		{"cooperative", nil, []string{"JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "LeaveGroup"}, false},
		{"kip848", []kgo.Opt{kgo.WithContext(context.WithValue(context.Background(), "opt_in_kafka_next_gen_balancer_beta", true))},
			[]string{"ConsumerGroupHeartbeat", "OffsetCommit"}, false},
		{"kafka-python", nil, []string{"JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "LeaveGroup"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.python {
				needKafkaPython(t)
			}
			port := freePort(t)
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(4, "orders"),
				kfake.BrokerConfigs(map[string]string{"group.consumer.heartbeat.interval.ms": "300"})) // KIP-848's heartbeats as often as the classic ones
			require.NoError(t, err)
			defer cluster.Close()
			seed := "127.0.0.1:" + strconv.Itoa(port)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			produce := func(n int) {
				cl, err := kgo.NewClient(kgo.SeedBrokers(seed), kgo.DefaultProduceTopic("orders"))
				require.NoError(t, err)
				defer cl.Close()
				for i := range n {
					require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Key: []byte("k" + strconv.Itoa(i)), Value: []byte("v")}).FirstErr())
				}
			}
			consumer := func(name string) *kgo.Client {
				opts := append([]kgo.Opt{kgo.SeedBrokers(seed), kgo.ClientID(name), kgo.ConsumerGroup("kwire-real-" + tc.name), kgo.ConsumeTopics("orders"),
					kgo.HeartbeatInterval(300 * time.Millisecond), kgo.AutoCommitInterval(200 * time.Millisecond)}, tc.opts...)
				cl, err := kgo.NewClient(opts...)
				require.NoError(t, err)
				return cl
			}
			// poll polls cl for d, returning the records it got.
			poll := func(cl *kgo.Client, d time.Duration) int {
				n := 0
				end := time.Now().Add(d)
				for time.Now().Before(end) {
					pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
					fs := cl.PollFetches(pctx)
					pcancel()
					n += fs.NumRecords()
				}
				return n
			}
			file := captureLoopback(t, port, func() {
				if tc.python {
					script, err := filepath.Abs(filepath.Join("testdata", "kafkapython-group.py"))
					require.NoError(t, err)
					runKafkaPython(t, script, "group life done", seed)
					return
				}
				produce(20)
				a := consumer("kwire-a")
				// The first records wait for a's join, which a loaded
				// machine (tests run in parallel) slows past any fixed
				// time: poll until they come, for at most 30 s.
				got := 0
				for end := time.Now().Add(30 * time.Second); got == 0 && time.Now().Before(end); {
					got = poll(a, 500*time.Millisecond)
				}
				require.Positive(t, got, "consumer a got no records in 30 s")
				b := consumer("kwire-b")
				done := make(chan int)
				go func() { done <- poll(b, 4*time.Second) }()
				poll(a, 1*time.Second)
				produce(20)
				poll(a, 3*time.Second)
				<-done
				require.NoError(t, b.CommitUncommittedOffsets(ctx))
				b.Close() // leaves: a rebalance
				poll(a, 2*time.Second)
				require.NoError(t, a.CommitUncommittedOffsets(ctx))
				a.Close()
			})
			out, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), file}, nil)
			require.Equal(t, 0, code, errOut)
			for _, api := range tc.apis {
				require.Contains(t, out, `"apiName":"`+api+`"`, "the capture holds the group's %s", api)
			}
			out, errOut, code = runCLI(t, []string{"check", "--format", "ndjson", "--port", strconv.Itoa(port), file}, nil)
			require.NotEqual(t, 2, code, errOut)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if l == "" {
					continue
				}
				var c checkLine
				require.NoError(t, json.Unmarshal([]byte(l), &c), l)
				switch c.Rule {
				case "conv.group-generation", "conv.member-epoch", "conv.fetch-session", "conv.fetch-session-topic-ids", "conv.fetch-session-answer", "frame.fetch-session", "frame.fetch-forgotten":
					t.Errorf("a real client's group life: %s", l)
				}
			}
		})
	}
}
