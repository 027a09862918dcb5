# Thin targets over go commands; each line is something anyone can type.
SCHEMAS ?= ../shared/kafka-message-schemas
FUZZTIME ?= 2000x

.PHONY: build generate check-generated test fuzz fuzz-ci bench bench-compare wasm site serve

GOROOT := $(shell go env GOROOT)
DIST ?= dist
ADDR ?= 127.0.0.1:8080

build:
	go build -o bin/kwire ./cmd/kwire

generate:
	cd codec/schema && go run gen.go -schemas ../../$(SCHEMAS) -out tables_gen.go

# Regenerates into a temporary file and fails when the committed tables differ.
check-generated:
	cd codec/schema && go run gen.go -schemas ../../$(SCHEMAS) -out /tmp/kwire_tables_gen.go && \
		diff -q tables_gen.go /tmp/kwire_tables_gen.go >/dev/null || \
		{ echo "codec/schema/tables_gen.go is stale: run make generate"; exit 1; }

# Every test: short fuzzing runs, the Go tests (the CLI binary, captures of
# real clients), then the browser and Worker tests (node's runner).
test: fuzz-ci
	go test -count=1 ./...

# Each fuzz target for a fixed number of inputs, as CI runs them.
FUZZ_TARGETS = ./codec:FuzzDecode ./codec:FuzzEncodeJSON ./codec:FuzzParseJSON \
	./codec/records:FuzzBatch ./codec/records:FuzzMessageSet ./codec/records:FuzzGzip \
	./codec/records:FuzzSnappy ./codec/records:FuzzLZ4 ./codec/records:FuzzZstd \
	./input:FuzzParse ./input:FuzzParseRepeat ./input:FuzzSplitFrames ./input:FuzzRoundTrip \
	./capture:FuzzRead ./capture:FuzzReassemble

fuzz-ci:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz $$pkg $$fn ($(FUZZTIME))"; \
		go test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) $$pkg >/tmp/kwire-fuzz.log 2>&1 || { cat /tmp/kwire-fuzz.log; exit 1; }; \
	done

# Longer local fuzzing: make fuzz FUZZTIME=5m
fuzz: FUZZTIME = 60s
fuzz: fuzz-ci

bench:
	go test -run='^$$' -bench=. -benchmem ./codec/... ./capture

# kwire beside its peers on the same bytes: kmsg + encoding/json, tshark.
bench-compare: build
	go run ./bench/compare -n 100000

# The playground's WebAssembly module, with its raw and gzip sizes.
wasm:
	mkdir -p $(DIST)
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o $(DIST)/kwire.wasm ./wasm
	cp $(GOROOT)/lib/wasm/wasm_exec.js $(DIST)/wasm_exec.js
	@echo "kwire.wasm: $$(wc -c < $(DIST)/kwire.wasm) bytes raw, $$(gzip -9 -c $(DIST)/kwire.wasm | wc -c) bytes gzip"

# The docs site and the playground as plain files in $(DIST).
site: wasm
	go run ./cmd/kwire site --out $(DIST) --wasm $(DIST)/kwire.wasm --wasm-exec $(DIST)/wasm_exec.js

# Build everything and serve it on 127.0.0.1.
serve: site
	go run ./cmd/kwire serve --dir $(DIST) --addr $(ADDR)
