module github.com/kwire/kwire

go 1.26.8

require (
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/bufbuild/protocompile v0.14.1
	github.com/google/gopacket v1.1.19
	github.com/google/jsonschema-go v0.4.3
	github.com/hamba/avro/v2 v2.31.0
	github.com/klauspost/compress v1.18.7
	github.com/linkedin/goavro/v2 v2.15.0
	github.com/pierrec/lz4/v4 v4.1.26
	github.com/stretchr/testify v1.11.1
	github.com/syumai/workers v0.32.0
	github.com/twmb/franz-go v1.21.6
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260515175617-8268a5d078c0
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
	golang.org/x/crypto v0.51.0
	golang.org/x/net v0.53.0
	golang.org/x/sys v0.44.0
	golang.org/x/term v0.43.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
	github.com/go-viper/mapstructure/v2 v2.4.0 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
