# kafka-python (Debian's python3-kafka) against a broker at sys.argv[1]: two
# consumers in group "kwire-real-py", each polling in a thread, live a
# group's life. The first joins and reads what a producer wrote to
# "orders" (4 partitions), committing every 200 ms and heartbeating every
# 100 ms from its own thread; 3 s later the second joins (a rebalance),
# both read and commit; the second leaves after 6 s (another rebalance),
# then the first. Prints "group life done".
# Run by TestCheckGroupRulesRealClients with /usr/bin/python3, which
# captures it.
import sys
import threading
import time

from kafka import KafkaConsumer, KafkaProducer

broker = sys.argv[1]


def produce(n):
    p = KafkaProducer(bootstrap_servers=broker, client_id="kwire-py-producer", linger_ms=5)
    for i in range(n):
        p.send("orders", key=b"k%d" % i, value=b"v")
    p.flush(timeout=20)
    p.close(timeout=5)


def consumer(name):
    return KafkaConsumer("orders", bootstrap_servers=broker, client_id=name, group_id="kwire-real-py",
                         auto_offset_reset="earliest", enable_auto_commit=True, auto_commit_interval_ms=200,
                         heartbeat_interval_ms=100, session_timeout_ms=10000)


def run(name, seconds, got):
    # Each consumer polls in a thread of its own: a join waits for the
    # group's other members to rejoin, which they do in their poll.
    c = consumer(name)
    end = time.time() + seconds
    while time.time() < end:
        for msgs in c.poll(timeout_ms=100).values():
            got[name] = got.get(name, 0) + len(msgs)
    c.close()  # commits, then leaves


produce(20)
got = {}
a = threading.Thread(target=run, args=("kwire-py-a", 12, got))
a.start()
time.sleep(3)
b = threading.Thread(target=run, args=("kwire-py-b", 6, got))
b.start()
time.sleep(3)
produce(20)
b.join()  # b has left
a.join()
assert got.get("kwire-py-a", 0) > 0, got
print("kafka-python: group life done", got)
