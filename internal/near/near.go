// Package near finds the name a mistyped one was meant to be: the CLI's
// API names and flags, the JSON API's query parameters.
package near

import "strings"

// Nearest is the answer of the name each offers (try(alias, answer))
// that name is a slip away from, case aside: a letter or two wrong,
// missing or extra, one in a name under 5 letters; "" when none is (or
// name is over 64 bytes, not worth comparing).
func Nearest(name string, each func(try func(alias, answer string))) string {
	n := strings.ToLower(name)
	best, dist := "", 3
	if len(n) < 5 {
		dist = 2 // one slip in a short name
	}
	if len(n) > 64 {
		return ""
	}
	each(func(alias, answer string) {
		if d := Distance(n, strings.ToLower(alias)); d < dist {
			best, dist = answer, d
		}
	})
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
