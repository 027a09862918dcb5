package site

import (
	"encoding/hex"
	"html/template"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// ---- index ----

// categoryOrder is the order the index lists the API categories in.
var categoryOrder = []string{"records", "consumer groups", "share groups", "transactions", "topics and partitions",
	"security and ACLs", "configuration and quotas", "cluster and KRaft"}

type indexCategory struct {
	ID   string
	Name string
	APIs []indexAPI
}

type indexAPI struct {
	Key        int16
	Name       string
	OldNames   []string
	Slug       string
	Versions   string
	Lo, Hi     int16
	Removed    string // versions Kafka 4.0 removed ("" none, "all" every one)
	Unstable   string
	Flexible   string // first flexible version, "" when never
	Playground string // the highest version's request example, relative to the root
	Releases   string // "4.2:13 4.1:13 ...": each release's highest version, newest first; ":c" after one only the controller speaks
	Latest     string // the newest release's highest version (releaseVersion), "" when it lacks the API
}

// indexData is the index page: the categories and the releases a column
// can show.
type indexPage struct {
	Cats     []indexCategory
	Releases []string
}

func indexData(apis []*schema.API) indexPage {
	rs := releases()
	var cats []indexCategory
	byCat := map[string]int{}
	for _, c := range categoryOrder {
		byCat[c] = len(cats)
		cats = append(cats, indexCategory{ID: "cat-" + slugText(c), Name: c})
	}
	for _, a := range apis {
		i, ok := byCat[a.Category]
		if !ok {
			byCat[a.Category] = len(cats)
			i = len(cats)
			cats = append(cats, indexCategory{ID: "cat-" + slugText(a.Category), Name: a.Category})
		}
		x := apiSummary(a)
		var parts []string
		for j, r := range rs {
			if v, ok := r.Max[a.Key]; ok {
				kv := r.Name + ":" + itoa(int(v))
				if r.Controller[a.Key] {
					kv += ":c"
				}
				parts = append(parts, kv)
				if j == 0 {
					x.Latest = releaseVersion(r, a.Key)
				}
			}
		}
		x.Releases = strings.Join(parts, " ")
		cats[i].APIs = append(cats[i].APIs, x)
	}
	p := indexPage{Cats: cats}
	for _, r := range rs {
		p.Releases = append(p.Releases, r.Name)
	}
	return p
}

func apiSummary(a *schema.API) indexAPI {
	r := a.Valid()
	x := indexAPI{Key: a.Key, Name: a.Name, Slug: Slug(a), Versions: r.String(), Lo: r.Lo, Hi: r.Hi,
		Removed: removedText(a)}
	for _, n := range a.Names {
		if n != a.Name {
			x.OldNames = append(x.OldNames, n)
		}
	}
	if !a.Request.Unstable.Empty() {
		x.Unstable = a.Request.Unstable.String()
	}
	for v := r.Lo; v <= r.Hi; v++ {
		if a.Request.Flexible(v) {
			x.Flexible = strconv.Itoa(int(v)) + "+"
			break
		}
	}
	if b, err := codec.ExampleFrame(a, r.Hi, false); err == nil {
		x.Playground = playgroundLink(a, r.Hi, false, b)
	}
	return x
}

func removedText(a *schema.API) string {
	r := a.Removed40
	switch {
	case r.Empty():
		return ""
	case r == a.Valid():
		return "all"
	}
	return r.String()
}

func slugText(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			out = append(out, c)
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		default:
			if len(out) > 0 && out[len(out)-1] != '-' {
				out = append(out, '-')
			}
		}
	}
	return string(out)
}

// playgroundLink opens the playground with a frame filled in, in the
// fragment format site/playground documents. The path is relative to the
// site root.
func playgroundLink(a *schema.API, v int16, response bool, frame []byte) string {
	dir := "request"
	if response {
		dir = "response"
	}
	return "playground/#hex=" + hex.EncodeToString(frame) + "&dir=" + dir + "&api=" + strconv.Itoa(int(a.Key)) + "&v=" + strconv.Itoa(int(v)) + "&size=yes"
}

// ---- one API ----

type apiVersionRow struct {
	V          int16
	Href       string
	ReqHeader  int16
	RespHeader int16
	Flexible   bool
	Removed    bool
	Unstable   bool
	BrokerSent bool   // brokers send it, clients do not (schema.API.BrokerSent)
	Since      string // the first Kafka release whose broker speaks it
	Changes    int
	Summary    []change
	KIPs       []kip  // the KIPs that introduced this version, when known
	Note       string // what the version brought
}

type apiData struct {
	API      indexAPI
	Category string
	Guide    string // the API's section of Kafka's protocol guide
	Rows     []apiVersionRow
	Releases []releaseSpan
}

func (b *builder) apiPage(a *schema.API) error {
	rs := releases()
	d := apiData{API: apiSummary(a), Category: a.Category, Releases: releaseSpans(a, rs), Guide: guideURL(a)}
	since := sinceRelease(a, rs)
	kips := versionKIPs()[a.Key]
	for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
		r := apiVersionRow{V: v, Href: "v" + itoa(int(v)) + ".html", ReqHeader: a.Request.HeaderVersion(v),
			RespHeader: a.Response.HeaderVersion(v), Flexible: a.Request.Flexible(v),
			Removed: a.Removed40.Contains(v), Unstable: a.Request.Unstable.Contains(v), Since: since[v],
			BrokerSent: a.BrokerSent.Contains(v), KIPs: kips[v].KIPs, Note: kips[v].Note}
		rc := changes(a.Request, v, "req")
		sc := changes(a.Response, v, "resp")
		for i := range rc {
			rc[i].Path = strings.TrimSpace("request " + rc[i].Path)
		}
		for i := range sc {
			sc[i].Path = strings.TrimSpace("response " + sc[i].Path)
		}
		r.Summary = append(rc, sc...)
		r.Changes = len(r.Summary)
		d.Rows = append(d.Rows, r)
	}
	return b.render("api", "api/"+Slug(a)+"/index.html", page{Title: a.Name + " (key " + itoa(int(a.Key)) + ")", Nav: "index", Body: d})
}

// ---- one API version ----

type versionLink struct {
	V       int16
	Href    string
	Current bool
}

// versionNav links a version's page (vN.html) to its siblings: every
// version in r, and the one before and after v.
type versionNav struct {
	Versions   []versionLink
	Prev, Next string
}

func newVersionNav(r schema.Range, v int16) versionNav {
	var n versionNav
	for x := r.Lo; x <= r.Hi; x++ {
		n.Versions = append(n.Versions, versionLink{V: x, Href: "v" + itoa(int(x)) + ".html", Current: x == v})
	}
	if v > r.Lo {
		n.Prev = "v" + itoa(int(v-1)) + ".html"
	}
	if v < r.Hi {
		n.Next = "v" + itoa(int(v+1)) + ".html"
	}
	return n
}

type versionData struct {
	API      indexAPI
	Category string
	V        int16
	versionNav
	Removed bool
	// RemovedNote says what a removed version's page must add: that
	// brokers still advertise it, where they do.
	RemovedNote string
	Unstable    bool
	Guide       string // the API's section of Kafka's protocol guide
	KIPs        []kip  // the KIPs that introduced this version, when known
	Note        string // what the version brought
	// BrokerSent says that brokers send this version and clients do not
	// (schema.API.BrokerSent); ClientVersions are the versions clients
	// send then.
	BrokerSent     bool
	ClientVersions string
	Dirs           []*dirData
}

type gridData struct {
	Buf     int
	Caption string
	HTML    template.HTML // pre-escaped by render.AppendGridHTML
}

type dirData struct {
	ID            string // "request" or "response"
	Prefix        string // "req" or "resp": anchor prefix
	Title         string // "Produce Request"
	Message       string // "ProduceRequest"
	HeaderVersion int16
	HeaderTitle   string
	HeaderBNF     []bnfLine
	Flexible      bool
	Hex           string
	Hexdump       string // xxd's layout
	Schema        template.HTML
	SchemaSource  string
	Size          int
	Grids         []gridData
	Tree          *treeNode
	JSON          template.HTML // chroma output: every token escaped
	BNF           []bnfLine
	Fields        []fieldRow
	Changes       []change
	First         bool // the first version: nothing to compare with
	Playground    string
	Error         string
}

// treeNode is a decoded node for the expanded tree.
type treeNode struct {
	ID    int // pre-order index, as render's cells number nodes
	Name  string
	Type  string
	Start int
	End   int
	Buf   int
	Value string
	Warn  []string
	Bits  []string // bit fields of this node's bytes
	Kids  []*treeNode
}

func (b *builder) versionPage(a *schema.API, v int16) error {
	vn := versionKIPs()[a.Key][v]
	d := versionData{API: apiSummary(a), Category: a.Category, V: v,
		Removed: a.Removed40.Contains(v), Unstable: a.Request.Unstable.Contains(v),
		Guide: guideURL(a), KIPs: vn.KIPs, Note: vn.Note, versionNav: newVersionNav(a.Valid(), v)}
	if d.Removed {
		d.RemovedNote = advertisedRemoved[a.Key]
	}
	if bs := a.BrokerSent; bs.Contains(v) {
		d.BrokerSent = true
		if bs.Lo > a.Valid().Lo {
			d.ClientVersions = schema.Range{Lo: a.Valid().Lo, Hi: bs.Lo - 1}.String()
		}
	}
	for _, resp := range []bool{false, true} {
		dd, err := direction(a, v, resp)
		if err != nil {
			return err
		}
		d.Dirs = append(d.Dirs, dd)
	}
	return b.render("version", VersionPath(a, v), page{Title: a.Name + " v" + itoa(int(v)), Nav: "index", Body: d})
}

// advertisedRemoved notes the APIs whose versions Kafka 4.0 removed but
// its brokers still advertise in ApiVersions.
var advertisedRemoved = map[int16]string{
	schema.KeyProduce: "(but 4.x brokers still advertise Produce from v0 in ApiVersions, because librdkafka took a minimum of 3 to mean a broker without idempotence, KAFKA-18659; they refuse v0-2 when sent)",
}

// ExampleFrame is the example frame a version page draws, decoded as the
// page decodes it (records fields opened into batches).
func ExampleFrame(a *schema.API, v int16, response bool) ([]byte, *codec.Frame, error) {
	b, err := codec.ExampleFrame(a, v, response)
	if err != nil {
		return nil, nil, err
	}
	f, err := codec.Decode(b, codec.Options{Response: response, APIKey: a.Key, Version: v})
	return b, f, err
}

func direction(a *schema.API, v int16, resp bool) (*dirData, error) {
	m := a.Request
	hdr := schema.RequestHeader()
	d := &dirData{ID: "request", Prefix: "req", Title: a.Name + " Request"}
	if resp {
		m, hdr = a.Response, schema.ResponseHeader()
		d.ID, d.Prefix, d.Title = "response", "resp", a.Name+" Response"
	}
	d.Message = m.Name
	def := m.At(v)
	if def == nil {
		d.Error = "no layout for this version"
		return d, nil
	}
	d.Flexible = m.Flexible(v)
	d.HeaderVersion = m.HeaderVersion(v)
	hname := "Request Header"
	if resp {
		hname = "Response Header"
	}
	d.HeaderTitle = hname + " (Version: " + itoa(int(d.HeaderVersion)) + ")"
	if hd := hdr.At(d.HeaderVersion); hd != nil {
		h := "../../protocol.html#reqh"
		if resp {
			h = "../../protocol.html#resph"
		}
		d.HeaderBNF = bnf(d.HeaderTitle, hd.Root, d.HeaderVersion, hdr.Flexible(d.HeaderVersion), h+itoa(int(d.HeaderVersion)))
	}
	d.BNF = bnf(d.Title+" (Version: "+itoa(int(v))+")", def.Root, v, d.Flexible, "#"+d.Prefix)
	d.Fields = fieldRows(a.Key, m, def.Root, v, d.Flexible, d.Prefix)
	d.Changes = changes(m, v, d.Prefix)
	d.First = v == m.Valid.Lo

	frame, f, err := ExampleFrame(a, v, resp)
	if frame == nil {
		return nil, err
	}
	d.Hex = hex.EncodeToString(frame)
	d.Hexdump = xxd(frame)
	d.Size = len(frame)
	if js := schemaJSON(m, v); js != nil {
		h, err := highlightJSON(js)
		if err != nil {
			return nil, err
		}
		d.Schema = template.HTML(h)
		d.SchemaSource = m.At(v).Source
	}
	d.Playground = playgroundLink(a, v, resp, frame)
	if err != nil {
		d.Error = err.Error()
	}
	if f == nil {
		return d, nil
	}
	d.Grids = grids(f, "the frame")
	id := 0
	d.Tree = buildTree(f.Root, a.Key, &id)
	h, err := highlightJSON(jsontext.Indent(nil, f.AppendJSON(nil)))
	if err != nil {
		return nil, err
	}
	d.JSON = template.HTML(h)
	return d, nil
}

// grids draws every buffer of a frame: the input, then any derived
// (decompressed) buffers.
func grids(f *codec.Frame, what string) []gridData {
	var out []gridData
	for i := range f.Buffers {
		cells := render.Cells(f, i)
		if len(cells) == 0 {
			continue
		}
		rows := render.Layout(cells, 4, 96, nil)
		caption := what + ", " + strconv.Itoa(len(f.Buffers[0])) + " bytes"
		if i > 0 {
			caption = "derived buffer " + strconv.Itoa(i) + " (decompressed), " + strconv.Itoa(len(f.Buffers[i])) + " bytes"
		}
		out = append(out, gridData{Buf: i, Caption: caption, HTML: template.HTML(render.AppendGridHTML(nil, cells, rows, i))})
	}
	return out
}

// buildTree converts a decoded subtree, numbering nodes in pre-order as
// render numbers cells. Children that view bits of their parent's bytes
// (record attributes) become notes on the parent, as the grid draws them.
func buildTree(n *tree.Node, apiKey int16, id *int) *treeNode {
	t := &treeNode{ID: *id, Name: n.Name, Type: n.Type, Start: n.Start, End: n.End, Buf: n.Buf, Warn: n.Warnings}
	*id++
	if n.BitView() {
		for _, b := range n.Children {
			*id++
			t.Bits = append(t.Bits, b.Name+" ("+b.Type+") = "+render.ShortValue(b, apiKey))
		}
		t.Value = render.ShortValue(n, apiKey)
		return t
	}
	if n.Field != nil {
		t.Name = n.Field.JSON
	}
	if n.Role == tree.RoleElement {
		t.Name = "[" + strconv.Itoa(n.Index) + "]"
	}
	if len(n.Children) == 0 || n.Kind == schema.Records || n.Kind == schema.Bytes {
		t.Value = render.ShortValue(n, apiKey)
	}
	for _, c := range n.Children {
		t.Kids = append(t.Kids, buildTree(c, apiKey, id))
	}
	return t
}
