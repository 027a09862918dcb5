// Command kfakedemo runs a small Kafka to try kwire proxy on: franz-go's
// kfake with three brokers on 127.0.0.1 and a topic "live", and a client
// driven from standard input. The browser test of the proxy's live feed
// (site/e2e/proxy.test.mjs) uses it; by hand:
//
//	go run ./internal/proxy/kfakedemo
//	seed 127.0.0.1:40123
//	kwire proxy --upstream 127.0.0.1:40123 --web 127.0.0.1:8080 --web-dir dist   (another terminal)
//	produce 127.0.0.1:19092 hello                                               (back here)
//	produced 1
//
// Commands, one a line: "produce ADDR [TEXT]" produces one record (with
// franz-go, a new client each time) through ADDR and prints "produced N",
// or "error: ..."; end of input stops the cluster.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(1, "live"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfakedemo:", err)
		os.Exit(1)
	}
	defer c.Close()
	fmt.Println("seed", c.ListenAddrs()[0])
	n := 0
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) < 2 || f[0] != "produce" {
			fmt.Println("error: commands are: produce ADDR [TEXT]")
			continue
		}
		n++
		text := fmt.Sprintf("live record %d", n)
		if len(f) > 2 {
			text = strings.Join(f[2:], " ")
		}
		if err := produce(f[1], text); err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println("produced", n)
	}
}

func produce(addr, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ClientID("kfakedemo"))
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.ProduceSync(ctx, &kgo.Record{Topic: "live", Value: []byte(text)}).FirstErr()
}
