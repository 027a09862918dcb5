package registry

import (
	"fmt"
	"os"
	"strconv"

	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/registry/resolve"
)

// Dir reads schemas from files in a folder and its subfolders (--schemas
// DIR; resolve.Files says how folders are read):
//
//	DIR/7.avsc, DIR/7.proto, DIR/7.json   the schema registered as id 7
//	                                      (Avro, Protobuf, JSON Schema)
//	DIR/orders-value.avsc (.proto, .json) the schema of topic orders'
//	DIR/orders-key.avsc                   values (keys) written without
//	                                      the registry's framing
//
// References: a .proto file's imports are files under DIR by their import
// path, from DIR or else from the importing file's folder
// (google/protobuf/*.proto are built in); an Avro schema may use the
// named types defined in DIR's other .avsc files (e.g.
// com.acme.Address.avsc); a JSON Schema's $refs name DIR's other .json
// files by their paths from its own folder. Nothing outside DIR is read (os.Root). These
// are resolve.Files' rules.
type Dir struct {
	files *resolve.Files
	name  string
}

// OpenDir opens the folder dir.
func OpenDir(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("--schemas: %v", err)
	}
	return &Dir{files: resolve.NewFiles(dir, r.FS()), name: dir}, nil
}

// SchemaByID reads DIR/<id>.avsc, .proto or .json.
func (d *Dir) SchemaByID(id int) (*payload.Schema, error) {
	s, err := d.files.SchemaByID(id)
	if s == nil && err == nil {
		n := strconv.Itoa(id)
		err = fmt.Errorf("%s holds no %s.avsc, %s.proto or %s.json", d.name, n, n, n)
	}
	return s, err
}

// SchemaFor reads DIR/<topic>-value (or -key) .avsc, .proto or .json;
// nil, nil when there is none.
func (d *Dir) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	return d.files.SchemaFor(topic, key)
}
