package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/registry"
	"github.com/kwire/kwire/internal/registry/resolve"
	"github.com/kwire/kwire/internal/topicids"
)

// payloadFlags are the flags of the commands that decode records (decode,
// batch, pcap, proxy): how record keys and values are read, and where the
// schemas they name come from. Registry credentials come from the
// environment only (registry.EnvUser, EnvPassword, EnvToken).
type payloadFlags struct {
	mode     string
	registry string
	dir      string
	validate bool
	timeout  time.Duration
	// raw is --payloads bytes said: the keys and values of Kafka's
	// internal topics stay bytes too (codec.Options.
	// InternalTopicsAsBytes; kwire log's --kafka).
	raw bool
	// ids names topic ids (--topic-id, and for pcap and proxy the
	// Metadata responses they see): records of a topic named by id are
	// those of an internal topic when its name says so.
	ids *topicids.Names
	// retry is set by a long-running command (kwire proxy): a registry
	// that could not be reached is asked again after a backoff
	// (resolve.RetryFirst doubling to resolve.RetryMax), not never.
	retry bool
	// name is ids.Name, bound once: a method value made per frame is an
	// allocation per frame.
	name func([16]byte) string
}

func (p *payloadFlags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
	DurationVar(*time.Duration, string, time.Duration, string)
	Func(string, string, func(string) error)
}) {
	p.ids = new(topicids.Names)
	p.name = p.ids.Name
	p.registerPayloads(fs, "decoded")
	fs.Func("topic-id", "name a topic id (repeatable): `ID=NAME`, the id as Kafka prints it or as a UUID; Fetch 13+ and Produce 13+ name topics by id, and the records of Kafka's internal topics (__consumer_offsets...) are decoded by name. kwire pcap and proxy also learn ids from the Metadata responses they see", func(v string) error {
		id, name, err := topicids.ParseFlag(v)
		if err == nil {
			p.ids.Set(id, name)
		}
		return err
	})
}

// registerPayloads registers the payload flags alone, without --topic-id
// (kwire log's records name no topic ids), --payloads defaulting to mode
// ("" for kwire log: bytes, unless schemas are named).
func (p *payloadFlags) registerPayloads(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}, mode string) {
	help := "record keys and values: decoded (text, JSON, the schema registry's framing, Avro/Protobuf/JSON Schema with a schema; the records of Kafka's internal topics, __consumer_offsets..., through Kafka's schemas) or bytes (text or base64 only, internal topics' too)"
	if mode == "" {
		help += " (default: decoded when --schemas or --schema-registry is given, else bytes for an ordinary topic's keys and values, decoding every value costing a segment's throughput five times over; internal topics' are decoded all the same unless --payloads bytes or --kafka is given)"
	}
	fs.StringVar(&p.mode, "payloads", mode, help)
	fs.StringVar(&p.registry, "schema-registry", "", "read schemas by id from the Confluent-compatible registry at `URL` (credentials from "+registry.EnvUser+" and "+registry.EnvPassword+", or "+registry.EnvToken+")")
	fs.StringVar(&p.dir, "schemas", "", "read schemas from the files in `DIR` and its subfolders (a file's name says what it is, in any folder): ID.avsc, ID.proto, ID.json by schema id; TOPIC-value.avsc (-key, .proto, .json) for payloads without the registry's framing; "+
		"every .avsc, .proto and .json file is checked first, and one that cannot be used (it does not parse, with the files it refers to, or names a schema another file as near the top names too) is an error (exit 2) naming each such file and why; "+
		"a .json named as no schema that is plainly no JSON Schema (a package.json: JSON with none of JSON Schema's keywords, or text that is not JSON and names none) is skipped with a note; "+
		"folders are read "+strconv.Itoa(resolve.MaxFolderDepth)+" levels down, "+strconv.Itoa(resolve.MaxEntries)+" files and folders in all (a note says when that stops), hidden ones and node_modules not at all")
	fs.BoolVar(&p.validate, "validate", false, "check JSON Schema payloads against their schema (a warning when one does not match)")
	fs.DurationVar(&p.timeout, "schema-registry-timeout", registry.DefaultTimeout, "give up on a schema registry request after this long")
}

// registerServer registers the flags of kwire serve, whose API decodes
// payloads only with schemas its operator names: requests cannot name a
// registry (a public endpoint must not fetch the URLs callers give).
func (p *payloadFlags) registerServer(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
	DurationVar(*time.Duration, string, time.Duration, string)
}) {
	p.mode = "decoded"
	p.retry = true // a server runs for long: a registry that was down is tried again
	fs.StringVar(&p.registry, "schema-registry", "", "the API decodes record payloads with schemas by id from the Confluent-compatible registry at `URL` (credentials from "+registry.EnvUser+" and "+registry.EnvPassword+", or "+registry.EnvToken+"); callers cannot name one")
	fs.StringVar(&p.dir, "schemas", "", "the API decodes record payloads with the schema files in `DIR` (as kwire decode --schemas)")
	fs.BoolVar(&p.validate, "validate", false, "the API checks JSON Schema payloads against their schema")
	fs.DurationVar(&p.timeout, "schema-registry-timeout", registry.DefaultTimeout, "give up on a schema registry request after this long")
}

// serverHook is hook for kwire serve: nil unless a schema source is
// named, so that the API answers as the Worker's does by default.
func (p *payloadFlags) serverHook(stderr io.Writer) (payloadHook, error) {
	if err := p.validateNeedsSource(); err != nil {
		return nil, err
	}
	if p.registry == "" && p.dir == "" {
		return nil, nil
	}
	return p.hook(stderr)
}

// topicNames is Options.TopicNames for the ids --topic-id names (nil when
// none, unless learn: pcap and proxy add the ids they learn as they go).
func (p *payloadFlags) topicNames(learn bool) func([16]byte) string {
	if p.ids == nil || !learn && p.ids.Len() == 0 {
		return nil
	}
	return p.name
}

// setOptions sets what the payload flags say of o: hook reads keys and
// values, topic ids are named (learnt as they go when learn), and with
// --payloads bytes internal topics' keys and values stay bytes.
func (p *payloadFlags) setOptions(o *codec.Options, hook payloadHook, learn bool) {
	o.Payload, o.TopicNames, o.InternalTopicsAsBytes = hook, p.topicNames(learn), p.raw
}

// checkForm refuses the schema flags with a JSON form that reads no
// record payload: --kafka writes records as base64 (Kafka's form, which
// decodes nothing nested), and --records base64 or size leaves them
// undecoded, so --schemas, --schema-registry and --validate would be
// silently ignored. An error is a usage error, as --payloads bytes with
// schemas is.
func (p *payloadFlags) checkForm(jo jsonForm) error {
	if !jo.kafka && jo.records == codec.RecordsDecoded {
		return nil
	}
	var named []string
	if p.registry != "" {
		named = append(named, "--schema-registry")
	}
	if p.dir != "" {
		named = append(named, "--schemas")
	}
	if p.validate {
		named = append(named, "--validate")
	}
	if len(named) == 0 {
		return nil
	}
	if !jo.kafka {
		mode := "base64"
		if jo.records == codec.RecordsSize {
			mode = "size"
		}
		return errorf("--records %s leaves records undecoded and reads no record payload: drop %s, or --records %s", mode, strings.Join(named, " and "), mode)
	}
	return errorf("--kafka writes records as base64, Kafka's form, and reads no record payload: drop %s, or --kafka", strings.Join(named, " and "))
}

// payloadHook is what records call for each key and value.
type payloadHook = func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node)

// hook builds the payload reader the flags ask for (nil with --payloads
// bytes), saying on stderr what --schemas DIR skips. An error is a usage
// error.
func (p *payloadFlags) hook(stderr io.Writer) (payloadHook, error) {
	if err := p.validateNeedsSource(); err != nil {
		return nil, err
	}
	p.raw = p.mode == "bytes"
	if p.mode == "" {
		p.mode = "bytes"
		if p.registry != "" || p.dir != "" {
			p.mode = "decoded"
		}
	}
	switch p.mode {
	case "decoded":
	case "bytes":
		if p.registry != "" || p.dir != "" {
			return nil, errors.New("--payloads bytes reads no schemas: drop --schema-registry and --schemas")
		}
		return nil, nil
	default:
		return nil, errorf("--payloads must be decoded or bytes, not %q", p.mode)
	}
	var srcs resolve.Chain // the folder first, then the registry
	if p.dir != "" {
		d, err := registry.OpenDir(p.dir)
		if err != nil {
			return nil, err
		}
		if err := checkSchemaDir(p.dir, stderr); err != nil {
			return nil, err
		}
		srcs = append(srcs, d)
	}
	if p.registry != "" {
		o := registry.Options{Timeout: p.timeout}
		if p.retry {
			o.Retry, o.RetryMax = resolve.RetryFirst, resolve.RetryMax
		}
		c, err := registry.New(p.registry, o)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, c)
	}
	var src payload.Source
	if len(srcs) > 0 {
		src = srcs
	}
	return payloadHookOf(payload.NewDecoder(src, payload.Config{Validate: p.validate})), nil
}

// maxSchemaNotes bounds the files checkSchemaDir names as skipped; the
// rest are counted.
const maxSchemaNotes = 10

// checkSchemaDir checks every schema file of --schemas DIR and its
// subfolders before anything is decoded (resolve.Files.Scan, Check): a
// file that cannot be used (it does not read, or does not parse with the
// files it may refer to, or names a schema another file as near the top
// names too) is an error naming every such file and why, as a missing DIR
// is: it was found only when a record's lookup reached it, each record
// then failing on its own, with the rest decoded as if nothing were
// wrong. A file that is plainly no schema (a package.json among them, a
// copy of a schema deeper than the one read) is skipped, each said in a
// note, as what the folder bounds left unread is; files of other
// extensions (a README) are not schemas and are left alone.
func checkSchemaDir(dir string, stderr io.Writer) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("--schemas %v", fileError(dir, err))
	}
	defer root.Close()
	files := resolve.NewFiles(dir, root.FS())
	sc := files.Scan(true)
	bad := append([]string(nil), sc.Errs...)
	var skipped []string
	for _, name := range sc.Paths {
		err := files.Check(name)
		var ns *resolve.NotSchema
		switch {
		case errors.As(err, &ns):
			skipped = append(skipped, name+": "+ns.Why)
		case err != nil:
			bad = append(bad, name+": "+err.Error())
		}
	}
	for i, s := range skipped {
		if i == maxSchemaNotes {
			fmt.Fprintf(stderr, "kwire: --schemas %s: %d more files skipped as no schema\n", dir, len(skipped)-i)
			break
		}
		fmt.Fprintf(stderr, "kwire: --schemas %s: skipped %s\n", dir, s)
	}
	for _, n := range sc.Notes {
		fmt.Fprintf(stderr, "kwire: --schemas %s: %s\n", dir, n)
	}
	if len(bad) == 0 {
		return nil
	}
	what := "a schema file"
	if len(bad) > 1 {
		what = strconv.Itoa(len(bad)) + " schema files"
	}
	return errors.New("--schemas " + dir + ": " + what + " cannot be used (fix, or move out of the folder):\n  " + strings.Join(bad, "\n  "))
}

// validateNeedsSource refuses --validate without --schemas or
// --schema-registry, which would check nothing, silently.
func (p *payloadFlags) validateNeedsSource() error {
	if p.validate && p.registry == "" && p.dir == "" {
		return errors.New("--validate checks payloads against their schemas: name them with --schemas or --schema-registry")
	}
	return nil
}

// payloadHookOf adapts a payload.Decoder to the records hook.
func payloadHookOf(d *payload.Decoder) payloadHook {
	return d.Decode
}
