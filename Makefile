# Thin targets over go commands; each line is something anyone can type.
SCHEMAS ?= ../shared/kafka-message-schemas
FUZZTIME ?= 3000x

.PHONY: build generate check-generated test fuzz fuzz-ci bench

build:
	go build -o bin/kwire ./cmd/kwire

generate:
	cd codec/schema && go run gen.go -schemas ../../$(SCHEMAS) -out tables_gen.go

# Regenerates into a temporary file and fails when the committed tables differ.
check-generated:
	cd codec/schema && go run gen.go -schemas ../../$(SCHEMAS) -out /tmp/kwire_tables_gen.go && \
		diff -q tables_gen.go /tmp/kwire_tables_gen.go >/dev/null || \
		{ echo "codec/schema/tables_gen.go is stale: run make generate"; exit 1; }

test: fuzz-ci
	go test -count=1 ./...

# Each fuzz target for a fixed number of inputs, as CI runs them.
fuzz-ci:
	go test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) ./codec
	go test -run='^$$' -fuzz='^FuzzEncodeJSON$$' -fuzztime=$(FUZZTIME) ./codec

# Longer local fuzzing: make fuzz FUZZTIME=5m
fuzz: FUZZTIME = 60s
fuzz: fuzz-ci

bench:
	go test -run='^$$' -bench=. -benchmem ./codec/...
