package payload

import (
	"bytes"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSON Schema payloads are JSON: the data is shown as it is, and checked
// against the schema (santhosh-tekuri/jsonschema) when the Config asks.

type jsonSchema struct {
	sch *jsonschema.Schema
}

// noLoader refuses every URL the schema names that its references do not
// hold: the package does no I/O.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("no reference holds " + strconv.Quote(url))
}

// baseURL is where the schema and its references are placed, so that
// relative $refs (a reference's name, as the registry gives it) resolve.
// Nothing is fetched from it.
const baseURL = "https://schemas.kwire.invalid/"

const mainURL = baseURL + "schema.json"

func compileJSONSchema(s *Schema) (*jsonSchema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s.Text))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(mainURL, doc); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var add func(s *Schema, depth int) error
	add = func(s *Schema, depth int) error {
		if depth > 32 {
			return errors.New("references nest deeper than 32")
		}
		for _, r := range s.References {
			if r.Schema == nil || seen[r.Name] {
				continue
			}
			seen[r.Name] = true
			d, err := jsonschema.UnmarshalJSON(strings.NewReader(r.Schema.Text))
			if err != nil {
				return errors.New("reference " + strconv.Quote(r.Name) + ": " + err.Error())
			}
			ref, err := url.Parse(r.Name)
			if err != nil {
				return errors.New("reference " + strconv.Quote(r.Name) + ": " + err.Error())
			}
			base, _ := url.Parse(baseURL)
			if err := c.AddResource(base.ResolveReference(ref).String(), d); err != nil {
				return err
			}
			if err := add(r.Schema, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(s, 0); err != nil {
		return nil, err
	}
	sch, err := c.Compile(mainURL)
	if err != nil {
		return nil, err
	}
	return &jsonSchema{sch: sch}, nil
}

// jsonSchemaPayload shows the JSON at p, and validates it when asked.
func (w *walker) jsonSchemaPayload(js *jsonSchema, p int, validate bool) {
	data := w.in.B[p:w.in.End]
	s := jsonScan{b: data, maxDepth: w.maxDepth}
	s.ws()
	ok := s.value(0)
	if ok {
		s.ws()
		if s.p < len(data) {
			ok = s.bad("bytes after the JSON value")
		}
	}
	if !ok {
		w.fail(p+s.p, "jsonschema: the data is not JSON: "+s.why)
		w.rest(p, "data")
		return
	}
	if validate {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err == nil {
			err = js.sch.Validate(inst)
		}
		if err != nil {
			w.warnAt(p, "jsonschema: the data does not match the schema: "+oneLine(err.Error()), false)
		}
	}
	w.member(`"decoded":`)
	w.jsonValue(p, w.in.End, "json")
}

// oneLine joins a library's multi-line message into one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
