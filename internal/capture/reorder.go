package capture

// pending holds one direction's out-of-order segments, all after its next
// sequence number (within 2^30 of it, so any two compare by the sign of
// their difference), and gives them back in the order they are
// delivered: by sequence number, and of those that start at the same
// one, the longest first. A segment that starts where a buffered one
// does and is no longer than it (data and bytes not captured together)
// is a retransmission: covered says so, and it is never pushed.
//
// A binary heap: pushing and popping cost O(log n) comparisons whatever
// order, overlap or duplication the segments come in. (A slice kept
// sorted by shifting on each insertion cost a stream sent in reverse
// order quadratic time: 160,000 one-byte segments, 3.5 minutes.) The
// order is a strict total order over what it holds (two segments at one
// sequence number never have one length), so the delivery order is the
// sorted slice's exactly.
type pending struct {
	h []seg
	// longest maps each sequence number held to its longest segment's
	// length, for covered: the first of its segments to be popped.
	longest map[uint32]int
	// moves counts the comparisons made, for tests that bound the work.
	moves int
}

func (s *seg) span() int { return len(s.data) + s.missing }

// before reports whether a is delivered before b.
func before(a, b *seg) bool {
	if a.seq != b.seq {
		return int32(a.seq-b.seq) < 0
	}
	return a.span() > b.span()
}

func (p *pending) len() int { return len(p.h) }

// first is the segment delivered next; p must not be empty.
func (p *pending) first() *seg { return &p.h[0] }

// covered reports whether a segment of n bytes (data and bytes not
// captured) starting at seq is a retransmission of one held.
func (p *pending) covered(seq uint32, n int) bool {
	l, ok := p.longest[seq]
	return ok && l >= n
}

// push adds s, which covered does not cover.
func (p *pending) push(s seg) {
	if p.longest == nil {
		p.longest = make(map[uint32]int)
	}
	p.longest[s.seq] = s.span()
	p.h = append(p.h, s)
	i := len(p.h) - 1
	for i > 0 {
		up := (i - 1) / 2
		p.moves++
		if !before(&p.h[i], &p.h[up]) {
			break
		}
		p.h[i], p.h[up] = p.h[up], p.h[i]
		i = up
	}
}

// pop removes and returns the segment delivered next.
func (p *pending) pop() seg {
	s := p.h[0]
	n := len(p.h) - 1
	p.h[0] = p.h[n]
	p.h[n] = seg{}
	p.h = p.h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n {
			p.moves++
			if before(&p.h[c+1], &p.h[c]) {
				c++
			}
		}
		p.moves++
		if !before(&p.h[c], &p.h[i]) {
			break
		}
		p.h[i], p.h[c] = p.h[c], p.h[i]
		i = c
	}
	// The longest at its sequence number comes first: any shorter one
	// left there is popped right after it, the stream having reached
	// that number, so no segment starting there is pushed again.
	delete(p.longest, s.seq)
	if n == 0 {
		p.reset()
	}
	return s
}

// reset drops everything held.
func (p *pending) reset() {
	p.h, p.longest = nil, nil
}
