package main

import (
	"regexp"
	"sort"
	"testing"

	"github.com/kwire/kwire/codec/check"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// findingRE is a finding's line on kwire proxy --check's standard error
// (skipped rules aside): its rule and severity.
var findingRE = regexp.MustCompile(`(?m)^kwire: check: ([a-z]+\.[a-z-]+) (error|warning|note) `)

// proxyCheckRules runs kwire proxy --check (and args) in front of
// upstream while run talks through it, and returns the rules of its
// findings, sorted, its standard error and its exit status.
func proxyCheckRules(t *testing.T, upstream string, run func(addr string), args ...string) ([]string, string, int) {
	p := startProxyCLI(t, append([]string{"--upstream", upstream, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--check"}, args...)...)
	run(p.addr)
	_, errOut, code := p.stopStatus(t)
	seen := map[string]bool{}
	var rules []string
	for _, m := range findingRE.FindAllStringSubmatch(errOut, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			rules = append(rules, m[1])
		}
	}
	sort.Strings(rules)
	return rules, errOut, code
}

// TestProxyCheckRuleScenarios: kwire proxy --check judges each connection
// and conversation rule's conversation (TestCheckRuleCaptures' scenarios:
// a misbehaving client, or broker, against kfake) as kwire check judges
// its capture: the fault flagged with exactly its rule, the same
// conversation without it clean (kfake's own faults, kfakeRules and scenario.answer, aside). A reused correlation id went unseen
// live, and a broker answering out of order was a request never answered
// and a response to no request where the capture has one late answer.
func TestProxyCheckRuleScenarios(t *testing.T) {
	for _, s := range scenarios {
		for _, bad := range []bool{true, false} {
			name := captureName(s.rule, bad)
			opts := []kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.Ports(freePort(t))}
			if s.sasl {
				opts = append(opts, scenarioSASL...)
			}
			cluster, err := kfake.NewCluster(opts...)
			require.NoError(t, err)
			upstream := cluster.ListenAddrs()[0]
			if s.broker != nil {
				b := s.broker
				if !bad {
					b = passThrough
				}
				upstream = b(t, upstream)
			}
			rules, errOut, code := proxyCheckRules(t, upstream, func(addr string) { s.run(t, addr, bad) })
			cluster.Close()
			kfake := kfakeRules(s) // warnings: they leave the exit status alone
			if bad {
				require.ElementsMatch(t, append(append([]string{s.rule}, kfake...), s.answer...), rules, "%s through the proxy:\n%s", name, errOut)
				// --fail-on error, the default: the warnings' rules pass.
				require.Equal(t, map[bool]int{true: 1, false: 0}[check.RuleByID(s.rule).Severity == check.Error], code, errOut)
			} else {
				require.ElementsMatch(t, kfake, rules, "%s through the proxy:\n%s", name, errOut)
				require.Zero(t, code, errOut)
			}
		}
	}
}

// TestProxyCheckFailOn: kwire proxy --check exits 1, once stopped, when a
// finding reached --fail-on (error by default), as kwire check does; it
// always exited 0. --fail-on alone, or a severity that is none, is
// misuse.
func TestProxyCheckFailOn(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.Ports(freePort(t)))
	require.NoError(t, err)
	defer cluster.Close()
	seed := cluster.ListenAddrs()[0]
	// scenario is rule's faulty client and the broker it talks to.
	scenario := func(rule string) (string, func(string)) {
		for _, s := range scenarios {
			if s.rule == rule {
				upstream := seed
				if s.broker != nil {
					upstream = s.broker(t, seed)
				}
				return upstream, func(addr string) { s.run(t, addr, true) }
			}
		}
		panic(rule)
	}
	for _, c := range []struct {
		rule string // an error's, or a warning's
		args []string
		code int
	}{
		{"conn.correlation", nil, 1},
		{"conn.correlation", []string{"--fail-on", "none"}, 0},
		{"conv.fetch-offset", nil, 0},
		{"conv.fetch-offset", []string{"--fail-on", "warning"}, 1},
		{"conv.fetch-offset", []string{"--fail-on", "note"}, 1},
	} {
		upstream, run := scenario(c.rule)
		rules, errOut, code := proxyCheckRules(t, upstream, run, c.args...)
		require.Equal(t, []string{c.rule}, rules, errOut)
		require.Equal(t, c.code, code, "%s %v:\n%s", c.rule, c.args, errOut)
		require.Regexp(t, `(?m)^kwire: proxy: stopped: `, errOut)
	}
	_, errOut, code := runCLI(t, []string{"proxy", "--upstream", seed, "--fail-on", "warning"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--fail-on needs --check")
	_, errOut, code = runCLI(t, []string{"proxy", "--upstream", seed, "--check", "--fail-on", "fatal"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--fail-on must be error, warning, note or none, not "fatal"`)
	out, _, code := runCLI(t, []string{"proxy", "-h"}, nil)
	require.Zero(t, code)
	require.Contains(t, out, "exit 1 once stopped when a finding was at least this severe")
}

// TestProxyCheckCommitAfterSeekToEnd: a consumer that fetched records
// 0-30, sought to the end (ListOffsets answering 41, as kafka-python's
// seek_to_end and position() ask) and committed that position breaks no
// rule: it was a conv.commit-offset warning, "past what the consumer
// fetched, expected at most 31, found 41". Committing past the reset's
// offset still is one.
func TestProxyCheckCommitAfterSeekToEnd(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.Ports(freePort(t)))
	require.NoError(t, err)
	defer cluster.Close()
	seed := cluster.ListenAddrs()[0]
	// consumer fetches from 0, waits for 10 more records, seeks to the
	// end and commits the end plus past.
	consumer := func(past int64) func(string) {
		return func(addr string) {
			rc := dialRaw(t, addr)
			defer rc.close()
			f := rc.call(fetchReqAt(0), 11).(*kmsg.FetchResponse)
			require.Zero(t, f.Topics[0].Partitions[0].ErrorCode)
			produceSome(t, addr, 10)
			lo := kmsg.NewPtrListOffsetsRequest()
			lo.ReplicaID = -1
			lt := kmsg.NewListOffsetsRequestTopic()
			lt.Topic = "orders"
			lp := kmsg.NewListOffsetsRequestTopicPartition()
			lp.Timestamp = -1 // the end
			lt.Partitions = append(lt.Partitions, lp)
			lo.Topics = append(lo.Topics, lt)
			end := rc.call(lo, 4).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0].Offset
			c := kmsg.NewPtrOffsetCommitRequest()
			c.Group, c.Generation = "kwire-seek", -1
			ct := kmsg.NewOffsetCommitRequestTopic()
			ct.Topic = "orders"
			cp := kmsg.NewOffsetCommitRequestTopicPartition()
			cp.Offset = end + past
			ct.Partitions = append(ct.Partitions, cp)
			c.Topics = append(c.Topics, ct)
			rc.call(c, 8)
		}
	}
	produceSome(t, seed, 31)
	rules, errOut, code := proxyCheckRules(t, seed, consumer(0))
	require.Empty(t, rules, errOut)
	require.Zero(t, code)
	rules, errOut, _ = proxyCheckRules(t, seed, consumer(1)) // fetches 0-40, commits 52
	require.Equal(t, []string{"conv.commit-offset"}, rules, errOut)
	require.Contains(t, errOut, "expected at most 41, found 52")
}
