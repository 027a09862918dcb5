package tree

// Find returns the child of n that holds the field named name, by Kafka's
// name ("TopicId") or by the JSON name ("topicId"), looking inside the
// tagged-field section too; nil when there is none. Nodes that are not
// schema fields (header, body, the parts of record batches) match by Name;
// a wrapper message's "messages" (its decompressed message set, as value
// JSON calls it) is found too.
func (n *Node) Find(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name || (c.Field != nil && c.Field.JSON == name) {
			return c
		}
	}
	for _, c := range n.Children {
		if c.Role == RoleTags {
			if t := c.Find(name); t != nil {
				return t
			}
		}
	}
	if name == "messages" {
		if v := n.Child("value"); v != nil && len(v.Children) == 1 && v.Children[0].Name == "inflated" {
			return v.Children[0]
		}
	}
	return nil
}

// Elem returns element i of an array node, entry i of a records field or
// message set (a batch, a message, or bytes left undecoded), record i of a
// batch's records (inside their decompressed buffer when compressed), or
// header i of a record: the i-th item of the list value JSON shows there.
// nil when there is no such item.
func (n *Node) Elem(i int) *Node {
	if n == nil || i < 0 {
		return nil
	}
	kids := n.Children
	if len(kids) == 1 && kids[0].Name == "inflated" {
		kids = kids[0].Children
	}
	onlyRecords := n.Role == RoleRecord && n.Name == "records" // a batch's records: JSON lists only the records
	k := 0
	for _, c := range kids {
		switch {
		case c.Role == RoleElement:
		case onlyRecords && c.Name != "record":
			continue
		case c.Role == RoleRecord || c.Role == RoleRaw:
		default:
			continue
		}
		if k == i {
			return c
		}
		k++
	}
	return nil
}

// Lookup follows a path from n: field names (JSON's or Kafka's) joined by
// dots, each optionally followed by [i] indexes, as in error paths and
// value JSON: "body.topics[0].partitions[2]" from a frame's root,
// "partitions[2].errorCode" from a topic. It returns nil when a step is
// missing or the path is malformed.
func (n *Node) Lookup(path string) *Node {
	cur := n
	for i := 0; i < len(path) && cur != nil; {
		switch path[i] {
		case '.':
			i++
			if i == len(path) || path[i] == '.' || path[i] == '[' {
				return nil
			}
		case '[':
			j := i + 1
			idx := 0
			for j < len(path) && path[j] >= '0' && path[j] <= '9' && idx < 1<<30 {
				idx = idx*10 + int(path[j]-'0')
				j++
			}
			if j == i+1 || j == len(path) || path[j] != ']' {
				return nil
			}
			cur = cur.Elem(idx)
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			cur = cur.Find(path[i:j])
			i = j
		}
	}
	if path == "" {
		return nil
	}
	return cur
}
