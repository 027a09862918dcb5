# Thin targets over go commands; each line is something anyone can type.
# Kafka's schemas live in codec/schema/kafka; KAFKA=DIR imports a newer
# Kafka's message files first (KAFKA_AS names their folder).
KAFKA ?=
KAFKA_AS ?= kafka-import
FUZZTIME ?= 2000x

.PHONY: build generate check-generated test fuzz fuzz-ci bench bench-compare pgo cross wasm site serve worker

GOROOT := $(shell go env GOROOT)
DIST ?= dist
ADDR ?= 127.0.0.1:8080

build:
	go build -o bin/kwire ./cmd/kwire

generate:
	cd codec/schema && go run -tags schema_bootstrap ./internal/gen $(if $(KAFKA),-import $(abspath $(KAFKA)) -as $(KAFKA_AS)) -out tables_gen.go -consts constants_gen.go -internal internal_gen.go

# Regenerates into a temporary folder of its own (mktemp: two checkouts
# checked at once do not share it) and fails when the committed files differ.
check-generated:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cd codec/schema && \
		go run -tags schema_bootstrap ./internal/gen -out "$$tmp/tables_gen.go" -consts "$$tmp/constants_gen.go" -internal "$$tmp/internal_gen.go" && \
		diff -q tables_gen.go "$$tmp/tables_gen.go" >/dev/null && \
		diff -q constants_gen.go "$$tmp/constants_gen.go" >/dev/null && \
		diff -q internal_gen.go "$$tmp/internal_gen.go" >/dev/null || \
		{ echo "codec/schema/tables_gen.go, constants_gen.go or internal_gen.go is stale: run make generate"; exit 1; }

# Every test: short fuzzing runs, the Go tests (the CLI binary, captures of
# real clients), the proxy's soak alone (it compares throughput, so
# nothing may run beside it), the codec's browser-build tests under node, then the browser
# and Worker tests (node's runner), then the playground's glue under node as
# kwire.wasm and as payload.wasm (the tag kwire_payload: record payloads decoded),
# the capture and storage modules' answers to the page against testdata, and
# how the Worker hands answers and bodies to syumai/workers (wasm/worker/whole).
# cmd/kwire's tests (real clients, captures, the built binary) take minutes
# and went past go test's default 10 on a loaded machine: 30m.
test: fuzz-ci
	go test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory cross
	KWIRE_SOAK=1 go test -count=1 -run '^TestProxySoak$$' ./cmd/kwire
	go test -race -count=1 -run '^TestReadFunc' ./internal/capture
	GOOS=js GOARCH=wasm go test -count=1 -exec=$(GOROOT)/lib/wasm/go_js_wasm_exec -run Browser ./codec/internal/rec
	@test -d site/node_modules || (cd site && npm ci --no-audit --no-fund --loglevel=error)
	cd site && npm test
	GOOS=js GOARCH=wasm go test -count=1 -exec=$(GOROOT)/lib/wasm/go_js_wasm_exec ./wasm ./wasm/capture ./wasm/storage ./wasm/worker/whole
	GOOS=js GOARCH=wasm go test -count=1 -exec=$(GOROOT)/lib/wasm/go_js_wasm_exec -tags kwire_payload ./wasm

# The CLI and the library build where users run them, not only here: Windows
# (no SIGUSR1), a 32-bit int (linux/386: 64-bit constants), and macOS on
# arm64 (no vector hex decoding: hexBlocks' portable form). Built, not run.
cross:
	GOOS=windows GOARCH=amd64 go build -o /dev/null ./cmd/kwire
	GOOS=linux GOARCH=386 go build -o /dev/null ./cmd/kwire
	GOOS=darwin GOARCH=arm64 go build -o /dev/null ./cmd/kwire

# Each fuzz target for a fixed budget, as CI runs them: FUZZTIME inputs,
# or the budget after a second colon. The capture fuzzers get about a
# minute in all (FuzzRead found issue 11's panic in 25 s, some 100,000
# inputs; 2000 never would), as counts sized to each one's speed here:
# Go 1.26's fuzzer can fail a run whose -fuzztime is a duration with
# "context deadline exceeded" as the time runs out (go.dev/issue/75804,
# fixed in Go 1.27), which a count has no deadline to race.
# Minimising an interesting input gets 5 s, not Go's 60: FuzzTLS's (a
# capture and its key log, decrypted) would spend the whole budget on it.
CAPTURE_FUZZ_READ ?= 150000x
CAPTURE_FUZZ_REASSEMBLE ?= 100000x
CAPTURE_FUZZ_PCAPNG ?= 150000x
CAPTURE_FUZZ_TLS ?= 6000x
FUZZ_TARGETS = ./codec:FuzzDecode ./codec:FuzzFastPath ./codec:FuzzSASLToken ./codec:FuzzInternalTopics ./codec:FuzzEncodeJSON ./codec:FuzzParseJSON \
	./codec/internal/rec:FuzzBatch ./codec/internal/rec:FuzzMessageSet ./codec/internal/rec:FuzzGzip \
	./codec/internal/rec:FuzzSnappy ./codec/internal/rec:FuzzLZ4 ./codec/internal/rec:FuzzZstd ./codec/jsontext:FuzzTextOrBase64 ./internal/decompress:FuzzLZ4Frames \
	./codec/jsontext:FuzzIndent ./cmd/kwire:FuzzHexValue ./internal/input:FuzzParse ./internal/input:FuzzParseRepeat ./internal/input:FuzzSplitFrames ./internal/input:FuzzRoundTrip ./internal/input:FuzzParsePackets \
	./internal/capture:FuzzRead:$(CAPTURE_FUZZ_READ) ./internal/capture:FuzzReassemble:$(CAPTURE_FUZZ_REASSEMBLE) \
	./internal/capture:FuzzPcapng:$(CAPTURE_FUZZ_PCAPNG) ./internal/capture:FuzzTLS:$(CAPTURE_FUZZ_TLS) \
	./internal/proxy:FuzzRelay ./internal/proxy:FuzzRewrite \
	./codec/storage:FuzzSegment ./codec/storage:FuzzIndexCheck ./codec/storage:FuzzTopicRecord ./codec/storage:FuzzTextFiles \
	./codec/payload:FuzzAvro ./codec/payload:FuzzProtobuf ./codec/payload:FuzzJSON ./codec/payload:FuzzJSONSchema ./codec/payload:FuzzPayloadBothSinks \
	./codec/check:FuzzCheck ./codec/check:FuzzCheckSASLTokens ./codec/internal/sasl:FuzzParse ./codec/internal/sasl:FuzzAppend \
	./codec/payload:FuzzCheckCompact ./codec/payload:FuzzAvroRefs ./internal/api:FuzzHandler ./internal/registry/resolve:FuzzFiles ./internal/render:FuzzProtobufPaths

# Each run's output goes to a log of its own (mktemp), shown when it fails.
fuzz-ci:
	@log=$$(mktemp) && trap 'rm -f "$$log"' EXIT && \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t#*:}; budget=$(FUZZTIME); \
		case $$fn in *:*) budget=$${fn#*:}; fn=$${fn%%:*};; esac; \
		echo "fuzz $$pkg $$fn ($$budget)"; \
		go test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$$budget -fuzzminimizetime=5s $$pkg >"$$log" 2>&1 || { cat "$$log"; exit 1; }; \
	done

# Longer local fuzzing: make fuzz FUZZTIME=5m (every target, captures included)
fuzz: FUZZTIME = 60s
fuzz: CAPTURE_FUZZ_READ = $(FUZZTIME)
fuzz: CAPTURE_FUZZ_REASSEMBLE = $(FUZZTIME)
fuzz: CAPTURE_FUZZ_PCAPNG = $(FUZZTIME)
fuzz: CAPTURE_FUZZ_TLS = $(FUZZTIME)
fuzz: fuzz-ci

bench:
	go test -run='^$$' -bench=. -benchmem ./codec/... ./internal/capture ./cmd/kwire

# The CPU profile the kwire binary is built with (Go's profile-guided
# optimisation: cmd/kwire/default.pgo, which go build and go install read
# by themselves): one core running kwire pcap and kwire batch on the
# benchmarks' realistic traffic. Inlining the calls it finds hot took
# kwire pcap from 634.6M to 596.1M instructions on 3,000 exchanges, and
# batch from 780.3M to 751.5M on 3,000 frames (one core, output the
# same). Run it again when the hot paths change a lot (a profile gone
# stale costs nothing but its gain).
pgo:
	GOMAXPROCS=1 go test -pgo=off -run='^$$' -bench='^Benchmark(Pcap|Batch)$$/^jobs=1$$' -benchtime=20x -cpuprofile=cmd/kwire/default.pgo ./cmd/kwire
	rm -f kwire.test

# kwire beside its peers on the same bytes: kmsg + encoding/json, tshark.
bench-compare: build
	go run ./internal/bench

# The playground's WebAssembly modules, with their raw and gzip sizes:
# kwire.wasm (the codec; its gzip size must stay under 1,185,000 bytes:
# 1.2 MB until the html package's entity table left it, 1,194,323 ->
# 1,173,381 bytes, the bound lowered to keep that), capture.wasm
# (pcap/pcapng reading, loaded only when a capture is opened; under
# 1,585,000 bytes, a bound that caught encoding/json's reflection costing
# it 142 KB for one rule's JSON; raised from 1.65 MB to 1.665 MB for the
# consumer group rules, conv.group-generation and conv.member-epoch, which
# cost it 12.4 KB; at 1,663,885 bytes then, 1,570,521 since klauspost's
# gzip (21 KB) and fmt (73 KB) left it, see internal/capture/gunzip_js.go
# and internal/textfmt, the room left for the rules to come; they took
# it to 1,590,450, and time's layout formatter and a second copy of the
# sorting code leaving it to 1,573,335, when the bound came down to keep
# that, with some 10 KB of room; later rules and fixes took it to
# 1,584,657, and tree's Lookup leaving it (kwire check reads by Get) to
# 1,577,867; internal/bench/wasmsize's
# TestModulesLinkNothingUnused says what must stay out of both modules),
# storage.wasm (Kafka's storage files, loaded only when such files are
# opened), payload.wasm (kwire.wasm's glue with the record payload
# decoders, the tag kwire_payload: loaded, in its place, once the user gives
# schemas) and inflate.wasm (the decompressors, loaded the first time a
# compressed batch is decoded: kwire.wasm, capture.wasm, storage.wasm and
# payload.wasm, which run in the same worker, are built with the tag kwire_hostinflate,
# which leaves them and what they alone import, some 390 KB and 216 KB
# gzip, out; see internal/decompress). internal/wasmprep then merges each
# module's data segments (Go's linker writes one per run of 8 zeros: some
# 60,000, whose offsets compress badly): 105 KB gzip less for kwire.wasm.
# ARCHITECTURE.md ("The download") says where the bytes go.
# (wasm-opt -Oz was measured: under 1% smaller for minutes of work, so it is
# not run.) kwire's own packages are built without inlining: 30 KB gzip
# smaller (1,498,200 -> 1,467,697 bytes), and under node the tree decode of
# a 10,000-record Fetch, a 1,000-partition Metadata and a Produce took the
# same time either way (60-65 ms, 2.7-3.6 ms, 0.57-1.3 ms); the whole
# program without inlining is 77 KB smaller but slows the decompressors.
# The browser tests build the page with this target, so the limit is
# checked by make test too.
WASM_GCFLAGS = -gcflags=github.com/kwire/kwire/...=-l
WASM_LIMIT = 1185000
CAPTURE_WASM_LIMIT = 1585000
# make wasm writes the modules and wasm_exec.js into WASM_DIR: DIST when
# run alone (the playground's browser tests assemble a page there), a
# folder beside DIST for make site (below).
WASM_DIR ?= $(DIST)
WASM_MODULES = kwire capture storage payload inflate
wasm:
	mkdir -p $(WASM_DIR)
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' $(WASM_GCFLAGS) -tags kwire_hostinflate -o $(WASM_DIR)/kwire.wasm ./wasm
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -tags kwire_hostinflate -o $(WASM_DIR)/capture.wasm ./wasm/capture
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -tags kwire_hostinflate -o $(WASM_DIR)/storage.wasm ./wasm/storage
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -tags kwire_hostinflate,kwire_payload -o $(WASM_DIR)/payload.wasm ./wasm
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o $(WASM_DIR)/inflate.wasm ./wasm/inflate
	go run ./internal/wasmprep $(WASM_DIR)/kwire.wasm $(WASM_DIR)/capture.wasm $(WASM_DIR)/storage.wasm $(WASM_DIR)/payload.wasm $(WASM_DIR)/inflate.wasm
	cp $(GOROOT)/lib/wasm/wasm_exec.js $(WASM_DIR)/wasm_exec.js
	@for m in $(WASM_MODULES); do echo "$$m.wasm: $$(wc -c < $(WASM_DIR)/$$m.wasm) bytes raw, $$(gzip -9 -c $(WASM_DIR)/$$m.wasm | wc -c) bytes gzip"; done
	@test $$(gzip -9 -c $(WASM_DIR)/kwire.wasm | wc -c) -lt $(WASM_LIMIT) || { echo "kwire.wasm is over $(WASM_LIMIT) bytes gzip"; exit 1; }
	@test $$(gzip -9 -c $(WASM_DIR)/capture.wasm | wc -c) -lt $(CAPTURE_WASM_LIMIT) || { echo "capture.wasm is over $(CAPTURE_WASM_LIMIT) bytes gzip"; exit 1; }

# The docs site and the playground as plain files in $(DIST). The modules
# are built beside it ($(DIST)-wasm), not in it: the playground loads
# content-hashed copies that kwire site makes, and the 26 MB of un-hashed
# ones would be uploaded for nothing by a Worker deploy of $(DIST) (and
# served by any host of it). Those an earlier make site left in $(DIST) are
# removed.
site: WASM_DIR = $(patsubst %/,%,$(DIST))-wasm
site: wasm
	rm -f $(addprefix $(DIST)/,$(addsuffix .wasm,$(WASM_MODULES)) wasm_exec.js)
	go run ./cmd/kwire site --out $(DIST) --wasm $(WASM_DIR)/kwire.wasm --wasm-exec $(WASM_DIR)/wasm_exec.js

# Build everything and serve it on 127.0.0.1.
serve: site
	go run ./cmd/kwire serve --dir $(DIST) --addr $(ADDR)

# The Cloudflare Worker (wasm/worker/build); prints its gzip size, fails over 3 MB.
worker:
	wasm/worker/build.sh

# The hostile corpus (testdata/hostile): allocation stays within a small
# multiple of the input plus the limits (issue 11). make test also runs the
# playground's glue on the corpus under node (the ./wasm line above).
FUZZ_TARGETS += ./codec:FuzzDecodeAlloc ./codec/internal/rec:FuzzRecordsAlloc
