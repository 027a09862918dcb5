package topicids

import "strconv"

// FullNote is, the first time it is asked after an id was refused because
// MaxNames ids are known, a note saying so (for the session's user: a
// topic named by such an id keeps no name, so its records are not read as
// an internal topic's); "" before that, and after it was said once.
func (n *Names) FullNote() string {
	if n == nil {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.refused || n.told {
		return ""
	}
	n.told = true
	return "topic ids: " + strconv.Itoa(MaxNames) + " ids are known, the limit (MaxNames): ids named after that are not learnt, and the records of a topic named by one are read as an unnamed topic's"
}
